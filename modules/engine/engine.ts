// The engine: loads the registry, runs hooks, and applies the lifecycle rules that
// end hooks nobody waits for. Transport-free: serve.ts and the one-event CLI drive it.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { toHookTargets, type HookTarget } from "../claude/hook-input.ts";
import { callKeyOf, DispatchRun, round, type ActiveHook } from "./dispatch-run.ts";
import { builtinGate } from "../gates/index.ts";
import { SessionGrants } from "../session-control/grants.ts";
import type { HookInput } from "../protocol/hook-input.ts";
import type { GateContext } from "../gates/types.ts";
import { readHookAnswer, startHookProcess, type HookAnswer } from "./hook-exec.ts";
import type { Logger } from "../system/log.ts";
import { isSafeFileComponent, type TamaPaths } from "../system/paths.ts";
import {
  isToolEvent,
  parseEvent,
  PROTOCOL_VERSION,
  type Abandonment,
  type Answer,
  type DispatchPayload,
  type DispatchResult,
  type EngineState,
  type HookResult,
  type ParsedEvent,
  type Request,
  type RequestId,
} from "../protocol/engine.ts";
import { RegistryStore, type Generation, type HookEntry } from "../registry/registry.ts";
import { HOOK_RUN_VARIABLE, hookRunPrefix, processStartTicks, signalGroup } from "../system/process-groups.ts";
import { readRecords, reapGoneEngines, RunningRecordWriter } from "./running-records.ts";
import { HookSelection } from "./selection.ts";
import { sessionsDirProblem } from "../session-control/records.ts";

export interface EngineOptions {
  paths: TamaPaths;
  /** One line for the engine's stderr (the harness shows or logs it). */
  stderr: (line: string) => void;
  logger: Logger;
  /** The environment hooks inherit and overrides are read from. */
  env: NodeJS.ProcessEnv;
  selection: HookSelection;
}

type Outcome = { ok: true; result: unknown } | { ok: false; error: string; result?: unknown };

const TURN_EVENTS = new Set(["stop", "user_prompt_submit"]);

export class Engine {
  readonly store: RegistryStore;
  private readonly inFlight = new Map<RequestId, DispatchRun>();
  private readonly abandoned = new Map<string, Abandonment>();
  private readonly lastByEvent = new Map<string, ReturnType<DispatchRun["timings"]> & { id: RequestId }>();
  private readonly records: RunningRecordWriter;
  private readonly gateContext: GateContext;
  /** The operator's consent per session: which hooks get the session control capability. */
  private readonly grants: SessionGrants;
  private closed = false;
  private readonly homeTag: string;
  private readonly hookRunPrefix: string;
  private hookRuns = 0;

  constructor(private readonly options: EngineOptions) {
    this.store = new RegistryStore(options.paths.registry);
    this.homeTag = createHash("sha256").update(options.paths.home).digest("hex").slice(0, 12);
    this.hookRunPrefix = hookRunPrefix(this.homeTag);
    this.gateContext = { tamaHome: options.paths.home };
    this.grants = new SessionGrants(options.paths, options.logger);
    this.records = new RunningRecordWriter(options.paths.running, () => this.recordedHooks(), options.stderr);
  }

  /** First registry read, and ending what engines that are gone left running. */
  async start(): Promise<void> {
    // Records that name processes to kill are trusted only from a directory only this user can write.
    const problem = existsSync(this.options.paths.sessions) ? sessionsDirProblem(this.options.paths.home, this.options.paths.sessions, false) : undefined;
    if (problem !== undefined) this.options.stderr(`tama: not ending hooks left by engines that are gone: ${problem}`);
    for (const ended of problem === undefined ? reapGoneEngines(this.options.paths.running, this.homeTag) : []) {
      this.options.stderr(
        ended.hook === "(unrecorded)"
          ? `tama: ended ${ended.pids.length} hook process(es) (${ended.pids.join(", ")}) left running by an engine that is gone`
          : `tama: ended hook ${ended.hook} (process group ${ended.processGroup}) left running by an engine that is gone`,
      );
    }
    await this.store.refresh();
  }

