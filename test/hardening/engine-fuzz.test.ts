// Protocol fuzz (bounded for CI; `npm run stress` runs 100k frames).
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { engineFuzz } from "../../scripts/stress/engine-fuzz.ts";
import { makeTestHome, settleProcesses, TAMA_BIN, type TestHome } from "../support/engine-client.ts";

let home: TestHome;
beforeEach(() => {
  home = makeTestHome();
  home.writeRegistry({ schema: 1, release: null, hooks: [{ id: "bypass", events: ["pre_tool_use"], tools: "shell", builtin: "block-git-hook-bypass" }] });
});
afterEach(async () => {
  expect(await settleProcesses(home.home)).toEqual([]);
  home.cleanup();
});

it("survives 5000 generated frames: every frame with an id answered exactly once, valid frames answered normally", async () => {
  const summary = await engineFuzz({ tamaBin: TAMA_BIN, home: home.home, cwd: path.join(home.dir), frames: 5000, seed: 20261129 });
  expect(summary, JSON.stringify(summary)).toMatchObject({ engineAlive: true, missing: 0, duplicated: 0, validWrong: 0 });
  expect(summary.engineAlive).toBe(true);
  expect(summary.missing).toBe(0);
  expect(summary.duplicated).toBe(0);
  expect(summary.answered).toBe(summary.withId);
  expect(summary.validWrong).toBe(0);
  expect(summary.validFrames).toBeGreaterThan(500);
  // bounded memory: no frame is kept once answered
  expect(summary.rssEndMb).toBeLessThan(summary.rssStartMb + 200);
});
