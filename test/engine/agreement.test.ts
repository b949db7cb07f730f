// An event OMP's process already went on with: the engine still runs it, and when its
// own verdict is the one OMP's process went on with and it has nothing else to tell, it
// writes no answer at all; any other verdict or news comes whole.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EngineClient as Client, type ClientAnswer } from "../../modules/engine/client.ts";
import type { DecidedHere } from "../../modules/protocol/engine.ts";
import { defaultRegistry } from "../../modules/registry/default.ts";
import { RACY_MS } from "../../modules/system/stat-key.ts";
import { EngineClient, ENGINE_RUNTIME, makeTestHome, TAMA_BIN, type TestHome } from "../support/engine-client.ts";

let home: TestHome;
let engine: EngineClient;
let cwd: string;
/** Until a file has been still this long its key does not stand for its bytes (stat-key.ts). */
const settle = () => new Promise((resolve) => setTimeout(resolve, RACY_MS + 100));

beforeEach(async () => {
  home = makeTestHome();
  home.writeRegistry(defaultRegistry(null));
  cwd = path.join(home.dir, "work");
  mkdirSync(path.join(cwd, ".git"), { recursive: true });
  engine = new EngineClient(home, { HOME: path.join(home.dir, "user") });
  await engine.ready();
  await settle();
});
afterEach(async () => {
  await engine.close();
  home.cleanup();
});

const call = (command: string) => ({ session_id: "s", cwd, tool_name: "bash", tool_input: { command } });
/**
 * Send a told dispatch and wait until the engine has finished it (its status names it
 * as the event's last dispatch): an answer it wrote came before that status answer.
 */
