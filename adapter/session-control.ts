// Session control inside OMP: this adapter serves its session's socket, publishes the
// session record, answers status and reload-adapter, and rebinds the session's grant
// when the engine loads another release. During an in-place adoption the adapter
// being replaced keeps answering until its successor has taken the socket over.
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import path from "node:path";
import { isAdoption, type AdapterHost } from "../modules/omp/adapter-contract.ts";
import { rebindGrant } from "../modules/session-control/grants.ts";
import type { OmpContext } from "../modules/omp/api.ts";
import { processStartTicks } from "../modules/system/process-groups.ts";
import type { EngineState } from "../modules/protocol/engine.ts";
import { AdapterStatus, SESSION_CONTROL_PROTOCOL_VERSION, type ControlStatus, type ReloadReceipt } from "../modules/protocol/session-control.ts";
import { ControlFailure, ControlServer } from "../modules/session-control/server.ts";
import {
  grantPath,
  newKey,
  readRecordFile,
  recordPath,
  sessionsDirProblem,
  socketPath,
  writePrivateJson,
  type LoadedGeneration,
  type SessionRecord,
} from "../modules/session-control/records.ts";
import { parentOf } from "./process-sessions.ts";
import type { AdapterRuntime } from "./runtime.ts";

/** What one adapter offers the next across an adoption: its digest, and a way to stop accepting. */
interface ActiveControl {
  digest: string | null;
  retire(): void;
}

/** Where each generation finds the control serving a session: the shell's carry store. */
const CONTROLS_CARRY_KEY = "tama.session-controls";
// Shells older than host.carry: process-wide, because the adapter replacing this one is another module instance.
const ACTIVE = Symbol.for("tama.omp.session-control.v1");

function activeControls(host: AdapterHost): Map<string, ActiveControl> {
  const carried = host.carry?.get(CONTROLS_CARRY_KEY);
  if (carried instanceof Map) return carried as Map<string, ActiveControl>;
  const created = new Map<string, ActiveControl>();
  if (host.carry) {
    host.carry.set(CONTROLS_CARRY_KEY, created);
    return created;
  }
  const holder = globalThis as unknown as Record<symbol, unknown>;
  const existing = holder[ACTIVE];
  if (existing instanceof Map) return existing as Map<string, ActiveControl>;
  holder[ACTIVE] = created;
  return created;
}

const sameGeneration = (a: LoadedGeneration, b: LoadedGeneration): boolean =>
  a.releaseId === b.releaseId && a.catalogChecksum === b.catalogChecksum;

export class SessionControl {
  /** The runtime's own TAMA_HOME (never throws, unlike reading it again here). */
  private readonly paths: { home: string; sessions: string };
  private readonly instance = randomBytes(8).toString("hex");
  private readonly entry: ActiveControl;
  private readonly startTicks = processStartTicks(process.pid);
  private server: ControlServer | undefined;
  private session: string | undefined;
  private key = newKey();
  private startedAtMs = Date.now();
  private cwd = "";
  private observed: LoadedGeneration | null = null;
  private enginePid: number | null = null;
  private phase: "idle" | "serving" | "retiring" | "retired" | "stopped" = "idle";
  private lastProblem: string | undefined;

  constructor(
    private readonly host: AdapterHost,
    private readonly runtime: AdapterRuntime,
    private readonly adapterStatus: () => Promise<Record<string, unknown>>,
  ) {
    this.entry = { digest: runtime.digest, retire: () => this.retire() };
    this.paths = { home: runtime.home, sessions: path.join(runtime.home, "sessions") };
  }

  private get reloadSupported(): boolean {
    return typeof this.host.adopt === "function";
  }

  /**
   * session_start (also an adoption's activation, a restore, a session switch):
   * serve the session's socket and publish its record. Never throws: a session
   * without control still has its gates.
   */
  async start(ctx: OmpContext): Promise<void> {
    const session = this.runtime.sessionId(ctx);
    if (!session) return;
    const switched = this.session !== undefined && this.session !== session;
    if (switched) this.stopServing();
    this.session = session;
    this.cwd = ctx.cwd;
    // Synchronous, before the engine can answer: the key and the generation a grant was bound under.
    this.inherit(session, switched);
    this.phase = "serving";
    const controls = activeControls(this.host);
    const prior = controls.get(session);
    controls.set(session, this.entry);
    try {
      const problem = sessionsDirProblem(this.paths.home, this.paths.sessions, true);
      if (problem !== undefined) throw new Error(problem);
      if (!this.server?.ownsPath()) {
        this.server?.retire();
        this.server = await ControlServer.listen(
          socketPath(this.paths.sessions, session),
          { key: this.key, status: () => this.status(), reloadAdapter: () => this.reloadAdapter() },
          this.runtime.logger,
        );
      }
      this.publish();
      this.lastProblem = undefined;
      this.runtime.logger.info({ session, digest: this.runtime.digest, note: "session control serving" }, "session control started");
    } catch (error) {
      this.off(session, (error as Error).message);
    } finally {
      // Whatever served the session before stops accepting now that the path is taken over (or is dead).
      if (prior && prior !== this.entry) prior.retire();
    }
  }

  /** Take the key, start time and observed generation from the record this process already published. */
  private inherit(session: string, switched: boolean): void {
    const read = readRecordFile(recordPath(this.paths.sessions, session));
    const own = read.ok && read.record.session === session && read.record.ompPid === process.pid && read.record.ompStartTicks === this.startTicks;
    if (own) {
      this.key = read.record.key;
      this.startedAtMs = read.record.startedAtMs;
      this.observed ??= read.record.engineGeneration;
      this.enginePid ??= read.record.enginePid;
    } else if (switched) {
      // Another session: its own key and its own consent.
      this.key = newKey();
      this.startedAtMs = Date.now();
    }
  }

