// The dispatch pipeline: refresh the registry, select the event's hooks, shape the
// Claude Code input, run the hooks in their order, and aggregate their results
// into one decision. The lifecycle rules may end a dispatch midway (lifecycle.ts).
import { createHash } from "node:crypto";
import { toHookTargets, type HookTarget, type HookTargetsResult } from "../claude/hook-input.ts";
import type { DeclaredToolKinds } from "../tools/declaration.ts";
import {
  isToolEvent,
  parseEvent,
  type DispatchPayload,
  type DispatchResult,
  type EngineErrorCode,
  type EventKind,
  type HeldProject,
  type HookedEvents,
  type HookResult,
  type ParsedEvent,
  type RequestId,
} from "../protocol/engine.ts";
import type { Generation, HookEntry } from "../registry/registry.ts";
import { builtinGate } from "../gates/index.ts";
import { CODE_BUILD } from "../system/build-id.ts";
import { heldProject, type HookSources, type SourcedHook } from "../sources/sources.ts";
import type { SessionGrants } from "../session-control/grants.ts";
import type { Logger } from "../system/log.ts";
import { aggregate } from "./aggregate.ts";
import { matches } from "./matching.ts";
import { recordActivity } from "./activity.ts";
import { callKeyOf, DispatchRun, type InFlight } from "./dispatch-run.ts";
import type { HookRunner } from "./hook-runner.ts";
import type { LastByEvent } from "./inspection.ts";
import type { Lifecycle } from "./lifecycle.ts";
import type { PrestartPool } from "./prestart.ts";
import type { HookSelection } from "./selection.ts";

/** What a request comes to, before the engine adds its state. */
export type Outcome = { ok: true; result: unknown } | { ok: false; code: EngineErrorCode; error: string; result?: unknown };

/** How a payload becomes hook inputs: the OMP→Claude mapping, or a harness's own input as sent. */
export type HookTargetsOf = (event: ParsedEvent, payload: DispatchPayload, declared?: DeclaredToolKinds) => HookTargetsResult;

export interface DispatcherOptions {
  /** The user registry and the other hook sources, read per dispatch. */
  sources: HookSources;
  selection: HookSelection;
  grants: SessionGrants;
  lifecycle: Lifecycle;
  runner: HookRunner;
  logger: Logger;
  inFlight: InFlight;
  lastByEvent: LastByEvent;
  pool: PrestartPool;
  hookTargets?: HookTargetsOf;
  /** What the built-in gates read beside their input (a decision in OMP's process is told it too). */
  gates: { registry: string; hookFiles: () => readonly string[] };
}

export class Dispatcher {
  private readonly trustNotes = new Map<string, string>();
  constructor(private readonly options: DispatcherOptions) {}

  /** The newest `hookedEvents`, what it was made from, and its key: most dispatches of a session name the same. */
  private lastHooked: { of: string; hooked: HookedEvents; key: string } | undefined;

  /**
   * `knownHookedEvents`: the key of what the caller holds for this cwd (the answer then
   * names it by key); `told`: OMP's process already went on with the event.
   */
  async dispatch(id: RequestId, eventName: string, payload: DispatchPayload, onProcessStart?: () => void, knownHookedEvents?: string, told = false): Promise<Outcome> {
    const event = parseEvent(eventName);
    if (!event) return { ok: false, code: "unknown-event", error: `unknown event ${JSON.stringify(eventName)}` };
    const session = typeof payload.session_id === "string" && payload.session_id.length > 0 ? payload.session_id : null;
    const tool = event.tool ?? payload.tool_name;
    const run = new DispatchRun(id, event, session, isToolEvent(event.kind) ? callKeyOf(session, tool, payload.tool_input) : undefined, onProcessStart, told);
    this.options.lifecycle.arrived(run);
    // The model is asked (a result comes just before it): the session's pre-start processes start while it thinks.
    if (session !== null && (event.kind === "before_provider_request" || event.kind === "post_tool_use")) this.options.pool.release(session);
    this.options.inFlight.set(id, run);
    try {
      return await this.run(run, payload, knownHookedEvents);
    } finally {
      this.options.inFlight.delete(id);
      run.mark("answered");
      this.options.lastByEvent.set(event.name, { id, ...run.timings() });
      this.afterAnswer(run);
    }
  }

