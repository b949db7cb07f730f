// A hook's `updatedInput` is in Claude's field names (Bash `command`, Write
// `file_path`/`content`, …); OMP runs the call with its own. This puts a rewrite back
// in OMP's names, or says why it cannot, so a rewrite is never dropped unseen.
import { toolKind, type DeclaredToolKinds } from "../tools/declaration.ts";

export type OmpRewrite = { ok: true; input: Record<string, unknown> } | { ok: false; why: string };

/** Claude's field → OMP's, where they differ. */
const RENAMED: Readonly<Record<string, string>> = { file_path: "path" };

export function ompInputOf(toolName: string, ompInput: Record<string, unknown>, updated: Record<string, unknown>, declared?: DeclaredToolKinds): OmpRewrite {
  const kind = toolKind(toolName, declared);
  const lower = toolName.toLowerCase();
  const next: Record<string, unknown> = { ...ompInput };
  const unknown: string[] = [];
  for (const [key, value] of Object.entries(updated)) {
    const ompKey = RENAMED[key] ?? key;
    // A shell call's command, a whole-file write's path and content, a read's path: the fields both sides share.
    const shared =
      ompKey in ompInput ||
      (kind === "shell" && ompKey === "command") ||
      (lower === "write" && (ompKey === "path" || ompKey === "content")) ||
      (lower === "read" && ompKey === "path");
    if (!shared) unknown.push(key);
    else next[ompKey] = value;
  }
  if (unknown.length > 0) return { ok: false, why: `OMP's ${toolName} has no field for ${unknown.map((k) => JSON.stringify(k)).join(", ")}` };
  return { ok: true, input: next };
}
