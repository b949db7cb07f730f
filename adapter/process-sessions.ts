// The OMP sessions this process runs, and which is whose subagent. OMP's `task` tool
// runs each subagent in process as a session of its own (its own extension runner,
// its own session_start), and tells an extension nothing of its parent: a persisted
// subagent's session header names its parent's session file; an unpersisted one
// (sessions off) is taken to be the subagent of the session that called `task` last.
// Process-wide, so every adapter generation and every session's shell sees one table.
import type { OmpContext } from "../modules/omp/api.ts";

export interface ProcessSession {
  session: string;
  file: string | undefined;
  /** The session whose `task` call started this one; undefined for a top-level session. */
  parent: string | undefined;
}

interface Table {
  sessions: Map<string, ProcessSession>;
  /** The session that called `task` most recently. */
  lastTaskCaller: string | undefined;
}

const TABLE = Symbol.for("tama.omp.process-sessions.v1");

function table(): Table {
  const holder = globalThis as unknown as Record<symbol, Table | undefined>;
  return (holder[TABLE] ??= { sessions: new Map(), lastTaskCaller: undefined });
}

/** The parent session file a session's header names, when OMP wrote one. */
function headerParentFile(ctx: OmpContext): string | undefined {
  try {
    const parent = ctx.sessionManager.getHeader?.()?.parentSession;
    return typeof parent === "string" && parent.length > 0 ? parent : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A session started (or a session switch renamed it): record it with its parent. A
 * header naming a session file of this process names the parent; a session that is
 * not persisted is the subagent of the newest `task` caller, when there was one.
 */
export function joinSession(ctx: OmpContext, session: string, file: string | undefined, previous?: string): ProcessSession {
  const { sessions, lastTaskCaller } = table();
  if (previous !== undefined && previous !== session) sessions.delete(previous);
  const known = sessions.get(session);
  if (known) {
    known.file = file;
    return known;
  }
  const parentFile = headerParentFile(ctx);
  let parent: string | undefined;
  if (parentFile !== undefined) {
    parent = [...sessions.values()].find((other) => other.file === parentFile && other.session !== session)?.session;
  } else if (file === undefined && lastTaskCaller !== undefined && lastTaskCaller !== session && sessions.has(lastTaskCaller)) {
    parent = lastTaskCaller;
  }
  const entry: ProcessSession = { session, file, parent };
  sessions.set(session, entry);
  return entry;
}

export function leaveSession(session: string | undefined): void {
  if (session === undefined) return;
  const t = table();
  t.sessions.delete(session);
  if (t.lastTaskCaller === session) t.lastTaskCaller = undefined;
}

/** A `task` call of a session passed its checks: a session starting next may be its subagent. */
export function noteTaskCall(session: string | undefined): void {
  if (session !== undefined) table().lastTaskCaller = session;
}

export function parentOf(session: string | undefined): string | undefined {
  return session === undefined ? undefined : table().sessions.get(session)?.parent;
}

/** The live subagent sessions a session started in this process. */
export function subagentsOf(session: string | undefined): string[] {
  if (session === undefined) return [];
  return [...table().sessions.values()].filter((s) => s.parent === session).map((s) => s.session);
}
