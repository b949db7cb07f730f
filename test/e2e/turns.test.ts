// Stop and prompt hooks, and an engine that dies or a registry that cannot load, in real OMP.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useOmpFixture } from "../omp/fixture.ts";
import type { Frame } from "../omp/rpc-session.ts";
import { ROOT } from "../support/engine-client.ts";
import { installTama } from "./tama-omp.ts";

const omp = useOmpFixture();
const FIX = path.join(ROOT, "test/fixtures/hooks");

function allText(body: unknown): string {
  return JSON.stringify((body as { messages?: unknown }).messages ?? body);
}
function lastToolText(body: unknown): string {
  const messages = ((body as { messages?: { role: string; content: unknown }[] }).messages ?? []).filter((m) => m.role === "tool");
  const last = messages.at(-1);
  return typeof last?.content === "string" ? last.content : JSON.stringify(last?.content ?? "");
}

/** A session that made one call, and the pid of the engine that decided it. */
async function servedSession() {
  const { server, env } = await omp.setup();
  installTama(env);
  const session = omp.rpc();
  await session.ready();
  await session.prompt('CALL bash {"command":"echo first"}');
  return { server, session, pid: ((await statusOf(session)).engine as { processId: number }).processId };
}

describe("turns in real OMP", () => {
  it("a stop hook's refusal makes OMP continue the turn with the reason", async () => {
    const { server, env } = await omp.setup();
    const tama = installTama(env, { ONCE_FILE: path.join(env.scratch, "once") });
    tama.addHooks({ id: "stop-once", events: ["stop"], command: [path.join(FIX, "block-stop-once.sh")] });
    const session = omp.rpc();
    await session.ready();
    await session.prompt("NOTOOL say hello");
    expect(server.requests.length).toBe(2);
    expect(allText(server.requests[1]?.body)).toMatch(/STOP-REFUSED: run the tests before you finish/);
  });

  it("a refused prompt never reaches the model, in RPC mode", async () => {
    const { server, env } = await omp.setup();
    const tama = installTama(env);
    tama.addHooks({ id: "no-secrets", events: ["user_prompt_submit"], command: [path.join(FIX, "refuse-prompt.py")] });
    const session = omp.rpc();
    await session.ready();
    const from = session.events.length;
    await session.send({ type: "prompt", message: "NOTOOL here is my SECRET" });
    const notice = await session.waitFor((f: Frame) => f.type === "extension_ui_request" && f.method === "notify" && /refused this prompt/.test(String(f.message)), { from });
    expect(String(notice.message)).toBe("Tama refused this prompt: prompts must not carry secrets");
    // the next prompt runs normally, and the refused one was never sent
    await session.prompt("NOTOOL a harmless prompt");
    expect(server.requests.map((r) => allText(r.body)).join("\n")).not.toMatch(/SECRET/);
    expect(server.requests.length).toBe(1);
  });

  it("an engine killed mid-session is replaced, and the next tool call is still decided", async () => {
    const { server, session, pid } = await servedSession();
    process.kill(pid, "SIGKILL");
    const before = server.requests.length;
    await session.prompt('CALL bash {"command":"git commit --no-verify -m after-kill"}');
    expect(lastToolText(server.requests[before + 1]?.body)).toMatch(/--no-verify/);
    const after = await statusOf(session);
    expect((after.engine as { processId: number }).processId).not.toBe(pid);
    // the session is told the engine restarted
    expect(session.events.some((f) => f.type === "extension_ui_request" && f.method === "notify" && /^Tama's engine restarted \(pid \d+\)\.$/.test(String(f.message)))).toBe(true);
  });

  it("an engine the agent kills from its own call is replaced, and its next call is still decided", async () => {
    const { server, session, pid } = await servedSession();
    await session.prompt(`CALL bash {"command":"kill -9 ${pid}; echo killed"}`);
    const before = server.requests.length;
    await session.prompt('CALL bash {"command":"git commit --no-verify -m after-kill"}');
    expect(lastToolText(server.requests[before + 1]?.body)).toMatch(/--no-verify/);
    expect(((await statusOf(session)).engine as { processId: number }).processId).not.toBe(pid);
  });

  it("with a registry that cannot load, tool calls are refused with the cause", async () => {
    const { server, env } = await omp.setup();
    const tama = installTama(env);
    const session = omp.rpc();
    await session.ready();
    tama.writeRegistry("{ this is not json");
    const before = server.requests.length;
    await session.prompt('CALL bash {"command":"echo should-not-run"}');
    const text = lastToolText(server.requests[before + 1]?.body);
    expect(text).toMatch(/^Tama could not check this bash call, so it is refused: parsing hook registry .*registry\.json: /);
    expect(text).not.toMatch(/should-not-run\\n/);
  });
  it("with TAMA_FAIL_MODE=open a call that cannot be checked runs, and the session is warned", async () => {
    const { server, env } = await omp.setup();
    const tama = installTama(env, { TAMA_FAIL_MODE: "open" });
    const session = omp.rpc();
    await session.ready();
    tama.writeRegistry("{ this is not json");
    const before = server.requests.length;
    const from = session.events.length;
    await session.prompt('CALL bash {"command":"echo ran-unchecked"}');
    expect(lastToolText(server.requests[before + 1]?.body)).toMatch(/ran-unchecked/);
    const warning = await session.waitFor((f: Frame) => f.type === "extension_ui_request" && f.method === "notify" && /let it through/.test(String(f.message)), { from });
    expect(String(warning.message)).toMatch(/^Tama could not check bash and let it through \(TAMA_FAIL_MODE=open\): parsing hook registry /);
  });
});

async function statusOf(session: { events: Frame[]; prompt(m: string): Promise<unknown>; waitFor(p: (f: Frame) => boolean, o?: { from?: number }): Promise<Frame> }): Promise<Record<string, unknown>> {
  const from = session.events.length;
  await session.prompt("/tama_status --json");
  const frame = await session.waitFor((f) => f.type === "extension_ui_request" && f.method === "notify", { from });
  return JSON.parse(String(frame.message)) as Record<string, unknown>;
}
