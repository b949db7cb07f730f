// Reading a session's todo list from OMP's own session file. OMP 18.2.3 keeps no
// separate todo store: each state-changing `todo` call's toolResult entry in the
// session JSONL carries the whole list as details.phases (src/tools/todo.ts), and a
// user's /todo edit is a custom `user_todo_edit` entry; the newest on the active
// branch is the current list. "Open" here is pending or in progress: a blocked task
// waits on someone else, so the agent may end its turn to say so.
import { closeSync, readSync } from "node:fs";
import { OPEN_TODOS_NAMED, OpenTodos } from "../protocol/engine.ts";
import { openRegularFile } from "../system/regular-file.ts";

export type TodoStatus = "pending" | "in_progress" | "completed" | "abandoned" | "blocked";
export interface TodoTask {
  phase: string;
  content: string;
  status: TodoStatus;
  blocker?: string;
}

const STATUSES = new Set<string>(["pending", "in_progress", "completed", "abandoned", "blocked"]);
const CHUNK = 64 * 1024;

function record(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** The todo list an entry of the session file commits, or undefined when it commits none. */
export function todosOfEntry(entry: unknown): TodoTask[] | undefined {
  const e = record(entry);
  if (!e) return undefined;
  // A user's own /todo edit is a custom entry carrying the whole list.
  if (e.type === "custom" && e.customType === "user_todo_edit") return tasksOf(record(e.data)?.phases);
  const message = record(e.message);
  if (!message || message.role !== "toolResult" || message.toolName !== "todo" || message.isError === true) return undefined;
  const details = record(message.details);
  if (!details || details.op === "view") return undefined;
  return tasksOf(details.phases);
}

function tasksOf(phases: unknown): TodoTask[] | undefined {
  if (!Array.isArray(phases)) return undefined;
  const tasks: TodoTask[] = [];
  for (const phaseValue of phases) {
    const phase = record(phaseValue);
    if (!phase || typeof phase.name !== "string" || !Array.isArray(phase.tasks)) return undefined;
    for (const taskValue of phase.tasks) {
      const task = record(taskValue);
      if (!task || typeof task.content !== "string" || typeof task.status !== "string" || !STATUSES.has(task.status)) return undefined;
      tasks.push({
        phase: phase.name,
        content: task.content,
        status: task.status as TodoStatus,
        ...(typeof task.blocker === "string" ? { blocker: task.blocker } : {}),
      });
    }
  }
  return tasks;
}

/** What one session file is known to hold, up to `offset` (just past its last whole line). */
interface Indexed {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  offset: number;
  /** The file's first bytes (its header) and those just before `offset`: a file rewritten in place is told from an appended one by them. */
  head: Buffer;
  seam: Buffer;
  /** Each entry's newest todo list along its own branch (undefined: none on it yet). */
  byId: Map<string, TodoTask[] | undefined>;
  /** The newest list at the last whole entry. */
  tip: TodoTask[] | undefined;
}

const SEAM = 64;
/** OMP's first line is the session header; a rewrite that keeps the file's inode almost surely changes it. */
const HEAD = 4096;
/** Session files indexed at once; the oldest is dropped past this. */
const MAX_FILES = 32;
const indexed = new Map<string, Indexed>();

/**
 * The session's current todo list: the newest list on the active branch. The file
 * is append-only and a parent precedes its children, so each entry's list is its own
 * or its parent's; the index keeps that per entry id and reads only what was
 * appended since the last call, so an event costs the same in a long session as in a
 * short one (one stat when nothing was appended). A file replaced or rewritten is
 * read again from its start.
 */
export function readSessionTodos(sessionFile: string): TodoTask[] | undefined {
  const { fd, stats: stat } = openRegularFile(sessionFile);
  try {
    let index = indexed.get(sessionFile);
    if (index !== undefined && index.dev === stat.dev && index.ino === stat.ino && index.size === stat.size && index.mtimeMs === stat.mtimeMs) {
      return tipWithTornLine(index, fd, stat.size);
    }
    if (index === undefined || index.dev !== stat.dev || index.ino !== stat.ino || stat.size < index.offset || !seamHolds(fd, index)) {
      index = { dev: stat.dev, ino: stat.ino, size: 0, mtimeMs: 0, offset: 0, head: Buffer.alloc(0), seam: Buffer.alloc(0), byId: new Map(), tip: undefined };
    }
    indexed.delete(sessionFile);
    indexed.set(sessionFile, index);
    if (indexed.size > MAX_FILES) indexed.delete(indexed.keys().next().value ?? "");
    appendLines(index, fd, stat.size);
    index.size = stat.size;
    index.mtimeMs = stat.mtimeMs;
    return tipWithTornLine(index, fd, stat.size);
  } finally {
    closeSync(fd);
  }
}

function seamHolds(fd: number, index: Indexed): boolean {
  const same = (bytes: Buffer, at: number): boolean => {
    if (bytes.length === 0) return true;
    const now = Buffer.alloc(bytes.length);
    readSync(fd, now, 0, now.length, at);
    return now.equals(bytes);
  };
  return same(index.head, 0) && same(index.seam, index.offset - index.seam.length);
}

/**
 * The fields every OMP entry begins with, as its JSON.stringify writes them (ids
 * without escapes). Only they matter to an entry that commits no list.
 */
const ENTRY_START = /^\{"type":"[^"\\]*","id":"([^"\\]*)","parentId":(?:null|"([^"\\]*)")[,}]/;
/** Enough of a line to hold those fields (OMP's ids are short); a longer start is parsed. */
const START_BYTES = 512;
const PHASES_KEY = Buffer.from('"phases"');

/**
 * An entry of the file, as far as the todo index reads it. A line without a `"phases"`
 * key commits no list (both kinds carry it so: todosOfEntry), so one that begins as OMP
 * writes entries is not parsed: a tool result of megabytes costs a scan, not a parse.
 */
function entryOf(line: Buffer): Record<string, unknown> | undefined {
  if (line.indexOf(PHASES_KEY) === -1) {
    const start = ENTRY_START.exec(line.subarray(0, START_BYTES).toString("utf8"));
    if (start !== null) return { id: start[1], parentId: start[2] ?? null };
  }
  return parsedEntry(line.toString("utf8"));
}

function parsedEntry(line: string): Record<string, unknown> | undefined {
  try {
    return record(JSON.parse(line));
  } catch {
    return undefined; // a torn line while OMP appends
  }
}

/** The newest list after an entry, given the one before it. */
function listAfter(index: Indexed, entry: Record<string, unknown>, before: TodoTask[] | undefined): TodoTask[] | undefined {
  const own = todosOfEntry(entry);
  // Entries without ids (older files) stand on the only branch there is.
  if (typeof entry.id !== "string") return own ?? before;
  return own ?? (typeof entry.parentId === "string" ? index.byId.get(entry.parentId) : undefined);
}

/** Only JSON's whitespace (what `trim` would leave nothing of, in an OMP file). */
function isBlank(line: Buffer): boolean {
  for (const byte of line) if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d && byte !== 0x0a) return false;
  return true;
}

/** Index the whole lines from `offset` to `size`. */
function appendLines(index: Indexed, fd: number, size: number): void {
  let position = index.offset;
  let carry = Buffer.alloc(0);
  while (position < size) {
    const chunk = Buffer.alloc(Math.min(CHUNK, size - position));
    const read = readSync(fd, chunk, 0, chunk.length, position);
    if (read === 0) break;
    position += read;
    const buffer = carry.length > 0 ? Buffer.concat([carry, chunk.subarray(0, read)]) : chunk.subarray(0, read);
    let start = 0;
    for (let lf = buffer.indexOf(10, start); lf !== -1; lf = buffer.indexOf(10, start)) {
      const line = buffer.subarray(start, lf);
      start = lf + 1;
      if (isBlank(line)) continue;
      const entry = entryOf(line);
      if (!entry) continue;
      index.tip = listAfter(index, entry, index.tip);
      if (typeof entry.id === "string") index.byId.set(entry.id, index.tip);
    }
    carry = buffer.subarray(start);
    index.offset = position - carry.length;
  }
  if (index.head.length < HEAD && index.offset > index.head.length) {
    index.head = Buffer.alloc(Math.min(HEAD, index.offset));
    readSync(fd, index.head, 0, index.head.length, 0);
  }
  const seamStart = Math.max(0, index.offset - SEAM);
  index.seam = Buffer.alloc(index.offset - seamStart);
  if (index.seam.length > 0) readSync(fd, index.seam, 0, index.seam.length, seamStart);
}

/** The tip, counting a last line OMP wrote without its LF yet when it is whole JSON. */
function tipWithTornLine(index: Indexed, fd: number, size: number): TodoTask[] | undefined {
  if (size <= index.offset) return index.tip;
  const rest = Buffer.alloc(size - index.offset);
  readSync(fd, rest, 0, rest.length, index.offset);
  // Parsed whole: a line cut short is not read as an entry (it may stop before its list).
  const entry = isBlank(rest) ? undefined : parsedEntry(rest.toString("utf8"));
  return entry ? listAfter(index, entry, index.tip) : index.tip;
}

export const isOpen = (task: TodoTask): boolean => task.status === "pending" || task.status === "in_progress";

/** A session's open tasks: how many, and (at least) the first OPEN_TODOS_NAMED of them. */
export interface OpenTasks {
  count: number;
  named: readonly Pick<TodoTask, "phase" | "content" | "status">[];
}

/** A short list of open tasks for a refusal reason. */
export function describeOpen(open: OpenTasks): string {
  const lines = open.named.slice(0, OPEN_TODOS_NAMED).map((t) => `- [${t.status === "in_progress" ? "in progress" : "pending"}] ${t.content}`);
  if (open.count > lines.length) lines.push(`- … and ${open.count - lines.length} more`);
  return lines.join("\n");
}

/**
 * The open tasks of the session a hook input names. OMP's adapter hands over the list
 * OMP holds (`open_todos`); the session file is read only without it (another harness,
 * a payload given to `tama hook`), for the agent can rewrite that file with its own
 * tools. None without either.
 */
export function openTodosOf(input: { transcript_path?: unknown; open_todos?: unknown }): OpenTasks {
  if (input.open_todos !== undefined) {
    const held = OpenTodos.safeParse(input.open_todos);
    if (held.success) return held.data;
  }
  const file = sessionFileOf(input);
  if (!file) return { count: 0, named: [] };
  try {
    const open = (readSessionTodos(file) ?? []).filter(isOpen);
    return { count: open.length, named: open };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { count: 0, named: [] };
    throw error;
  }
}

/** The session file a hook input names (OMP's transcript), if any. */
export function sessionFileOf(input: { transcript_path?: unknown }): string | undefined {
  return typeof input.transcript_path === "string" && input.transcript_path.length > 0 ? input.transcript_path : undefined;
}
