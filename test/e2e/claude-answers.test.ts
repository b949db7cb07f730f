// Claude Code hook answers inside a real OMP: updatedInput rewrites the call OMP runs,
// and continue:false lets the call run and then ends the run (never a refusal).
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useOmpFixture } from "../omp/fixture.ts";
import { installTama } from "./tama-omp.ts";

const omp = useOmpFixture();

function toolMessages(body: Record<string, unknown>): string[] {
  const messages = (body.messages ?? []) as { role: string; content: unknown }[];
  return messages.filter((m) => m.role === "tool").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
}

function answering(dir: string, name: string, stdout: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, `#!/bin/sh\ncat >/dev/null\nprintf '%s' '${stdout}'\n`, { mode: 0o755 });
  return file;
}

describe("Claude Code hook answers in real OMP", () => {
  it("updatedInput: OMP runs the rewritten command", async () => {
    const { server, env } = await omp.setup();
    const tama = installTama(env);
    const hook = answering(env.root, "rewrite.sh", '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"echo rewritten-by-hook"}}}');
    tama.writeRegistry({ schema: 1, release: null, hooks: [{ id: "rewrite", events: ["pre_tool_use"], tools: "shell", command: [hook] }] });
    const session = omp.rpc();
    await session.ready();
    await session.prompt('CALL bash {"command":"echo original-command"}');
    const seen = toolMessages(server.requests[1]!.body as Record<string, unknown>).join("\n");
    expect(seen).toContain("rewritten-by-hook");
    expect(seen).not.toContain("original-command");
  });

  it("continue:false before a call: the call runs, then the run ends without another model request", async () => {
    const { server, env } = await omp.setup();
    const tama = installTama(env);
    const hook = answering(env.root, "stop.sh", '{"continue":false,"stopReason":"enough for now"}');
    const marker = path.join(env.root, "ran.txt");
    tama.writeRegistry({ schema: 1, release: null, hooks: [{ id: "stop-after", events: ["pre_tool_use"], tools: "shell", command: [hook] }] });
    const session = omp.rpc();
    await session.ready();
    await session.prompt(`CALL bash {"command":"echo ran > ${marker}"}`);
    const { readFileSync } = await import("node:fs");
    expect(readFileSync(marker, "utf8")).toBe("ran\n");
    // The run ended after the call: the model was not asked again.
    expect(server.requests).toHaveLength(1);
  });
});
