// What the adapter keeps of a session's bash calls for the next (adapter/kept-shells.ts),
// with a fake runtime that records each dispatch and refuses what it is told to: kept
// when a call is let run, per session, carried across an adoption, bounded.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { KeptShells } from "../../adapter/kept-shells.ts";
import { ToolEvents } from "../../adapter/tool-events.ts";
import { fakeContext, fakeRuntime } from "../support/fake-runtime.ts";

function harness(carry = new Map<string, unknown>()) {
  const payloads: Record<string, unknown>[] = [];
  const refusing = new Set<string>();
  const runtime = fakeRuntime(async (_event: string, payload: Record<string, unknown>) => {
    payloads.push(payload);
    const command = (payload.tool_input as { command?: string } | undefined)?.command ?? "";
    return { result: refusing.has(command) ? { decision: "block", reason: "no" } : { decision: "pass" } };
  });
  const events = new ToolEvents(runtime, new KeptShells(carry));
  const ctx = fakeContext;
  let n = 0;
  /** One bash call; returns what its check sent, or the refusal. */
  const bash = async (command: string, session = "a", extra: Record<string, unknown> = {}, cwd = "/proj"): Promise<Record<string, unknown>> => {
    const answer = await events.onToolCall({ type: "tool_call", toolCallId: `c${++n}`, toolName: "bash", input: { command, ...extra } }, ctx(session, cwd));
    return answer !== undefined && "block" in answer ? { refused: answer.reason } : (payloads.at(-1) ?? {});
  };
  /** The call's result arrived (OMP ran it). */
  const ran = (id: number, command: string, session: string, cwd: string) =>
    events.onToolResult({ type: "tool_result", toolCallId: `c${id}`, toolName: "bash", input: { command }, content: [{ type: "text", text: "" }], isError: false }, ctx(session, cwd));
  return { bash, refusing, carry, events, ctx, ran, calls: () => n };
}

describe("what a session's bash calls leave in OMP's shell", () => {
  it("is sent with the session's later bash calls once a call was let run; nothing is sent before", async () => {
    const { bash } = harness();
    expect((await bash("ls")).shell_kept).toBeUndefined();
    await bash("f() { cat \"$@\"; }; X=.env; alias b=bash");
    expect((await bash("ls")).shell_kept).toEqual({ functions: { f: ' cat "$@"; ' }, aliases: { b: "bash" }, vars: { X: ".env" } });
    // Another session has a shell of its own.
    expect((await bash("ls", "b")).shell_kept).toBeUndefined();
  });

  it("keeps nothing of a refused call, and not the call's own env field (OMP sets it for that call only)", async () => {
    const { bash, refusing } = harness();
    refusing.add("Y=1; g() { :; }");
    expect((await bash("Y=1; g() { :; }")).refused).toBe("no");
    await bash("echo $Z", "a", { env: { Z: "1" } });
    expect((await bash("ls")).shell_kept).toBeUndefined();
  });

  it("survives an adoption in place: the next adapter generation reads the same store", async () => {
    const first = harness();
    await first.bash("X=.env");
    const next = harness(first.carry);
    expect((await next.bash("cat $X")).shell_kept).toEqual({ functions: {}, aliases: {}, vars: { X: ".env" } });
    // A store another generation left in a shape this one cannot read is not taken.
    const odd = new Map<string, unknown>([["tama.shellKept.v1", new Map([["a", { vars: 1 }]])]]);
    expect((await harness(odd).bash("ls")).shell_kept).toBeUndefined();
  });

  it("refuses a call that would leave more than the bound, and keeps what was there", async () => {
    const { bash } = harness();
    await bash("X=.env");
    const flood = Array.from({ length: 4100 }, (_, i) => `v${i}=1`).join("; ");
    expect(String((await bash(flood)).refused)).toMatch(/^Tama refused bash: after this call OMP's shell would hold 4101 functions, aliases and variables/);
    expect((await bash("ls")).shell_kept).toEqual({ functions: {}, aliases: {}, vars: { X: ".env" } });
  });

  it("reads a file the call wrote and sourced once its result came: the definitions are kept beside what was", async () => {
    const { bash, ran, calls } = harness();
    const dir = mkdtempSync(path.join(os.tmpdir(), "tama-kept-"));
    try {
      const command = "printf 'g() { bash; }\\n' > d.sh; . ./d.sh";
      await bash(command, "a", {}, dir);
      // Checked before it ran: d.sh was not there yet.
      expect((await bash("ls", "a", {}, dir)).shell_kept).toBeUndefined();
      writeFileSync(path.join(dir, "d.sh"), "g() { bash; }\n");
      await ran(calls() - 1, command, "a", dir);
      expect((await bash("ls", "a", {}, dir)).shell_kept).toEqual({ functions: { g: " bash; " }, aliases: {}, vars: {} });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
