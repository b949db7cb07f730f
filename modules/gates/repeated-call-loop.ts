// repeated-call-loop: the same tool call (same tool, same input) `options.limit` times
// in a row in one session gets context telling the model so — never a silent block:
// a loop is a sign the model misreads a result, and saying it is what helps. It reads
// results (post_tool_use), whose context OMP hands the model beside the result.
// OMP's adapter counts the session's calls and puts the count in the input
// (`omp.call_repeats`), so in OMP the verdict is a function of the input alone, the same
// in the engine and in OMP's process; without it (another harness) the count lives in
// the engine's memory, per session, bounded.
import { createHash } from "node:crypto";
import * as z from "../protocol/schema.ts";
import type { HookInput } from "../protocol/hook-input.ts";
import { gateWithOptions, type GateVerdict } from "./types.ts";

const Options = z.strictObject({ limit: z._default(z.int().check(z.minimum(2), z.maximum(100)), 3) });
type Options = z.infer<typeof Options>;

/** Sessions remembered at once; the oldest is forgotten first. */
const MAX_SESSIONS = 256;
const lastCalls = new Map<string, { key: string; count: number }>();

function callKey(input: HookInput): string {
  return createHash("sha256")
    .update(`${input.tool_name ?? ""}\u0000${JSON.stringify(input.tool_input ?? null)}`)
    .digest("hex");
}

/** The count from this process's memory of the session's calls. */
function remembered(input: HookInput): number {
  const session = input.session_id ?? "";
  const key = callKey(input);
  const last = lastCalls.get(session);
  const count = last?.key === key ? last.count + 1 : 1;
  lastCalls.delete(session);
  lastCalls.set(session, { key, count });
  if (lastCalls.size > MAX_SESSIONS) lastCalls.delete(lastCalls.keys().next().value as string);
  return count;
}

export const repeatedCallLoop = gateWithOptions<Options>({
  id: "repeated-call-loop",
  description: "Tells the model when it makes the same tool call several times in a row.",
  events: ["post_tool_use"],
  tools: "any",
  onByDefault: true,
  // In OMP the count comes in the input: see above. A plan is only for OMP's adapter.
  memoryless: true,
  options: { help: "limit: how many identical calls in a row before the model is told (default 3)", example: { limit: 4 } },
  schema: Options,
  evaluate(input: HookInput, _context, options): GateVerdict {
    const told = input.omp?.call_repeats;
    const count = typeof told === "number" ? told : remembered(input);
    if (count < options.limit) return { decision: "pass" };
    return {
      decision: "pass",
      additionalContext: `Tama: this is the same ${input.tool_name ?? "tool"} call ${count} times in a row with the same input. Its result will not change by itself; read the last result again, or try something else.`,
    };
  },
});
