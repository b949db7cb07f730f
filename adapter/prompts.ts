// User prompts → user_prompt_submit. OMP's `input` event fires in the TUI only; in
// print and RPC modes the prompt is seen at before_agent_start, which cannot refuse
// it: a refusal there aborts the prompt's preparation, so it never reaches the
// model (OMP 18.2.3 then sends an RPC host no agent_end for it). A check that could
// not finish (superseded, ended) refuses the prompt when a failMode-closed hook owed
// it a verdict; with only open hooks the prompt goes on with a warning.
import type { BeforeAgentStartEvent, BeforeAgentStartEventResult, InputEvent, InputEventResult, OmpContext } from "../modules/omp/api.ts";
import type { AdapterRuntime } from "./runtime.ts";
import { SESSION_CONTEXT_TYPE, type ClaudeSession } from "./claude-session.ts";

/** The SessionStart hooks' context and a prompt hook's, as the one message OMP takes before the turn. */
function contextMessage(session: string | undefined, prompt: string | undefined): BeforeAgentStartEventResult {
  const parts = [session, prompt].filter((p): p is string => p !== undefined && p.length > 0);
  if (parts.length === 0) return undefined;
  return { message: { customType: prompt === undefined ? SESSION_CONTEXT_TYPE : "tama-prompt-context", content: parts.join("\n\n"), display: false } };
}

export class Prompts {
  /** Prompts already checked at `input`, so before_agent_start does not check them twice. */
  private readonly checked = new Set<string>();

  constructor(
    private readonly runtime: AdapterRuntime,
    private readonly claude: ClaudeSession,
  ) {}

  private async check(prompt: string, ctx: OmpContext): Promise<{ refused?: string; context?: string }> {
    const session = this.runtime.sessionId(ctx);
    await this.claude.startAnswered(session);
    this.claude.newPrompt(session);
    const verdict = await this.runtime.verdict("user_prompt_submit", { ...this.runtime.basePayload(ctx), prompt });
    if (verdict.failure !== undefined) {
      // A check that could not finish is refused when a closed hook owed it a verdict, as a tool call is.
      const owed = verdict.unansweredClosed ?? [];
      if (owed.length > 0) return { refused: `its check could not finish and ${owed.length === 1 ? "hook" : "hooks"} ${owed.join(", ")} (failMode: closed) gave no verdict (${verdict.failure})` };
      this.runtime.notify(`Tama could not check this prompt: ${verdict.failure}`, "warning");
      return {};
    }
    const result = verdict.result;
    if (result?.decision === "block") return { refused: result.reason ?? "a prompt hook refused this prompt" };
    return result?.additionalContext ? { context: result.additionalContext } : {};
  }

  async onInput(event: InputEvent, ctx: OmpContext): Promise<InputEventResult> {
    const answer = await this.check(event.text, ctx);
    if (answer.refused) {
      this.runtime.refused(answer.refused);
      this.runtime.notify(`Tama refused this prompt: ${answer.refused}`, "warning");
      return { handled: true };
    }
    // OMP passes on the (trimmed) text we return: that is what before_agent_start will see.
    const text = answer.context ? `${event.text}\n\n${answer.context}` : event.text;
    this.checked.add(text.trim());
    return answer.context ? { text } : undefined;
  }

  async onAgentStart(event: BeforeAgentStartEvent, ctx: OmpContext): Promise<BeforeAgentStartEventResult> {
    const session = this.runtime.sessionId(ctx);
    if (this.checked.delete(event.prompt.trim())) return contextMessage(await this.claude.take(session), undefined);
    // A refused prompt takes no SessionStart context: it stays for the next one.
    const answer = await this.check(event.prompt, ctx);
    if (answer.refused) {
      this.runtime.refused(answer.refused);
      this.runtime.notify(`Tama refused this prompt: ${answer.refused}`, "warning");
      ctx.abort?.();
      return undefined;
    }
    // Context reaches the model as a message with the prompt: the session's first, then the prompt hook's.
    return contextMessage(await this.claude.take(session), answer.context);
  }
}
