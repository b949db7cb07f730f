// Which hook takes which hook input of a dispatch, in the engine and in a decision
// taken in OMP's own process (local-decision.ts) alike.
import type { HookTarget } from "../claude/hook-input.ts";
import type { HookEntry } from "../registry/registry.ts";

/** Why a session started (SessionStart's `source`) or ended (SessionEnd's `reason`); "" on other events. */
function sessionWhy(input: HookTarget["input"]): string {
  const why = input.hook_event_name === "SessionStart" ? input.source : input.hook_event_name === "SessionEnd" ? input.reason : undefined;
  return typeof why === "string" ? why : "";
}

/** Whether a hook's tool matcher takes a target (an event without a tool takes every hook). */
export function matches(hook: HookEntry, target: HookTarget): boolean {
  if (hook.results !== undefined && target.failed !== undefined && (hook.results === "failure") !== target.failed) return false;
  if (hook.when !== undefined && !hook.when.includes(sessionWhy(target.input))) return false;
  if (target.kind === "other" && target.names.length === 0) return true;
  const matcher = hook.tools;
  if (matcher === "any") return true;
  // Code execution runs commands and writes files: both shell and write hooks see it.
  if (matcher === "shell" || matcher === "write") return target.kind === matcher || target.kind === "code";
  const names = target.names.map((n) => n.toLowerCase());
  return matcher.some((pattern) => {
    const p = pattern.toLowerCase();
    return p.endsWith("*") ? names.some((n) => n.startsWith(p.slice(0, -1))) : names.includes(p);
  });
}
