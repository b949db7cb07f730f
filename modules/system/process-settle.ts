// Whether a process just started has settled: it and the processes it started are
// all asleep, and none of them ran between two looks. A pre-started hook that has
// settled is blocked on its stdin (or on something else that costs no CPU), so the
// next one can start without the two competing for the machine. The same look at a
// process by itself tells whether the harness (OMP) is quiet, waiting on its model.
// Read from Linux's /proc; where there is none, a process counts as settled at the
// first look.
import { readFileSync } from "node:fs";
import { readStat } from "./process-groups.ts";

/** How often a starting process is looked at, and how many quiet looks in a row settle it. */
const LOOK_EVERY_MS = 3;
const QUIET_LOOKS = 2;
/** A process still busy after this long (work before reading stdin) is waited for no longer. */
const SETTLE_AT_MOST_MS = 2_000;
/** A hook's process tree is small; a deeper one is read this far. */
const MAX_TREE = 32;

interface Look {
  /** CPU time the tree has run, in ns (clock ticks where the kernel keeps no schedstat). */
  ran: number;
  asleep: boolean;
  /** Some process of the tree is stopped (SIGSTOP, a tracer). */
  stopped: boolean;
}

function read(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

/**
 * One process: its state and CPU time; undefined when it cannot be read (gone, or no /proc).
 * `stateOnly`: its CPU time is not needed (0 is given), and its schedstat is not read.
 */
function lookAt(pid: number, stateOnly = false): Look | undefined {
  const stat = readStat(pid);
  if (stat === undefined) return undefined;
  const { state } = stat;
  const schedstat = stateOnly ? undefined : read(`/proc/${pid}/schedstat`);
  let ran = 0;
  if (!stateOnly) ran = schedstat !== undefined ? Number(schedstat.split(" ")[0]) : stat.cpuTicks;
  // S: asleep on something (stdin, a child); Z: exited, not yet reaped; T, t: stopped. None of them uses CPU.
  const stopped = state === "T" || state === "t";
  return { ran, asleep: state === "S" || state === "Z" || stopped, stopped };
}

/** The process and its descendants, read together; undefined when the process cannot be read. */
function lookAtTree(pid: number, stateOnly = false): Look | undefined {
  const root = lookAt(pid, stateOnly);
  if (root === undefined) return undefined;
  const total = { ...root };
  const queue = [pid];
  for (let seen = 1; queue.length > 0 && seen < MAX_TREE; ) {
    const parent = queue.shift() as number;
    const children = read(`/proc/${parent}/task/${parent}/children`)?.trim();
    if (!children) continue;
    for (const child of children.split(" ").map(Number)) {
      const look = lookAt(child, stateOnly);
      seen += 1;
      if (look === undefined) continue;
      total.ran += look.ran;
      total.asleep &&= look.asleep;
      total.stopped ||= look.stopped;
      queue.push(child);
    }
  }
  return total;
}

/**
 * Calls `settled` once the process tree of `pid` (with `alone`, the process by itself)
 * has settled, has ended, cannot be read, or has been busy for SETTLE_AT_MOST_MS.
 * Returns a function that stops looking (then `settled` is not called).
 */
export function whenSettled(pid: number, settled: () => void, alone = false): () => void {
  const since = performance.now();
  let last: number | undefined;
  let quiet = 0;
  let timer: NodeJS.Timeout | undefined;
  const look = (): void => {
    const now = alone ? lookAt(pid) : lookAtTree(pid);
    if (now !== undefined && now.asleep && now.ran === last) quiet += 1;
    else quiet = 0;
    last = now?.ran;
    if (now === undefined || quiet >= QUIET_LOOKS || performance.now() - since >= SETTLE_AT_MOST_MS) {
      timer = undefined;
      settled();
      return;
    }
    timer = setTimeout(look, LOOK_EVERY_MS);
    timer.unref();
  };
  timer = setTimeout(look, LOOK_EVERY_MS);
  timer.unref();
  return () => {
    clearTimeout(timer);
    timer = undefined;
  };
}

/** Whether any process of the tree of `pid` is stopped: one that was stopped while it waited is not fed (it would never answer). */
export function treeStopped(pid: number): boolean {
  // Read as its event takes the process: the state alone, a third fewer reads of /proc.
  return lookAtTree(pid, true)?.stopped ?? false;
}
