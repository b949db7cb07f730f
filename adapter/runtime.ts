// The adapter's state for one OMP session: the session's identity, verdicts from the
// engine (whose lifetime engine-lifetime.ts owns), the fail mode, the log, notices
// and the status shown in OMP's footer.
import path from "node:path";
import { digestFromUrl, type AdapterHost } from "../modules/omp/adapter-contract.ts";
import type { AnswerCode, ClientAnswer, EngineClient } from "../modules/engine/client.ts";
import { fileLogger, type Logger } from "../modules/system/log.ts";
import type { OmpContext } from "../modules/omp/api.ts";
import { DispatchResult, heldNotice, type EngineState } from "../modules/protocol/engine.ts";
import { tamaHome } from "../modules/system/paths.ts";
import { EngineLifetime } from "./engine-lifetime.ts";
import { HooklessEvents } from "./hookless.ts";
import { LocalDecisions } from "../modules/engine/local-decision.ts";
import { LocalWarmUp } from "../modules/engine/local-warm-up.ts";
import { parentOf, subagentsOf } from "./process-sessions.ts";
import type { StatusView } from "./status-command.ts";
import { TrustDialog } from "./trust-dialog.ts";

export type FailMode = "closed" | "open";

export interface Verdict {
  /** A usable engine answer; undefined when none could be had. */
  result?: DispatchResult;
  /** Why no verdict could be had (engine down, ok:false, registry unusable). */
  failure?: string;
  /** The failure's code, to branch on (never on the sentence). */
  code?: AnswerCode;
  /** A check that could not finish: the failMode-closed hooks that owed it a verdict (the engine's own list). */
  unansweredClosed?: string[];
}

/** Codes meaning the harness's own next signal ended the check: OMP stopped waiting for it. */
export const ENDED_BY_HARNESS: ReadonlySet<AnswerCode> = new Set<AnswerCode>(["dispatch-ended", "hooks-cancelled"]);

/** How long a status or reload asked for by a person waits on the engine. */
export const PERSON_WAIT_MS = 10_000;

/** What the runtime reports of itself (the model gate adds its own part). */
export type RuntimeStatus = Omit<StatusView, "modelRequests"> & { adapterReloadSupported: boolean };

export class AdapterRuntime {
  readonly home = tamaHome();
  readonly digest: string | null;
  readonly logger: Logger;
  readonly lifetime: EngineLifetime;
  /** Claude's per-session fields (prompt_id, permission_mode) every event carries (claude-session.ts). */
  sessionFields: (session: string | undefined) => Record<string, unknown> = () => ({});
  /** Every engine state the adapter reads (session control follows the loaded generation). */
  onEngineState: ((state: EngineState) => void) | undefined;
  readonly failMode: FailMode;
  private failModeWarning: string | undefined;
  lastRefusal: string | undefined;
  private readonly heldTold = new Set<string>();
  private readonly trustDialog: TrustDialog;
  /** The newest hooks that failed open (hook: reason), for /tama_status. */
  readonly failedOpen: string[] = [];
  private statusShown = "";
  /** Which events run no hook, per cwd, from the engine's answers. */
  readonly hookless = new HooklessEvents();
  /** Events whose only hooks are memoryless built-in gates, decided here. */
  readonly local: LocalDecisions;
  /** The first of them decided again while OMP is idle, so that their code is compiled (local-warm-up.ts). */
  readonly warmUp = new LocalWarmUp();

  constructor(
    readonly host: AdapterHost,
    moduleUrl: string,
  ) {
    // The identity is the URL the shell imported this module under, never the file on disk.
    this.digest = digestFromUrl(moduleUrl);
    this.local = new LocalDecisions({ tamaHome: this.home, env: process.env });
    // A log that cannot be written is one warning in the session, never OMP's crash.
    this.logger = fileLogger(path.join(this.home, "logs"), "adapter", (message) => this.warnOnce(message));
    const mode = process.env.TAMA_FAIL_MODE;
    if (mode === undefined || mode === "" || mode === "closed") this.failMode = "closed";
    else if (mode === "open") this.failMode = "open";
    else {
      this.failMode = "closed";
      this.failModeWarning = `TAMA_FAIL_MODE must be "open" or "closed", not ${JSON.stringify(mode)}; Tama refuses calls it cannot check`;
    }
    this.trustDialog = new TrustDialog(
      this.home,
      (message, type) => this.notify(message, type),
      (note, project) => this.logger.info({ project, note }, "trust dialog"),
    );
    this.lifetime = new EngineLifetime(host, this.home, {
      onStderr: (line) => this.engineSaid(line),
      onStart: (state, restart) => this.engineStarted(state, restart),
      session: () => this.sessionId(),
    });
  }

  /** The engine client in use (a revived lifetime has a new one). */
  get engine(): EngineClient {
    return this.lifetime.client;
  }

  /** The newest context OMP handed any handler: the shell records it before each call. */
  get context(): OmpContext | undefined {
    return this.host.lastContext();
  }

