// Model-request gate: while the session's todo list has open tasks, the next model
// request must call a tool rather than answer in prose. The adapter turns a refusal
// into tool_choice "required" on OpenAI function-tool payloads.
import type { BuiltinGate } from "./types.ts";
import { describeOpen, openTodosOf } from "./omp-todos.ts";

export const blockTextOutsideToolCalls: BuiltinGate = {
  id: "block-text-outside-tool-calls",
  description: "require a tool call (no prose-only answer) while the session's todo list has open tasks",
  events: ["before_provider_request"],
  evaluate(input) {
    const open = openTodosOf(input);
    if (open.count === 0) return { decision: "pass" };
    return { decision: "block", reason: `work is open, so the answer must be a tool call:\n${describeOpen(open)}` };
  },
};
