// A person's own command (user_bash) is the agent's bash to every shell gate, and
// says where it came from in `omp.origin`.
import { describe, expect, it } from "vitest";
import { toHookTargets } from "../../modules/claude/hook-input.ts";
import { parseEvent } from "../../modules/protocol/engine.ts";

describe("a user_bash dispatch", () => {
  const event = parseEvent("pre_tool_use:bash");
  if (!event) throw new Error("pre_tool_use:bash must parse");

  it("reaches hooks as Claude's Bash with omp.origin 'user'", () => {
    const result = toHookTargets(event, { cwd: "/repo", tool_name: "bash", tool_input: { command: "ls" }, tool_call_id: "user-bash-1", origin: "user" });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.targets[0]?.kind).toBe("shell");
    expect(result.targets[0]?.input).toMatchObject({ tool_name: "Bash", tool_input: { command: "ls" }, omp: { tool_name: "bash", origin: "user" } });
  });

  it("names no origin for the agent's own call", () => {
    const result = toHookTargets(event, { cwd: "/repo", tool_name: "bash", tool_input: { command: "ls" }, tool_call_id: "c1" });
    expect(result.ok && result.targets[0]?.input.omp?.origin).toBe(undefined);
  });
});
