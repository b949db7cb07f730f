// Benchmark rows for the built-in gate library: each gate's in-process cost on a
// call it reads (a shell command through wrappers, a file read, a result with text),
// p50 over many runs in this process — the goal is ≤ 0.3 ms a call.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { builtinGates } from "../../modules/gates/index.ts";
import type { HookInput } from "../../modules/protocol/hook-input.ts";
import { fmtMs, percentile, type Row } from "./support.ts";

const RUNS = 2_000;
const GOAL_MS = 0.3;

function inputFor(gateEvents: readonly string[], cwd: string): HookInput {
  const command = "cd src && env CI=1 timeout 60 bash -c 'npm test -- --reporter=dot 2>&1 | tee /tmp/test.log' && git status --short";
  if (gateEvents.includes("post_tool_use")) {
    const text = `${"ok 1 - a test that passed with some output\n".repeat(200)}DATABASE_URL=postgres://localhost/db\n`;
    return { hook_event_name: "PostToolUse", session_id: "bench", cwd, tool_name: "Bash", tool_input: { command }, tool_response: { content: [{ type: "text", text }], isError: false } };
  }
  if (gateEvents.includes("pre_tool_use")) return { hook_event_name: "PreToolUse", session_id: "bench", cwd, tool_name: "Bash", tool_input: { command } };
  return { hook_event_name: gateEvents.includes("stop") ? "Stop" : "BeforeProviderRequest", session_id: "bench", cwd, transcript_path: path.join(cwd, "session.jsonl") };
}

export async function gateRows(dir: string): Promise<Row[]> {
  const cwd = path.join(dir, "repo");
  mkdirSync(path.join(cwd, ".git"), { recursive: true });
  writeFileSync(path.join(cwd, ".git", "HEAD"), "ref: refs/heads/topic\n");
  writeFileSync(path.join(cwd, "session.jsonl"), `${JSON.stringify({ type: "session", id: "bench" })}\n`);
  const rows: Row[] = [];
  for (const gate of builtinGates()) {
    const input = inputFor(gate.events, cwd);
    const parsed = gate.parseOptions ? gate.parseOptions(undefined) : { ok: true as const, options: undefined };
    const options = parsed.ok ? parsed.options : undefined;
    const context = { tamaHome: path.join(dir, "tama") };
    for (let i = 0; i < 50; i++) await gate.evaluate(input, context, options);
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const start = performance.now();
      await gate.evaluate(input, context, options);
      times.push(performance.now() - start);
    }
    const p50 = percentile(times, 50);
    rows.push({ name: `built-in gate ${gate.id}, in process (p50) ÷ 0.3 ms`, measured: `${fmtMs(p50)} (p99 ${fmtMs(percentile(times, 99))})`, ratio: p50 / GOAL_MS, goal: "≤ 0.3 ms", met: p50 <= GOAL_MS });
  }
  return rows;
}
