// The warm-up of decisions taken in OMP's process: each sample is decided again
// WARM_RUNS times, in slices that give the thread back between them, never counted as an
// event decided here; what is too large or past the sample bound is not kept; stop() ends it.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LocalDecisions, localPlan } from "../../modules/engine/local-decision.ts";
import { LocalWarmUp, WARM_RUNS } from "../../modules/engine/local-warm-up.ts";
import { LocalHooks } from "../../modules/protocol/engine.ts";
import { defaultRegistry } from "../../modules/registry/default.ts";

const warmUps: LocalWarmUp[] = [];
afterEach(() => {
  for (const w of warmUps.splice(0)) w.stop();
});
/** `slowMs` at Infinity where a test counts runs: a loaded machine may pause any one run past the default. */
const make = (slowMs = Number.POSITIVE_INFINITY): LocalWarmUp => {
  const w = new LocalWarmUp(slowMs);
  warmUps.push(w);
  return w;
};

async function until(probe: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const busy = (ms: number): void => {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // a decision that takes a while, as a cold one does
  }
};

describe("the warm-up of decisions taken in OMP's process", () => {
  it("decides each sample again WARM_RUNS times, and no more", async () => {
    const warm = make();
    let bash = 0;
    let result = 0;
    warm.saw("pre_tool_use:bash", 100, 0, async () => void (bash += 1));
    warm.saw("pre_tool_use:bash", 100, 0, async () => void (bash += 1000));
    warm.saw("post_tool_use:bash", 100, 0, async () => void (result += 1));
    await until(() => bash === WARM_RUNS && result === WARM_RUNS, "both samples warmed");
    await new Promise((r) => setTimeout(r, 100));
    expect([bash, result, warm.warming]).toEqual([WARM_RUNS, WARM_RUNS, false]);
  });

  it("gives the thread back between slices: a timer set at its first run fires long before its last", async () => {
    const warm = make();
    const order: string[] = [];
    let runs = 0;
    warm.saw("pre_tool_use:bash", 100, 0, async () => {
      runs += 1;
      if (runs === 1) setTimeout(() => order.push(`other work, after run ${runs}`), 0);
      busy(0.2);
      if (runs === WARM_RUNS) order.push("last run");
    });
    await until(() => order.includes("last run"), "the last run");
    expect(order).toHaveLength(2);
    expect(order[1]).toBe("last run");
    // A slice is 1 ms: the timer came within a few runs of 0.2 ms, not after all of them.
    expect(Number(/after run (\d+)/.exec(order[0]!)![1])).toBeLessThan(WARM_RUNS / 4);
  });

  it("keeps no large payload, at most four samples, and nothing after stop()", async () => {
    const warm = make();
    const seen = new Map<string, number>();
    const count = (name: string) => async () => void seen.set(name, (seen.get(name) ?? 0) + 1);
    warm.saw("post_tool_use:bash", 9_000, 0, count("large"));
    for (const name of ["a", "b", "c", "d", "e"]) warm.saw(`pre_tool_use:${name}`, 10, 0, count(name));
    await until(() => ["a", "b", "c", "d"].every((n) => seen.get(n) === WARM_RUNS), "four samples warmed");
    expect(seen.has("large")).toBe(false);
    expect(seen.has("e")).toBe(false);

    const stopped = make();
    let runs = 0;
    stopped.saw("pre_tool_use:bash", 10, 0, async () => void (runs += 1));
    stopped.stop();
    stopped.saw("pre_tool_use:read", 10, 0, async () => void (runs += 1));
    await new Promise((r) => setTimeout(r, 800));
    expect(runs).toBe(0);
  });

  it("a sample that throws is not decided again", async () => {
    const warm = make();
    let thrown = 0;
    let fine = 0;
    warm.saw("pre_tool_use:bash", 10, 0, async () => {
      thrown += 1;
      throw new Error("no");
    });
    warm.saw("pre_tool_use:read", 10, 0, async () => void (fine += 1));
    await until(() => fine === WARM_RUNS, "the other sample warmed");
    expect(thrown).toBe(1);
  });

  it("a sample whose decision is slow, or whose real decision was, is not decided again", async () => {
    const slowed = make(20);
    let slow = 0;
    slowed.saw("pre_tool_use:bash", 10, 0, async () => {
      slow += 1;
      busy(40);
    });
    let late = 0;
    slowed.saw("pre_tool_use:read", 10, 25, async () => void (late += 1));
    await until(() => !slowed.warming, "the warm-up's end");
    expect([slow, late]).toEqual([1, 0]);
    // The event name of a sample refused for its time may be sampled again.
    let fine = 0;
    slowed.saw("pre_tool_use:read", 10, 0, async () => void (fine += 1));
    expect(slowed.warming).toBe(true);
    slowed.stop();
    expect(fine).toBe(0);
  });

  it("a real decision decided again gives the same verdict and is not counted as decided here", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "tama-warm-"));
    try {
      mkdirSync(path.join(dir, "repo", ".git"), { recursive: true });
      const local = new LocalDecisions({ tamaHome: path.join(dir, "home") });
      const hooks = defaultRegistry(null).hooks.filter((h) => h.builtin !== undefined && h.events.includes("pre_tool_use") && h.enabled !== false);
      const plan = localPlan(
        LocalHooks.parse({ build: "test", generation: 1, releaseId: null, byEvent: { pre_tool_use: hooks }, registry: path.join(dir, "home", "registry.json"), hookFiles: [] }),
      )!;
      const payload = { session_id: "s", cwd: path.join(dir, "repo"), tool_name: "bash", tool_input: { command: "git commit --no-verify -m x" } };
      const json = JSON.stringify(payload);
      const first = await local.decide("pre_tool_use:bash", payload, plan, json);
      expect(first?.decision).toBe("block");
      expect(local.decided).toBe(1);
      const warm = make();
      const again: (string | undefined)[] = [];
      warm.saw("pre_tool_use:bash", json.length, 0, async () => void again.push((await local.decideAgain("pre_tool_use:bash", payload, plan, json))?.reason));
      await until(() => again.length === WARM_RUNS, "the decision warmed");
      expect(new Set(again)).toEqual(new Set([first!.reason]));
      expect(local.decided).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
