// The adapter's engine client against a real engine: a core whose release was
// replaced is retired once it owes nothing; a dead engine's requests are answered.
import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EngineClient as Client } from "../../modules/engine/client.ts";
import { PROTOCOL_VERSION } from "../../modules/protocol/engine.ts";
import { RACY_MS } from "../../modules/system/stat-key.ts";
import { ENGINE_RUNTIME, makeTestHome, settleProcesses, TAMA_BIN, type TestHome } from "../support/engine-client.ts";

let home: TestHome;
let client: Client;
beforeEach(() => {
  home = makeTestHome();
  home.writeRegistry({ schema: 1, release: { id: "r1" }, hooks: [] });
  client = new Client({ command: () => [ENGINE_RUNTIME, TAMA_BIN, "run-hook", "--serve", "omp"], env: { ...process.env, TAMA_HOME: home.home } });
});
afterEach(async () => {
  await client.close();
  expect(await settleProcesses(home.home)).toEqual([]);
  home.cleanup();
});

const pidOf = (answer: { state?: { processId: number } }) => answer.state?.processId;
/** The state a stand-in engine reports, as source for its script. */
const STAND_IN_STATE = `{ processId: process.pid, generation: 0, loadedReleaseId: null, catalogChecksum: null, registeredHookCount: 0, reloadCount: 0, lastReloadAtMs: null, lastReloadError: null, coreReleaseId: null, coreReplacedByRelease: false, registryPath: "x", protocolVersion: ${PROTOCOL_VERSION} }`;
/** The engine's pid from an answer; throws rather than let kill(-1) reach every process of the user. */
function enginePid(answer: { state?: { processId: number } }): number {
  const pid = pidOf(answer);
  if (pid === undefined || pid <= 1) throw new Error(`the answer names no engine pid: ${JSON.stringify(answer)}`);
  return pid;
}

describe("engine client", () => {
  it("retires an engine whose code another release replaced: the next request gets a new engine on that release, then the same one", async () => {
    const first = await client.request({ op: "status" });
    expect(first.state).toMatchObject({ coreReleaseId: "r1", coreReplacedByRelease: false });
    home.writeRegistry({ schema: 1, release: { id: "r2" }, hooks: [] });
    const reloaded = await client.request({ op: "reload" });
    expect(reloaded.state).toMatchObject({ coreReleaseId: "r1", loadedReleaseId: "r2", coreReplacedByRelease: true });
    expect(pidOf(reloaded)).toBe(pidOf(first));
    const next = await client.request({ op: "status" });
    expect(pidOf(next)).not.toBe(pidOf(first));
    expect(next.state).toMatchObject({ coreReleaseId: "r2", coreReplacedByRelease: false });
    const again = await client.request({ op: "status" });
    expect(pidOf(again)).toBe(pidOf(next));
  });

  it("sends the catalog checksum it knows and keeps the catalog the engine returns", async () => {
    await client.request({ op: "status" });
    expect(client.catalogChecksum).toMatch(/^[0-9a-f]{64}$/);
    expect(client.catalog).toMatchObject({ release: { id: "r1" }, hooks: [] });
    const second = await client.request({ op: "status" });
    expect(second.catalog).toBeUndefined();
  });

  it("answers every request a dead engine owed, and the next request starts a new engine", async () => {
    const hang = home.script("hang.sh", "#!/bin/sh\ncat >/dev/null\nexec sleep 30\n");
    home.writeRegistry({ schema: 1, release: { id: "r1" }, hooks: [{ id: "hang", events: ["stop"], command: [hang] }] });
    const status = await client.request({ op: "status" });
    const held = [1, 2, 3].map((n) => client.dispatch("stop", { session_id: `s${n}`, cwd: home.dir }));
    await new Promise((r) => setTimeout(r, 200));
    process.kill(enginePid(status), "SIGKILL");
    for (const answer of await Promise.all(held)) {
      expect(answer.ok).toBe(false);
      expect(answer.error).toMatch(/the Tama engine \(pid \d+\) was ended by SIGKILL before answering/);
      expect(answer.code).toBe("engine-died");
    }
    const next = await client.request({ op: "status" });
    expect(next.ok).toBe(true);
    expect(pidOf(next)).not.toBe(pidOf(status));
  });
});

