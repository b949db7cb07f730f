// Benchmark rows for the built-in gate library: each gate's in-process cost on a
// call it reads (a shell command through wrappers, a file read, a result with text),
// p50 over many runs in this process — the goal is ≤ 0.3 ms a call. Gates run as a
// dispatch runs them (engine/gate-run.ts), one after another in one synchronous stretch.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { GateRuns } from "../../modules/engine/gate-run.ts";
import { builtinGates } from "../../modules/gates/index.ts";
import type { HookInput } from "../../modules/protocol/hook-input.ts";
import { HookEntry } from "../../modules/registry/registry.ts";
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
  const singles = new Map<string, number>();
  for (const gate of builtinGates()) {
    // A new input each time, as each dispatch brings: a call's shell walk is kept per input object (shell-walk.ts).
    const input = () => inputFor(gate.events, cwd);
    const runs = new GateRuns();
    const hook = entryOf(gate.id, gate.events);
    const context = { tamaHome: path.join(dir, "tama") };
    for (let i = 0; i < 50; i++) await runs.run(hook, gate.id, input(), context);
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const fresh = input();
      const start = performance.now();
      const ran = runs.run(hook, gate.id, fresh, context);
      if (ran instanceof Promise) await ran;
      times.push(performance.now() - start);
    }
    const p50 = percentile(times, 50);
    singles.set(gate.id, p50);
    rows.push({ name: `built-in gate ${gate.id}, in process (p50) ÷ 0.3 ms`, measured: `${fmtMs(p50)} (p99 ${fmtMs(percentile(times, 99))})`, ratio: p50 / GOAL_MS, goal: "≤ 0.3 ms", met: p50 <= GOAL_MS });
  }
  rows.push(await oneCallRow(cwd, dir, singles));
  return rows;
}

/** The default pre_tool_use gates on one bash call, in turn on the one input as a dispatch runs them (they share its shell walk), against the sum of each alone. */
async function oneCallRow(cwd: string, dir: string, singles: ReadonlyMap<string, number>): Promise<Row> {
  const gates = builtinGates().filter((gate) => gate.events.includes("pre_tool_use") && gate.onByDefault !== false);
  const context = { tamaHome: path.join(dir, "tama") };
  const runs = new GateRuns();
  const hooks = gates.map((gate) => entryOf(gate.id, gate.events));
  const once = async (): Promise<number> => {
    const input = inputFor(["pre_tool_use"], cwd);
    const start = performance.now();
    for (const hook of hooks) {
      const ran = runs.run(hook, hook.builtin ?? "", input, context);
      if (ran instanceof Promise) await ran;
    }
    return performance.now() - start;
  };
  for (let i = 0; i < 50; i++) await once();
  const times: number[] = [];
  for (let i = 0; i < RUNS / 4; i++) times.push(await once());
  const p50 = percentile(times, 50);
  const sum = gates.reduce((total, gate) => total + (singles.get(gate.id) ?? 0), 0);
  return {
    name: `the ${gates.length} default pre_tool_use gates on one bash call (p50) ÷ the sum of each alone`,
    measured: `${fmtMs(p50)} vs ${fmtMs(sum)} (they walk the call's shell once)`,
    ratio: p50 / sum,
    goal: "(no goal)",
    met: true,
  };
}

/** A registry entry running `id` with its default options, as `tama hooks add --builtin` writes one. */
function entryOf(id: string, events: readonly string[]): HookEntry {
  return HookEntry.parse({ id, builtin: id, events: events.slice(0, 1) });
}
