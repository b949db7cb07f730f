// What a dispatch says of its cwd's hooks (hookedEvents): the event kinds any hook
// runs for there, and the files they came from with their stat keys, so that an
// adapter can tell an event without hooks from one whose sources just changed.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { HookedEvents } from "../../modules/protocol/engine.ts";
import { RACY_MS, statKey } from "../../modules/system/stat-key.ts";
import { tama } from "../cli/cli.ts";
import { EngineClient, makeTestHome, type TestHome } from "../support/engine-client.ts";

let home: TestHome;
let engine: EngineClient;
let userHome: string;

const registry = (hooks: Record<string, unknown>[]) => ({ schema: 1, release: null, hooks });
const preHook = { id: "pre", events: ["pre_tool_use"], command: ["true"] };
const promptHook = { id: "prompt", events: ["user_prompt_submit"], command: ["true"] };

async function hooked(cwd: string): Promise<HookedEvents> {
  const answer = await engine.dispatch("user_prompt_submit", { session_id: "s", cwd, prompt: "hi" });
  expect(answer.ok).toBe(true);
  return (answer.result as { hookedEvents: HookedEvents }).hookedEvents;
}
/** What the adapter checks: every file still has the key the engine read it under. */
const holds = (known: HookedEvents): boolean => known.files.every(([file, key]) => statKey(file) === key);
/** Until a file has been still this long its key does not stand for its bytes (stat-key.ts): wait it out. */
const settle = () => new Promise((resolve) => setTimeout(resolve, RACY_MS + 100));

beforeEach(async () => {
  home = makeTestHome();
  userHome = path.join(home.dir, "user");
  mkdirSync(userHome, { recursive: true });
  home.writeRegistry(registry([preHook]));
  engine = new EngineClient(home, { HOME: userHome });
  await engine.ready();
});
afterEach(async () => {
  await engine.close();
  home.cleanup();
});

describe("hookedEvents in dispatch answers", () => {
  it("names the kinds with hooks, and a registry change breaks its keys", async () => {
    const cwd = path.join(home.dir, "work");
    mkdirSync(cwd, { recursive: true });
    // Just written: the registry's key cannot stand for its bytes yet, so nothing holds.
    const fresh = await hooked(cwd);
    expect(fresh.events).toEqual(["pre_tool_use"]);
    expect(fresh.files.find(([file]) => file === home.registry)?.[1]).toMatch(/^unsettled:/);
    expect(holds(fresh)).toBe(false);
    await settle();
    const first = await hooked(cwd);
    expect(first.files.map(([file]) => file)).toContain(home.registry);
    expect(holds(first)).toBe(true);
    // Disabled hooks run for nothing.
    home.writeRegistry(registry([preHook, { ...promptHook, enabled: false }]));
    expect(holds(first)).toBe(false);
    const second = await hooked(cwd);
    expect(second.events).toEqual(["pre_tool_use"]);
    home.writeRegistry(registry([preHook, promptHook]));
    expect(holds(second)).toBe(false);
    expect((await hooked(cwd)).events).toEqual(["pre_tool_use", "user_prompt_submit"]);
  });

  it("holds a project's hooks out until trusted, and keys the trust record and the probed files", async () => {
    const root = path.join(home.dir, "repo");
    mkdirSync(path.join(root, ".git"), { recursive: true });
    mkdirSync(path.join(root, "sub"), { recursive: true });
    const cwd = path.join(root, "sub");
    const none = await hooked(cwd);
    expect(none.events).toEqual(["pre_tool_use"]);
    // A project source appearing where the walk looked breaks the keys.
    const source = path.join(root, ".tama", "hooks.json");
    mkdirSync(path.dirname(source), { recursive: true });
    writeFileSync(source, JSON.stringify(registry([{ id: "stop", events: ["stop"], command: ["true"] }])));
    expect(holds(none)).toBe(false);
    await settle();
    const untrusted = await hooked(cwd);
    expect(untrusted.events).toEqual(["pre_tool_use"]);
    expect(holds(untrusted)).toBe(true);
    expect(tama(home, ["trust", root], { env: { HOME: userHome } }).code).toBe(0);
    expect(holds(untrusted)).toBe(false);
    const trusted = await hooked(cwd);
    expect(trusted.events).toEqual(["pre_tool_use", "stop"]);
    // Removed and put back as it was: trusted again at once, and the keys say so.
    rmSync(source);
    const gone = await hooked(cwd);
    expect(gone.events).toEqual(["pre_tool_use"]);
    writeFileSync(source, JSON.stringify(registry([{ id: "stop", events: ["stop"], command: ["true"] }])));
    expect(holds(gone)).toBe(false);
    expect((await hooked(cwd)).events).toEqual(["pre_tool_use", "stop"]);
  });

  it("counts a changed trusted project as refusing tool calls", async () => {
    home.writeRegistry(registry([promptHook]));
    const root = path.join(home.dir, "repo");
    const source = path.join(root, ".tama", "hooks.json");
    mkdirSync(path.dirname(source), { recursive: true });
    writeFileSync(source, JSON.stringify(registry([{ id: "stop", events: ["stop"], command: ["true"] }])));
    expect(tama(home, ["trust", root], { env: { HOME: userHome } }).code).toBe(0);
    expect((await hooked(root)).events).toEqual(["user_prompt_submit", "stop"]);
    writeFileSync(source, JSON.stringify(registry([{ id: "stop2", events: ["stop"], command: ["true"] }])));
    // Its hooks are held, and its tool calls refused: pre_tool_use has a verdict without any hook.
    expect((await hooked(root)).events).toEqual(["pre_tool_use", "user_prompt_submit"]);
  });

  it("names an unchanged hookedEvents by its key alone when the request knows that key, and sends a changed one whole", async () => {
    const cwd = path.join(home.dir, "work");
    mkdirSync(cwd, { recursive: true });
    const ask = async (known?: string) => {
      const answer = await engine.dispatch("user_prompt_submit", { session_id: "s", cwd, prompt: "hi" }, known === undefined ? {} : { knownHookedEvents: known });
      expect(answer.ok).toBe(true);
      return answer.result as { hookedEvents?: HookedEvents; hookedEventsKey?: string };
    };
    await settle();
    const whole = await ask();
    expect(whole.hookedEvents?.events).toEqual(["pre_tool_use"]);
    expect(whole.hookedEventsKey).toMatch(/^[\w-]{32}$/);
    const keyed = await ask(whole.hookedEventsKey);
    expect(keyed.hookedEvents).toBeUndefined();
    expect(keyed.hookedEventsKey).toBe(whole.hookedEventsKey);
    // Another key (a client holding something else) gets it whole.
    expect((await ask("x".repeat(32))).hookedEvents).toEqual(whole.hookedEvents);
    // Changed hooks make another key: the old one known still gets the new content whole.
    home.writeRegistry(registry([preHook, promptHook]));
    const changed = await ask(whole.hookedEventsKey);
    expect(changed.hookedEvents?.events).toEqual(["pre_tool_use", "user_prompt_submit"]);
    expect(changed.hookedEventsKey).not.toBe(whole.hookedEventsKey);
  });
});
