// Malformed frames get an error answer naming the cause; the engine keeps serving.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EngineClient, makeTestHome, type TestHome } from "../support/engine-client.ts";

let home: TestHome;
let engine: EngineClient;

beforeEach(async () => {
  home = makeTestHome();
  home.writeRegistry({ schema: 1, release: { id: "r1" }, hooks: [] });
  engine = new EngineClient(home);
  await engine.ready();
});
afterEach(async () => {
  await engine.close();
  home.cleanup();
});

async function stillServes(): Promise<void> {
  const answer = await engine.request({ op: "status" });
  expect(answer.ok).toBe(true);
}

describe("frames", () => {
  it("emits a ready frame carrying the state first", () => {
    const ready = engine.frames[0];
    expect(ready?.type).toBe("ready");
    const state = ready?.state as Record<string, unknown>;
    expect(state.processId).toBe(engine.pid);
    expect(state.loadedReleaseId).toBe("r1");
    expect(state.generation).toBe(1);
    for (const key of ["catalogChecksum", "registeredHookCount", "reloadCount", "lastReloadAtMs", "lastReloadError", "coreReleaseId", "coreReplacedByRelease"]) {
      expect(state).toHaveProperty(key);
    }
  });

  const cases: { name: string; raw: string; id: unknown; error: RegExp; code: string }[] = [
    { name: "not JSON", raw: "{nope", id: null, error: /frame is not JSON/, code: "frame-not-json" },
    { name: "not an object", raw: "[1,2]", id: null, error: /not a JSON object/, code: "invalid-frame" },
    { name: "a string", raw: '"status"', id: null, error: /not a JSON object/, code: "invalid-frame" },
    { name: "no id", raw: '{"op":"status"}', id: null, error: /frame has no id/, code: "invalid-frame" },
    { name: "bad id type", raw: '{"id":{"a":1},"op":"status"}', id: null, error: /frame id must be/, code: "invalid-frame" },
    { name: "unknown op", raw: '{"id":"u1","op":"explode"}', id: "u1", error: /unknown op "explode": expected one of status, reload, dispatch, cancel/, code: "unknown-op" },
    { name: "no op", raw: '{"id":"u2"}', id: "u2", error: /frame has no op/, code: "invalid-frame" },
    {
      name: "malformed event",
      raw: '{"id":"u3","op":"dispatch","event":"pre_tool_use:","payload":{}}',
      id: "u3",
      error: /invalid dispatch frame: event: unknown event/,
      code: "unknown-event",
    },
    { name: "unknown event", raw: '{"id":"u4","op":"dispatch","event":"tool_call","payload":{}}', id: "u4", error: /unknown event/, code: "unknown-event" },
    { name: "payload not an object", raw: '{"id":"u5","op":"dispatch","event":"stop","payload":"x"}', id: "u5", error: /payload/, code: "invalid-frame" },
    { name: "wrong field type", raw: '{"id":"u6","op":"dispatch","event":"stop","payload":{"session_id":7}}', id: "u6", error: /payload\.session_id/, code: "invalid-frame" },
    { name: "unknown key", raw: '{"id":"u7","op":"status","extra":1}', id: "u7", error: /invalid status frame/, code: "invalid-frame" },
    { name: "cancel without target", raw: '{"id":"u8","op":"cancel"}', id: "u8", error: /target/, code: "invalid-frame" },
  ];

  for (const c of cases) {
    it(`refuses a frame that is ${c.name}, naming the cause, and keeps serving`, async () => {
      const before = engine.frames.length;
      engine.sendRaw(`${c.raw}\n`);
      const answer = await engine.waitFor((f, i = engine.frames.indexOf(f)) => i >= before && f.ok === false);
      expect(answer.id).toEqual(c.id);
      expect(answer.error).toMatch(c.error);
      expect(answer.code).toBe(c.code);
      expect(answer.state).toBeDefined();
      await stillServes();
    });
  }

  it("refuses an oversized frame without holding it, and keeps serving", async () => {
    const huge = `{"id":"big","op":"status","pad":"${"x".repeat(17 * 1024 * 1024)}"}\n`;
    engine.sendRaw(huge);
    const answer = await engine.waitFor((f) => f.ok === false && /exceeds/.test(String(f.error)));
    expect(answer.error).toMatch(/frame exceeds 16777216 bytes/);
    expect(answer.code).toBe("frame-too-large");
    await stillServes();
  });

  it("refuses a last frame that does not end with LF when the input closes", async () => {
    engine.sendRaw('{"id":"t1","op":"status"}');
    expect(await engine.close()).toBe(0);
    const answer = engine.frames.find((f) => f.id === "t1");
    expect(answer).toMatchObject({ ok: false, code: "frame-unterminated", error: "frame does not end with LF" });
  });

  it("refuses a second dispatch under an id already in flight", async () => {
    const hang = home.script("hang.sh", "#!/bin/sh\nexec sleep 30\n");
    home.writeRegistry({ schema: 1, release: null, hooks: [{ id: "hang", events: ["stop"], command: [hang] }] });
    engine.send({ id: "dup", op: "dispatch", event: "stop", payload: { session_id: "s1", cwd: home.dir } });
    await engine.waitFor(() => false, 300).catch(() => undefined);
    engine.send({ id: "dup", op: "dispatch", event: "stop", payload: { session_id: "s2", cwd: home.dir } });
    const refused = await engine.waitFor((f) => f.id === "dup" && /already in flight/.test(String(f.error)));
    expect(refused.ok).toBe(false);
    expect(refused.code).toBe("duplicate-id");
    const cancelled = await engine.request({ op: "cancel", target: "dup" });
    expect(cancelled.ok).toBe(true);
  });

  it("answers status while a dispatch holds a hook that never ends", async () => {
    const hang = home.script("hang.sh", "#!/bin/sh\nexec sleep 30\n");
    home.writeRegistry({ schema: 1, release: null, hooks: [{ id: "hang", events: ["pre_tool_use"], command: [hang] }] });
    engine.send({ id: "held", op: "dispatch", event: "pre_tool_use:bash", payload: { session_id: "s", cwd: home.dir, tool_input: { command: "ls" } } });
    const status = await engine.waitFor(() => false, 300).catch(() => engine.request({ op: "status" }));
    expect(status.ok).toBe(true);
    const running = (status.state?.runningHooks as { dispatched: { hook: string; event: string; session: string }[] }).dispatched;
    expect(running.map((h) => h.hook)).toEqual(["hang"]);
    expect(running[0]?.event).toBe("pre_tool_use:bash");
  });

  it("closing stdin ends the process and every hook it holds", async () => {
    const hang = home.script("hang.sh", "#!/bin/sh\nsleep 30 &\nexec sleep 31\n");
    home.writeRegistry({ schema: 1, release: null, hooks: [{ id: "hang", events: ["stop"], command: [hang] }] });
    const answer = engine.dispatch("stop", { session_id: "s", cwd: home.dir });
    await engine.waitFor(() => false, 300).catch(() => undefined);
    const code = await engine.close();
    expect(code).toBe(0);
    const frame = await answer;
    expect(frame.ok).toBe(false);
    expect(frame.error).toMatch(/the core's caller closed its input, so nobody waits for its answer/);
    const { settleProcesses } = await import("../support/engine-client.ts");
    expect(await settleProcesses(home.dir)).toEqual([]);
  });
});
