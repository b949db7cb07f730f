// What the adapter keeps of lines typed into OMP's hub processes, with a fake runtime
// that records each dispatch: kept when OMP ran the call, per project and process name
// (OMP shares a project's processes among its sessions), reset by a start that ran.
import { describe, expect, it } from "vitest";
import { KeptShells } from "../../adapter/kept-shells.ts";
import { ToolEvents } from "../../adapter/tool-events.ts";
import type { OmpContext } from "../../modules/omp/api.ts";
import { fakeContext, fakeRuntime } from "../support/fake-runtime.ts";

function harness() {
  const payloads: Record<string, unknown>[] = [];
  const runtime = fakeRuntime(async (_event: string, payload: Record<string, unknown>) => {
    payloads.push(payload);
    return { result: { decision: "pass" } };
  });
  const events = new ToolEvents(runtime, new KeptShells(undefined));
  const ctx = fakeContext;
  let n = 0;
  /** One hub call, checked then run; `failed`: OMP's result was an error. Returns what the check sent. */
  const hub = async (input: Record<string, unknown>, context: OmpContext, failed = false): Promise<Record<string, unknown>> => {
    const id = `c${++n}`;
    const answer = await events.onToolCall({ type: "tool_call", toolCallId: id, toolName: "hub", input }, context);
    const sent = payloads.at(-1) ?? {};
    if (answer === undefined || !("block" in answer)) await events.onToolResult({ type: "tool_result", toolCallId: id, toolName: "hub", input, content: [{ type: "text", text: "ok" }], isError: failed }, context);
    return answer !== undefined && "block" in answer ? { refused: answer.reason } : sent;
  };
  return { hub, ctx, events };
}

describe("lines typed into a hub process", () => {
  it("are kept across sends, and a start OMP refused does not reset them", async () => {
    const { hub, ctx } = harness();
    const a = ctx("a");
    await hub({ op: "start", name: "sh", application: "/bin/sh" }, a);
    await hub({ op: "send", name: "sh", text: "git comm", enter: false }, a);
    await hub({ op: "start", name: "sh", application: "sh" }, a, true);
    const sent = await hub({ op: "send", name: "sh", text: "it --no-verify -m x" }, a);
    expect(sent.typed_line).toBe("git comm");
    expect(sent.typed_into).toBe("sh");
  });

  it("are the project's: another session typing into the same process sees them", async () => {
    const { hub, ctx } = harness();
    await hub({ op: "send", name: "sh", text: "cd /etc" }, ctx("a"));
    expect((await hub({ op: "send", name: "sh", text: "ls" }, ctx("b"))).typed_line).toBe("cd /etc\n");
    expect((await hub({ op: "send", name: "sh", text: "ls" }, ctx("c", "/other"))).typed_line).toBeUndefined();
  });

  it("are not kept for a send OMP failed, and end with a stop", async () => {
    const { hub, ctx } = harness();
    const a = ctx("a");
    await hub({ op: "send", name: "sh", text: "echo one" }, a, true);
    expect((await hub({ op: "send", name: "sh", text: "echo two" }, a)).typed_line).toBeUndefined();
    await hub({ op: "stop", name: "sh" }, a);
    expect((await hub({ op: "send", name: "sh", text: "echo three" }, a)).typed_line).toBeUndefined();
  });

  it("end with the Enter key, and past the bound only signals are sent", async () => {
    const { hub, ctx } = harness();
    const a = ctx("a");
    await hub({ op: "send", name: "sh", text: "echo a", enter: false, keys: ["ENTER"] }, a);
    expect((await hub({ op: "send", name: "sh", text: "x" }, a)).typed_line).toBe("echo a\n");
    for (let i = 0; i < 4; i++) await hub({ op: "send", name: "sh", text: `echo ${"y".repeat(5000)}` }, a);
    expect(String((await hub({ op: "send", name: "sh", text: "ls" }, a)).refused)).toMatch(/more than 16000 characters were typed into sh/);
    expect((await hub({ op: "send", name: "sh", keys: ["CTRL_C"] }, a)).refused).toBeUndefined();
    await hub({ op: "start", name: "sh", application: "bash" }, a);
    expect((await hub({ op: "send", name: "sh", text: "ls" }, a)).refused).toBeUndefined();
  });

  it("are typed one send at a time: a send beside one still running is refused", async () => {
    const { events, ctx } = harness();
    const a = ctx("a");
    const first = await events.onToolCall({ type: "tool_call", toolCallId: "p1", toolName: "hub", input: { op: "send", name: "sh", text: "git commit --no-", enter: false } }, a);
    expect(first).toBeUndefined();
    const second = await events.onToolCall({ type: "tool_call", toolCallId: "p2", toolName: "hub", input: { op: "send", name: "sh", text: "verify -m x" } }, a);
    expect(second !== undefined && "block" in second ? second.reason : "").toMatch(/another send to sh has not finished/);
  });
});
