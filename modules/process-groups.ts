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

/** TERM to the group, then KILL to whatever is left after the grace period. */
export function endGroup(pgid: number, graceMs = 300): void {
  if (!signalGroup(pgid, "SIGTERM")) return;
  const timer = setTimeout(() => signalGroup(pgid, "SIGKILL"), graceMs);
  timer.unref();
}

interface ProcStat {
  pid: number;
  pgrp: number;
  session: number;
  startTicks: number;
}

function readStat(pid: number | string): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name is in parentheses and may itself hold spaces or parentheses.
    const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return {
      pid: Number(pid),
      pgrp: Number(rest[2]),
      session: Number(rest[3]),
      startTicks: Number(rest[19]),
    };
  } catch {
    return undefined;
  }
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
