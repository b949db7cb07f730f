// The OS side of one command hook: its own process group, the input on stdin,
// bounded output, a timeout that ends the whole group, and how the process ended.
// A hook may be spawned before its event (prestart.ts) and fed its input later;
// from the feed on it is the same process a cold start gives. What its end means
// as an answer is hook-answer.ts's.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { endGroup, endMarkedRun, HOOK_RUN_VARIABLE } from "../system/process-groups.ts";

/** A hook's answer on stdout is a few lines of JSON; past this it is flooding, and ended. */
export const MAX_STDOUT_BYTES = 1024 * 1024;
/** Only the start of a reason on stderr is shown; the rest is dropped, not fatal. */
export const MAX_STDERR_BYTES = 64 * 1024;
/**
 * How long a hook's pipes are still read after the hook itself exited: what it wrote
 * just before exiting is still in flight, and a process it left outside its group may
 * hold the pipes open for ever.
 */
const EXIT_DRAIN_MS = 250;

export interface ExecRequest {
  argv: string[];
  cwd: string;
  input: string;
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
}

/** How a hook process ended, before its answer is read. */
export type ExecEnd =
  | { kind: "exited"; code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }
  | { kind: "spawn-error"; message: string }
  | { kind: "timeout"; stderr: string }
  | { kind: "flooded"; stream: "stdout"; limitBytes: number; stderr: string }
  | { kind: "cancelled"; why: string };

export interface HookProcess {
  /** The hook's process group (its leader's pid); undefined when it never started. */
  pgid: number | undefined;
  ended: Promise<ExecEnd>;
  /** End the hook and everything it started; its answer becomes a cancellation. */
  cancel(why: string): void;
}

