// What a built-in gate is: a policy the engine runs in-process (no spawn), also
// runnable alone as `tama hook <id>` with a Claude-shaped payload on stdin.
import type { EventKind } from "../protocol.ts";

/** A Claude-Code-shaped hook input, as every hook (built-in or command) receives it. */
export type HookInput = {
  session_id?: string;
  hook_event_name: string;
  cwd: string;
  tool_name?: string;
  tool_input?: Record<string, unknown>;
  tool_response?: unknown;
  tool_use_id?: string;
  prompt?: string;
  stop_hook_active?: boolean;
  transcript_path?: string;
  /** OMP's own spelling of the call, beside Claude's. */
  omp?: { tool_name: string; tool_input: unknown; target?: string };
  [key: string]: unknown;
};

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