async function told(event: string, payload: Record<string, unknown>, extra: Record<string, unknown>): Promise<Record<string, unknown> | undefined> {
  const id = engine.nextId();
  engine.send({ op: "dispatch", event, payload, ...extra, id });
  for (;;) {
    const status = await engine.request({ op: "status" });
    const last = (status.result as { dispatchStages: { lastByEvent: Record<string, { id: string }> } }).dispatchStages.lastByEvent[event];
    if (last?.id === id) break;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return engine.frames.find((frame) => frame.id === id);
}
const keyOf = async (): Promise<string> => {
  const answer = await engine.dispatch("pre_tool_use:bash", call("true"));
  return String((answer.result as { hookedEventsKey?: string }).hookedEventsKey);
};

describe("agreed answers", () => {
  it("writes no answer to a dispatch whose verdict OMP's process went on with, and any other answer whole", async () => {
    const known = await keyOf();
    expect(await told("pre_tool_use:bash", call("true"), { knownHookedEvents: known, decidedHere: { decision: "pass" } })).toBeUndefined();
    // Another verdict than the engine's own: the whole answer, with the engine's.
    const refused = await told("pre_tool_use:bash", call("git commit --no-verify -m x"), { knownHookedEvents: known, decidedHere: { decision: "pass" } });
    expect(refused?.ok).toBe(true);
    expect((refused?.result as { decision: string }).decision).toBe("block");
    const reason = (refused?.result as { reason: string }).reason;
    // The same refusal, with the same reason: nothing to say.
    expect(await told("pre_tool_use:bash", call("git commit --no-verify -m x"), { knownHookedEvents: known, decidedHere: { decision: "block", reason } })).toBeUndefined();
    expect(await told("pre_tool_use:bash", call("git commit --no-verify -m x"), { knownHookedEvents: known, decidedHere: { decision: "block", reason: "another" } })).toMatchObject({ ok: true });
    // A client that does not hold the hookedEvents has news to read: the whole answer.
    const unknown = await told("pre_tool_use:bash", call("true"), { decidedHere: { decision: "pass" } });
    expect((unknown?.result as { hookedEvents?: unknown }).hookedEvents).toBeDefined();
  });

  it("sends a result rewritten by the engine's gates whole, and refuses a malformed decidedHere by name", async () => {
    const known = await keyOf();
    const secret = await told(
      "post_tool_use:bash",
      { ...call("cat .env"), tool_response: { content: [{ type: "text", text: "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" }] } },
      { knownHookedEvents: known, decidedHere: { decision: "pass" } },
    );
    expect(secret?.ok).toBe(true);
    expect((secret?.result as { updatedToolResponse?: unknown }).updatedToolResponse).toBeDefined();
    const bad = await engine.dispatch("pre_tool_use:bash", call("true"), { decidedHere: { decision: "maybe" } });
    expect(bad.ok).toBe(false);
    expect(String(bad.error)).toContain("decidedHere");
    // It keeps serving.
    expect((await engine.dispatch("pre_tool_use:bash", call("true"))).ok).toBe(true);
  });
});

describe("told dispatches in one write", () => {
  it("a call and its result told together: the result ends nothing, and a status after them counts both", async () => {
    const known = await keyOf();
    const pre = { op: "dispatch", event: "pre_tool_use:bash", payload: call("echo one"), knownHookedEvents: known, decidedHere: { decision: "pass" }, id: "told-pre" };
    const post = {
      op: "dispatch",
      event: "post_tool_use:bash",
      payload: { ...call("echo one"), tool_response: { content: [{ type: "text", text: "one" }] }, call_repeats: 1 },
      knownHookedEvents: known,
      decidedHere: { decision: "pass" },
      id: "told-post",
    };
    const status = { op: "status", id: "after-told" };
    engine.sendRaw([pre, post, status].map((frame) => `${JSON.stringify(frame)}\n`).join(""));
    const answer = await engine.waitFor((frame) => frame.id === "after-told");
    const last = (answer.result as { dispatchStages: { lastByEvent: Record<string, { id: string }> } }).dispatchStages.lastByEvent;
    expect(last["pre_tool_use:bash"]?.id).toBe("told-pre");
    expect(last["post_tool_use:bash"]?.id).toBe("told-post");
    // Both agreed: no answer, and the result did not end the call's check (nobody waited for it).
    expect(engine.frames.filter((frame) => frame.id === "told-pre" || frame.id === "told-post")).toEqual([]);
    expect(engine.stderr).not.toMatch(/ended pre-tool dispatch/);
  });
});

describe("engine client told dispatches", () => {
  it("tells an engine that answered by keys what OMP's process decided, and hears back only when it says otherwise", async () => {
    const client = new Client({ command: () => [ENGINE_RUNTIME, TAMA_BIN, "run-hook", "--serve", "omp"], env: { ...process.env, TAMA_HOME: home.home, HOME: path.join(home.dir, "user") } });
    const heard: { event: string; answer: ClientAnswer }[] = [];
    const tell = (command: string, decided: DecidedHere) => client.tell("pre_tool_use:bash", call(command), decided, (answer) => heard.push({ event: command, answer }));
    try {
      // An engine not yet seen to read decidedHere gets an ordinary dispatch, whose answer is always heard.
      tell("true", { decision: "pass" });
      await until(() => heard.length === 1);
      expect(heard[0]?.answer).toMatchObject({ ok: true, result: { decision: "pass" } });
      // Now told: an agreeing verdict says nothing, another one is heard.
      tell("true", { decision: "pass" });
      tell("git commit --no-verify -m x", { decision: "pass" });
      await until(() => heard.length === 2);
      expect(heard[1]).toMatchObject({ event: "git commit --no-verify -m x", answer: { ok: true, result: { decision: "block" } } });
      // The payload's JSON, given, is the payload the engine reads.
      const given = call("git push --no-verify");
      client.tell("pre_tool_use:bash", given, { decision: "pass" }, (answer) => heard.push({ event: "given", answer }), JSON.stringify(given));
      await until(() => heard.length === 3);
      expect(heard[2]).toMatchObject({ event: "given", answer: { ok: true, result: { decision: "block" } } });
      // The told frames went out in order, with the next request: its answer comes after theirs.
      expect((await client.dispatch("pre_tool_use:bash", call("true"))).ok).toBe(true);
      expect(heard).toHaveLength(3);
    } finally {
      await client.close();
    }
  });
});

/** Wait (bounded) for a condition that the engine's answers make true. */
async function until(condition: () => boolean, boundMs = 20_000): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("the condition never held");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
