// A person's `!cmd` in the TUI and an RPC host's bash command (OMP's user_bash): the
// same shell gates as the agent's bash calls, dispatched as pre_tool_use:bash with
// `origin: "user"` so a hook can tell them apart. A refusal answers OMP with a result
// in place of running the command, and the person is told why. Without a verdict
// the command is refused like a tool call (TAMA_FAIL_MODE=open lets it run).
import type { OmpContext, UserBashEvent, UserBashEventResult } from "../modules/omp/api.ts";
import type { AdapterRuntime } from "./runtime.ts";

/** OMP's BashResult for a command that did not run: the refusal is its output. */
function notRun(output: string): UserBashEventResult {
  const lines = output.split("\n").length;
  const bytes = Buffer.byteLength(output);
  return { result: { output, exitCode: 1, cancelled: false, truncated: false, totalLines: lines, totalBytes: bytes, outputLines: lines, outputBytes: bytes } };
}

export class UserBash {
  private count = 0;

  constructor(private readonly runtime: AdapterRuntime) {}

  async onUserBash(event: UserBashEvent, ctx: OmpContext): Promise<UserBashEventResult> {
    this.count += 1;
    const verdict = await this.runtime.verdict("pre_tool_use:bash", {
      ...this.runtime.basePayload(ctx),
      cwd: event.cwd || ctx.cwd,
      tool_name: "bash",
      tool_input: { command: event.command },
      tool_call_id: `user-bash-${this.count}`,
      origin: "user",
    });
    if (verdict.failure !== undefined) {
      if (this.runtime.failMode === "open") {
        this.runtime.notify(`Tama could not check this command and let it run (TAMA_FAIL_MODE=open): ${verdict.failure}`, "warning");
        return undefined;
      }
      return this.refuse(`Tama could not check this command, so it did not run: ${verdict.failure}`);
    }
    const result = verdict.result;
    if (!result || result.decision === "pass") return undefined;
    if (result.decision === "ask" && ctx.hasUI && ctx.ui.confirm) {
      if (await ctx.ui.confirm("Tama asks", `${result.reason ?? "A hook asks before this command."}\n\nRun it?`)) return undefined;
    }
    return this.refuse(`Tama refused this command: ${result.reason ?? "a shell hook refused it"}`);
  }

  private refuse(message: string): UserBashEventResult {
    this.runtime.refused(message);
    this.runtime.notify(message, "warning");
    this.runtime.logger.info({ event: "user_bash", decision: "block" }, "user command refused");
    return notRun(message);
  }
}
