// Process groups: every hook runs as the leader of its own session and group, so
// ending a hook ends everything it started. Identity checks read /proc so that a
// recorded group id is never signalled after the kernel reused it.
import { readdirSync, readFileSync } from "node:fs";

/** Send a signal to a whole group; false when no member is left. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * How long a process group has between TERM and KILL: long enough for a hook to
 * flush and exit on TERM, short enough that a hook ignoring it is gone at once.
 */
export const GROUP_GRACE_MS = 300;

/**
 * TERM to the group, then KILL to whatever is left after the grace period. CONT follows
 * the TERM, as a shell ends a stopped job: a stopped process takes nothing but KILL
 * until it is continued, and the KILL may never come (the engine exiting first).
 */
export function endGroup(pgid: number, graceMs = GROUP_GRACE_MS): void {
  if (!signalGroup(pgid, "SIGTERM")) return;
  signalGroup(pgid, "SIGCONT");
  const timer = setTimeout(() => signalGroup(pgid, "SIGKILL"), graceMs);
  timer.unref();
}

export interface ProcStat {
  pid: number;
  /** R, S, D, Z, T, … (proc(5)). */
  state: string;
  ppid: number;
  pgrp: number;
  session: number;
  /** User and system CPU time, in clock ticks. */
  cpuTicks: number;
  startTicks: number;
}

/** One process's /proc/PID/stat; undefined when it cannot be read (gone, or no /proc). */
export function readStat(pid: number | string): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name is in parentheses and may itself hold spaces or parentheses.
    const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return {
      pid: Number(pid),
      state: rest[0] ?? "",
      ppid: Number(rest[1]),
      pgrp: Number(rest[2]),
      session: Number(rest[3]),
      cpuTicks: Number(rest[11]) + Number(rest[12]),
      startTicks: Number(rest[19]),
    };
  } catch {
    return undefined;
  }
}

/**
 * The processes `pid` descends from, nearest first (its parent, that one's parent, …),
 * each with its start time so a reused pid is not taken for another process.
 */
export function ancestry(pid: number = process.pid): { pid: number; startTicks: number }[] {
  const chain: { pid: number; startTicks: number }[] = [];
  const seen = new Set<number>();
  for (let stat = readStat(pid); stat !== undefined && stat.ppid > 0 && !seen.has(stat.ppid); ) {
    seen.add(stat.ppid);
    const parent = readStat(stat.ppid);
    if (parent === undefined) break;
    chain.push({ pid: parent.pid, startTicks: parent.startTicks });
    stat = parent;
  }
  return chain;
}

/** The kernel's start time of a process, in clock ticks since boot; undefined when gone. */
export function processStartTicks(pid: number): number | undefined {
  return readStat(pid)?.startTicks;
}

/**
 * Members of a hook's session (a hook leader calls setsid, so its session id is its
 * pid) that started no earlier than the leader did: those are the hook's own.
 */
export function sessionMembers(sid: number, notBeforeTicks: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const members: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(entry);
    if (stat && stat.session === sid && stat.startTicks >= notBeforeTicks) members.push(stat.pid);
  }
  return members;
}

/** Kill what is left of a recorded hook session, after checking it is still that hook's. */
export function reapRecordedGroup(pgid: number, startTicks: number | undefined): number[] {
  const members = startTicks === undefined ? [] : sessionMembers(pgid, startTicks);
  for (const pid of members) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
  return members;
}

/** The environment variable every hook process (and all it starts) carries: the engine that started it. */
export const HOOK_RUN_VARIABLE = "TAMA_HOOK_RUN";

/**
 * The prefix of TAMA_HOOK_RUN for this engine process: `<pid>:<start ticks>:<home tag>:`.
 * The home tag scopes reaping to engines of the same TAMA_HOME.
 */
export function hookRunPrefix(homeTag: string): string {
  return `${process.pid}:${processStartTicks(process.pid) ?? 0}:${homeTag}:`;
}

/**
 * Every live process whose environment names an engine that is gone. An engine killed
 * by SIGKILL cannot end its hooks, and a hook may have been started a moment before
 * its record was written; the mark in the environment is there from the fork on.
 */
export function orphanedHookProcesses(homeTag: string): { pid: number; enginePid: number }[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const found: { pid: number; enginePid: number }[] = [];
  const engines = new Map<string, boolean>();
  const marker = `${HOOK_RUN_VARIABLE}=`;
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let environ: string;
    try {
      environ = readFileSync(`/proc/${entry}/environ`, "latin1");
    } catch {
      continue;
    }
    const at = environ.indexOf(marker);
    if (at === -1) continue;
    const value = environ.slice(at + marker.length, environ.indexOf("\0", at) === -1 ? undefined : environ.indexOf("\0", at));
    const match = /^(\d+):(\d+):([0-9a-f]+):/.exec(value);
    if (!match || match[3] !== homeTag) continue;
    const key = `${match[1]}:${match[2]}`;
    let alive = engines.get(key);
    if (alive === undefined) {
      const pid = Number(match[1]);
      alive = processAlive(pid) && String(processStartTicks(pid) ?? 0) === match[2];
      engines.set(key, alive);
    }
    if (!alive) found.push({ pid: Number(entry), enginePid: Number(match[1]) });
  }
  return found;
}

/**
 * End every process carrying one hook run's mark (TAMA_HOOK_RUN=<value>): what a
 * hook started outside its process group (setsid) and left running.
 */
export function endMarkedRun(value: string): number[] {
  return killMarked(`${HOOK_RUN_VARIABLE}=${value}\0`);
}

/**
 * Kill every process any hook run of one engine marked (TAMA_HOOK_RUN starting with
 * the engine's prefix): whatever its hooks left, in their groups or outside them.
 */
export function endEngineRuns(prefix: string): number[] {
  return killMarked(`${HOOK_RUN_VARIABLE}=${prefix}`);
}

/** SIGKILL every other process whose environment holds `wanted` as the start of a variable. */
function killMarked(wanted: string): number[] {
  const ended: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return ended;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`, "latin1");
      if (!environ.startsWith(wanted) && !environ.includes(`\0${wanted}`)) continue;
      process.kill(Number(entry), "SIGKILL");
      ended.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return ended;
}
