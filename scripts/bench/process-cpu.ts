// CPU time of a process tree, from /proc (Linux): what OMP's own process spends, by
// thread, and what its child processes (the engine) spend. Steadier than wall-clock
// differences on a shared 2-core machine, and it names where Tama's share of a turn runs.
import { readdirSync, readFileSync } from "node:fs";

/** USER_HZ: /proc reports utime and stime in these ticks on every Linux build. */
const TICK_MS = 10;

/** utime + stime of a /proc stat line, in ms; the fields after the command name, which may hold spaces. */
function cpuMs(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

function children(pid: number): number[] {
  const out: number[] = [];
  for (const task of safeList(`/proc/${pid}/task`)) {
    const text = safeRead(`/proc/${pid}/task/${task}/children`);
    if (text !== undefined) out.push(...text.trim().split(/\s+/).filter(Boolean).map(Number));
  }
  return out;
}

const safeList = (dir: string): string[] => {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
};
const safeRead = (file: string): string | undefined => {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
};

/** CPU ms so far: per thread name of `pid` itself, and the sum over its live descendants. */
export interface TreeCpu {
  /** The name of the process's own (first) thread. */
  main: string;
  threads: Map<string, number>;
  descendants: number;
}

export function treeCpu(pid: number): TreeCpu | undefined {
  const threads = new Map<string, number>();
  for (const task of safeList(`/proc/${pid}/task`)) {
    const stat = safeRead(`/proc/${pid}/task/${task}/stat`);
    if (stat === undefined) continue;
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    threads.set(name, (threads.get(name) ?? 0) + cpuMs(stat));
  }
  const own = safeRead(`/proc/${pid}/stat`);
  if (threads.size === 0 || own === undefined) return undefined;
  const main = own.slice(own.indexOf("(") + 1, own.lastIndexOf(")"));
  let descendants = 0;
  const walk = (of: number): void => {
    for (const child of children(of)) {
      const stat = safeRead(`/proc/${child}/stat`);
      if (stat !== undefined) descendants += cpuMs(stat);
      walk(child);
    }
  };
  walk(pid);
  return { main, threads, descendants };
}

/** What a tree spent between two readings: its main thread, the rest of its threads, its descendants. */
export function spent(before: TreeCpu, after: TreeCpu): { main: number; otherThreads: number; descendants: number } {
  let main = 0;
  let otherThreads = 0;
  for (const [name, ms] of after.threads) {
    const delta = ms - (before.threads.get(name) ?? 0);
    if (name === after.main) main += delta;
    else otherThreads += delta;
  }
  return { main, otherThreads, descendants: after.descendants - before.descendants };
}