describe("engine client after an engine died", () => {
  it("asks the next engine a request the dead one started no hook for: decided once, not refused", async () => {
    const runs = `${home.dir}/runs`;
    const count = home.script("count.sh", `#!/bin/sh\ncat >/dev/null\necho ran >> ${runs}\n`);
    home.writeRegistry({ schema: 1, release: { id: "r1" }, hooks: [{ id: "count", events: ["stop"], command: [count] }] });
    const status = await client.request({ op: "status" });
    // killed and asked in the same tick: the client cannot have seen the death before writing
    process.kill(enginePid(status), "SIGKILL");
    const answer = await client.dispatch("stop", { session_id: "s1", cwd: home.dir });
    expect(answer.ok).toBe(true);
    expect(pidOf(answer)).not.toBe(pidOf(status));
    expect(readFileSync(runs, "utf8")).toBe("ran\n");
  });

  it("reads the started frame a dispatch sends before its first hook process, and none for a built-in gate", async () => {
    const { spawn } = await import("node:child_process");
    const pass = home.script("pass.sh", "#!/bin/sh\ncat >/dev/null\n");
    home.writeRegistry({ schema: 1, release: { id: "r1" }, hooks: [{ id: "pass", events: ["stop"], command: [pass] }] });
    const engine = spawn(ENGINE_RUNTIME, [TAMA_BIN, "run-hook", "--serve", "omp"], { env: { ...process.env, TAMA_HOME: home.home } });
    let out = "";
    engine.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    engine.stdin.write(`${JSON.stringify({ id: "b", op: "dispatch", event: "pre_tool_use:bash", payload: { session_id: "s1", cwd: home.dir, tool_input: { command: "ls" } } })}\n`);
    engine.stdin.write(`${JSON.stringify({ id: "c", op: "dispatch", event: "stop", payload: { session_id: "s1", cwd: home.dir } })}\n`);
    engine.stdin.end();
    await new Promise((resolve) => engine.once("close", resolve));
    const frames = out.trim().split("\n").map((line) => JSON.parse(line) as { type?: string; id?: string });
    expect(frames.filter((f) => f.type === "started")).toEqual([{ type: "started", id: "c" }]);
    // the started frame comes before its answer
    expect(frames.findIndex((f) => f.type === "started")).toBeLessThan(frames.findIndex((f) => f.type === undefined && f.id === "c"));
  });
});

describe("engine client bounds", () => {
  it("a request with a bound fails by name when the engine does not answer in time", async () => {
    // a stand-in engine that says ready and then never answers
    const mute = home.script("mute.js", `process.stdout.write(JSON.stringify({ type: "ready", protocolVersion: ${PROTOCOL_VERSION}, state: ${STAND_IN_STATE} }) + "\\n"); process.stdin.resume(); process.stdin.on("end", () => process.exit(0));`);
    const muted = new Client({ command: () => [process.execPath, mute], env: { ...process.env, TAMA_HOME: home.home } });
    const answer = await muted.request({ op: "status" }, 300);
    expect(answer.ok).toBe(false);
    expect(answer.error).toMatch(/^the Tama engine \(pid \d+\) gave no answer to status within 300 ms$/);
    expect(answer.code).toBe("request-timeout");
    await muted.close();
  });
});

/** A stand-in engine that says ready and runs `onRequest` (JS, with `request` and `state` in scope) for each request line, after `prelude`. */
function lineEngine(name: string, prelude: string, onRequest: string): string {
  return home.script(
    name,
    `const state = ${STAND_IN_STATE};
process.stdout.write(JSON.stringify({ type: "ready", protocolVersion: ${PROTOCOL_VERSION}, state }) + "\\n");
${prelude}
let buffered = "";
process.stdin.on("data", (chunk) => {
  buffered += chunk;
  let lf;
  while ((lf = buffered.indexOf("\\n")) !== -1) {
    const request = JSON.parse(buffered.slice(0, lf));
    buffered = buffered.slice(lf + 1);
    ${onRequest}
  }
});
process.stdin.on("end", () => process.exit(0));`,
  );
}

/** A stand-in engine whose ready frame names another protocol version; it exits when its input closes. */
function otherVersionEngine(): string {
  return home.script(
    "other-version.js",
    `process.stdout.write(JSON.stringify({ type: "ready", protocolVersion: ${PROTOCOL_VERSION - 1}, engine: { pid: process.pid } }) + "\\n"); process.stdin.resume(); process.stdin.on("end", () => process.exit(0));`,
  );
}

