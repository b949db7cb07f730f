// An event decided in OMP's own process. When every hook an event kind runs is a
// memoryless built-in gate (the engine's answers name them: HookedEvents.local), the
// verdict is the same function of the same input wherever it is computed, and waiting
// for the engine's would cost OMP a round trip to another process between its own
// work. The dispatch still goes to the engine at once (its records, its turn-end
// rules), and its answer is compared with this one when it comes (adapter/runtime.ts).
// Only the engine's stop rules are mirrored here: built-in gates in registry order,
// the first refusal ends.
import { DispatchPayload, parseEvent, type DispatchResult, type HookResult, type LocalHooks } from "../protocol/engine.ts";
import { toHookTargets } from "../claude/hook-input.ts";
import type { GateContext } from "../gates/types.ts";
import { HookEntry } from "../registry/registry.ts";
import { aggregate } from "./aggregate.ts";
import { round } from "./dispatch-run.ts";
import { GateRuns } from "./gate-run.ts";
import { judgeAnswer } from "./hook-answer.ts";

/** What an engine answer said OMP's process may decide, its entries checked. */
export interface LocalPlan {
  generation: number;
  releaseId: string | null;
  byEvent: ReadonlyMap<string, HookEntry[]>;
}

/** The plan in an answer's `hookedEvents.local`; undefined when there is none or an entry is not a registry entry. */
export function localPlan(local: LocalHooks | undefined): LocalPlan | undefined {
  if (local === undefined) return undefined;
  const byEvent = new Map<string, HookEntry[]>();
  for (const [kind, entries] of Object.entries(local.byEvent)) {
    const hooks: HookEntry[] = [];
    for (const entry of entries) {
      const parsed = HookEntry.safeParse(entry);
      if (!parsed.success || parsed.data.builtin === undefined) return undefined;
      hooks.push(parsed.data);
    }
    byEvent.set(kind, hooks);
  }
  return { generation: local.generation, releaseId: local.releaseId, byEvent };
}

export class LocalDecisions {
  private readonly gates: GateRuns;
  /** Events decided here (for /tama_status). */
  decided = 0;

  constructor(context: GateContext) {
    this.gates = new GateRuns(context);
  }

  /**
   * The verdict on `eventName` from the plan's hooks; undefined when it must come from
   * the engine: no plan for the kind, a payload the engine would refuse, a gate that
   * failed (the engine says so, once).
   */
  async decide(eventName: string, payload: Record<string, unknown>, plan: LocalPlan): Promise<DispatchResult | undefined> {
    const event = parseEvent(eventName);
    const hooks = event === undefined || event.kind !== "stop" ? undefined : plan.byEvent.get(event.kind);
    if (event === undefined || hooks === undefined) return undefined;
    const parsed = DispatchPayload.safeParse(payload);
    if (!parsed.success) return undefined;
    const shaped = toHookTargets(event, parsed.data);
    const target = shaped.ok ? shaped.targets[0] : undefined;
    if (target === undefined) return undefined;
    const session = typeof parsed.data.session_id === "string" && parsed.data.session_id.length > 0 ? parsed.data.session_id : null;
    const began = performance.now();
    const results: HookResult[] = [];
    for (const hook of hooks) {
      const started = performance.now();
      const judged = judgeAnswer(hook, await this.gates.run(hook, hook.builtin ?? "", target.input));
      results.push({ hook: hook.id, startMs: round(started - began), builtin: true, ms: round(performance.now() - started), ...judged });
      if (judged.outcome === "block" || judged.outcome === "failed-closed") break;
    }
    if (results.some((r) => r.outcome === "failed-open" || r.outcome === "failed-closed")) return undefined;
    this.decided += 1;
    return aggregate({ event, session }, { number: plan.generation, releaseId: plan.releaseId }, results);
  }
}
