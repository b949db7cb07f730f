// An event OMP's process already went on with: the engine still runs it, and when its
// own verdict is the one OMP's process went on with and it has nothing else to tell,
// it answers with an agreed frame of a few bytes instead of the whole answer.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EngineClient as Client } from "../../modules/engine/client.ts";
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
const keyOf = async (): Promise<string> => {
  const answer = await engine.dispatch("pre_tool_use:bash", call("true"));
  return String((answer.result as { hookedEventsKey?: string }).hookedEventsKey);
};

describe("agreed answers", () => {
  it("closes a dispatch whose verdict OMP's process went on with in an agreed frame, and sends any other answer whole", async () => {
    const known = await keyOf();
    const agreed = await engine.dispatch("pre_tool_use:bash", call("true"), { knownHookedEvents: known, decidedHere: { decision: "pass" } });
    expect(agreed).toEqual({ type: "agreed", id: agreed.id });
    // Another verdict than the engine's own: the whole answer, with the engine's.
    const refused = await engine.dispatch("pre_tool_use:bash", call("git commit --no-verify -m x"), { knownHookedEvents: known, decidedHere: { decision: "pass" } });
    expect(refused.ok).toBe(true);
    expect((refused.result as { decision: string }).decision).toBe("block");
    const reason = (refused.result as { reason: string }).reason;
    // The same refusal, with the same reason: agreed.
    const same = await engine.dispatch("pre_tool_use:bash", call("git commit --no-verify -m x"), { knownHookedEvents: known, decidedHere: { decision: "block", reason } });
    expect(same.type).toBe("agreed");
    const otherReason = await engine.dispatch("pre_tool_use:bash", call("git commit --no-verify -m x"), { knownHookedEvents: known, decidedHere: { decision: "block", reason: "another" } });
    expect(otherReason.ok).toBe(true);
    // A client that does not hold the hookedEvents: it has news to read, so the whole answer.
    const unknown = await engine.dispatch("pre_tool_use:bash", call("true"), { decidedHere: { decision: "pass" } });
    expect(unknown.ok).toBe(true);
    expect((unknown.result as { hookedEvents?: unknown }).hookedEvents).toBeDefined();
  });

  it("sends a result rewritten by the engine's gates whole, and refuses a malformed decidedHere by name", async () => {
    const known = await keyOf();
    const secret = await engine.dispatch(
      "post_tool_use:bash",
      { ...call("cat .env"), tool_response: { content: [{ type: "text", text: "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" }] } },
      { knownHookedEvents: known, decidedHere: { decision: "pass" } },
    );
    expect(secret.ok).toBe(true);
    expect((secret.result as { updatedToolResponse?: unknown }).updatedToolResponse).toBeDefined();
    const bad = await engine.dispatch("pre_tool_use:bash", call("true"), { decidedHere: { decision: "maybe" } });
    expect(bad.ok).toBe(false);
    expect(String(bad.error)).toContain("decidedHere");
    // It keeps serving.
    expect((await engine.dispatch("pre_tool_use:bash", call("true"))).ok).toBe(true);
  });
});

describe("engine client agreed answers", () => {
  it("tells an engine that answered by keys what OMP's process decided, and reads its agreement", async () => {
    const client = new Client({ command: () => [ENGINE_RUNTIME, TAMA_BIN, "run-hook", "--serve", "omp"], env: { ...process.env, TAMA_HOME: home.home, HOME: path.join(home.dir, "user") } });
    try {
      // The first answer of an engine is whole: the client does not yet know it reads decidedHere.
      const first = await client.dispatchDecided("pre_tool_use:bash", call("true"), { decision: "pass" });
      expect("agreed" in first).toBe(false);
      expect(first.ok).toBe(true);
      expect(await client.dispatchDecided("pre_tool_use:bash", call("true"), { decision: "pass" })).toMatchObject({ ok: true, agreed: true });
      const refused = await client.dispatchDecided("pre_tool_use:bash", call("git commit --no-verify -m x"), { decision: "pass" });
      expect(refused).toMatchObject({ ok: true, result: { decision: "block" } });
      // A dispatch that told no verdict always gets the whole answer.
      expect((await client.dispatch("pre_tool_use:bash", call("true"))).ok).toBe(true);
    } finally {
      await client.close();
    }
  });
});
