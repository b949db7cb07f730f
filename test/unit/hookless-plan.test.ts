// The adapter follows a plan to decide events in OMP's process only when the engine
// that sent it runs the same code, and only while its hook sources keep their keys.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { HooklessEvents } from "../../adapter/hookless.ts";
import { CODE_BUILD } from "../../modules/system/build-id.ts";
import { statKey } from "../../modules/system/stat-key.ts";

const entry = { id: "block-open-todos", events: ["stop"], builtin: "block-open-todos" };
const hooked = (build: string, files: [string, string][]) => ({
  events: ["stop"],
  files,
  local: { build, generation: 1, releaseId: null, byEvent: { stop: [entry] }, registry: "/r", hookFiles: [] },
});

it("follows a plan of its own build while the files keep their keys, and never one of another build", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "tama-plan-"));
  const file = path.join(dir, "registry.json");
  writeFileSync(file, "{}");
  const events = new HooklessEvents();
  events.learn(7, "/w", hooked(CODE_BUILD, [[file, statKey(file)]]));
  expect(events.plan(7, "stop", "/w")?.byEvent.get("stop")?.map((h) => h.id)).toEqual(["block-open-todos"]);
  expect(events.plan(7, "pre_tool_use:bash", "/w")).toBeUndefined();
  // Another engine process: what it reads may differ.
  expect(events.plan(8, "stop", "/w")).toBeUndefined();
  events.learn(7, "/w", hooked(`${CODE_BUILD}-other`, [[file, statKey(file)]]));
  expect(events.plan(7, "stop", "/w")).toBeUndefined();
  events.learn(7, "/w", hooked(CODE_BUILD, [[file, statKey(file)]]));
  writeFileSync(file, '{"changed":true}');
  expect(events.plan(7, "stop", "/w")).toBeUndefined();
  rmSync(dir, { recursive: true, force: true });
});
