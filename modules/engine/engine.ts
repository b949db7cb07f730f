// The engine's service face: start, state, and the entry points a request reaches
// (status, reload, dispatch, cancel) and closing. Transport-free: serve.ts and the
// one-event CLI drive it. The work is in dispatch.ts, lifecycle.ts, inspection.ts
// and hook-runner.ts; this file only wires them and shapes answers.
import { createHash } from "node:crypto";
import os from "node:os";
import { existsSync } from "node:fs";
import { PROTOCOL_VERSION, type Answer, type EngineState, type Request, type RequestId, type StatusResult } from "../protocol/engine.ts";
import { RegistryStore, type Generation } from "../registry/registry.ts";
import { hookFilesOf } from "../gates/self-protection.ts";
import { SessionGrants } from "../session-control/grants.ts";
import { sessionsDirProblem } from "../session-control/records.ts";
import { HookSources } from "../sources/sources.ts";
import type { Logger } from "../system/log.ts";
import type { TamaPaths } from "../system/paths.ts";
import { hookRunPrefix } from "../system/process-groups.ts";
import { Abandonments } from "./abandonments.ts";
import { Dispatcher, type HookTargetsOf, type Outcome } from "./dispatch.ts";
import type { InFlight } from "./dispatch-run.ts";
import { HookRunner } from "./hook-runner.ts";
import { dispatchStages, recordedHooks, runningHooks, type LastByEvent } from "./inspection.ts";
import { Lifecycle } from "./lifecycle.ts";
import { reapGoneEngines, RunningRecordWriter } from "./running-records.ts";
import type { HookSelection } from "./selection.ts";
import { DEFAULT_PRESTART, PrestartPool, type PrestartSettings } from "./prestart.ts";

export interface EngineOptions {
  paths: TamaPaths;
  /** One line for the engine's stderr (the harness shows or logs it). */
  stderr: (line: string) => void;
  logger: Logger;
  /** The environment hooks inherit and overrides are read from. */
  env: NodeJS.ProcessEnv;
  selection: HookSelection;
  /** Pre-started hooks: which, and the bounds (default: opt-in per hook). */
  prestart?: PrestartSettings;
  /**
   * How a payload becomes hook inputs. OMP's events go through the OMP→Claude mapping
   * (the default); a one-event harness that already sends hook input passes it as it is.
   */
  hookTargets?: HookTargetsOf;
  /** Claude Code is the harness: it runs its settings files' hooks itself (see HookSources). */
  harnessRunsClaudeSettings?: boolean;
}

export type { Outcome };

/** How long a status waits at most for told dispatches still running (see Engine.toldBefore). */
const TOLD_WAIT_MS = 1_000;

export class Engine {
  readonly store: RegistryStore;
  /** Every hook source of a dispatch: the user registry (the store), Claude Code's files, the session's project. */
  readonly sources: HookSources;
  private readonly inFlight: InFlight = new Map();
  private readonly lastByEvent: LastByEvent = new Map();
  /** Dispatches of events OMP's process already went on with, still running. */
  private readonly told = new Set<Promise<Outcome>>();
  private readonly abandonments: Abandonments;
  private readonly records: RunningRecordWriter;
  private readonly lifecycle: Lifecycle;
  private readonly dispatcher: Dispatcher;
  private readonly runner: HookRunner;
  private hookFilesFor: { generation: Generation; files: readonly string[] } | undefined;
  private readonly pool: PrestartPool;
  private closed = false;
  private readonly homeTag: string;
  /** The TAMA_HOOK_RUN prefix every hook process of this engine carries. */
  private readonly hookRunPrefix: string;

  constructor(private readonly options: EngineOptions) {
    this.store = new RegistryStore(options.paths.registry);
    this.sources = new HookSources({
      registry: this.store,
      tamaHome: options.paths.home,
      home: options.env.HOME || os.homedir(),
      ...(options.harnessRunsClaudeSettings === true ? { harnessRunsClaudeSettings: true } : {}),
    });
    this.homeTag = createHash("sha256").update(options.paths.home).digest("hex").slice(0, 12);
    this.hookRunPrefix = hookRunPrefix(this.homeTag);
    this.abandonments = new Abandonments(options.paths.sessions, options.stderr, options.logger);
    // The engine's parent is the harness (OMP's process, which spawned it); one reparented to init has none.
    this.pool = new PrestartPool(options.prestart ?? DEFAULT_PRESTART, () => this.records.changed(), options.logger, process.ppid > 1 ? process.ppid : undefined);
    this.records = new RunningRecordWriter(
      options.paths.running,
      () => [...recordedHooks(this.inFlight), ...this.pool.recorded()],
      options.stderr,
      () => this.pool.bounds(),
    );
    this.lifecycle = new Lifecycle(this.inFlight, this.abandonments, options.stderr);
    // The operator's consent per session: which hooks get the session control capability.
    const grants = new SessionGrants(options.paths, options.logger);
    const runner = (this.runner = new HookRunner({
      env: options.env,
      gateContext: {
        tamaHome: options.paths.home,
        registry: options.paths.registry,
        env: options.env,
        hookFiles: () => this.hookFiles(),
      },
      grants,
      records: this.records,
      lifecycle: this.lifecycle,
      hookRunPrefix: this.hookRunPrefix,
      pool: this.pool,
    }));
    this.dispatcher = new Dispatcher({
      sources: this.sources,
      selection: options.selection,
      grants,
      lifecycle: this.lifecycle,
      runner,
      logger: options.logger,
      inFlight: this.inFlight,
      lastByEvent: this.lastByEvent,
      pool: this.pool,
      ...(options.hookTargets ? { hookTargets: options.hookTargets } : {}),
      gates: { registry: options.paths.registry, hookFiles: () => this.hookFiles() },
    });
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

  /** The files the loaded generation's hooks run (the self-protection gate keeps them), once per generation. */
  private hookFiles(): readonly string[] {
    const generation = this.store.current;
    if (generation === undefined) return [];
    if (this.hookFilesFor?.generation !== generation) this.hookFilesFor = { generation, files: hookFilesOf(generation.file.hooks) };
    return this.hookFilesFor.files;
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
      selfProtectionRefusals: this.runner.selfProtectionRefusals,
      heldProjectHooks: this.sources.heldState(),
    };
  }