class Collector {
  private chunks: Buffer[] = [];
  size = 0;
  truncated = false;
  constructor(private readonly limit: number) {}
  push(chunk: Buffer): boolean {
    if (this.size + chunk.length > this.limit) {
      this.chunks.push(chunk.subarray(0, Math.max(0, this.limit - this.size)));
      this.size = this.limit;
      this.truncated = true;
      return false;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
    return true;
  }
  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}

/** The spawn half of a hook: everything but its input and its timeout. */
export type SpawnRequest = Omit<ExecRequest, "input" | "timeoutMs">;

/** A hook process spawned and blocked on its stdin, not yet given its input. */
export interface SpawnedHook {
  pgid: number | undefined;
  /** Set once it ended before it was fed (exited, killed, failed to spawn): never to be fed. */
  readonly endedBeforeFeed: string | undefined;
  /** Called once if it ends before it was fed. */
  onEndedBeforeFeed(listener: (why: string) => void): void;
  /** Give it its input and arm its timeout: from here it is an ordinary running hook. */
  feed(input: string, timeoutMs: number): HookProcess;
  /** End it unused, with its process group. */
  discard(): void;
}

/** Spawn, feed at once: a cold start. */
export function startHookProcess(request: ExecRequest): HookProcess {
  return spawnHookProcess(request).feed(request.input, request.timeoutMs);
}

function describeEnd(end: ExecEnd): string {
  switch (end.kind) {
    case "exited":
      return end.signal !== null ? `was killed by ${end.signal}` : `exited with code ${String(end.code)}`;
    case "spawn-error":
      return `could not start: ${end.message}`;
    case "timeout":
      return "timed out";
    case "flooded":
      return "flooded its stdout";
    case "cancelled":
      return `was ended (${end.why})`;
  }
}

export function spawnHookProcess(request: SpawnRequest): SpawnedHook {
  const [program, ...args] = request.argv;
  let settle: (end: ExecEnd) => void = () => {};
  const ended = new Promise<ExecEnd>((resolve) => {
    settle = resolve;
  });
  let final: ExecEnd | undefined;
  let fed = false;
  let endedBeforeFeed: string | undefined;
  let earlyListener: ((why: string) => void) | undefined;
  const finish = (end: ExecEnd): void => {
    if (final) return;
    final = end;
    if (!fed) {
      endedBeforeFeed = describeEnd(end);
      earlyListener?.(endedBeforeFeed);
    }
    settle(end);
  };
  const handle = (pgid: number | undefined, cancel: (why: string) => void, stdin?: NodeJS.WritableStream, arm?: (ms: number) => void): SpawnedHook => ({
    pgid,
    get endedBeforeFeed() {
      return endedBeforeFeed;
    },
    onEndedBeforeFeed(listener) {
      earlyListener = listener;
      if (endedBeforeFeed !== undefined) listener(endedBeforeFeed);
    },
    feed(input, timeoutMs) {
      if (!fed) {
        fed = true;
        if (final === undefined) {
          arm?.(timeoutMs);
          stdin?.end(input);
        }
      }
      return { pgid, ended, cancel };
    },
    discard: () => cancel("unused"),
  });
  if (program === undefined) {
    finish({ kind: "spawn-error", message: "the command is empty" });
    return handle(undefined, () => {});
  }

  let child: ChildProcessWithoutNullStreams;
  try {
    child = spawn(program, args, {
      cwd: request.cwd,
      env: request.env,
      // detached makes the hook the leader of a new session and process group.
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
    });
  } catch (error) {
    // Most failures come as an 'error' event; some (a NUL byte in an argument, a cwd
    // that is a file, a script open for writing) are thrown: the same answer either way.
    finish({ kind: "spawn-error", message: (error as Error).message });
    return handle(undefined, () => {});
  }
  const pgid = child.pid;
  const stdout = new Collector(MAX_STDOUT_BYTES);
  const stderr = new Collector(MAX_STDERR_BYTES);
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  let timer: NodeJS.Timeout | undefined;

  // Tama ending the hook answers at once; the group's TERM-then-KILL goes on behind.
  const stop = (reason: ExecEnd): void => {
    // Settled already (answered, or ended by Tama): a later end changes nothing.
    if (final) return;
    if (pgid !== undefined) endGroup(pgid);
    clearTimeout(timer);
    // Pipes a process outside the group still holds are let go with the hook.
    child.stdout.destroy();
    child.stderr.destroy();
    child.stdin.destroy();
    finish(reason.kind === "timeout" || reason.kind === "flooded" ? { ...reason, stderr: stderr.text() } : reason);
  };
  const arm = (timeoutMs: number): void => {
    timer = setTimeout(() => stop({ kind: "timeout", stderr: "" }), timeoutMs);
    timer.unref();
  };

  child.stdout.on("data", (chunk: Buffer) => {
    if (!stdout.push(chunk)) stop({ kind: "flooded", stream: "stdout", limitBytes: MAX_STDOUT_BYTES, stderr: "" });
  });
  child.stderr.on("data", (chunk: Buffer) => {
    // stderr past its bound is dropped, not fatal: only the reason's start matters.
    stderr.push(chunk);
  });
  // A hook that never reads stdin, or closes it early, must not break the engine.
  child.stdin.on("error", () => {});

  child.on("error", (error) => {
    clearTimeout(timer);
    finish({ kind: "spawn-error", message: error.message });
  });
  const exited = (): void => {
    clearTimeout(timer);
    finish({
      kind: "exited",
      code: exit?.code ?? null,
      signal: exit?.signal ?? null,
      stdout: stdout.text(),
      stderr: stderr.text(),
    });
  };
  child.on("exit", (code, signal) => {
    exit = { code, signal };
    // Whatever the hook left running in its group is ended with it.
    if (pgid !== undefined) endGroup(pgid);
    // Exited unfed: nothing it said answers anything, and nobody waits on its pipes.
    if (!fed) {
      child.stdout.destroy();
      child.stderr.destroy();
      exited();
      return;
    }
    // A process that left the group (setsid) may hold the hook's stdout open for as
    // long as it lives: the hook has answered by exiting, so what it wrote is read
    // for a moment more and then its pipes are let go. The timeout stays armed too.
    setTimeout(() => {
      if (final) return;
      child.stdout.destroy();
      child.stderr.destroy();
      exited();
      // Still held open: something the hook started outside its group runs on. Its mark ends it.
      const mark = request.env[HOOK_RUN_VARIABLE];
      if (mark) endMarkedRun(mark);
    }, EXIT_DRAIN_MS).unref();
  });
  child.on("close", exited);

  return handle(pgid, (why: string) => stop({ kind: "cancelled", why }), child.stdin, arm);
}
