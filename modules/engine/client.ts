// The adapter's side of the engine protocol: one persistent engine process, every
// request in flight side by side and matched by id. A dead engine's requests are
// all answered (as failures) and the next request starts a new one; an engine whose
// code a newer release replaced is retired once it owes nothing.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import readline from "node:readline";
import { Answer, MAX_FRAME_BYTES, ReadyFrame, type EngineState } from "../protocol/engine.ts";
import { describeSchemaError } from "../protocol/schema.ts";

/** An answer the client could not get from the engine: always ok:false, with the cause. */
export interface Failure {
  id: string;
  ok: false;
  error: string;
  state?: undefined;
  result?: undefined;
  catalog?: undefined;
}
export type ClientAnswer = Answer | Failure;

export interface EngineClientOptions {
  /** The argv that starts `tama run-hook --serve omp`, read at each start (an install may move it). */
  command: () => string[];
  env?: NodeJS.ProcessEnv;
  /** A line the engine wrote on stderr. */
  onStderr?: (line: string) => void;
  /** A new engine process answered ready (after the first: a restart). */
  onStart?: (state: EngineState, restart: boolean) => void;
  /** How long a starting engine may take to say it is ready. */
  readyTimeoutMs?: number;
}

interface EngineProcess {
  child: ChildProcessWithoutNullStreams;
  pending: Map<string, (answer: ClientAnswer) => void>;
  ready: Promise<EngineState>;
  exited: Promise<void>;
  dead: boolean;
  retiring: boolean;
  /** Close the engine's input once the last request it owes is answered. */
  drainThenClose: boolean;
  stderrTail: string[];
}

/** How long a retired engine may take to exit after its input closed. */
const RETIRE_BOUND_MS = 2_000;

/** Bumped when a client of one adapter build can no longer be driven by another's. */
export const ENGINE_CLIENT_CARRY_VERSION = 1;

export class EngineClient {
  readonly carryVersion = ENGINE_CLIENT_CARRY_VERSION;
  private current: EngineProcess | undefined;
  private seq = 0;
  private starts = 0;
  private closed = false;
  private switching: Promise<void> | undefined;
  catalogChecksum: string | undefined;
  catalog: unknown;
  lastState: EngineState | undefined;

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
    if (!program) throw new Error("the engine command is empty");
    const child = spawn(program, args, { stdio: ["pipe", "pipe", "pipe"], env: this.options.env ?? process.env });
    const restart = this.starts > 0;
    this.starts += 1;
    let readyResolve: (state: EngineState) => void = () => {};
    let readyReject: (error: Error) => void = () => {};
    const proc: EngineProcess = {
      child,
      pending: new Map(),
      ready: new Promise<EngineState>((resolve, reject) => {
        readyResolve = resolve;
        readyReject = reject;
      }),
      exited: new Promise<void>((resolve) => child.once("close", () => resolve())),
      dead: false,
      retiring: false,
      drainThenClose: false,
      stderrTail: [],
    };
    // A ready that never comes would hold every request; nobody else would notice.
    const readyTimer = setTimeout(() => {
      readyReject(new Error(`the Tama engine (${argv.join(" ")}) gave no ready frame within ${this.options.readyTimeoutMs ?? 15_000} ms`));
      child.kill("SIGKILL");
    }, this.options.readyTimeoutMs ?? 15_000);
    readyTimer.unref?.();
    proc.ready.catch(() => undefined);

