// Stop gate: the agent may not end its turn while its own todo list has open tasks.
// A task the agent cannot finish can be marked blocked or abandoned, which ends the
// refusal honestly instead of looping.
import type { BuiltinGate } from "./types.ts";
import { describeOpen, openTodosOf } from "./omp-todos.ts";

export const blockOpenTodos: BuiltinGate = {
  id: "block-open-todos",
  description: "refuse to end the turn while the session's todo list has pending or in-progress tasks",
  events: ["stop"],
  memoryless: true,
  evaluate(input) {
    const open = openTodosOf(input);
    if (open.count === 0) return { decision: "pass" };
    return {
      decision: "block",
      reason: `Your todo list still has ${open.count} open task${open.count === 1 ? "" : "s"}:\n${describeOpen(open)}\nFinish them, or mark a task blocked (with what it waits for) or abandoned before ending the turn.`,
    };
  },
};