describe("engine client and hookedEvents", () => {
  it("sends the key it holds for a cwd, and hands on the same hookedEvents object for an answer that names it by key", async () => {
    home.writeRegistry({ schema: 1, release: { id: "r1" }, hooks: [{ id: "pre", events: ["pre_tool_use"], command: ["true"] }] });
    const payload = { session_id: "s", cwd: home.dir, prompt: "hi" };
    // A file just written has no key that stands for its bytes yet (stat-key.ts): each answer would differ.
    const settle = () => new Promise((resolve) => setTimeout(resolve, RACY_MS + 100));
    await settle();
    const hookedOf = (answer: { ok: boolean; result?: unknown }) => {
      expect(answer.ok).toBe(true);
      return (answer.result as { hookedEvents?: { events: string[] } }).hookedEvents;
    };
    const first = hookedOf(await client.dispatch("user_prompt_submit", payload));
    expect(first?.events).toEqual(["pre_tool_use"]);
    const second = hookedOf(await client.dispatch("user_prompt_submit", payload));
    expect(second).toBe(first);
    // Another cwd knows no key yet: its answer carries the whole, equal content.
    const elsewhere = hookedOf(await client.dispatch("user_prompt_submit", { ...payload, cwd: home.home }));
    expect(elsewhere?.events).toEqual(["pre_tool_use"]);
    // A changed registry: a new whole one, then that one by key.
    home.writeRegistry({ schema: 1, release: { id: "r1" }, hooks: [{ id: "stop", events: ["stop"], command: ["true"] }] });
    expect(hookedOf(await client.dispatch("user_prompt_submit", payload))?.events).toEqual(["stop"]);
    await settle();
    const changed = hookedOf(await client.dispatch("user_prompt_submit", payload));
    expect(changed?.events).toEqual(["stop"]);
    expect(hookedOf(await client.dispatch("user_prompt_submit", payload))).toBe(changed);
  });

  it("sends no key and no local decision to an engine not yet seen to answer by keys (an older build refuses fields it does not know)", async () => {
    const frames: string[] = [];
    const older = home.script(
      "older.js",
      `const rl = require("node:readline").createInterface({ input: process.stdin });
const state = ${STAND_IN_STATE};
process.stdout.write(JSON.stringify({ type: "ready", protocolVersion: ${PROTOCOL_VERSION}, state }) + "\\n");
rl.on("line", (line) => { const f = JSON.parse(line); require("node:fs").appendFileSync(${JSON.stringify(home.dir + "/frames")}, line + "\\n");
  process.stdout.write(JSON.stringify({ id: f.id, ok: true, result: { event: f.event, sessionId: null, generation: 0, releaseId: null, decision: "pass", failedOpen: [], results: [], hookedEvents: { events: [], files: [] } }, state }) + "\\n"); });
rl.on("close", () => process.exit(0));`,
    );
    const checked = new Client({ command: () => [process.execPath, older], env: { ...process.env, TAMA_HOME: home.home } });
    for (let i = 0; i < 3; i++) expect((await checked.dispatch("user_prompt_submit", { session_id: "s", cwd: home.dir })).ok).toBe(true);
    // Nor what OMP's process decided: an ordinary dispatch goes, and its answer is heard.
    const heard = await new Promise((resolve) => checked.tell("user_prompt_submit", { session_id: "s", cwd: home.dir }, { decision: "pass" }, resolve));
    expect(heard).toMatchObject({ ok: true, result: { decision: "pass" } });
    await checked.close();
    frames.push(...readFileSync(`${home.dir}/frames`, "utf8").trim().split("\n"));
    expect(frames).toHaveLength(4);
    for (const frame of frames) {
      expect(JSON.parse(frame)).not.toHaveProperty("knownHookedEvents");
      expect(JSON.parse(frame)).not.toHaveProperty("decidedHere");
    }
  });
});

describe("engine client version check", () => {
  it("refuses an engine speaking another protocol version by name, then starts the installed one", async () => {
    const other = otherVersionEngine();
    const said: string[] = [];
    let starts = 0;
    const checked = new Client({
      // the first start finds the other version; the command read again names the installed engine
      command: () => (starts++ === 0 ? [process.execPath, other] : [ENGINE_RUNTIME, TAMA_BIN, "run-hook", "--serve", "omp"]),
      env: { ...process.env, TAMA_HOME: home.home },
      onStderr: (line) => said.push(line),
    });
    const answer = await checked.request({ op: "status" });
    expect(answer.ok).toBe(true);
    expect(answer.state?.protocolVersion).toBe(PROTOCOL_VERSION);
    expect(starts).toBe(2);
    expect(said).toContainEqual(
      expect.stringMatching(new RegExp(`^tama: the Tama engine \\(pid \\d+: .*other-version\\.js\\) speaks engine protocol version ${PROTOCOL_VERSION - 1} and this client speaks version ${PROTOCOL_VERSION}, so it was ended unused$`)),
    );
    await checked.close();
  });

  it("answers with protocol-mismatch when the installed engine speaks another version too", async () => {
    const other = otherVersionEngine();
    const checked = new Client({ command: () => [process.execPath, other], env: { ...process.env, TAMA_HOME: home.home } });
    const answers = await Promise.all([checked.request({ op: "status" }), checked.dispatch("stop", { session_id: "s1" })]);
    for (const answer of answers) {
      expect(answer.ok).toBe(false);
      expect(answer.code).toBe("protocol-mismatch");
      expect(answer.error).toMatch(`speaks engine protocol version ${PROTOCOL_VERSION - 1} and this client speaks version ${PROTOCOL_VERSION}`);
    }
    await checked.close();
  });
});