  state(): EngineState {
    const generation = this.store.current;
    return {
      processId: process.pid,
      generation: generation?.number ?? 0,
      loadedReleaseId: generation?.releaseId ?? null,
      catalogChecksum: generation?.checksum ?? null,
      registeredHookCount: generation?.file.hooks.length ?? 0,
      reloadCount: this.store.reloadCount,
      lastReloadAtMs: this.store.lastReloadAtMs,
      lastReloadError: this.store.lastReloadError,
      coreReleaseId: this.store.coreReleaseId ?? null,
      coreReplacedByRelease: this.store.coreReplacedByRelease,
      registryPath: this.store.path,
      protocolVersion: PROTOCOL_VERSION,
    };
  }

  /** Answer one validated request. Never throws: every failure is an answer. */
  async handle(request: Request): Promise<Answer> {
    let outcome: Outcome;
    let withStatus = false;
    try {
      switch (request.op) {
        case "status":
          withStatus = true;
          outcome = { ok: true, result: this.status() };
          break;
        case "reload":
          outcome = await this.reload();
          break;
        case "cancel":
          outcome = this.cancel(request.target);
          break;
        case "dispatch":
          outcome = await this.dispatch(request.id, request.event, request.payload);
          break;
      }
    } catch (error) {
      outcome = { ok: false, error: `internal error: ${(error as Error).message}` };
    }
    return this.answer(request.id, outcome, request.knownCatalogChecksum, withStatus);
  }

  answer(id: RequestId | null, outcome: Outcome, knownCatalogChecksum?: string, withStatus = false): Answer {
    const state = this.state();
    if (withStatus && outcome.ok) {
      const status = outcome.result as ReturnType<Engine["status"]>;
      state.runningHooks = status.runningHooks;
      state.dispatchStages = status.dispatchStages;
    }
    const answer: Answer = outcome.ok
      ? { id, ok: true, result: outcome.result, state }
      : { id, ok: false, error: outcome.error, ...(outcome.result !== undefined ? { result: outcome.result } : {}), state };
    if (knownCatalogChecksum !== undefined && knownCatalogChecksum !== state.catalogChecksum) {
      answer.catalog = this.store.current
        ? { checksum: this.store.current.checksum, ...this.store.current.catalog }
        : null;
    }
    return answer;
  }

  /** Whether a request id is in flight (a second request under it could not be told apart). */
  isInFlight(id: RequestId): boolean {
    return this.inFlight.has(id);
  }

  // ---- status -------------------------------------------------------------

  status() {
    const now = performance.now();
    const dispatched = [...this.inFlight.values()].flatMap((run) =>
      [...run.active].map((hook) => ({
        session: run.session,
        event: run.event.name,
        hook: hook.hook,
        dispatchId: run.id,
        processGroup: hook.pgid,
        runningForMs: round(now - hook.startedAt),
      })),
    );
    const records = readRecords(this.options.paths.running, process.pid);
    const runningHooks = {
      dispatched,
      running: records.gone.flatMap((record) =>
        record.hooks.map((hook) => ({
          session: hook.session,
          event: hook.event,
          hook: hook.hook,
          processGroup: hook.processGroup,
          runningForMs: Date.now() - hook.startedAtMs,
          corePid: record.corePid,
        })),
      ),
      recordsUnread: records.unread,
      abandoned: [...this.abandoned.values()],
    };
    const dispatchStages = {
      running: [...this.inFlight.values()].map((run) => ({
        id: run.id,
        event: run.event.name,
        session: run.session,
        stage: run.stage,
        inStageForMs: round(run.inStageForMs()),
      })),
      lastByEvent: Object.fromEntries(this.lastByEvent),
    };
    return { runningHooks, dispatchStages };
  }

  // ---- reload -------------------------------------------------------------

  private async reload(): Promise<Outcome> {
    const refreshed = await this.store.refresh();
    if (!refreshed.ok) return { ok: false, error: refreshed.error };
    return { ok: true, result: { reloaded: true, changed: refreshed.changed } };
  }

  // ---- cancellation and the harness's signals ------------------------------

  private cancel(target: RequestId): Outcome {
    const run = this.inFlight.get(target);
    if (!run) return { ok: false, error: `no dispatch ${JSON.stringify(target)} is in flight` };
    const hooks = this.endRun(
      run,
      `the caller cancelled dispatch ${JSON.stringify(target)} of ${run.event.name}`,
      `dispatch ${JSON.stringify(target)} of ${run.event.name} was cancelled by its caller`,
    );
    return { ok: true, result: { cancelled: true, target, endedHooks: hooks } };
  }