    child.stdin.on("error", () => {});
    readline.createInterface({ input: child.stderr }).on("line", (line) => {
      proc.stderrTail.push(line);
      if (proc.stderrTail.length > 20) proc.stderrTail.shift();
      this.options.onStderr?.(line);
    });
    readline.createInterface({ input: child.stdout }).on("line", (line) => {
      let raw: unknown;
      try {
        raw = JSON.parse(line);
      } catch {
        this.options.onStderr?.(`tama: the engine wrote a line that is not JSON: ${line.slice(0, 200)}`);
        return;
      }
      const ready = ReadyFrame.safeParse(raw);
      if (ready.success) {
        clearTimeout(readyTimer);
        this.lastState = ready.data.state;
        readyResolve(ready.data.state);
        this.options.onStart?.(ready.data.state, restart);
        return;
      }
      const answer = Answer.safeParse(raw);
      if (!answer.success) {
        this.options.onStderr?.(`tama: the engine wrote a frame that is not an answer: ${describeSchemaError(answer.error, "the frame")}`);
        return;
      }
      this.settle(proc, answer.data);
    });
    const onGone = (why: string): void => {
      if (proc.dead) return;
      proc.dead = true;
      clearTimeout(readyTimer);
      const tail = proc.stderrTail.slice(-3).join(" | ");
      const error = `the Tama engine (pid ${child.pid ?? "?"}) ${why} before answering${tail ? `: ${tail}` : ""}`;
      readyReject(new Error(error));
      for (const [id, resolve] of proc.pending) resolve({ id, ok: false, error });
      proc.pending.clear();
      if (this.current === proc) this.current = undefined;
    };
    child.on("error", (error) => onGone(`could not start (${error.message})`));
    child.on("exit", (code, signal) => onGone(signal ? `was ended by ${signal}` : `exited with code ${code}`));
    return proc;
  }

  private settle(proc: EngineProcess, answer: Answer): void {
    this.lastState = answer.state;
    if (answer.catalog !== undefined && answer.state.catalogChecksum !== null) {
      this.catalog = answer.catalog;
      this.catalogChecksum = answer.state.catalogChecksum;
    }
    if (answer.state.coreReplacedByRelease) proc.retiring = true;
    const id = String(answer.id);
    const resolve = proc.pending.get(id);
    if (!resolve) return;
    proc.pending.delete(id);
    resolve(answer);
    if (proc.drainThenClose && proc.pending.size === 0) proc.child.stdin.end();
  }

  /** The engine to send to: a new one when none runs, or when a retiring one owes nothing. */
  private async engine(): Promise<EngineProcess> {
    while (this.switching) await this.switching;
    const current = this.current;
    if (current && !current.dead && current.retiring && current.pending.size === 0) {
      this.switching = (async () => {
        current.child.stdin.end();
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

  /** Send a request; the answer, or a failure naming why none came. Never throws. */
  /**
   * `timeoutMs` bounds a request nothing else bounds (a status or reload asked by a
   * person): past it the request fails by name, and a late answer is dropped.
   * Dispatches have none: OMP's own handler budget bounds them.
   */
  async request(frame: Record<string, unknown>, timeoutMs?: number): Promise<ClientAnswer> {
    const id = `a${process.pid}-${++this.seq}`;
    if (this.closed) return { id, ok: false, error: "the Tama engine client is closed" };
    let proc: EngineProcess;
    try {
      proc = await this.engine();
      await proc.ready;
    } catch (error) {
      return { id, ok: false, error: (error as Error).message };
    }
    if (proc.dead) return { id, ok: false, error: `the Tama engine (pid ${proc.child.pid ?? "?"}) is gone` };
    const withChecksum = this.catalogChecksum ? { knownCatalogChecksum: this.catalogChecksum } : { knownCatalogChecksum: "" };
    const line = `${JSON.stringify({ ...frame, ...withChecksum, id })}\n`;
    // The engine refuses a longer frame without an id to answer by: fail it here, by name.
    if (Buffer.byteLength(line) > MAX_FRAME_BYTES) {
      return { id, ok: false, error: `the request is ${Buffer.byteLength(line)} bytes, more than the engine reads in one frame (${MAX_FRAME_BYTES})` };
    }
    const answer = new Promise<ClientAnswer>((resolve) => proc.pending.set(id, resolve));
    proc.child.stdin.write(line);
    if (timeoutMs === undefined) return answer;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<ClientAnswer>((resolve) => {
      timer = setTimeout(() => {
        proc.pending.delete(id);
        resolve({ id, ok: false, error: `the Tama engine (pid ${proc.child.pid ?? "?"}) gave no answer to ${String(frame.op)} within ${timeoutMs} ms` });
      }, timeoutMs);
      timer.unref?.();
    });
    return Promise.race([answer, late]).finally(() => clearTimeout(timer));
  }

  dispatch(event: string, payload: Record<string, unknown>): Promise<ClientAnswer> {
    return this.request({ op: "dispatch", event, payload });
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
    if (proc.pending.size === 0) proc.child.stdin.end();
    else proc.drainThenClose = true;
    if (wait === false) return;
    if (wait === true) return proc.exited;
    const bound = new Promise<void>((resolve) => setTimeout(resolve, wait).unref?.());
    await Promise.race([proc.exited, bound]);
    if (!proc.dead) proc.child.kill("SIGKILL");
  }
}