  private off(session: string, reason: string): void {
    this.server?.retire();
    this.server = undefined;
    this.removeRecord(session, false);
    const message = `Tama session control is off for this session: ${reason}`;
    this.runtime.logger.warn({ session, note: "session control off" }, message);
    if (message !== this.lastProblem) this.runtime.notify(message, "warning");
    this.lastProblem = message;
  }

  /** session_shutdown. In an adoption the socket stays served until the successor takes it. */
  stop(event: unknown): void {
    if (isAdoption(event) && this.phase === "serving") {
      this.phase = "retiring";
      return;
    }
    this.stopServing();
    this.phase = "stopped";
  }

  /** The successor (or a restored predecessor) took the socket over. */
  private retire(): void {
    this.server?.retire();
    if (this.phase === "serving" || this.phase === "retiring") this.phase = "retired";
  }

  private stopServing(): void {
    const session = this.session;
    if (session === undefined) return;
    const controls = activeControls(this.host);
    if (controls.get(session) === this.entry) controls.delete(session);
    const owned = this.server?.ownsPath() ?? false;
    this.server?.close();
    this.server = undefined;
    if (owned) this.removeRecord(session, true);
  }

  /** Remove this process's record of the session (and with the session, its grant). */
  private removeRecord(session: string, withGrant: boolean): void {
    const file = recordPath(this.paths.sessions, session);
    const read = readRecordFile(file);
    if (!read.ok || read.record.ompPid !== process.pid) return;
    try {
      rmSync(file, { force: true });
      if (withGrant) rmSync(grantPath(this.paths.sessions, session), { force: true });
    } catch (error) {
      this.runtime.logger.warn({ session, note: "session record not removed" }, (error as Error).message);
    }
  }

  /** Write the session record atomically; only while this adapter's socket is the session's. */
  private publish(): void {
    const session = this.session;
    if (session === undefined || !this.server?.ownsPath()) return;
    const parent = parentOf(session);
    const record: SessionRecord = {
      schema: 1,
      protocolVersion: SESSION_CONTROL_PROTOCOL_VERSION,
      session,
      ompPid: process.pid,
      ...(this.startTicks !== undefined ? { ompStartTicks: this.startTicks } : {}),
      enginePid: this.enginePid,
      startedAtMs: this.startedAtMs,
      publishedAtMs: Date.now(),
      cwd: this.cwd,
      adapterDigest: this.runtime.digest,
      adapterReloadSupported: this.reloadSupported,
      socket: this.server.socketPath,
      key: this.key,
      instance: this.instance,
      engineGeneration: this.observed,
      ...(parent !== undefined ? { parent } : {}),
    };
    try {
      writePrivateJson(recordPath(this.paths.sessions, session), record);
    } catch (error) {
      this.runtime.logger.error({ session, note: "session record not written" }, (error as Error).message);
    }
  }

  /** Every engine state the adapter reads: the engine's pid, and the generation grants follow. */
  observe(state: EngineState): void {
    const next: LoadedGeneration = { releaseId: state.loadedReleaseId, catalogChecksum: state.catalogChecksum };
    const previous = this.observed;
    if (previous && sameGeneration(previous, next) && this.enginePid === state.processId) return;
    this.enginePid = state.processId;
    if (next.catalogChecksum !== null) this.observed = next;
    const session = this.session;
    if (session !== undefined && previous && next.catalogChecksum !== null && !sameGeneration(previous, next)) {
      try {
        const outcome = rebindGrant(this.paths.sessions, session, this.key, previous, next);
        this.runtime.logger.info({ session, release: next.releaseId, checksum: next.catalogChecksum, note: `grant ${outcome}` }, "engine loaded another generation");
      } catch (error) {
        this.runtime.logger.error({ session, note: "grant not rebound" }, (error as Error).message);
      }
    }
    this.publish();
  }

  private async status(): Promise<ControlStatus> {
    const adapter = AdapterStatus.safeParse(await this.adapterStatus());
    return {
      protocolVersion: SESSION_CONTROL_PROTOCOL_VERSION,
      session: this.session ?? "",
      ompPid: process.pid,
      adapterDigest: this.runtime.digest,
      adapterReloadSupported: this.reloadSupported,
      startedAtMs: this.startedAtMs,
      cwd: this.cwd,
      serving: this.phase === "serving" ? "serving" : "retiring",
      adapter: adapter.success ? adapter.data : {},
    };
  }

  /** The same adoption as /tama_reload_hook_runtime; concurrent callers share the shell's one. */
  private async reloadAdapter(): Promise<ReloadReceipt> {
    if (!this.reloadSupported) {
      throw new ControlFailure("reload-unsupported", "this session's OMP shell cannot adopt an adapter in place; restart OMP once to load a shell that can");
    }
    const session = this.session ?? "";
    const receipt = await this.host.adopt(this.host.lastContext(), "session-control");
    // The digest of the adapter that runs the session now, from its own runtime.
    const active = activeControls(this.host).get(session);
    const adapterDigest = active ? active.digest : receipt.digest;
    return {
      ok: receipt.ok,
      changed: receipt.ok ? receipt.changed : false,
      ompPid: process.pid,
      session,
      adapterDigest,
      runtime: { adapterDigest },
      previousDigest: receipt.previousDigest,
      adapterReloadSupported: true,
      message: receipt.message,
      ...(receipt.ok ? {} : { error: receipt.error }),
    };
  }
}