  /**
   * The dispatch's `hookedEvents` with its key, or its key alone when the caller holds
   * it already: the plan is a few KB that every answer of a session would otherwise
   * carry unchanged, and OMP's process reads each answer on its own thread. It is made
   * (and its JSON digested) again only when what it is made from changed: the generation,
   * the hooks that run, each source file's stat key (an unsettled one never matches
   * another), the refusal, and the files the gates read.
   */
  private keyed(running: readonly SourcedHook[], refusal: string | undefined, files: [string, string][], generation: Generation, known: string | undefined): { hookedEvents?: HookedEvents; hookedEventsKey: string } {
    const gates = { registry: this.options.gates.registry, hookFiles: this.options.gates.hookFiles() };
    const of = [
      generation.number,
      generation.checksum,
      refusal ?? "",
      gates.registry,
      gates.hookFiles.join("\n"),
      files.map(([file, key]) => `${file}\u0000${key}`).join("\n"),
      running.map((hook) => `${hook.origin.label}\u0000${hook.id}`).join("\n"),
    ].join("\u0001");
    let last = this.lastHooked;
    if (last?.of !== of) {
      const hooked = hookedEvents(running, refusal !== undefined, files, generation, gates);
      last = { of, hooked, key: createHash("sha256").update(JSON.stringify(hooked)).digest("base64url").slice(0, 32) };
      this.lastHooked = last;
    }
    return last.key === known ? { hookedEventsKey: last.key } : { hookedEvents: last.hooked, hookedEventsKey: last.key };
  }

  /** Offer to pre-start what the session's next events will run (they start later, prestart.ts); a session's end ends its processes. */
  private afterAnswer(run: DispatchRun): void {
    const { pool, runner } = this.options;
    if (run.session !== null && run.event.kind === "session_end") {
      pool.endSession(run.session);
      return;
    }
    // Offered once the answer is written (the turn of the event loop after it): making
    // them took the answer a millisecond or two. A model request that came in between
    // still releases them (the pool counts the session's).
    if (run.prestartNext.length > 0 && run.session !== null) {
      const releases = pool.releasesOf(run.session);
      setImmediate(() => runner.prestartAfter(run, releases));
    }
  }

