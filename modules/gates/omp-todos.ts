// Reading a session's todo list from OMP's own session file. OMP 18.2.3 keeps no
// separate todo store: each state-changing `todo` call's toolResult entry in the
// session JSONL carries the whole list as details.phases (src/tools/todo.ts), so
// the newest such entry is the current list.
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
  const message = record(record(entry)?.message);
  if (!message || message.role !== "toolResult" || message.toolName !== "todo" || message.isError === true) return undefined;
  const details = record(message.details);
  if (!details || details.op === "view" || !Array.isArray(details.phases)) return undefined;
  const tasks: TodoTask[] = [];
  for (const phaseValue of details.phases) {
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
 * The session's current todo list, read from the end of its file backwards so a
 * long session costs only the tail; undefined when no todo was ever written.
 */
export function readSessionTodos(sessionFile: string): TodoTask[] | undefined {
  const fd = openSync(sessionFile, "r");
  try {
    let position = fstatSync(fd).size;
    let carry = Buffer.alloc(0);
    while (position > 0) {
      const size = Math.min(CHUNK, position);
      position -= size;
      const chunk = Buffer.alloc(size);
      readSync(fd, chunk, 0, size, position);
      let buffer = Buffer.concat([chunk, carry]);
      let end = buffer.length;
      // Whole lines are those after the first LF of the buffer (or all, at the start of the file).
      for (let lf = buffer.lastIndexOf(10, end - 1); ; lf = buffer.lastIndexOf(10, end - 1)) {
        if (lf === -1 && position > 0) break;
        const line = buffer.subarray(lf + 1, end).toString("utf8");
        end = lf;
        if (line.includes('"todo"')) {
          try {
            const todos = todosOfEntry(JSON.parse(line));
            if (todos) return todos;
          } catch {
            // a torn last line while OMP appends: not a todo entry
          }
        }
        if (lf === -1) break;
      }
      carry = buffer.subarray(0, Math.max(0, end));
      buffer = carry;
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

/** The session file a hook input names (OMP's transcript), if any. */
export function sessionFileOf(input: { transcript_path?: unknown }): string | undefined {
  return typeof input.transcript_path === "string" && input.transcript_path.length > 0 ? input.transcript_path : undefined;
}
