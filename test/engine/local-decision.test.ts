// A turn end whose only hooks are memoryless built-in gates is decided in OMP's
// process from the plan the engine's answers carry. The same payloads go to a real
// engine over its pipes and to the local decision: the verdicts must be the same.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LocalDecisions, localPlan } from "../../modules/engine/local-decision.ts";
import { HookedEvents, type DispatchResult } from "../../modules/protocol/engine.ts";
import { defaultRegistry } from "../../modules/registry/default.ts";
import { EngineClient, makeTestHome, resultOf, type TestHome } from "../support/engine-client.ts";

let home: TestHome;
let engine: EngineClient;
beforeEach(async () => {
  home = makeTestHome("tama-local-");
});
afterEach(async () => {
  await engine?.close();
  home.cleanup();
});

const todo = (id: string, parentId: string | null, status: string) =>
  JSON.stringify({ type: "message", id, parentId, message: { role: "toolResult", toolName: "todo", details: { op: "start", phases: [{ name: "P", tasks: [{ content: `task ${id}`, status }] }] } } });

function session(name: string, lines: string[]): string {
  const dir = path.join(home.home, "work");
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.jsonl`);
  writeFileSync(file, lines.length > 0 ? `${lines.join("\n")}\n` : "");
  return file;
}

/** The engine's answer, and the plan it carries for the cwd. */
async function engineAnswer(event: string, payload: Record<string, unknown>) {
  const frame = await engine.dispatch(event, payload);
  const result = (frame.result ?? {}) as DispatchResult & { hookedEvents?: unknown };
  const hooked = HookedEvents.parse(result.hookedEvents);
  return { frame, result, plan: localPlan(hooked.local) };
}

const verdictOf = (r: DispatchResult) => ({ decision: r.decision, reason: r.reason, outcomes: r.results.map((x) => `${x.hook}:${x.outcome}`), generation: r.generation, releaseId: r.releaseId, event: r.event, sessionId: r.sessionId });

describe("a stop decided in OMP's process", () => {
  it("gives the engine's verdict with the default gates: a session without todos, with open ones, and a repeated stop", async () => {
    home.writeRegistry(defaultRegistry(null));
    engine = new EngineClient(home);
    await engine.ready();
    const local = new LocalDecisions({ tamaHome: home.home });
    const cwd = path.join(home.home, "work");
    const cases = [
      { session_id: "s1", cwd, transcript_path: session("none", []) },
      { session_id: "s2", cwd, transcript_path: session("open", [todo("a", null, "in_progress")]) },
      { session_id: "s3", cwd, transcript_path: session("done", [todo("a", null, "completed")]) },
      { session_id: "s2", cwd, transcript_path: session("open2", [todo("a", null, "pending")]), stop_hook_active: true },
    ];
    const decisions: string[] = [];
    for (const payload of cases) {
      const { frame, result, plan } = await engineAnswer("stop", payload);
      expect(frame.ok).toBe(true);
      expect(plan?.byEvent.get("stop")?.map((h) => h.id)).toEqual(["block-open-todos"]);
      const decided = await local.decide("stop", payload, plan!);
      expect(decided).toBeDefined();
      expect(verdictOf(decided!)).toEqual(verdictOf(result));
      decisions.push(decided!.decision);
    }
    expect(decisions).toEqual(["pass", "block", "pass", "block"]);
    expect(local.decided).toBe(4);
  });

  it("is not offered when a command hook runs for the stop, nor for events a plan does not name", async () => {
    const registry = defaultRegistry(null);
    home.writeRegistry({ ...registry, hooks: [...registry.hooks, { id: "mine", events: ["stop"], command: ["/bin/true"] }] });
    engine = new EngineClient(home);
    await engine.ready();
    const cwd = path.join(home.home, "work");
    const stop = await engineAnswer("stop", { session_id: "s", cwd, transcript_path: session("x", []) });
    expect(stop.plan?.byEvent.has("stop") ?? false).toBe(false);
    expect(resultOf(stop.frame).decision).toBe("pass");
    // A plan names the kinds it holds: a tool call is never decided from a stop's plan.
    home.writeRegistry(defaultRegistry(null));
    const again = await engineAnswer("stop", { session_id: "s", cwd, transcript_path: session("y", []) });
    const local = new LocalDecisions({ tamaHome: home.home });
    expect(await local.decide("pre_tool_use:bash", { session_id: "s", cwd, tool_name: "bash", tool_input: { command: "true" } }, again.plan!)).toBeUndefined();
    // A payload the engine would refuse is left to the engine.
    expect(await local.decide("stop", { session_id: 5, cwd }, again.plan!)).toBeUndefined();
  });

  it("reads no plan whose entries are not registry entries", () => {
    expect(localPlan({ generation: 1, releaseId: null, byEvent: { stop: [{ id: "x", events: ["stop"] }] } })).toBeUndefined();
    expect(localPlan({ generation: 1, releaseId: null, byEvent: { stop: [{ id: "x", events: ["stop"], command: ["/bin/true"] }] } })).toBeUndefined();
    expect(localPlan(undefined)).toBeUndefined();
  });
});
