// An event decided in OMP's own process. When every hook an event kind runs is a
// memoryless built-in gate (the engine's answers name them: HookedEvents.local), the
// verdict is the same function of the same input wherever it is computed, and waiting
// for the engine's would cost OMP a round trip to another process between its own
// work. The dispatch still goes to the engine at once (its records, its turn-end
// rules), and its answer is compared with this one when it comes (adapter/runtime.ts).
// The engine's rules for the kinds decided here are mirrored: a stop's built-in gates
// in registry order, the first refusal ends; a tool call's or a result's hooks per hook
// input (target), each that matches it in registry order, the first refusal or ask ends.
import { MAX_FRAME_BYTES, parseEvent, plainDispatchPayload, type DispatchResult, type HookResult, type LocalHooks } from "../protocol/engine.ts";
import { toHookTargets } from "../claude/hook-input.ts";
import type { GateContext } from "../gates/types.ts";
import { HookEntry, ToolKinds } from "../registry/registry.ts";
import { aggregate } from "./aggregate.ts";
import { round } from "./dispatch-run.ts";
import { GateRuns } from "./gate-run.ts";
import { judgeAnswer } from "./hook-answer.ts";
import { matches } from "./matching.ts";

/** What an engine answer said OMP's process may decide, its entries checked. */
export interface LocalPlan {
  generation: number;
  releaseId: string | null;
  byEvent: ReadonlyMap<string, HookEntry[]>;
  toolKinds?: ToolKinds;
  registry: string;
  hookFiles: readonly string[];
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
  const toolKinds = local.toolKinds === undefined ? undefined : ToolKinds.safeParse(local.toolKinds);
  if (toolKinds !== undefined && !toolKinds.success) return undefined;
  return {
    generation: local.generation,
    releaseId: local.releaseId,
    byEvent,
    ...(toolKinds !== undefined ? { toolKinds: toolKinds.data } : {}),
    registry: local.registry,
    hookFiles: local.hookFiles,
  };
}

/** The kinds this module decides, and how each runs its hooks. */
const KINDS = new Set(["stop", "pre_tool_use", "post_tool_use"]);

export class LocalDecisions {
  private readonly gates = new GateRuns();
  /** Events decided here (for /tama_status). */
  decided = 0;

  constructor(private readonly context: { tamaHome: string; env?: NodeJS.ProcessEnv }) {}

  /**
   * The verdict on `eventName` from the plan's hooks; undefined when it must come from
   * the engine: no plan for the kind, a payload the engine would refuse, a gate that
   * failed (the engine says so, once). `payloadJson`: the payload's JSON, when the
   * caller has it (it is sent to the engine as it is).
   */
  async decide(eventName: string, payload: Record<string, unknown>, plan: LocalPlan, payloadJson: string = JSON.stringify(payload)): Promise<DispatchResult | undefined> {
    const decided = await this.decideAgain(eventName, payload, plan, payloadJson);
    if (decided !== undefined) this.decided += 1;
    return decided;
  }

  /** The same verdict, not counted as an event decided here (local-warm-up.ts). */
  async decideAgain(eventName: string, payload: Record<string, unknown>, plan: LocalPlan, payloadJson: string): Promise<DispatchResult | undefined> {
    const event = parseEvent(eventName);
    const hooks = event === undefined || !KINDS.has(event.kind) ? undefined : plan.byEvent.get(event.kind);
    if (event === undefined || hooks === undefined) return undefined;
    if (!plainDispatchPayload(payload)) return undefined;
    // A request the engine would not read (too large for one frame) fails closed there: not passed here.
    if (payloadJson.length > MAX_FRAME_BYTES / 4) return undefined;
    // A call that cannot be read is refused by the engine, by name.
    const shaped = toHookTargets(event, { ...payload, tool_name: event.tool ?? payload.tool_name }, plan.toolKinds);
    if (!shaped.ok || shaped.targets.length === 0) return undefined;
    const session = typeof payload.session_id === "string" && payload.session_id.length > 0 ? payload.session_id : null;
    const context: GateContext = { ...this.context, registry: plan.registry, hookFiles: () => plan.hookFiles };
    const began = performance.now();
    const results: HookResult[] = [];
    const stop = event.kind === "stop";
    const targets = stop ? shaped.targets.slice(0, 1) : shaped.targets;
    const several = !stop && targets.length > 1;
    run: for (const target of targets) {
      for (const hook of hooks) {
        if (!stop && !matches(hook, target)) continue;
        const started = performance.now();
        const ran = this.gates.run(hook, hook.builtin ?? "", target.input, context);
        const judged = judgeAnswer(hook, ran instanceof Promise ? await ran : ran);
        const named = several && target.target ? { target: target.target } : {};
        results.push({ hook: hook.id, startMs: round(started - began), ...named, builtin: true, ms: round(performance.now() - started), ...judged });
        if (judged.outcome === "block" || judged.outcome === "failed-closed" || (!stop && judged.outcome === "ask")) break run;
      }
    }
    // A gate that failed is the engine's to report, once.
    if (results.some((r) => r.outcome === "failed-open" || r.outcome === "failed-closed")) return undefined;
    return aggregate({ event, session }, { number: plan.generation, releaseId: plan.releaseId }, results);
  }
}
