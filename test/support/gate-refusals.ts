// The built-in pre_tool_use gates that refuse one OMP tool call, mapped and matched as
// the engine maps and matches it: the shared way unit tests ask "is this refused, by whom".
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { toHookTargets } from "../../modules/claude/hook-input.ts";
import { matches } from "../../modules/engine/matching.ts";
import { builtinGates } from "../../modules/gates/index.ts";
import { parseEvent, type DispatchPayload } from "../../modules/protocol/engine.ts";
import type { HookEntry } from "../../modules/registry/registry.ts";

export interface GatePlace {
  /** The session's cwd. */
  project: string;
  tamaHome: string;
  /** HOME for the gates (a scratch home, so the real one is never named). */
  home: string;
  /** Only the gates a new install turns on (default: every built-in gate). */
  defaultsOnly?: boolean;
}

/** Ids of the gates that refuse `tool` called with `input` (payload fields in `extra`); a mapping refusal as `unmapped: …`. */
export async function refusingGates(tool: string, input: Record<string, unknown>, place: GatePlace, extra: Record<string, unknown> = {}): Promise<string[]> {
  const event = parseEvent(`pre_tool_use:${tool}`);
  if (event === undefined) throw new Error(`no event for ${tool}`);
  const mapped = toHookTargets(event, { session_id: "s1", cwd: place.project, tool_name: tool, tool_input: input, ...extra } as DispatchPayload);
  if (!mapped.ok) return [`unmapped: ${mapped.error}`];
  const refused = new Set<string>();
  for (const target of mapped.targets) {
    for (const gate of builtinGates()) {
      if (!gate.events.includes("pre_tool_use") || (place.defaultsOnly === true && gate.onByDefault === false)) continue;
      if (!matches({ tools: gate.tools ?? "any" } as HookEntry, target)) continue;
      const options = gate.parseOptions ? gate.parseOptions(undefined) : { ok: true as const, options: undefined };
      const verdict = await gate.evaluate(target.input, { tamaHome: place.tamaHome, env: { ...process.env, HOME: place.home } }, options.ok ? options.options : undefined);
      if (verdict.decision === "block") refused.add(gate.id);
    }
  }
  return [...refused];
}

/** A scratch project on a topic branch with `files` (path → text; a path ending in `/` a folder), a scratch home, and how to ask which gates refuse a bash command there. */
export interface ScratchProject {
  root: string;
  project: string;
  bash(command: string): Promise<string[]>;
  remove(): void;
}

export function scratchProject(name: string, files: Readonly<Record<string, string>>): ScratchProject {
  const root = mkdtempSync(path.join(os.tmpdir(), `tama-${name}-`));
  const project = path.join(root, "proj");
  const place: GatePlace = { project, tamaHome: path.join(root, "home", ".tama"), home: path.join(root, "home"), defaultsOnly: true };
  mkdirSync(place.tamaHome, { recursive: true });
  for (const [file, text] of Object.entries({ ".git/HEAD": "ref: refs/heads/topic\n", ...files })) {
    const at = path.join(project, file);
    mkdirSync(file.endsWith("/") ? at : path.dirname(at), { recursive: true });
    if (!file.endsWith("/")) writeFileSync(at, text);
  }
  return { root, project, bash: (command) => refusingGates("bash", { command }, place), remove: () => rmSync(root, { recursive: true, force: true }) };
}