  /**
   * End a dispatch nobody waits for: no further hook starts, running ones are
   * ended with their process groups, and the abandonment is named and kept.
   */
  private endRun(run: DispatchRun, signal: string, answerError: string, perHookLine?: (hook: ActiveHook) => string): string[] {
    if (run.endedWith !== undefined) return [];
    run.endedWith = answerError;
    const hooks = [...run.active];
    this.recordAbandonment(run.session, signal, hooks);
    for (const hook of hooks) {
      if (perHookLine) this.options.stderr(perHookLine(hook));
      hook.process?.cancel(signal);
    }
    return hooks.map((hook) => hook.hook);
  }

  private recordAbandonment(session: string | null, signal: string, hooks: ActiveHook[]): void {
    if (hooks.length === 0) return;
    const now = performance.now();
    const clauses = hooks.map((hook) => `${hook.hook} (${hook.run.event.name}, ${Math.round(now - hook.startedAt)} ms)`);
    const text = `tama: ${signal}; still running in Tama: ${clauses.join(", ")}`;
    this.options.stderr(text);
    this.options.logger.warn(
      { session, hooks: hooks.map((h) => h.hook), note: "abandoned" },
      "hooks abandoned: the harness stopped waiting",
    );
    if (session === null) return;
    const record: Abandonment = {
      session,
      reason: signal,
      abandonedAtMs: Date.now(),
      corePid: process.pid,
      hooks: hooks.map((hook) => ({
        hook: hook.hook,
        event: hook.run.event.name,
        processGroup: hook.pgid,
        ranForMs: round(now - hook.startedAt),
      })),
      text,
    };
    this.abandoned.set(session, record);
    if (!isSafeFileComponent(session)) {
      this.options.stderr(
        `tama: session id ${JSON.stringify(session)} cannot name a file, so its abandonment is kept in this engine's memory only`,
      );
      return;
    }
    try {
      const dir = this.options.paths.sessions;
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const file = path.join(dir, `abandoned.${session}.json`);
      const temp = `${file}.${process.pid}.tmp`;
      writeFileSync(temp, JSON.stringify(record, null, 2), { mode: 0o600 });
      renameSync(temp, file);
    } catch (error) {
      this.options.stderr(`tama: cannot write the abandonment record of session ${session}: ${(error as Error).message}`);
    }
  }

  /** Apply what a newly received event proves about the session's earlier dispatches. */
  private applyArrivalSignals(run: DispatchRun): void {
    if (run.session === null) return;
    const session = run.session;
    if (TURN_EVENTS.has(run.event.kind)) {
      // The harness sends stop / user_prompt_submit only after every tool call of the turn is over.
      for (const other of this.inFlight.values()) {
        if (other === run || other.session !== session || !isToolEvent(other.event.kind)) continue;
        const sentence = (stoppedAt: string) =>
          `the turn of session ${session} ended while ${other.event.name} was still being checked, so that tool call is over and hook ${stoppedAt} and the ones after it were not started`;
        other.endedWithFor = sentence;
        other.endedHook = [...other.active][0]?.hook;
        this.endRun(
          other,
          `the session's ${run.event.kind} arrived while ${other.event.name} was still being checked`,
          sentence(other.stoppedAt ?? other.endedHook ?? "(none)"),
          (hook) =>
            `tama: ended hook ${hook.hook} (process group ${hook.pgid ?? "none"}) still running for ${other.event.name} of session ${session}: the session's ${run.event.kind} arrived, so that tool call is over and nobody waits for its answer`,
        );
      }
    }
    if (run.event.kind === "post_tool_use" && run.callKey !== undefined) {
      for (const other of this.inFlight.values()) {
        if (other.event.kind !== "pre_tool_use" || other.callKey !== run.callKey || other.endedWith !== undefined) continue;
        const tool = other.event.tool ?? "?";
        const line = `tama: ended pre-tool dispatch ${String(other.id)} of ${tool} in session ${session}: the result of the ${tool} call already arrived, so the harness stopped waiting for this check`;
        this.options.stderr(line);
        this.endRun(
          other,
          `the result of the ${tool} call arrived while its pre-tool check still ran`,
          `the result of the ${tool} call already arrived, so the harness stopped waiting for this check`,
        );
      }
    }
  }