  private async run(run: DispatchRun, payload: DispatchPayload, knownHookedEvents: string | undefined): Promise<Outcome> {
    const { sources, selection, grants, logger } = this.options;
    // Node runs one thread: "the runtime lock" is the registry refresh every dispatch shares.
    run.mark("runtimeLocked");
    const refreshed = await sources.refresh(payload.cwd);
    run.mark("registryRefreshed");
    if (!refreshed.ok) {
      logger.error({ event: run.event.name, session: run.session, note: "registry unusable" }, "dispatch refused");
      return { ok: false, code: "registry-unusable", error: `${refreshed.error}; no hook was run` };
    }
    const generation = refreshed.generation;
    run.generation = generation.number;
    this.options.pool.adopt(generation.number);
    run.mark("threadStarted");
    const running = selection.filter(refreshed.hooks);
    const selected = running.filter((hook) => hook.events.includes(run.event.kind));
    run.projectRoot = refreshed.projectRoot;
    const held = heldProject(refreshed.project);
    if (refreshed.project !== undefined) this.noteTrust(refreshed.project.root, held);
    const sourced = {
      ...(held !== undefined ? { held } : {}),
      ...(refreshed.broken.length > 0 ? { brokenSources: refreshed.broken } : {}),
      ...this.keyed(running, refreshed.refusal, refreshed.files, generation, knownHookedEvents),
    };
    grants.read(run, run.session, generation);
    // A process waiting for this event of a hook the event no longer runs (turned off, no longer trusted) is ended.
    if (run.session !== null) this.options.pool.keepOnly(run.session, run.event.name, selected);
    run.mark("sessionStateRead");

    // A trusted project whose hook content changed: its gates are held, so its tool calls are refused.
    // Prompts, stops and results pass: held gates give no verdict, and the result's `held` tells the session.
    // So does the person's own command (`!cmd`): it is not the agent's call, and may be the `tama trust` itself.
    if (refreshed.refusal !== undefined && run.event.kind === "pre_tool_use" && payload.origin !== "user") {
      run.mark("hooksEnded");
      return { ok: true, result: { ...aggregate(run, generation, [], { decision: "block", reason: `Tama refused this tool call: ${refreshed.refusal}` }), ...sourced } };
    }
    const shaped = (this.options.hookTargets ?? toHookTargets)(run.event, { ...payload, tool_name: run.event.tool ?? payload.tool_name }, generation.file.toolKinds);
    if (!shaped.ok) {
      run.mark("hooksEnded");
      return {
        ok: true,
        result: { ...aggregate(run, generation, [], { decision: "block", reason: `Tama refused ${run.event.name}: ${shaped.error}` }), ...sourced },
      };
    }
    const results =
      run.event.kind === "stop" ? await this.runStop(run, selected, shaped.targets) : await this.runInOrder(run, selected, shaped.targets);
    run.mark("hooksEnded");
    const result = { ...aggregate(run, generation, results), ...sourced };
    const ended = run.endingError();
    // A pass that only built-in gates gave (every tool call and model request of a
    // session with the default registry) is not logged: the log records what a hook
    // decided or failed, and a line per such event cost more than the gates did.
    const routine = result.decision === "pass" && result.failedOpen.length === 0 && ended === undefined && results.every((r) => r.builtin === true && r.outcome === "pass");
    if (!routine) logger.info(
      {
        event: run.event.name,
        session: run.session,
        dispatch: run.id,
        decision: result.decision,
        hooks: results.map((r) => `${r.hook}:${r.outcome}`),
        generation: generation.number,
      },
      "dispatch answered",
    );
    recordActivity(logger, run, run.event.tool ?? payload.tool_name, results, result);
    // A check that could not finish says whether a closed hook owed it a verdict: the caller refuses on that.
    const unfinished = (): DispatchResult => ({ ...result, unansweredClosed: unansweredClosed(run, selected, shaped.targets, results) });
    if (ended !== undefined) return { ok: false, code: "dispatch-ended", error: ended, result: unfinished() };
    if (result.cancelled) {
      const cancelled = results.filter((r) => r.outcome === "cancelled").map((r) => `${r.hook} (${r.reason ?? "cancelled"})`);
      return { ok: false, code: "hooks-cancelled", error: `hooks were ended before they answered: ${cancelled.join(", ")}`, result: unfinished() };
    }
    return { ok: true, result };
  }

  /** One log line when a project's trust standing changes, not one per event. */
  private noteTrust(root: string, held: HeldProject | undefined): void {
    const note = held === undefined ? "trusted" : `${held.trust}:${held.changes.join(",")}`;
    if (this.trustNotes.get(root) === note) return;
    this.trustNotes.set(root, note);
    if (this.trustNotes.size > 1000) this.trustNotes.delete(this.trustNotes.keys().next().value ?? "");
    if (held === undefined) this.options.logger.info({ project: root, note: "trusted" }, "project hooks run");
    else this.options.logger.warn({ project: root, note: held.trust, hooks: held.hooks, count: held.changes.length }, "project hooks held");
  }

  /** Tool and other events: hooks in registry order, one after another, first refusal ends. */
  private async runInOrder(run: DispatchRun, hooks: SourcedHook[], targets: HookTarget[]): Promise<HookResult[]> {
    const results: HookResult[] = [];
    for (const target of targets) {
      for (const hook of hooks) {
        if (!matches(hook, target)) continue;
        // Ended (a cancel, the turn's end, closed input): this and the hooks after it do not start.
        if (run.endedBefore(hook.id)) return results;
        const result = await this.options.runner.run(run, hook, target, targets.length > 1);
        results.push(result);
        if (result.outcome === "block" || result.outcome === "failed-closed" || result.outcome === "ask") return results;
        // A cancelled hook goes on to the check above, which names the next one not started.
        if (result.outcome === "cancelled" && run.ending === undefined) return results;
      }
    }
    return results;
  }

