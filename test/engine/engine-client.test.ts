// The adapter's engine client against a real engine: a core whose release was
// replaced is retired once it owes nothing; a dead engine's requests are answered.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EngineClient as Client } from "../../modules/engine/client.ts";
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
    process.kill(pidOf(status) ?? -1, "SIGKILL");
    for (const answer of await Promise.all(held)) {
      expect(answer.ok).toBe(false);
      expect(answer.error).toMatch(/the Tama engine \(pid \d+\) was ended by SIGKILL before answering/);
    }
    const next = await client.request({ op: "status" });
    expect(next.ok).toBe(true);
    expect(pidOf(next)).not.toBe(pidOf(status));
  });
});

describe("engine client bounds", () => {
  it("a request with a bound fails by name when the engine does not answer in time", async () => {
    // a stand-in engine that says ready and then never answers
    const mute = home.script("mute.js", `process.stdout.write(JSON.stringify({ type: "ready", protocolVersion: 1, state: { processId: process.pid, generation: 0, loadedReleaseId: null, catalogChecksum: null, registeredHookCount: 0, reloadCount: 0, lastReloadAtMs: null, lastReloadError: null, coreReleaseId: null, coreReplacedByRelease: false, registryPath: "x", protocolVersion: 1 } }) + "\\n"); process.stdin.resume(); process.stdin.on("end", () => process.exit(0));`);
    const muted = new Client({ command: () => [process.execPath, mute], env: { ...process.env, TAMA_HOME: home.home } });
    const answer = await muted.request({ op: "status" }, 300);
    expect(answer.ok).toBe(false);
    expect(answer.error).toMatch(/^the Tama engine \(pid \d+\) gave no answer to status within 300 ms$/);
    await muted.close();
  });
});
