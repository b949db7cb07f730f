// The adapter's side of the engine protocol: one persistent engine process, every
// request in flight side by side and matched by id. The first frame is a version
// check: an engine speaking another protocol version is refused by name and the
// installed one started instead. A dead engine's requests are all answered: as
// failures when it had started a hook for them, else by the next engine, asked once;
// an engine whose code a newer release replaced is retired once it owes nothing.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { HookedEventsCache } from "./hooked-events-cache.ts";
import { ToldDispatches } from "./told-dispatches.ts";
import { Answer, AnswerEnvelope, MAX_FRAME_BYTES, plainAnswerEnvelope, type DecidedHere, PROTOCOL_VERSION, ReadyFrame, ReadyHeader, StartedFrame, type EngineErrorCode, type EngineState } from "../protocol/engine.ts";
import { describeSchemaError } from "../protocol/schema.ts";
import { BoundedLineSplitter } from "./line-splitter.ts";

/**
 * Why the client could not get an answer from an engine, for programs (the error
 * beside it is for people). Beside the engine's own codes (EngineErrorCode).
 */
export const CLIENT_ERROR_CODES = [
  /** close() was called: this client sends nothing more. */
  "client-closed",
  /** The engine could not be started (no command, the program missing). */
  "engine-not-started",
  /** The engine started but gave no ready frame in time, and was killed. */
  "engine-not-ready",
  /** The engine exited or was killed before it answered. */
  "engine-died",
  /** The engine speaks another protocol version (and the installed one did too). */
  "protocol-mismatch",
  /** The request is longer than the engine reads in one frame; it was not sent. */
  "request-too-large",
  /** The request's own bound passed without an answer. */
  "request-timeout",
] as const;
export type ClientErrorCode = (typeof CLIENT_ERROR_CODES)[number];

/** An answer the client could not get from the engine: always ok:false, with the cause. */
export interface Failure {
  id: string;
  ok: false;
  code: ClientErrorCode;
  error: string;
  state?: undefined;
  result?: undefined;
  catalog?: undefined;
}
export type ClientAnswer = Answer | Failure;
/** Every code an answer through this client can carry. */
export type AnswerCode = EngineErrorCode | ClientErrorCode;