  /** A turn event's hook supersedes the same hook of the same session still running for the previous one. */
  private supersede(run: DispatchRun, hookId: string): void {
    if (run.session === null || !TURN_EVENTS.has(run.event.kind)) return;
    for (const other of this.inFlight.values()) {
      if (other === run || other.session !== run.session || !TURN_EVENTS.has(other.event.kind)) continue;
      for (const hook of other.active) {
        if (hook.hook !== hookId) continue;
        this.options.stderr(
          `tama: ended hook ${hookId} (process group ${hook.pgid ?? "none"}) still running for the previous ${other.event.name} of session ${run.session}`,
        );
        this.recordAbandonment(run.session, `a newer ${run.event.name} of session ${run.session} superseded the previous ${other.event.name}`, [hook]);
        hook.process?.cancel(`superseded by a newer ${run.event.name}`);
      }
    }
  }

  // ---- dispatch ---------------------------------------------------------------

  private async dispatch(id: RequestId, eventName: string, payload: DispatchPayload): Promise<Outcome> {
    const event = parseEvent(eventName);
    if (!event) return { ok: false, error: `unknown event ${JSON.stringify(eventName)}` };
    const session = typeof payload.session_id === "string" && payload.session_id.length > 0 ? payload.session_id : null;
    const tool = event.tool ?? payload.tool_name;
    const run = new DispatchRun(id, event, session, isToolEvent(event.kind) ? callKeyOf(session, tool, payload.tool_input) : undefined);
    this.applyArrivalSignals(run);
    this.inFlight.set(id, run);
    try {
      return await this.runDispatch(run, payload);
    } finally {
      this.inFlight.delete(id);
      run.mark("answered");
      this.lastByEvent.set(event.name, { id, ...run.timings() });
    }
  }