  private engineStarted(state: EngineState, restart: boolean): void {
    this.logger.info({ pid: state.processId, release: state.loadedReleaseId, note: restart ? "engine restarted" : "engine started" }, "engine ready");
    if (restart) this.notify(`Tama's engine restarted (pid ${state.processId}).`, "warning");
    // Synchronous, before the first request is written: a grant is rebound before it is read.
    this.onEngineState?.(state);
    this.refreshStatus();
  }

  /** The session this adapter serves, from the newest context. */
  sessionId(ctx?: OmpContext): string | undefined {
    try {
      return (ctx ?? this.context)?.sessionManager.getSessionId();
    } catch {
      return undefined;
    }
  }

  sessionFile(ctx?: OmpContext): string | undefined {
    try {
      return (ctx ?? this.context)?.sessionManager.getSessionFile();
    } catch {
      return undefined;
    }
  }

  /** The payload fields every event carries. */
  basePayload(ctx: OmpContext): Record<string, unknown> {
    const session = this.sessionId(ctx);
    const file = this.sessionFile(ctx);
    return { ...(session ? { session_id: session } : {}), cwd: ctx.cwd, ...(file ? { transcript_path: file } : {}), ...this.sessionFields(session) };
  }

  /**
   * Dispatch and read the answer into a verdict or the reason there is none. An event
   * no hook runs for goes on at once (hookless.ts) unless `wait` says it must not.
   */
  async verdict(event: string, payload: Record<string, unknown>, options: { wait?: boolean } = {}): Promise<Verdict> {
    // Either way the dispatch is still sent: the engine's records, ordering, supersession
    // and turn-end rules need the event. Nobody waits for it, and the engine answers it
    // only when it has something to tell (engine/agreement.ts, engine/told-dispatches.ts).
    if (options.wait !== true && this.hookless.none(this.engine.pid, event, payload.cwd)) {
      this.hookless.wentOn += 1;
      this.engine.tell(event, payload, { decision: "pass" }, (answer) => this.wentOn(event, this.read(answer, payload)));
      return {};
    }
    const plan = options.wait === true ? undefined : this.hookless.plan(this.engine.pid, event, payload.cwd);
    if (plan !== undefined) {
      // Serialised once: the size check here and the frame to the engine read the same text.
      const json = JSON.stringify(payload);
      const began = performance.now();
      const decided = await this.local.decide(event, payload, plan, json);
      if (decided !== undefined) {
        this.warmUp.saw(event, json.length, performance.now() - began, () => this.local.decideAgain(event, payload, plan, json));
        const { decision, reason, additionalContext } = decided;
        this.engine.tell(event, payload, { decision, reason, additionalContext }, (answer) => this.compareLate(event, decided, this.read(answer, payload)), json);
        return { result: decided };
      }
    }
    return this.read(await this.engine.dispatch(event, payload), payload);
  }

  /** The engine's answer to an event decided in OMP's process: a different verdict is told, never lost. */
  private compareLate(event: string, decided: DispatchResult, verdict: Verdict): void {
    if (verdict.failure !== undefined) {
      if (verdict.code === undefined || !ENDED_BY_HARNESS.has(verdict.code)) this.notify(`Tama's engine could not check ${event}, which OMP's process decided (${decided.decision}): ${verdict.failure}`, "warning");
      return;
    }
    const result = verdict.result;
    if (result === undefined || (result.decision === decided.decision && result.reason === decided.reason)) return;
    // Its hook sources changed as it arrived: the engine read the new ones.
    this.logger.warn({ event, decision: result.decision, note: `engine answered otherwise than OMP's process (${decided.decision})` }, "late verdict");
    this.notify(`Tama: ${event} was decided in OMP's process (${decided.decision}) as its hook sources changed; the engine's verdict, which came after, is ${result.decision}${result.reason ? `: ${result.reason}` : ""}`, "warning");
  }

  /** An answer nobody waited for: what it says is told, never lost. */
  private wentOn(event: string, verdict: Verdict): void {
    if (verdict.failure !== undefined) {
      if (verdict.code === undefined || !ENDED_BY_HARNESS.has(verdict.code)) this.notify(`Tama could not check ${event}, which no hook ran for and so went on: ${verdict.failure}`, "warning");
      return;
    }
    const result = verdict.result;
    if (result === undefined || (result.decision === "pass" && result.additionalContext === undefined)) return;
    // Its hook sources changed as it arrived: the change's hooks answered after the event went on.
    this.logger.warn({ event, decision: result.decision, note: "answered after the event went on" }, "late verdict");
    this.notify(`Tama: ${event} went on before its hooks answered (its hook sources changed as it arrived): ${result.reason ?? result.additionalContext ?? result.decision}`, "warning");
  }

