// session_stop → stop. A refusal continues the turn with the reason; OMP 18.2.3 puts
// no cap on such continuations, so a stop hook that always refuses would hold the
// turn open forever: after MAX_STOP_REFUSALS in a row the turn may end, and the
// session is told what the last refusal said.
//
// A subagent (OMP's `task`) gets no session_stop: OMP skips it for subagent sessions.
// OMP also skips session_stop at a settle while a background job (bash `async`, an
// async subagent) can still wake the session: the job's result is to continue the run,
// and the stop hooks wait for the settle after it. A job that never ends would have the
// turn end unchecked, again at every turn while it runs, so Tama checks such a settle
// itself (agent_end without session_stop, the answer ended, a job running) and sends a
// refusal as a message that starts the next run with the reason.
//
// A subagent ends by calling `yield` with its result, so that call is its turn end:
// the stop gates run there, and a refusal refuses the call — the subagent's model
// reads the reason as the call's result and goes on working. A subagent that ends
// without a yield (aborted, timed out, out of budget) cannot be held.
import { messageText, type AgentEndEvent, type OmpApi, type OmpContext, type SessionStopEvent, type SessionStopEventResult, type ToolCallEvent, type ToolCallEventResult } from "../modules/omp/api.ts";
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

/** The custom message a refusal at a settle OMP did not check is delivered as. */
export const SETTLE_REFUSAL_TYPE = "tama-stop-refusal";

export class Stops {
  private readonly refusalsInARow = new Map<string, number>();
  /** session_stop ran since the last agent_end: OMP checked that settle itself. */
  private stopSeen = false;
  /** Settles and turn ends so far: a check that finds another after it is stale. */
  private settles = 0;

  constructor(
    private readonly runtime: AdapterRuntime,
    private readonly tools: ToolEvents,
    private readonly pi: Pick<OmpApi, "sendMessage">,
  ) {}

  /**
   * A refusal in a row for `session`: the count it makes, or undefined once past
   * MAX_STOP_REFUSALS, when the end may come anyway and the session is told so.
   */
  private countRefusal(session: string, reason: string, what: string, inARow = true): number | undefined {
    const count = inARow ? (this.refusalsInARow.get(session) ?? 0) + 1 : 1;
    if (count > MAX_STOP_REFUSALS) {
      this.refusalsInARow.delete(session);
      this.runtime.notify(`Tama let ${what} end after ${MAX_STOP_REFUSALS} refusals in a row by stop hooks; the last said: ${reason}`, "warning");
      return undefined;
    }
    this.refusalsInARow.set(session, count);
    this.runtime.refused(reason);
    return count;
  }

  /**
   * A run settled. Only a settle that ended the model's answer (`stopReason` "stop")
   * while a background job runs, with no session_stop before it, is OMP's deferred turn
   * end; a retry, a recovery or a compaction continuing by itself is not. The stop
   * gates run there, nobody waiting on them (OMP does not wait on agent_end); a refusal
   * that finds no later settle and the job still running is sent as a message that
   * starts the next run (or rides with the next one, when one is already starting).
   */
  onSettle(event: AgentEndEvent, ctx: OmpContext): void {
    const checked = this.stopSeen;
    this.stopSeen = false;
    const settle = ++this.settles;
    if (checked || event.willContinue !== true || this.pi.sendMessage === undefined) return;
    const jobRuns = (): boolean => (ctx.getAsyncJobSnapshot?.()?.running.length ?? 0) > 0;
    if (!jobRuns()) return;
    let last: AgentEndEvent["messages"][number] | undefined;
    for (let i = event.messages.length - 1; i >= 0 && last === undefined; i--) if (event.messages[i]?.role === "assistant") last = event.messages[i];
    if (last?.stopReason !== "stop") return;
    const session = this.runtime.sessionId(ctx) ?? "";
    const active = (this.refusalsInARow.get(session) ?? 0) > 0;
    const text = messageText(last);
    void this.runtime
      .verdict("stop", { ...this.runtime.basePayload(ctx), ...openTodosField(ctx.sessionManager), stop_hook_active: active, ...(text !== undefined ? { last_assistant_message: text } : {}) })
      .then((verdict) => {
        if (verdict.failure !== undefined) {
          this.runtime.notify(`Tama could not check the end of this turn (a background job is running): ${verdict.failure}`, "warning");
          return;
        }
        if (verdict.result?.decision !== "block") {
          this.refusalsInARow.delete(session);
          return;
        }
        // A later settle was checked in its turn; a job that ended wakes the session, whose end OMP checks.
        if (this.settles !== settle || !jobRuns()) return;
        const reason = verdict.result.reason ?? "a stop hook refused to end the turn";
        if (this.countRefusal(session, reason, "the turn") === undefined) return;
        this.pi.sendMessage?.(
          { customType: SETTLE_REFUSAL_TYPE, content: `${reason}\n\n(Tama checked this turn's end while a background job runs. To wait for a job, use the hub tool's wait; do not end the turn.)`, display: true },
          { triggerTurn: true, deliverAs: "nextTurn" },
        );
      })
      .catch((error: unknown) => this.runtime.notify(`Tama could not check the end of this turn: ${(error as Error).message}`, "warning"));
  }

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
    if (this.countRefusal(session, reason, "the subagent") === undefined) return undefined;
    return { block: true, reason: `Tama refused to end this subagent: ${reason}` };
  }

  async onStop(stop: SessionStopEvent, ctx: OmpContext): Promise<SessionStopEventResult> {
    this.stopSeen = true;
    this.settles += 1;
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
    if (this.countRefusal(stop.session_id, reason, "the turn", stop.stop_hook_active) === undefined) return undefined;
    return { decision: "block", reason };
  }
}

/** Claude Code's `last_assistant_message`: the text of the turn's last answer. */
function lastMessage(stop: SessionStopEvent): { last_assistant_message?: string } {
  const text = messageText(stop.last_assistant_message);
  return text !== undefined ? { last_assistant_message: text } : {};
}