describe("engine client failure codes", () => {
  it("names an engine that cannot start, a request too large for one frame, and a closed client", async () => {
    const missing = new Client({ command: () => [`${home.dir}/no-such-engine`], env: { ...process.env, TAMA_HOME: home.home } });
    const notStarted = await missing.request({ op: "status" });
    expect(notStarted).toMatchObject({ ok: false, code: "engine-not-started" });
    expect(notStarted.error).toMatch(/could not start/);
    await missing.close();

    const huge = await client.request({ op: "dispatch", event: "stop", payload: { session_id: "s1", pad: "x".repeat(17 * 1024 * 1024) } });
    expect(huge).toMatchObject({ ok: false, code: "request-too-large" });
    expect(huge.error).toMatch(/more than the engine reads in one frame \(16777216\)/);

    await client.close();
    const closed = await client.request({ op: "status" });
    expect(closed).toMatchObject({ ok: false, code: "client-closed", error: "the Tama engine client is closed" });
  });
});

describe("engine client reading", () => {
  it("skips an endless line from the engine by the frame bound, and reads the answers after it", async () => {
    const flooding = lineEngine(
      "flooding.js",
      "",
      `process.stdout.write("x".repeat(17 * 1024 * 1024) + "\\n");
    process.stdout.write(JSON.stringify({ id: request.id, ok: true, result: { echoed: request.op }, state }) + "\\n");`,
    );
    const said: string[] = [];
    const reader = new Client({ command: () => [process.execPath, flooding], env: { ...process.env, TAMA_HOME: home.home }, onStderr: (line) => said.push(line) });
    const answer = await reader.request({ op: "status" });
    expect(answer).toMatchObject({ ok: true, result: { echoed: "status" } });
    expect(said).toContainEqual(expect.stringMatching(/^tama: the engine wrote a frame longer than 16777216 bytes \(\d+ read without LF\); it was skipped$/));
    await reader.close();
  });

  it("reads an answer whose state equals the last one validated without validating it again, and still refuses a bad frame", async () => {
    const scripted = lineEngine(
      "scripted.js",
      `const answers = [
  (id) => ({ id, ok: true, result: 1, state }),
  (id) => ({ id, ok: "yes", result: 2, state }),
  (id) => ({ id, ok: true, result: 3, state: { ...state, registeredHookCount: "many" } }),
  (id) => ({ id, ok: true, result: 4, state: { ...state, registeredHookCount: 7 } }),
  (id) => ({ id, ok: true, result: 5, state: { ...state, registeredHookCount: 7 } }),
];
let n = 0;`,
      `process.stdout.write(JSON.stringify(answers[n++](request.id)) + "\\n");`,
    );
    const said: string[] = [];
    const reader = new Client({ command: () => [process.execPath, scripted], env: { ...process.env, TAMA_HOME: home.home }, onStderr: (line) => said.push(line) });
    expect(await reader.request({ op: "status" })).toMatchObject({ ok: true, result: 1, state: { registeredHookCount: 0 } });
    // The same state, a bad envelope: refused by name, the request gets no answer.
    expect(await reader.request({ op: "status" }, 1000)).toMatchObject({ ok: false, code: "request-timeout" });
    expect(said.at(-1)).toMatch(/^tama: the engine wrote a frame that is not an answer: ok: /);
    // Another state, not valid: refused too.
    expect(await reader.request({ op: "status" }, 1000)).toMatchObject({ ok: false, code: "request-timeout" });
    expect(said.at(-1)).toMatch(/^tama: the engine wrote a frame that is not an answer: state\.registeredHookCount: /);
    expect(await reader.request({ op: "status" })).toMatchObject({ ok: true, result: 4, state: { registeredHookCount: 7 } });
    expect(await reader.request({ op: "status" })).toMatchObject({ ok: true, result: 5, state: { registeredHookCount: 7 } });
    expect(reader.lastState?.registeredHookCount).toBe(7);
    await reader.close();
  });
});