  private async runDispatch(run: DispatchRun, payload: DispatchPayload): Promise<Outcome> {
    // Node runs one thread: "the runtime lock" is the registry refresh every dispatch shares.
    run.mark("runtimeLocked");
    const refreshed = await this.store.refresh();
    run.mark("registryRefreshed");
    if (!refreshed.ok) {
      this.options.logger.error({ event: run.event.name, session: run.session, note: "registry unusable" }, "dispatch refused");
      return { ok: false, error: `${refreshed.error}; no hook was run` };
    }
    const generation = refreshed.generation;
    run.mark("threadStarted");
    const selected = this.options.selection.filter(generation.file.hooks).filter((hook) => hook.events.includes(run.event.kind));
    this.grants.read(run, run.session, generation);
    run.mark("sessionStateRead");

    const shaped = toHookTargets(run.event, { ...payload, tool_name: run.event.tool ?? payload.tool_name });
    if (!shaped.ok) {
      run.mark("hooksEnded");
      return {
        ok: true,
        result: this.result(run, generation, [], { decision: "block", reason: `Tama refused ${run.event.name}: ${shaped.error}` }),
      };
    }
    const results =
      run.event.kind === "stop" ? await this.runStop(run, selected, shaped.targets) : await this.runInOrder(run, selected, shaped.targets);
    run.mark("hooksEnded");
    const result = this.result(run, generation, results);
    this.options.logger.info(
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
    if (run.endedWith !== undefined) {
      const error = run.endedWithFor ? run.endedWithFor(run.stoppedAt ?? run.endedHook ?? "(none)") : run.endedWith;
      return { ok: false, error, result };
    }
    if (result.cancelled) {
      const cancelled = results.filter((r) => r.outcome === "cancelled").map((r) => `${r.hook} (${r.reason ?? "cancelled"})`);
      return { ok: false, error: `hooks were ended before they answered: ${cancelled.join(", ")}`, result };
    }
    return { ok: true, result };
  }

  private result(
    run: DispatchRun,
    generation: Generation,
    results: HookResult[],
    forced?: { decision: "block"; reason: string },
  ): DispatchResult {
    const refusals = results.filter((r) => r.outcome === "block" || r.outcome === "failed-closed");
    const asks = results.filter((r) => r.outcome === "ask");
    const contexts = results.map((r) => r.additionalContext).filter((c): c is string => c !== undefined);
    const decision = forced?.decision ?? (refusals.length > 0 ? "block" : asks.length > 0 ? "ask" : "pass");
    const reason =
      forced?.reason ??
      (refusals.length > 0
        ? refusals.map((r) => r.reason ?? `hook ${r.hook} refused`).join("\n\n")
        : asks.length > 0
          ? asks.map((r) => r.reason ?? `hook ${r.hook} asks`).join("\n\n")
          : undefined);
    return {
      event: run.event.name,
      sessionId: run.session,
      generation: generation.number,
      releaseId: generation.releaseId,
      decision,
      ...(reason !== undefined ? { reason } : {}),
      failedOpen: results
        .filter((r) => r.outcome === "failed-open")
        .map((r) => ({ hook: r.hook, reason: r.reason ?? "failed" })),
      results,
      ...(contexts.length > 0 ? { additionalContext: contexts.join("\n\n") } : {}),
      ...(results.some((r) => r.outcome === "cancelled") ? { cancelled: true } : {}),
    };
  }

  private matches(hook: HookEntry, target: HookTarget): boolean {
    if (target.kind === "other" && target.names.length === 0) return true;
    const matcher = hook.tools;
    if (matcher === "any") return true;
    if (matcher === "shell" || matcher === "write") return target.kind === matcher;
    const names = target.names.map((n) => n.toLowerCase());
    return matcher.some((pattern) => {
      const p = pattern.toLowerCase();
      return p.endsWith("*") ? names.some((n) => n.startsWith(p.slice(0, -1))) : names.includes(p);
    });
  }

  /** Tool and other events: hooks in registry order, one after another, first refusal ends. */
  private async runInOrder(run: DispatchRun, hooks: HookEntry[], targets: HookTarget[]): Promise<HookResult[]> {
    const results: HookResult[] = [];
    for (const target of targets) {
      for (const hook of hooks) {
        if (!this.matches(hook, target)) continue;
        // Ended (a cancel, the turn's end, closed input): this and the hooks after it do not start.
        if (run.endedWith !== undefined) {
          run.stoppedAt ??= hook.id;
          return results;
        }
        const result = await this.runHook(run, hook, target, targets.length > 1);
        results.push(result);
        if (result.outcome === "block" || result.outcome === "failed-closed" || result.outcome === "ask") return results;
        // A cancelled hook goes on to the check above, which names the next one not started.
        if (result.outcome === "cancelled" && run.endedWith === undefined) return results;
      }
    }
    return results;
  }

  /** Stop: built-in policies first, in process; on a pass the rest run side by side. */
  private async runStop(run: DispatchRun, hooks: HookEntry[], targets: HookTarget[]): Promise<HookResult[]> {
    const target = targets[0];
    if (!target) return [];
    const builtins = hooks.filter((hook) => hook.builtin !== undefined);
    const commands = hooks.filter((hook) => hook.builtin === undefined);
    const results: HookResult[] = [];
    // A stop nobody waits for any more (cancelled, input closed) starts no further hook.
    const ended = (next: HookEntry | undefined): boolean => {
      if (run.endedWith === undefined) return false;
      run.stoppedAt ??= next?.id;
      return true;
    };
    for (const hook of builtins) {
      if (ended(hook)) return results;
      const result = await this.runHook(run, hook, target, false);
      results.push(result);
      if (result.outcome === "block" || result.outcome === "failed-closed") return results;
    }
    if (ended(commands[0])) return results;
    const sideBySide = await Promise.all(commands.map((hook) => this.runHook(run, hook, target, false)));
    return [...results, ...sideBySide];
  }

  private async runHook(run: DispatchRun, hook: HookEntry, target: HookTarget, multiTarget: boolean): Promise<HookResult> {
    const startMs = round(performance.now() - run.receivedAt);
    const started = performance.now();
    const base = { hook: hook.id, startMs, ...(multiTarget && target.target ? { target: target.target } : {}) };
    let answer: HookAnswer;
    let extra: Partial<HookResult> = {};
    if (hook.builtin !== undefined) {
      answer = await this.runBuiltin(hook.builtin, target.input);
      extra = { builtin: true };
    } else {
      this.supersede(run, hook.id);
      const process_ = startHookProcess({
        argv: hook.command ?? [],
        cwd: target.input.cwd,
        input: JSON.stringify(target.input),
        timeoutMs: hook.timeoutMs,
        env: this.hookEnv(run, hook),
      });
      const active: ActiveHook = {
        hook: hook.id,
        run,
        pgid: process_.pgid ?? null,
        startedAt: started,
        process: process_,
      };
      run.active.add(active);
      this.records.changed();
      const end = await process_.ended;
      run.active.delete(active);
      this.records.changed();
      answer = readHookAnswer(end, hook.id, hook.timeoutMs);
      extra = {
        ...(process_.pgid !== undefined ? { processGroup: process_.pgid } : {}),
        ...(end.kind === "exited" ? { exitCode: end.code, signal: end.signal } : {}),
      };
    }
    const ms = round(performance.now() - started);
    return { ...base, ...extra, ms, ...this.outcomeOf(hook, answer) };
  }

  private async runBuiltin(id: string, input: HookInput): Promise<HookAnswer> {
    const gate = builtinGate(id);
    if (!gate) return { verdict: "failed", why: `names the built-in gate ${id}, which this engine does not have` };
    try {
      const verdict = await gate.evaluate(input, this.gateContext);
      return verdict.decision === "block" ? { verdict: "block", reason: verdict.reason } : { verdict: "pass" };
    } catch (error) {
      return { verdict: "failed", why: `threw: ${(error as Error).message}` };
    }
  }

  private outcomeOf(hook: HookEntry, answer: HookAnswer): Pick<HookResult, "outcome" | "reason" | "additionalContext"> {
    switch (answer.verdict) {
      case "pass":
        return answer.additionalContext !== undefined ? { outcome: "pass", additionalContext: answer.additionalContext } : { outcome: "pass" };
      case "block":
        return { outcome: "block", reason: answer.reason };
      case "ask":
        return { outcome: "ask", reason: answer.reason };
      case "cancelled":
        return { outcome: "cancelled", reason: answer.why };
      case "failed":
        return hook.failMode === "closed"
          ? {
              outcome: "failed-closed",
              reason: `Tama hook ${hook.id} ${answer.why}; its failMode is closed, so this is refused`,
            }
          : { outcome: "failed-open", reason: `hook ${hook.id} ${answer.why}; it failed open, so it gave no verdict` };
    }
  }

  private hookEnv(run: DispatchRun, hook: HookEntry): NodeJS.ProcessEnv {
    return this.grants.applyTo(run, {
      ...this.options.env,
      TAMA_HOOK_ID: hook.id,
      TAMA_EVENT: run.event.name,
      TAMA_SESSION_ID: run.session ?? "",
      TAMA_CORE_PID: String(process.pid),
      [HOOK_RUN_VARIABLE]: `${this.hookRunPrefix}${++this.hookRuns}`,
    });
  }

  /**
   * The running hooks, for the record. A hook's start time (its identity for reaping)
   * is read from /proc only here, so a hook that ends before the record is written
   * costs no read.
   */
  private recordedHooks() {
    return [...this.inFlight.values()].flatMap((run) =>
      [...run.active].map((hook) => {
        if (hook.startTicks === undefined && hook.pgid !== null) hook.startTicks = processStartTicks(hook.pgid);
        return {
          session: run.session,
          event: run.event.name,
          hook: hook.hook,
          processGroup: hook.pgid,
          startedAtMs: Date.now() - Math.round(performance.now() - hook.startedAt),
          ...(hook.startTicks !== undefined ? { startTicks: hook.startTicks } : {}),
        };
      }),
    );
  }

  /**
   * The caller closed its input: end every hook run still held, give their groups
   * the grace to stop, kill what is left, and drop this engine's record.
   */
  async shutdown(graceMs = 300): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const groups = [...this.inFlight.values()].flatMap((run) => [...run.active].map((hook) => hook.pgid));
    for (const run of this.inFlight.values()) {
      this.endRun(
        run,
        "the core's caller closed its input, so nobody waits for its answer",
        "the core's caller closed its input, so nobody waits for its answer",
      );
    }
    if (groups.length > 0) {
      await new Promise((resolve) => setTimeout(resolve, graceMs));
      for (const pgid of groups) if (pgid !== null) signalGroup(pgid, "SIGKILL");
    }
    await this.records.flush();
  }
}
