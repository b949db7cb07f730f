// The session's open tasks as OMP holds its todo list in memory, for the turn-end and
// model-request gates. The session file says the same until the agent rewrites it:
// its bash can append an entry under the newest entry's id, or replace the file, and a
// gate reading the file would then let a turn end with work open. OMP's own entries
// are not the agent's to change, so the adapter reads those and hands the gates what
// it read (`open_todos`, modules/protocol/engine.ts).
//
// Each entry's list is its own or its parent's, and entries never change once made,
// so the list is kept per entry object: an event walks back only over the entries
// made since the last one, and costs the same in a long session as in a short one.
import { isOpen, todosOfEntry, type TodoTask } from "../modules/gates/omp-todos.ts";
import { OPEN_TODOS_NAMED, TODO_TEXT_MAX, type OpenTodos } from "../modules/protocol/engine.ts";
import type { OmpSessionManager } from "../modules/omp/api.ts";

type Entry = { id?: unknown; parentId?: unknown };
/** null: no list on the entry's branch yet. */
const listAt = new WeakMap<object, readonly TodoTask[] | null>();

/** The current list: the newest on the active branch (none when the session cannot be read so). */
function currentList(manager: OmpSessionManager): readonly TodoTask[] | null | undefined {
  if (typeof manager.getLeafEntry !== "function" || typeof manager.getEntry !== "function") return undefined;
  const walked: object[] = [];
  let entry = manager.getLeafEntry() as Entry | null | undefined;
  let list: readonly TodoTask[] | null = null;
  // OMP's parent links never loop; a bound keeps a broken session from holding the thread.
  const seen = new Set<unknown>();
  while (entry !== undefined && entry !== null && typeof entry === "object") {
    const known = listAt.get(entry);
    if (known !== undefined) {
      list = known;
      break;
    }
    const own = todosOfEntry(entry);
    if (own !== undefined) {
      list = own;
      listAt.set(entry, own);
      break;
    }
    walked.push(entry);
    if (typeof entry.parentId !== "string" || seen.has(entry.parentId)) break;
    seen.add(entry.parentId);
    entry = manager.getEntry(entry.parentId) as Entry | null | undefined;
  }
  for (const each of walked) listAt.set(each, list);
  return list;
}

const clip = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/** The payload field for a turn end or a model request; none when OMP's session cannot be read (the gates then read the file). */
export function openTodosField(manager: OmpSessionManager): { open_todos?: OpenTodos } {
  let list: readonly TodoTask[] | null | undefined;
  try {
    list = currentList(manager);
  } catch {
    return {};
  }
  if (list === undefined) return {};
  const open = (list ?? []).filter(isOpen);
  return {
    open_todos: {
      count: open.length,
      named: open.slice(0, OPEN_TODOS_NAMED).map((task) => ({
        phase: clip(task.phase, TODO_TEXT_MAX.phase),
        content: clip(task.content, TODO_TEXT_MAX.content),
        status: task.status === "in_progress" ? ("in_progress" as const) : ("pending" as const),
      })),
    },
  };
}