  private read(answer: ClientAnswer, payload: Record<string, unknown>): Verdict {
    if (answer.state) this.onEngineState?.(answer.state);
    if (answer.ok) this.hookless.learn(answer.state.processId, payload.cwd, (answer.result as { hookedEvents?: unknown } | undefined)?.hookedEvents);
    if (!answer.ok) {
      const unfinished = DispatchResult.safeParse(answer.result);
      const owed = unfinished.success ? unfinished.data.unansweredClosed : undefined;
      return { failure: answer.error ?? "the engine answered without a reason", code: answer.code ?? "internal", ...(owed !== undefined ? { unansweredClosed: owed } : {}) };
    }
    const result = answer.result as DispatchResult | undefined;
    if (!result || typeof result.decision !== "string") return { failure: "the engine's answer carried no decision" };
    if (result.failedOpen.length > 0) {
      this.notify(`Tama: ${result.failedOpen.map((f) => f.reason).join("; ")}`, "warning");
      this.failedOpen.push(...result.failedOpen.map((f) => `${f.hook}: ${f.reason.slice(0, 120)}`));
      this.failedOpen.splice(0, Math.max(0, this.failedOpen.length - 5));
    }
    if (result.held !== undefined) this.tellHeld(result.held);
    return { result };
  }

  /** Once per project, trust state and set of changes: which project hooks are held, and how to trust them. */
  private tellHeld(held: NonNullable<DispatchResult["held"]>): void {
    const key = `${held.project}\u0000${held.trust}\u0000${held.changes.join("\u0000")}`;
    if (this.heldTold.has(key)) return;
    this.heldTold.add(key);
    this.notify(heldNotice(held), "warning");
    // In the TUI the person can also answer here; the handler does not wait for it.
    this.trustDialog.offer(this.context, held, key);
  }

  notify(message: string, type: "info" | "warning" | "error" = "info"): void {
    const ctx = this.context;
    if (ctx && (ctx.hasUI || ctx.mode === "rpc")) {
      try {
        ctx.ui.notify(message, type);
        return;
      } catch {
        // fall through to stderr
      }
    }
    process.stderr.write(`${message}\n`);
  }

  private engineSaid(line: string): void {
    // The engine names abandoned hooks and infrastructure trouble; keep them visible.
    // Only Tama's own lines (hook ids, events, sessions, process groups) go into the log;
    // anything else the engine's runtime printed is counted, never copied (allowlist).
    if (line.startsWith("tama: ")) this.logger.warn({ note: "engine stderr" }, line.slice(0, 2000));
    else this.logger.warn({ note: "engine stderr (not Tama's)", count: line.length }, "the engine printed a line that is not Tama's");
    if (!this.context?.hasUI) process.stderr.write(`${line}\n`);
  }

  warnStartup(): void {
    if (this.failModeWarning) this.notify(this.failModeWarning, "warning");
    for (const message of this.pendingWarnings.splice(0)) this.notify(message, "warning");
  }

  private readonly pendingWarnings: string[] = [];

  /** A warning shown now when a session is there to see it, else when it starts. */
  private warnOnce(message: string): void {
    if (this.context) this.notify(message, "warning");
    else this.pendingWarnings.push(message);
  }

  refused(reason: string): void {
    this.lastRefusal = reason.split("\n")[0]?.slice(0, 80);
    this.refreshStatus();
  }

  /** A call passed: the footer's last refusal is history now. */
  passed(): void {
    if (this.lastRefusal === undefined) return;
    this.lastRefusal = undefined;
    this.refreshStatus();
  }

  /** The footer entry: gates loaded, the engine, the last refusal. */
  refreshStatus(): void {
    const ctx = this.context;
    if (!ctx) return;
    const state = this.engine.lastState;
    const gates = state ? `${state.registeredHookCount} gates` : "no gates loaded";
    const engine = this.engine.pid ? `engine ${this.engine.pid}` : "engine stopped";
    const problem = state?.lastReloadError ? " · registry error" : "";
    const heldCount = state?.heldProjectHooks?.count ?? 0;
    const held = heldCount > 0 ? ` · ${heldCount} project hooks held` : "";
    const last = this.lastRefusal ? ` · refused: ${this.lastRefusal}` : "";
    const text = `Tama: ${gates} · ${engine}${problem}${held}${last}`;
    if (text === this.statusShown) return;
    this.statusShown = text;
    try {
      ctx.ui.setStatus("tama", text);
    } catch {
      // a mode without a footer
    }
  }

  async status(): Promise<RuntimeStatus> {
    const answer = await this.engine.request({ op: "status" }, PERSON_WAIT_MS);
    if (answer.state) this.onEngineState?.(answer.state);
    const session = this.sessionId();
    const parent = parentOf(session);
    return {
      ompPid: process.pid,
      session: session ?? null,
      adapterDigest: this.digest,
      adapterReloadSupported: typeof this.host.adopt === "function",
      failMode: this.failMode,
      ...(this.lastRefusal !== undefined ? { lastRefusal: this.lastRefusal } : {}),
      failedOpen: [...this.failedOpen],
      ...(parent !== undefined ? { parentSession: parent } : {}),
      subagents: subagentsOf(session),
      engineSharedBy: EngineLifetime.sharedBy(),
      eventsWentOn: this.hookless.wentOn,
      eventsDecidedHere: this.local.decided,
      engine: answer.ok ? { processId: answer.state?.processId, state: answer.state } : { error: answer.error, code: answer.code },
    };
  }
}