  /**
   * A status reflects the events OMP's process went on with that were sent before it
   * (they came in the same write, and run only built-in gates unless their sources just
   * changed): it waits for them, TOLD_WAIT_MS at the most.
   */
  private async toldBefore(): Promise<void> {
    if (this.told.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, TOLD_WAIT_MS)));
    await Promise.race([Promise.allSettled([...this.told]), bound]);
    clearTimeout(timer);
  }

  /**
   * Answer one validated request. Never throws: every failure is an answer.
   * `onProcessStart`: told before a dispatch's first hook process starts.
   */
  async handle(request: Request, onProcessStart?: () => void): Promise<Answer> {
    let outcome: Outcome;
    let status: StatusResult | undefined;
    try {
      switch (request.op) {
        case "status":
          await this.toldBefore();
          status = this.status();
          outcome = { ok: true, result: status };
          break;
        case "reload":
          outcome = await this.reload();
          break;
        case "cancel":
          outcome = this.cancel(request.target);
          break;
        case "dispatch": {
          const running = this.dispatcher.dispatch(request.id, request.event, request.payload, onProcessStart, request.knownHookedEvents, request.decidedHere !== undefined);
          if (request.decidedHere !== undefined) {
            this.told.add(running);
            void running.finally(() => this.told.delete(running));
          }
          outcome = await running;
          break;
        }
      }
    } catch (error) {
      outcome = { ok: false, code: "internal", error: `internal error: ${(error as Error).message}` };
    }
    return this.answer(request.id, outcome, request.knownCatalogChecksum, status);
  }

  /** An answer frame: the outcome, the state (with a status's inspection), and the catalog when the caller's is stale. */
  answer(id: RequestId | null, outcome: Outcome, knownCatalogChecksum?: string, status?: StatusResult): Answer {
    const state = this.state();
    if (status !== undefined) {
      state.runningHooks = status.runningHooks;
      state.dispatchStages = status.dispatchStages;
    }
    const answer: Answer = outcome.ok
      ? { id, ok: true, result: outcome.result, state }
      : { id, ok: false, error: outcome.error, code: outcome.code, ...(outcome.result !== undefined ? { result: outcome.result } : {}), state };
    if (knownCatalogChecksum !== undefined && knownCatalogChecksum !== state.catalogChecksum) {
      answer.catalog = this.store.current ? { checksum: this.store.current.checksum, ...this.store.current.catalog } : null;
    }
    return answer;
  }

  /** Whether a request id is in flight (a second request under it could not be told apart). */
  isInFlight(id: RequestId): boolean {
    return this.inFlight.has(id);
  }

  status(): StatusResult {
    return {
      runningHooks: {
        ...runningHooks(this.inFlight, this.options.paths.running, this.abandonments),
        prestarted: this.pool.list(),
        prestart: this.pool.bounds(),
      },
      dispatchStages: dispatchStages(this.inFlight, this.lastByEvent),
    };
  }

  private async reload(): Promise<Outcome> {
    const refreshed = await this.store.refresh();
    if (!refreshed.ok) return { ok: false, code: "registry-unusable", error: refreshed.error };
    this.pool.adopt(refreshed.generation.number);
    return { ok: true, result: { reloaded: true, changed: refreshed.changed } };
  }

  private cancel(target: RequestId): Outcome {
    const endedHooks = this.lifecycle.cancel(target);
    if (endedHooks === undefined) return { ok: false, code: "not-in-flight", error: `no dispatch ${JSON.stringify(target)} is in flight` };
    return { ok: true, result: { cancelled: true, target, endedHooks } };
  }

  /**
   * The caller closed its input: end every hook run still held, give their groups
   * the grace to stop, kill what is left, and drop this engine's record.
   */
  async shutdown(graceMs?: number): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.pool.closeAll();
    await this.lifecycle.inputClosed({ ...(graceMs !== undefined ? { graceMs } : {}), hookRunPrefix: this.hookRunPrefix });
    await this.records.flush();
  }
}
