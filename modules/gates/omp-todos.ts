// Reading a session's todo list from OMP's own session file. OMP 18.2.3 keeps no
// separate todo store: each state-changing `todo` call's toolResult entry in the
// session JSONL carries the whole list as details.phases (src/tools/todo.ts), and a
// user's /todo edit is a custom `user_todo_edit` entry; the newest on the active
// branch is the current list. "Open" here is pending or in progress: a blocked task
// waits on someone else, so the agent may end its turn to say so.
import { closeSync, fstatSync, openSync, readSync } from "node:fs";

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

/**
 * The session's current todo list: the newest list on the active branch. The file
 * is append-only and a parent precedes its children, so one backward pass that
 * follows parentId from the last entry visits exactly the active branch, and a
 * long session costs only the tail up to its newest todo.
 */
export function readSessionTodos(sessionFile: string): TodoTask[] | undefined {
  const fd = openSync(sessionFile, "r");
  let expected: string | null | undefined;
  const visit = (line: string): TodoTask[] | undefined => {
    let entry: Record<string, unknown> | undefined;
    try {
      entry = record(JSON.parse(line));
    } catch {
      return undefined; // a torn last line while OMP appends
    }
    if (!entry) return undefined;
    // Entries without ids (older files) stand on the only branch there is.
    if (typeof entry.id !== "string") return expected === undefined ? todosOfEntry(entry) : undefined;
    if (expected === undefined) expected = entry.id;
    if (entry.id !== expected) return undefined;
    expected = typeof entry.parentId === "string" ? entry.parentId : null;
    return todosOfEntry(entry);
  };
  try {
    let position = fstatSync(fd).size;
    let carry = Buffer.alloc(0);
    while (position > 0 && expected !== null) {
      const size = Math.min(CHUNK, position);
      position -= size;
      const chunk = Buffer.alloc(size);
      readSync(fd, chunk, 0, size, position);
      const buffer = Buffer.concat([chunk, carry]);
      let end = buffer.length;
      // Whole lines are those after the buffer's first LF (or all of it at the file's start).
      for (;;) {
        const lf = buffer.lastIndexOf(10, end - 1);
        if (lf === -1 && position > 0) break;
        const line = buffer.subarray(lf + 1, end).toString("utf8");
        end = Math.max(lf, 0);
        if (line.trim().length > 0) {
          const todos = visit(line);
          if (todos) return todos;
          if (expected === null) return undefined;
        }
        if (lf === -1) break;
      }
      carry = buffer.subarray(0, end);
    }
    return undefined;
  } finally {
    closeSync(fd);
  }
}

export const isOpen = (task: TodoTask): boolean => task.status === "pending" || task.status === "in_progress";

/** A short list of open tasks for a refusal reason. */
export function describeOpen(open: TodoTask[], limit = 8): string {
  const lines = open.slice(0, limit).map((t) => `- [${t.status === "in_progress" ? "in progress" : "pending"}] ${t.content}`);
  if (open.length > limit) lines.push(`- … and ${open.length - limit} more`);
  return lines.join("\n");
}

/** The open tasks of the session a hook input names (none without a session file). */
export function openTodosOf(input: { transcript_path?: unknown }): TodoTask[] {
  const file = sessionFileOf(input);
  if (!file) return [];
  try {
    return (readSessionTodos(file) ?? []).filter(isOpen);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}

/** The session file a hook input names (OMP's transcript), if any. */
export function sessionFileOf(input: { transcript_path?: unknown }): string | undefined {
  return typeof input.transcript_path === "string" && input.transcript_path.length > 0 ? input.transcript_path : undefined;
}
