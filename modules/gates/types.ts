// What a built-in gate is: a policy the engine runs in-process (no spawn), also
// runnable alone as `tama hook <id>` with a Claude-shaped payload on stdin.
import type { HookInput } from "../protocol/hook-input.ts";
import type { EventKind } from "../protocol/engine.ts";

export type GateVerdict = { decision: "pass" } | { decision: "block"; reason: string };

export interface GateContext {
  /** Where Tama keeps its state ($TAMA_HOME). */
  tamaHome: string;
}

export interface BuiltinGate {
  id: string;
  description: string;
  /** Events the gate reads; a registry entry may narrow them, never widen them. */
  events: readonly EventKind[];
  evaluate(input: HookInput, context: GateContext): GateVerdict | Promise<GateVerdict>;
}
