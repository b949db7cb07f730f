// Model requests are decided at once from the cached verdict, and carry the
// installed contracts, in a real OMP.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useOmpFixture } from "../omp/fixture.ts";
import type { RecordedRequest } from "../omp/model-server.ts";
import type { Frame, RpcSession } from "../omp/rpc-session.ts";
import { ROOT } from "../support/engine-client.ts";
import { installTama, type TamaInstall } from "./tama-omp.ts";

const omp = useOmpFixture();
const GATE = path.join(ROOT, "test/fixtures/hooks/slow-gate.sh");

function useGate(tama: TamaInstall): void {
  const registry = tama.readRegistry();
  tama.writeRegistry({
    ...registry,
    checksum: undefined,
    hooks: [...registry.hooks.filter((h) => h.id !== "block-text-outside-tool-calls"), { id: "slow-gate", events: ["before_provider_request"], command: [GATE] }],
  });
}

/** The adapter holds a verdict for the session (read from /tama_status): an ordering, not a sleep. */
async function verdictHeld(session: RpcSession, verdict: "pass" | "refuse"): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const from = session.events.length;
    await session.prompt("/tama_status --json");
    const frame = await session.waitFor((f: Frame) => f.type === "extension_ui_request" && f.method === "notify", { from });
    const status = JSON.parse(String(frame.message)) as { modelRequests: { sessions: Record<string, { verdict: string }> } };
    if (Object.values(status.modelRequests.sessions).some((s) => s.verdict === verdict)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the adapter never held a ${verdict} verdict`);
}

async function until(check: () => boolean, what: string, boundMs = 20_000): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Start/end lines of the gate's runs never overlap: never two dispatches at once. */
function neverTwoAtOnce(log: string): void {
  let running = 0;
  for (const line of readFileSync(log, "utf8").trim().split("\n")) {
    running += line.startsWith("start") ? 1 : -1;
    expect(running).toBeLessThanOrEqual(1);
  }
}

describe("before_provider_request", () => {
  it("does not wait for a 2 s gate: the first request is forced, later ones follow the verdict, one dispatch at a time", async () => {
    const { server, env } = await omp.setup();
    const gateLog = path.join(env.scratch, "gate.log");
    const tama = installTama(env, { GATE_LOG: gateLog, GATE_SECONDS: "2", GATE_VERDICT: "pass" });
    useGate(tama);
    // What had the gate finished when each request arrived?
    const endedAtArrival: boolean[] = [];
    server.setScript((req: RecordedRequest) => {
      endedAtArrival.push(existsSync(gateLog) && readFileSync(gateLog, "utf8").includes("end"));
      return req.turns.some((t) => t.role === "tool") ? { text: "done" } : req.index === 0 ? { toolCalls: [{ name: "bash", arguments: { command: "echo hi" } }] } : { text: "plain" };
    });
    const session = omp.rpc();
    await session.ready();
    await session.prompt("first");
    // Both requests of the first prompt reached the model while the 2 s gate still ran.
    expect(endedAtArrival.slice(0, 2)).toEqual([false, false]);
    expect(server.requests[0]?.body.tool_choice).toBe("required");
    expect(server.requests[1]?.body.tool_choice).toBe("required");
    // Once a verdict is in, the next request follows it: the gate passed, so nothing is forced.
    await verdictHeld(session, "pass");
    await session.prompt("second");
    expect(server.requests.at(-1)?.body.tool_choice).toBeUndefined();
    await until(() => (readFileSync(gateLog, "utf8").match(/end/g) ?? []).length >= 2, "the second dispatch");
    neverTwoAtOnce(gateLog);
    // one dispatch per refresh, not one per request: three requests, at most two dispatches
    expect((readFileSync(gateLog, "utf8").match(/start/g) ?? []).length).toBeLessThanOrEqual(2);
  });

  it("never forces an Anthropic Messages request, even while the gate refuses", async () => {
    const { server, env } = await omp.setup({ api: "anthropic-messages" });
    const gateLog = path.join(env.scratch, "gate.log");
    const tama = installTama(env, { GATE_LOG: gateLog, GATE_SECONDS: "0", GATE_VERDICT: "block" });
    useGate(tama);
    const session = omp.rpc();
    await session.ready();
    await session.prompt("NOTOOL one");
    await verdictHeld(session, "refuse");
    await session.prompt("NOTOOL two");
    expect(server.requests.length).toBeGreaterThanOrEqual(2);
    for (const request of server.requests) {
      expect(request.path).toMatch(/messages/);
      expect(request.body.tool_choice).toBeUndefined();
    }
  });
});

describe("contracts", () => {
  const START = "<!-- jeden contracts: start -->";
  const END = "<!-- jeden contracts: end -->";
  const block = (text: string) => `${START}\n${text}\n${END}`;

  it("splices the installed block into each request, and keeps the session's copy when the file cannot be read", async () => {
    const { server, env } = await omp.setup();
    const tama = installTama(env);
    const file = path.join(env.home, ".omp", "agent", "APPEND_SYSTEM.md");
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `Be brief.\n${block("CONTRACT-V1: answer in English")}\n`);
    const session = omp.rpc();
    await session.ready();
    await session.prompt("NOTOOL one");
    const system = (req: RecordedRequest | undefined) => JSON.stringify(req?.body.messages);
    expect(system(server.requests[0])).toContain("CONTRACT-V1");
    // edited mid-session: the next request carries the new block in place of the old
    writeFileSync(file, `Be brief.\n${block("CONTRACT-V2: answer in French")}\n`);
    await session.prompt("NOTOOL two");
    expect(system(server.requests[1])).toContain("CONTRACT-V2");
    expect(system(server.requests[1])).not.toContain("CONTRACT-V1");
    // the session started before the file was last written: `tama contracts status` names it
    const status = tama.cli(["contracts", "status", "--omp", "--json"]);
    expect(status.code, status.stderr).toBe(0);
    const stale = (JSON.parse(status.stdout) as { sessions: { session: string; stale: boolean; contractsFile: string }[] }).sessions;
    expect(stale).toHaveLength(1);
    expect(stale[0]).toMatchObject({ stale: true, contractsFile: file });
    // a file that exists and cannot be read: the session's own copy, and the sentence on stderr
    rmSync(file);
    mkdirSync(file);
    await session.prompt("NOTOOL three");
    expect(system(server.requests[2])).toContain("CONTRACT-V1");
    expect(session.stderr).toContain(
      `Tama cannot read the installed contracts ${file}: EISDIR: illegal operation on a directory; this model request keeps the contracts its session started with`,
    );
  });
});
