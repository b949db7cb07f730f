// session_stop → stop. A refusal continues the turn with the reason; OMP 18.2.3 puts
// no cap on such continuations, so a stop hook that always refuses would hold the
// turn open forever: after MAX_STOP_REFUSALS in a row the turn may end, and the
// session is told what the last refusal said.
//
// A subagent (OMP's `task`) gets no session_stop: OMP skips it for subagent sessions.
// A subagent ends by calling `yield` with its result, so that call is its turn end:
// the stop gates run there, and a refusal refuses the call — the subagent's model
// reads the reason as the call's result and goes on working. A subagent that ends
// without a yield (aborted, timed out, out of budget) cannot be held.
import { messageText, type OmpContext, type SessionStopEvent, type SessionStopEventResult, type ToolCallEvent, type ToolCallEventResult } from "../modules/omp/api.ts";
import type { AdapterRuntime } from "./runtime.ts";
import { openTodosField } from "./session-todos.ts";
import type { ToolEvents } from "./tool-events.ts";

/** Stop refusals in a row after which the turn may end anyway. */
export const MAX_STOP_REFUSALS = 8;

/** The tool a subagent submits its result with, ending its run. */
export const SUBAGENT_END_TOOL = "yield";

/** A yield of one section (`type` a list of labels) is part of the result, not the end. */
function isSection(input: Record<string, unknown>): boolean {
  return Array.isArray(input.type) && input.type.length > 0;
}

export class Stops {
  private readonly refusalsInARow = new Map<string, number>();

  constructor(
    private readonly runtime: AdapterRuntime,
    private readonly tools: ToolEvents,
  ) {}

  /** A subagent's `yield` passed its own checks: run the stop gates; a refusal refuses the yield. */
  async onSubagentEnd(call: ToolCallEvent, ctx: OmpContext): Promise<ToolCallEventResult> {
    if (isSection(call.input)) return undefined;
    const session = this.runtime.sessionId(ctx) ?? "";
    await this.tools.checksAnswered();
    const active = (this.refusalsInARow.get(session) ?? 0) > 0;
    const verdict = await this.runtime.verdict("stop", { ...this.runtime.basePayload(ctx), ...openTodosField(ctx.sessionManager), stop_hook_active: active });
    if (verdict.failure !== undefined) {
      this.runtime.notify(`Tama could not check the end of this subagent: ${verdict.failure}`, "warning");
      return undefined;
    }
    if (verdict.result?.decision !== "block") {
      this.refusalsInARow.delete(session);
      return undefined;
    }
    const reason = verdict.result.reason ?? "a stop hook refused to end this subagent";
    const count = (this.refusalsInARow.get(session) ?? 0) + 1;
    if (count > MAX_STOP_REFUSALS) {
      this.refusalsInARow.delete(session);
      this.runtime.notify(`Tama let the subagent end after ${MAX_STOP_REFUSALS} refusals in a row by stop hooks; the last said: ${reason}`, "warning");
      return undefined;
    }
    this.refusalsInARow.set(session, count);
    this.runtime.refused(reason);
    return { block: true, reason: `Tama refused to end this subagent: ${reason}` };
  }

  async onStop(stop: SessionStopEvent, ctx: OmpContext): Promise<SessionStopEventResult> {
    this.tools.turnEnded();
    const verdict = await this.runtime.verdict("stop", {
      ...this.runtime.basePayload(ctx),
      ...(stop.session_file ? { transcript_path: stop.session_file } : {}),
      ...openTodosField(ctx.sessionManager),
      stop_hook_active: stop.stop_hook_active === true,
      ...lastMessage(stop),
    });
    if (verdict.failure !== undefined) {
      // A turn cannot be held open forever on a missing verdict; say so instead.
      this.runtime.notify(`Tama could not check the end of this turn: ${verdict.failure}`, "warning");
      return undefined;
    }
    if (verdict.result?.decision !== "block") {
      this.refusalsInARow.delete(stop.session_id);
      return undefined;
    }
    const reason = verdict.result.reason ?? "a stop hook refused to end the turn";
    const count = stop.stop_hook_active ? (this.refusalsInARow.get(stop.session_id) ?? 0) + 1 : 1;
    if (stop.stop_hook_active && count > MAX_STOP_REFUSALS) {
      this.refusalsInARow.delete(stop.session_id);
      this.runtime.notify(`Tama let the turn end after ${MAX_STOP_REFUSALS} refusals in a row by stop hooks; the last said: ${reason}`, "warning");
      return undefined;
    }
    this.refusalsInARow.set(stop.session_id, count);
    this.runtime.refused(reason);
    return { decision: "block", reason };
  }
}

/** Claude Code's `last_assistant_message`: the text of the turn's last answer. */
function lastMessage(stop: SessionStopEvent): { last_assistant_message?: string } {
  const text = messageText(stop.last_assistant_message);
  return text !== undefined ? { last_assistant_message: text } : {};
}
