// Subagents (OMP's `task`) in real OMP: they share their OMP process's engine, their
// end (the `yield` call) reaches the stop gates, and status and `tama sessions list`
// show them under their parent.
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useOmpFixture } from "../omp/fixture.ts";
import { lastUserText, parseCallDirectives, trailingToolResults, type RecordedRequest, type Reply } from "../omp/model-server.ts";
import type { Frame, RpcSession } from "../omp/rpc-session.ts";
import { readJsonl } from "../omp/test-files.ts";
import { ROOT } from "../support/engine-client.ts";
import { installTama } from "./tama-omp.ts";

const omp = useOmpFixture();
const FIX = path.join(ROOT, "test/fixtures/hooks");

/** Engine processes serving one TAMA_HOME. */
function engines(home: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      const environ = readFileSync(`/proc/${entry}/environ`, "latin1");
      if (cmdline.includes("run-hook\0--serve") && environ.includes(`\0TAMA_HOME=${home}\0`)) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

const offers = (req: RecordedRequest, tool: string): boolean => JSON.stringify(req.body.tools ?? []).includes(`"name":"${tool}"`);
/** Only a subagent's requests offer `yield`. */
const isSubagent = (req: RecordedRequest): boolean => offers(req, "yield");

/**
 * The main session calls what its prompt's CALL lines say; a subagent runs its task's
 * CALL lines, then yields (again after a refused yield), and a main session reads results.
 */
function script(req: RecordedRequest): Reply {
  const results = trailingToolResults(req.turns);
  if (isSubagent(req)) {
    if (results.length > 0) return { toolCalls: [{ name: "yield", arguments: { data: { answer: "sub done" } } }] };
    const calls = parseCallDirectives(lastUserText(req.turns));
    return calls.length > 0 ? { toolCalls: calls } : { toolCalls: [{ name: "yield", arguments: { data: { answer: "sub done" } } }] };
  }
  if (results.length > 0) return { text: `MAIN-FINAL: ${results.map((r) => r.text.slice(0, 200)).join("; ")}` };
  const calls = parseCallDirectives(lastUserText(req.turns));
  return calls.length > 0 ? { toolCalls: calls } : { text: "MAIN-TEXT" };
}

const TASK = 'CALL task {"agent":"task","task":"CALL bash {\\"command\\":\\"echo sub-ran\\"}"}';

async function statusOf(session: RpcSession): Promise<Record<string, unknown>> {
  const from = session.events.length;
  await session.prompt("/tama_status --json");
  const frame = await session.waitFor((f: Frame) => f.type === "extension_ui_request" && f.method === "notify", { from });
  return JSON.parse(String(frame.message)) as Record<string, unknown>;
}

// A subagent's end is its `yield` call in OMP 18.2.3; OMP 17.3.5 and 18.1.21 end and
// list subagents differently, so these two run on 18.2.3 only (the README says so).
const olderOmp = process.env.TAMA_TEST_OMP !== undefined && process.env.TAMA_TEST_OMP !== "18.2.3";
if (olderOmp) process.stderr.write(`test/e2e/subagents.test.ts: the yield and listing tests run on OMP 18.2.3 only, not ${process.env.TAMA_TEST_OMP}\n`);
const itOn1823 = it.skipIf(olderOmp);

describe("subagents in real OMP", () => {
  itOn1823("a subagent shares its OMP process's engine, and status and `tama sessions list` show it under its parent", async () => {
    const { server, env } = await omp.setup({ script });
    const tama = installTama(env);
    const session = omp.rpc();
    await session.ready();
    await session.prompt('CALL bash {"command":"echo main-ran"}');
    const before = engines(tama.home);
    expect(before).toHaveLength(1);
    await session.prompt(TASK, { timeoutMs: 120_000 });
    // the subagent ran its bash call through the gates and yielded
    expect(server.requests.some((r) => isSubagent(r) && trailingToolResults(r.turns).some((t) => t.text.includes("sub-ran")))).toBe(true);
    expect(server.requests.some((r) => !isSubagent(r) && JSON.stringify(r.turns).includes("sub done"))).toBe(true);
    // one engine for both sessions: the one the main session started
    expect(engines(tama.home)).toEqual(before);

    const listed = tama.cli(["sessions", "list", "--json"]);
    expect(listed.code).toBe(0);
    const sessions = (JSON.parse(listed.stdout) as { sessions: { session: string; parent: string | null; depth: number; enginePid: number | null }[] }).sessions;
    expect(sessions).toHaveLength(2);
    const [main, sub] = sessions;
    expect(main).toMatchObject({ parent: null, depth: 0, enginePid: before[0] });
    expect(sub).toMatchObject({ parent: main?.session, depth: 1, enginePid: before[0] });
    const text = tama.cli(["sessions", "list"]).stdout.split("\n");
    const mainLine = text.findIndex((l) => l.startsWith(main?.session ?? "?"));
    expect(text[mainLine + 1]).toMatch(new RegExp(`^└ ${sub?.session}\\s`));

    const status = await statusOf(session);
    expect(status.session).toBe(main?.session);
    expect(status.subagents).toEqual([sub?.session]);
    expect(status.engineSharedBy).toBe(2);
  }, 300_000);

  itOn1823("a stop hook's refusal at the subagent's yield keeps the subagent working; its next yield ends it", async () => {
    const { server, env } = await omp.setup({ script });
    const record = path.join(env.scratch, "stops.jsonl");
    const onceDir = path.join(env.scratch, "once");
    mkdirSync(onceDir);
    const tama = installTama(env, { RECORD_FILE: record, ONCE_DIR: onceDir });
    tama.addHooks({ id: "stop-once", events: ["stop"], command: [path.join(FIX, "stop-once-per-session.py")] });
    const session = omp.rpc();
    await session.ready();
    await session.prompt(TASK, { timeoutMs: 120_000 });
    const listed = JSON.parse(tama.cli(["sessions", "list", "--json"]).stdout) as { sessions: { session: string; parent: string | null }[] };
    const sub = listed.sessions.find((s) => s.parent !== null)?.session;
    expect(sub).toBeDefined();
    // the stop gates ran for the subagent's session, twice: refused, then passed
    const stops = readJsonl<{ session_id: string; hook_event_name: string; stop_hook_active: boolean }>(record).filter((s) => s.session_id === sub);
    expect(stops.map((s) => [s.hook_event_name, s.stop_hook_active])).toEqual([
      ["Stop", false],
      ["Stop", true],
    ]);
    // the subagent's model read the refusal as its yield's result, and yielded again
    const refusedYield = server.requests.find((r) => isSubagent(r) && trailingToolResults(r.turns).some((t) => t.text.includes("Tama refused to end this subagent: STOP-REFUSED: run the tests before you finish")));
    expect(refusedYield).toBeDefined();
    // its result reached the main session
    expect(server.requests.some((r) => !isSubagent(r) && JSON.stringify(r.turns).includes("sub done"))).toBe(true);
  }, 300_000);

  it("a subagent's session ending gives the engine back without ending it: the parent's calls are still gated by the same engine", async () => {
    // OMP releases an idle subagent after task.agentIdleTtlMs: its session shuts down then.
    const { server, env } = await omp.setup({ script, configYaml: "task:\n  agentIdleTtlMs: 200\n" });
    const record = path.join(env.scratch, "ends.jsonl");
    const tama = installTama(env, { RECORD_FILE: record });
    tama.addHooks({ id: "record-end", events: ["session_end"], command: [path.join(FIX, "record-input.sh")] });
    const session = omp.rpc();
    await session.ready();
    await session.prompt(TASK, { timeoutMs: 120_000 });
    const shared = engines(tama.home);
    expect(shared).toHaveLength(1);
    const sessionEnds = () => readJsonl<{ session_id: string; hook_event_name: string }>(record).filter((r) => r.hook_event_name === "SessionEnd");
    // the subagent's record goes with its session, and its session_end reaches the engine
    for (let i = 0; i < 600; i++) {
      const listed = JSON.parse(tama.cli(["sessions", "list", "--json"]).stdout) as { sessions: unknown[] };
      if (listed.sessions.length === 1 && sessionEnds().length > 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const remaining = (JSON.parse(tama.cli(["sessions", "list", "--json"]).stdout) as { sessions: { session: string }[] }).sessions;
    expect(remaining).toHaveLength(1);
    // the subagent's session did end: its session_end hook ran on the shared engine
    const ends = sessionEnds();
    expect(ends.length).toBeGreaterThan(0);
    expect(ends.map((r) => r.session_id)).not.toContain(remaining[0]?.session);
    const before = server.requests.length;
    await session.prompt('CALL bash {"command":"git commit --no-verify -m after-subagent"}');
    const refused = trailingToolResults(server.requests[before + 1]?.turns ?? []).map((t) => t.text).join("\n");
    expect(refused).toMatch(/--no-verify/);
    expect(engines(tama.home)).toEqual(shared);
    const status = await statusOf(session);
    expect((status.engine as { processId: number }).processId).toBe(shared[0]);
    expect(status.subagents).toEqual([]);
  }, 300_000);
});