  /** Stop: built-in policies first, in process; on a pass the rest run side by side. */
  private async runStop(run: DispatchRun, hooks: SourcedHook[], targets: HookTarget[]): Promise<HookResult[]> {
    const target = targets[0];
    if (!target) return [];
    const builtins = hooks.filter((hook) => hook.builtin !== undefined);
    const commands = hooks.filter((hook) => hook.builtin === undefined);
    const results: HookResult[] = [];
    // A stop nobody waits for any more (cancelled, input closed) starts no further hook.
    for (const hook of builtins) {
      if (run.endedBefore(hook.id)) return results;
      const result = await this.options.runner.run(run, hook, target, false);
      results.push(result);
      if (result.outcome === "block" || result.outcome === "failed-closed") return results;
    }
    if (run.endedBefore(commands[0]?.id)) return results;
    const sideBySide = await Promise.all(commands.map((hook) => this.options.runner.run(run, hook, target, false)));
    return [...results, ...sideBySide];
  }
}

/** The event kinds OMP's process may decide itself when only memoryless built-in gates run for them. */
const LOCAL_EVENTS: readonly EventKind[] = ["stop", "pre_tool_use", "post_tool_use"];

/**
 * What this dispatch's sources run hooks for; a trusted project that changed refuses
 * its tool calls even without one. With it, the hooks of each kind OMP's process may
 * decide itself, when each of them is a memoryless built-in gate.
 */
function hookedEvents(hooks: readonly SourcedHook[], refusesToolCalls: boolean, files: [string, string][], generation: Generation, gates: { registry: string; hookFiles: readonly string[] }): HookedEvents {
  const events = new Set<EventKind>(refusesToolCalls ? ["pre_tool_use"] : []);
  for (const hook of hooks) for (const kind of hook.events) events.add(kind);
  const byEvent: Record<string, HookEntry[]> = {};
  for (const kind of LOCAL_EVENTS) {
    // A changed trusted project refuses its tool calls without any hook: only the engine says so.
    if (kind === "pre_tool_use" && refusesToolCalls) continue;
    const of = hooks.filter((hook) => hook.events.includes(kind));
    if (of.length > 0 && of.every((hook) => hook.builtin !== undefined && builtinGate(hook.builtin)?.memoryless === true)) {
      byEvent[kind] = of.map(({ origin: _origin, ...entry }) => entry);
    }
  }
  const toolKinds = generation.file.toolKinds !== undefined ? { toolKinds: generation.file.toolKinds } : {};
  const local = Object.keys(byEvent).length > 0 ? { local: { build: CODE_BUILD, generation: generation.number, releaseId: generation.releaseId, byEvent, ...toolKinds, registry: gates.registry, hookFiles: [...gates.hookFiles] } } : {};
  return { events: [...events], files, ...local };
}

/**
 * The failMode-closed hooks that owed a dispatch a verdict and gave none: every
 * matching hook without an answer of its own (ended before answering, or never
 * started). None when a hook already refused: the refusal is the verdict.
 */
function unansweredClosed(run: DispatchRun, hooks: HookEntry[], targets: HookTarget[], results: HookResult[]): string[] {
  if (results.some((r) => r.outcome === "block" || r.outcome === "failed-closed" || r.outcome === "ask")) return [];
  const key = (hook: string, target: string | undefined) => `${hook}\u0000${target ?? ""}`;
  const answered = new Set(results.filter((r) => r.outcome !== "cancelled").map((r) => key(r.hook, r.target)));
  // Stop hooks take the first target only; a tool event's, every target (named when there are several).
  const owedTargets = run.event.kind === "stop" ? targets.slice(0, 1) : targets;
  const owed = new Set<string>();
  for (const target of owedTargets) {
    for (const hook of hooks) {
      if (hook.failMode !== "closed" || !matches(hook, target)) continue;
      if (!answered.has(key(hook.id, owedTargets.length > 1 ? target.target : undefined))) owed.add(hook.id);
    }
  }
  return [...owed];
}


