// The registry `tama install` lays down when none exists: the built-in gates that are
// on by default (`tama hooks builtins` lists them all, with their options). Gates that
// refuse a call fail closed (a gate that throws refuses); the ones that only read or
// add context fail open.
import { builtinGates } from "../gates/index.ts";
import type { BuiltinGate } from "../gates/types.ts";
import type { HookEntry, RegistryFile } from "./registry.ts";

/** How each default gate resolves when it cannot give a verdict. */
const FAIL_OPEN = new Set(["block-open-todos", "block-text-outside-tool-calls", "redact-secrets", "repeated-call-loop"]);

function entryOf(gate: BuiltinGate): HookEntry {
  return {
    id: gate.id,
    description: gate.description,
    events: [...gate.events],
    tools: gate.tools ?? "any",
    builtin: gate.id,
    timeoutMs: 5_000,
    failMode: FAIL_OPEN.has(gate.id) ? "open" : "closed",
    enabled: true,
  };
}

/** The gates a new install turns on. */
export function defaultGateIds(): string[] {
  return builtinGates()
    .filter((gate) => gate.onByDefault !== false)
    .map((gate) => gate.id);
}

export function defaultRegistry(releaseId: string | null): RegistryFile {
  const on = new Set(defaultGateIds());
  return {
    schema: 1,
    release: releaseId === null ? null : { id: releaseId },
    hooks: builtinGates()
      .filter((gate) => on.has(gate.id))
      .map(entryOf),
  };
}
