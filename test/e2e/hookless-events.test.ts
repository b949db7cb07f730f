// Events without hooks go on at once (adapter/hookless.ts), in real OMP: a hook added
// mid-session still answers the very next such event, because the registry's stat
// key moved since the engine last read it. A turn end only built-in gates check is
// decided in OMP's process (engine/local-decision.ts) and still refused.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useOmpFixture } from "../omp/fixture.ts";
import type { Frame } from "../omp/rpc-session.ts";
import { RACY_MS } from "../../modules/system/stat-key.ts";
import { ROOT } from "../support/engine-client.ts";
import { installTama } from "./tama-omp.ts";

const omp = useOmpFixture();
const FIX = path.join(ROOT, "test/fixtures/hooks");
const allText = (body: unknown): string => JSON.stringify((body as { messages?: unknown }).messages ?? body);

async function statusOf(session: { events: Frame[]; prompt(m: string): Promise<unknown>; waitFor(p: (f: Frame) => boolean, o?: { from?: number }): Promise<Frame> }): Promise<Record<string, unknown>> {
  const from = session.events.length;
  await session.prompt("/tama_status --json");
  const frame = await session.waitFor((f) => f.type === "extension_ui_request" && f.method === "notify", { from });
  return JSON.parse(String(frame.message)) as Record<string, unknown>;
}

/** A session with the default registry, once that file is settled and a first turn taught the adapter its cwd's hooks. */
async function settledSession() {
  const { server, env } = await omp.setup();
  installTama(env);
  const session = omp.rpc();
  await session.ready();
  await new Promise((resolve) => setTimeout(resolve, RACY_MS + 100));
  // The first turn's events are the engine's: no answer has named the cwd's hooks yet.
  await session.prompt("NOTOOL hello");
  return { server, session, before: (await statusOf(session)).eventsDecidedHere as number };
}

describe("events without hooks in real OMP", () => {
  it("a prompt hook and a stop hook added mid-session answer the next prompt and turn end", async () => {
    const { server, env } = await omp.setup();
    const tama = installTama(env, { ONCE_FILE: path.join(env.scratch, "once") });
    const session = omp.rpc();
    await session.ready();
    // The registry install just wrote is keyed only once it has been still a while (stat-key.ts).
    await new Promise((resolve) => setTimeout(resolve, RACY_MS + 100));
    // The default registry has no prompt hook: these prompts go on without their answer.
    await session.prompt('CALL bash {"command":"echo first"}');
    await session.prompt("NOTOOL here is my SECRET, before any prompt hook");
    expect(server.requests.length).toBe(3);
    // The first prompt may come before any answer told the adapter its cwd's hooks.
    const wentOn = (await statusOf(session)).eventsWentOn;
    expect(wentOn === 1 || wentOn === 2).toBe(true);
    tama.addHooks(
      { id: "no-secrets", events: ["user_prompt_submit"], command: [path.join(FIX, "refuse-prompt.py")] },
      { id: "stop-once", events: ["stop"], command: [path.join(FIX, "block-stop-once.sh")] },
    );
    const from = session.events.length;
    await session.send({ type: "prompt", message: "NOTOOL here is my SECRET" });
    const notice = await session.waitFor((f: Frame) => f.type === "extension_ui_request" && f.method === "notify" && /refused this prompt/.test(String(f.message)), { from });
    expect(String(notice.message)).toBe("Tama refused this prompt: prompts must not carry secrets");
    expect(server.requests.length).toBe(3);
    await session.prompt("NOTOOL a harmless prompt");
    expect(server.requests.length).toBe(5);
    expect((await statusOf(session)).eventsWentOn).toBe(wentOn);
    expect(allText(server.requests[4]?.body)).toMatch(/STOP-REFUSED: run the tests before you finish/);
  });

  it("a turn end with open todos is refused in OMP's process, and let end once they are done", async () => {
    const { server, session, before } = await settledSession();
    await session.prompt('CALL todo {"op":"init","list":[{"phase":"P1","items":["first"]}]}');
    const refused = server.requests.filter((r) => /open task/.test(allText(r.body)));
    expect(refused.length).toBeGreaterThan(0);
    expect(allText(refused[0]?.body)).toMatch(/Your todo list still has 1 open task/);
    const decided = (await statusOf(session)).eventsDecidedHere as number;
    expect(decided).toBeGreaterThan(before);
    const count = server.requests.length;
    await session.prompt('CALL todo {"op":"done","task":"first"}');
    // The call, its result, and an end nobody refused: two model requests.
    expect(server.requests.length).toBe(count + 2);
    expect((await statusOf(session)).eventsDecidedHere as number).toBeGreaterThan(decided);
  });

  it("results are decided in OMP's process too: a repeated call is told so, a secret is redacted", async () => {
    const { server, session, before } = await settledSession();
    for (let i = 0; i < 3; i++) await session.prompt('CALL bash {"command":"echo same"}');
    const told = server.requests.filter((r) => /same Bash call 3 times in a row/.test(allText(r.body)));
    expect(told.length).toBe(1);
    await session.prompt('CALL bash {"command":"echo AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}');
    // The result the model reads: the value replaced (the command that printed it is the model's own).
    const last = (server.requests.at(-1)?.body as { messages?: { role: string; content: unknown }[] }).messages?.at(-1);
    expect(last?.role).toBe("tool");
    expect(JSON.stringify(last?.content)).toMatch(/AWS_SECRET_ACCESS_KEY=\[REDACTED\]/);
    expect(JSON.stringify(last?.content)).not.toMatch(/wJalrXUtnFEMI/);
    // Three calls, three results and four turn ends at least, none waiting on the engine.
    const status = await statusOf(session);
    expect(status.eventsDecidedHere as number).toBeGreaterThanOrEqual(before + 10);
    // The engine was still told of each (it answers only what it would say otherwise): it ran the last ones.
    const stages = (status.engine as { state: { dispatchStages: { lastByEvent: Record<string, unknown> } } }).state.dispatchStages.lastByEvent;
    expect(Object.keys(stages)).toEqual(expect.arrayContaining(["pre_tool_use:bash", "post_tool_use:bash", "stop"]));
    // Nothing it said differed from what OMP's process decided.
    expect(session.events.filter((f: Frame) => f.type === "extension_ui_request" && /decided in OMP's process|could not check/.test(String(f.message)))).toEqual([]);
  });

  it("the agent's ways around the gates are refused in OMP's process as by the engine: a bypass flag, a link to swap in a folder of extensions", async () => {
    const { server, session, before } = await settledSession();
    const refusedLast = (): string => JSON.stringify((server.requests.at(-1)?.body as { messages?: unknown[] }).messages?.at(-1));
    await session.prompt('CALL bash {"command":"eval \'git commit --no-verify -m x\'"}');
    expect(refusedLast()).toMatch(/no-verify/);
    // A folder linked in as .omp would bring its extensions along: the link itself is refused.
    await session.prompt('CALL bash {"command":"mkdir -p elsewhere/extensions && ln -s elsewhere .omp && echo linked"}');
    expect(refusedLast()).toMatch(/a folder OMP or Tama loads code and policy from/);
    await session.prompt('CALL write {"path":".omp/extensions/x.ts","content":"export default () => {}"}');
    expect(refusedLast()).toMatch(/the project's OMP extensions/);
    await session.prompt('CALL write {"path":"elsewhere/extensions/y.ts","content":"export default () => {}"}');
    expect(refusedLast()).not.toMatch(/refused/);
    expect((await statusOf(session)).eventsDecidedHere as number).toBeGreaterThan(before + 4);
  });
});