/** A failure of the client's own, with its code. */
export class EngineClientError extends Error {
  constructor(
    readonly code: ClientErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface EngineClientOptions {
  /** The argv that starts `tama run-hook --serve omp`, read at each start (an install may move it). */
  command: () => string[];
  env?: NodeJS.ProcessEnv;
  /** A line the engine wrote on stderr (or the client's own line about the engine). */
  onStderr?: (line: string) => void;
  /** A new engine process answered ready (after the first: a restart). */
  onStart?: (state: EngineState, restart: boolean) => void;
  /** How long a starting engine may take to say it is ready. */
  readyTimeoutMs?: number;
}

/** A request sent and not yet answered. */
interface Pending {
  resolve: (answer: ClientAnswer) => void;
  /** The frame as written, to ask the next engine when this one died holding it unstarted. */
  line: string;
  /** The engine said it started a hook process for it: asking again could run a hook twice. */
  started: boolean;
  /** Already asked again once, of the engine after the one that died. */
  resent: boolean;
  /** The engine it waits in now. */
  owner: EngineProcess;
  /** A dispatch's cwd, whose `hookedEvents` its answer names. */
  cwd: string | undefined;
  /** The request, to write again without `knownHookedEvents` for an engine not yet seen to answer by keys. */
  frame: Record<string, unknown>;
}

interface EngineProcess {
  child: ChildProcessWithoutNullStreams;
  argv: string[];
  pending: Map<string, Pending>;
  ready: Promise<EngineState>;
  readySeen: boolean;
  exited: Promise<void>;
  dead: boolean;
  retiring: boolean;
  /** Close the engine's input once the last request it owes is answered. */
  drainThenClose: boolean;
  stderrTail: string[];
  /** It answered a dispatch with a `hookedEventsKey`: it reads `knownHookedEvents` and `decidedHere`. */
  keysHooked: boolean;
  /** Dispatches of events OMP's process went on with, queued and awaiting an answer that may never come. */
  told: ToldDispatches<ClientAnswer>;
}

/**
 * How long a starting engine may take to send its ready frame: a cold start of
 * Node or Bun on a loaded machine takes seconds; past this a start that hangs would
 * hold every request, and nobody else would notice.
 */
export const DEFAULT_READY_TIMEOUT_MS = 15_000;
/** How long a retired (or refused) engine may take to exit after its input closed before it is killed. */
const RETIRE_BOUND_MS = 2_000;
/** A line the engine writes on stderr is a sentence; a longer one is not Tama's and is skipped. */
const STDERR_LINE_BYTES = 64 * 1024;
/** The engine's last stderr lines, kept to name why it died. */
const STDERR_TAIL_LINES = 20;
/** How many of those a failure quotes. */
const STDERR_TAIL_QUOTED = 3;

/**
 * Bumped when a client of one adapter build can no longer be driven by another's.
 * 2: failures carry a code, and the engine's version is checked.
 */
export const ENGINE_CLIENT_CARRY_VERSION = 2;

const cwdOf = (payload: Record<string, unknown>): string | undefined => (typeof payload.cwd === "string" ? payload.cwd : undefined);

const tooLarge = (id: string, line: string): Failure => ({
  id,
  ok: false,
  code: "request-too-large",
  error: `the request is ${Buffer.byteLength(line)} bytes, more than the engine reads in one frame (${MAX_FRAME_BYTES})`,
});

function failure(id: string, error: unknown): Failure {
  if (error instanceof EngineClientError) return { id, ok: false, code: error.code, error: error.message };
  return { id, ok: false, code: "engine-not-started", error: (error as Error).message };
}

export class EngineClient {
  readonly carryVersion = ENGINE_CLIENT_CARRY_VERSION;
  private current: EngineProcess | undefined;
  private seq = 0;
  /** Engines that answered ready: any after the first is a restart. */
  private readyEngines = 0;
  private closed = false;
  private switching: Promise<void> | undefined;
  catalogChecksum: string | undefined;
  catalog: unknown;
  lastState: EngineState | undefined;
  /** The last state an answer carried that was validated, with its JSON. */
  private stateSeen: { text: string; state: EngineState } | undefined;
  private readonly hooked = new HookedEventsCache();

  constructor(private options: EngineClientOptions) {}

  /** A new owner (the next adapter generation) takes the engine's callbacks. */
  rebind(callbacks: Pick<EngineClientOptions, "onStderr" | "onStart" | "command">): void {
    this.options = { ...this.options, ...callbacks };
  }

  get pid(): number | undefined {
    return this.current && !this.current.dead ? this.current.child.pid : undefined;
  }

  get inFlight(): number {
    return this.current?.pending.size ?? 0;
  }

  private start(): EngineProcess {
    const argv = this.options.command();
    const [program, ...args] = argv;
    if (!program) throw new EngineClientError("engine-not-started", "the engine command is empty");
    const child = spawn(program, args, { stdio: ["pipe", "pipe", "pipe"], env: this.options.env ?? process.env });
    let readyResolve: (state: EngineState) => void = () => {};
    let readyReject: (error: Error) => void = () => {};
    const proc: EngineProcess = {
      child,
      argv,
      pending: new Map(),
      ready: new Promise<EngineState>((resolve, reject) => {
        readyResolve = resolve;
        readyReject = reject;
      }),
      readySeen: false,
      keysHooked: false,
      exited: new Promise<void>((resolve) => child.once("close", () => resolve())),
      dead: false,
      retiring: false,
      drainThenClose: false,
      stderrTail: [],
      told: new ToldDispatches<ClientAnswer>(() => this.write(proc, "")),
    };
    const readyTimeoutMs = this.options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
    const readyTimer = setTimeout(() => {
      readyReject(new EngineClientError("engine-not-ready", `the Tama engine (${argv.join(" ")}) gave no ready frame within ${readyTimeoutMs} ms`));
      child.kill("SIGKILL");
    }, readyTimeoutMs);
    readyTimer.unref?.();
    proc.ready.catch(() => undefined);

    child.stdin.on("error", () => {});
    const stderrLines = new BoundedLineSplitter(
      STDERR_LINE_BYTES,
      (line) => {
        proc.stderrTail.push(line);
        if (proc.stderrTail.length > STDERR_TAIL_LINES) proc.stderrTail.shift();
        this.options.onStderr?.(line);
      },
      (bytes) => this.options.onStderr?.(`tama: the engine wrote a stderr line longer than ${STDERR_LINE_BYTES} bytes (${bytes} read); it was skipped`),
    );
    child.stderr.on("data", (chunk: Buffer) => stderrLines.push(chunk));
    child.stderr.on("end", () => {
      const rest = stderrLines.end();
      if (rest !== undefined && rest.length > 0) this.options.onStderr?.(rest);
    });

    /** The engine speaks another protocol version: refuse it by name before trusting anything else it says. */
    const refuse = (version: number): void => {
      proc.dead = true;
      clearTimeout(readyTimer);
      if (this.current === proc) this.current = undefined;
      const error = new EngineClientError(
        "protocol-mismatch",
        `the Tama engine (pid ${child.pid ?? "?"}: ${argv.join(" ")}) speaks engine protocol version ${version} and this client speaks version ${PROTOCOL_VERSION}, so it was ended unused`,
      );
      this.options.onStderr?.(`tama: ${error.message}`);
      readyReject(error);
      child.stdin.end();
      const bound = setTimeout(() => child.kill("SIGKILL"), RETIRE_BOUND_MS);
      bound.unref?.();
      void proc.exited.then(() => clearTimeout(bound));
    };

    const onFrame = (line: string): void => {
      if (proc.dead) return;
      let raw: unknown;
      try {
        raw = JSON.parse(line);
      } catch {
        this.options.onStderr?.(`tama: the engine wrote a line that is not JSON: ${line.slice(0, 200)}`);
        return;
      }
      if (!proc.readySeen) {
        const header = ReadyHeader.safeParse(raw);
        if (header.success) {
          if (header.data.protocolVersion !== PROTOCOL_VERSION) return refuse(header.data.protocolVersion);
          const ready = ReadyFrame.safeParse(raw);
          if (!ready.success) {
            this.options.onStderr?.(`tama: the engine's ready frame is not valid: ${describeSchemaError(ready.error, "the frame")}`);
            return;
          }
          proc.readySeen = true;
          clearTimeout(readyTimer);
          this.lastState = ready.data.state;
          const restart = this.readyEngines > 0;
          this.readyEngines += 1;
          readyResolve(ready.data.state);
          this.options.onStart?.(ready.data.state, restart);
          return;
        }
      }
      // Looked at by its type first: validating every answer as a started frame would fail slowly.
      if ((raw as { type?: unknown } | null)?.type === "started") {
        const started = StartedFrame.safeParse(raw);
        if (!started.success) {
          this.options.onStderr?.(`tama: the engine's started frame is not valid: ${describeSchemaError(started.error, "the frame")}`);
          return;
        }
        const entry = proc.pending.get(String(started.data.id));
        if (entry) entry.started = true;
        return;
      }
      const answer = this.readAnswer(raw);
      if (typeof answer === "string") {
        this.options.onStderr?.(`tama: the engine wrote a frame that is not an answer: ${answer}`);
        return;
      }
      this.settle(proc, answer);
    };
    // The same bound the engine reads its input with: an endless line is never held whole.
    const frames = new BoundedLineSplitter(MAX_FRAME_BYTES, onFrame, (bytes) =>
      this.options.onStderr?.(`tama: the engine wrote a frame longer than ${MAX_FRAME_BYTES} bytes (${bytes} read without LF); it was skipped`),
    );
    child.stdout.on("data", (chunk: Buffer) => frames.push(chunk));

    const onGone = (why: string, code: ClientErrorCode): void => {
      if (proc.dead) return;
      proc.dead = true;
      clearTimeout(readyTimer);
      const tail = proc.stderrTail.slice(-STDERR_TAIL_QUOTED).join(" | ");
      const error = `the Tama engine (pid ${child.pid ?? "?"}) ${why} before answering${tail ? `: ${tail}` : ""}`;
      readyReject(new EngineClientError(code, error));
      if (this.current === proc) this.current = undefined;
      // A request no hook process started for ran nothing outside the dead engine (it may
      // have been written after the engine was already gone): the next engine decides it.
      for (const [id, entry] of proc.pending) {
        if (entry.started || entry.resent || this.closed) entry.resolve({ id, ok: false, code, error });
        else void this.resend(id, entry);
      }
      proc.pending.clear();
      proc.told.drop();
    };
    child.on("error", (error) => onGone(`could not start (${error.message})`, "engine-not-started"));
    child.on("exit", (code, signal) => onGone(signal ? `was ended by ${signal}` : `exited with code ${code}`, "engine-died"));
    return proc;
  }

  /**
   * An answer frame, validated; the words naming what is wrong otherwise. The state
   * rarely changes from one answer to the next and validating it is most of reading
   * an answer (in OMP's process, on its thread): a state equal to the last one
   * validated, by its JSON, is that one.
   */
  private readAnswer(raw: unknown): Answer | string {
    const state = raw !== null && typeof raw === "object" ? (raw as { state?: unknown }).state : undefined;
    const text = state === undefined ? undefined : JSON.stringify(state);
    const seen = this.stateSeen;
    if (seen !== undefined && text === seen.text) {
      const plain = plainAnswerEnvelope(raw);
      if (plain !== undefined) return { ...plain, state: seen.state };
      const envelope = AnswerEnvelope.safeParse(raw);
      return envelope.success ? { ...envelope.data, state: seen.state } : describeSchemaError(envelope.error, "the frame");
    }
    const answer = Answer.safeParse(raw);
    if (!answer.success) return describeSchemaError(answer.error, "the frame");
    if (text !== undefined) this.stateSeen = { text, state: answer.data.state };
    return answer.data;
  }

  private settle(proc: EngineProcess, answer: Answer): void {
    this.lastState = answer.state;
    if (answer.catalog !== undefined && answer.state.catalogChecksum !== null) {
      this.catalog = answer.catalog;
      this.catalogChecksum = answer.state.catalogChecksum;
    }
    if (answer.state.coreReplacedByRelease) proc.retiring = true;
    const id = String(answer.id);
    const entry = proc.pending.get(id) ?? proc.told.claim(id);
    if (!entry) return;
    if (answer.ok && typeof (answer.result as { hookedEventsKey?: unknown } | undefined)?.hookedEventsKey === "string") proc.keysHooked = true;
    const result = answer.ok ? this.hooked.complete(entry.cwd, answer.result) : answer.result;
    const completed = result === answer.result ? answer : { ...answer, result };
    if ("resolve" in entry) {
      proc.pending.delete(id);
      entry.resolve(completed);
    } else entry.onAnswer(completed);
    if (proc.drainThenClose && proc.pending.size === 0) this.endInput(proc);
  }

  /** `line` to the engine, after what is queued for it (told dispatches keep their order). */
  private write(proc: EngineProcess, line: string): void {
    const text = proc.told.take() + line;
    if (text.length > 0 && !proc.dead) proc.child.stdin.write(text);
  }

  /** Close the engine's input, after what is queued for it. */
  private endInput(proc: EngineProcess): void {
    this.write(proc, "");
    proc.child.stdin.end();
  }

  /** The engine to send to: a new one when none runs, or when a retiring one owes nothing. */
  private async engine(): Promise<EngineProcess> {
    while (this.switching) await this.switching;
    const current = this.current;
    if (current && !current.dead && current.retiring && current.pending.size === 0) {
      this.switching = (async () => {
        this.endInput(current);
        // An engine that does not exit once its input closed must not hold every later request.
        const bound = new Promise<void>((resolve) => setTimeout(resolve, RETIRE_BOUND_MS).unref?.());
        await Promise.race([current.exited, bound]);
        if (!current.dead) current.child.kill("SIGKILL");
        if (this.current === current) this.current = undefined;
      })().finally(() => {
        this.switching = undefined;
      });
      await this.switching;
    }
    if (!this.current || this.current.dead) this.current = this.start();
    return this.current;
  }

  /**
   * An engine that said ready. One speaking another protocol version is refused,
   * and the command is read again to start the installed engine, once.
   */
  private async readyEngine(): Promise<EngineProcess> {
    const first = await this.engine();
    try {
      await first.ready;
      return first;
    } catch (error) {
      if (!(error instanceof EngineClientError) || error.code !== "protocol-mismatch") throw error;
    }
    const installed = await this.engine();
    await installed.ready;
    return installed;
  }

  /**
   * Send a request; the answer, or a failure naming why none came (with its code). Never throws.
   * `timeoutMs` bounds a request nothing else bounds (a status or reload asked by a
   * person): past it the request fails by name, and a late answer is dropped.
   * Dispatches have none: OMP's own handler budget bounds them.
   */
  request(frame: Record<string, unknown>, timeoutMs?: number): Promise<ClientAnswer> {
    return this.send(frame, timeoutMs, undefined);
  }

  /** `cwd`: a dispatch's, whose known `hookedEvents` key goes with it. */
  private async send(frame: Record<string, unknown>, timeoutMs: number | undefined, cwd: string | undefined): Promise<ClientAnswer> {
    const id = this.nextId();
    const proc = await this.usableEngine(id);
    if ("ok" in proc) return proc;
    const line = this.frameLine(proc, frame, id, this.hooked.knownFor(cwd));
    // The engine refuses a longer frame without an id to answer by: fail it here, by name.
    if (Buffer.byteLength(line) > MAX_FRAME_BYTES) return tooLarge(id, line);
    let entry: Pending | undefined;
    const answer = new Promise<ClientAnswer>((resolve) => {
      entry = { resolve, line, started: false, resent: false, owner: proc, cwd, frame };
      proc.pending.set(id, entry);
    });
    this.write(proc, line);
    if (timeoutMs === undefined) return answer;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<ClientAnswer>((resolve) => {
      timer = setTimeout(() => {
        if (entry !== undefined && entry.owner.pending.get(id) === entry) entry.owner.pending.delete(id);
        resolve({ id, ok: false, code: "request-timeout", error: `the Tama engine (pid ${proc.child.pid ?? "?"}) gave no answer to ${String(frame.op)} within ${timeoutMs} ms` });
      }, timeoutMs);
      timer.unref?.();
    });
    return Promise.race([answer, late]).finally(() => clearTimeout(timer));
  }

  /** Ask the next engine a request the dead one held unstarted, under the same id; once. */
  private async resend(id: string, entry: Pending): Promise<void> {
    entry.resent = true;
    let proc: EngineProcess;
    try {
      proc = await this.readyEngine();
    } catch (error) {
      entry.resolve(failure(id, error));
      return;
    }
    if (proc.dead) {
      entry.resolve({ id, ok: false, code: "engine-died", error: `the Tama engine (pid ${proc.child.pid ?? "?"}) is gone` });
      return;
    }
    entry.owner = proc;
    proc.pending.set(id, entry);
    this.write(proc, proc.keysHooked ? entry.line : this.frameLine(proc, entry.frame, id, undefined));
  }

  dispatch(event: string, payload: Record<string, unknown>): Promise<ClientAnswer> {
    return this.send({ op: "dispatch", event, payload }, undefined, cwdOf(payload));
  }

  /**
   * Dispatch an event OMP's process already went on with as `decided` (decided there, or
   * let go on with no hook to run); nobody waits. `onAnswer` gets the engine's answer when
   * it has one to give (another verdict, news of the hooks, a failure) and is not called
   * when it only agrees. The frame goes out with the next one to the engine, or within
   * FLUSH_MS (told-dispatches.ts). An engine not yet seen to read `decidedHere` is sent an
   * ordinary dispatch, whose answer `onAnswer` always gets.
   */
  tell(event: string, payload: Record<string, unknown>, decided: DecidedHere, onAnswer: (answer: ClientAnswer) => void, payloadJson?: string): void {
    void this.told(event, payload, decided, onAnswer, payloadJson);
  }

  /** `payloadJson`: the payload's JSON when the caller has it, written as it is. */
  private async told(event: string, payload: Record<string, unknown>, decided: DecidedHere, onAnswer: (answer: ClientAnswer) => void, payloadJson: string | undefined): Promise<void> {
    const frame = { op: "dispatch", event, payload };
    const cwd = cwdOf(payload);
    const id = this.nextId();
    const proc = await this.usableEngine(id);
    if ("ok" in proc) return onAnswer(proc);
    if (!proc.keysHooked) return onAnswer(await this.send(frame, undefined, cwd));
    const line = this.frameLine(proc, { op: "dispatch", event, ...(payloadJson === undefined ? { payload } : {}), decidedHere: decided }, id, this.hooked.knownFor(cwd), payloadJson);
    if (Buffer.byteLength(line) > MAX_FRAME_BYTES) return onAnswer(tooLarge(id, line));
    proc.told.add(id, line, { onAnswer, cwd });
  }

  private nextId(): string {
    return `a${process.pid}-${++this.seq}`;
  }

  /** The engine to write a request to, or the failure that answers it. */
  private async usableEngine(id: string): Promise<EngineProcess | Failure> {
    if (this.closed) return { id, ok: false, code: "client-closed", error: "the Tama engine client is closed" };
    let proc: EngineProcess;
    try {
      proc = await this.readyEngine();
    } catch (error) {
      return failure(id, error);
    }
    if (proc.dead) return { id, ok: false, code: "engine-died", error: `the Tama engine (pid ${proc.child.pid ?? "?"}) is gone` };
    return proc;
  }

  /**
   * A request's line: with the catalog checksum the client holds and, when given, its
   * known `hookedEvents` key, which only an engine seen to answer by keys is sent (an
   * older build refuses a field it does not know).
   */
  private frameLine(proc: EngineProcess, frame: Record<string, unknown>, id: string, knownHookedEvents: string | undefined, payloadJson?: string): string {
    const withChecksum = this.catalogChecksum ? { knownCatalogChecksum: this.catalogChecksum } : { knownCatalogChecksum: "" };
    const known = proc.keysHooked && knownHookedEvents !== undefined ? { knownHookedEvents } : {};
    const head = JSON.stringify({ ...frame, ...withChecksum, ...known, id });
    // A payload already serialised goes in as its text: a large tool result is not serialised twice.
    return payloadJson === undefined ? `${head}\n` : `${head.slice(0, -1)},"payload":${payloadJson}}\n`;
  }

  /**
   * Stop using this engine: its input is closed once every request it owes is
   * answered (so an adoption in place never cuts a check short), and it exits then.
   * `wait`: false resolves at once; true waits for the exit; a number waits that
   * long and then kills the engine.
   */
  async close(wait: boolean | number = true): Promise<void> {
    this.closed = true;
    const proc = this.current;
    this.current = undefined;
    if (!proc || proc.dead) return;
    if (proc.pending.size === 0) this.endInput(proc);
    else proc.drainThenClose = true;
    if (wait === false) return;
    if (wait === true) return proc.exited;
    const bound = new Promise<void>((resolve) => setTimeout(resolve, wait).unref?.());
    await Promise.race([proc.exited, bound]);
    if (!proc.dead) proc.child.kill("SIGKILL");
  }
}
