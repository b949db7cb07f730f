// `tama run-hook` for Claude Code tells the person which project hooks are held once a
// session and held state, as OMP does: on the first prompt (Claude Code shows a
// UserPromptSubmit systemMessage to the person), again when the state changes, and
// anew after SessionEnd.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { afterEach, beforeEach, expect, it } from "vitest";
import { makeTestHome, type TestHome } from "../support/engine-client.ts";
import { tama } from "./cli.ts";

let home: TestHome;
let project: string;
beforeEach(() => {
  home = makeTestHome("tama-run-hook-held-");
  home.writeRegistry({ schema: 1, release: null, hooks: [] });
  project = path.join(home.dir, "project");
  mkdirSync(path.join(project, ".tama"), { recursive: true });
  spawnSync("git", ["init", "-q"], { cwd: project });
  writeFileSync(path.join(project, ".tama/check.sh"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
  writeFileSync(path.join(project, ".tama/hooks.json"), JSON.stringify({ schema: 1, hooks: [{ id: "check", events: ["pre_tool_use"], command: [".tama/check.sh"] }] }));
});
afterEach(() => home.cleanup());

const event = (name: string, session: string, provider = "claude") =>
  tama(home, ["run-hook", name, "agent", "--provider", provider], {
    cwd: project,
    input: JSON.stringify({ session_id: session, cwd: project, hook_event_name: name, ...(name === "UserPromptSubmit" ? { prompt: "hi" } : {}) }),
  });
const told = (name: string, session: string, provider?: string): string | undefined => {
  const run = event(name, session, provider);
  expect(run.code, run.stderr).toBe(0);
  return run.stdout.length > 0 ? (JSON.parse(run.stdout) as { systemMessage?: string }).systemMessage : undefined;
};

it("tells once a session and state, again after a change and after SessionEnd; never the model, never Codex", () => {
  expect(told("SessionStart", "s1")).toBeUndefined();
  expect(told("UserPromptSubmit", "s1")).toBe(
    `Tama holds 1 hook(s) of ${project} (project:check): the project is not trusted yet. To run them, from your own terminal: tama trust ${project}`,
  );
  expect(told("UserPromptSubmit", "s1")).toBeUndefined();
  // Another session is told for itself.
  expect(told("UserPromptSubmit", "s2")).toContain("not trusted yet");

  expect(tama(home, ["trust", project]).code).toBe(0);
  expect(told("UserPromptSubmit", "s1")).toBeUndefined();
  writeFileSync(path.join(project, ".tama/check.sh"), "#!/bin/sh\nexit 0\n# changed\n");
  expect(told("UserPromptSubmit", "s1")).toContain("changed since it was trusted (.tama/check.sh (changed))");
  expect(told("UserPromptSubmit", "s1")).toBeUndefined();

  const marker = path.join(home.home, "sessions", "held-told.s1.json");
  expect(existsSync(marker)).toBe(true);
  expect(told("SessionEnd", "s1")).toBeUndefined();
  expect(existsSync(marker)).toBe(false);
  expect(told("UserPromptSubmit", "s1")).toContain("changed since it was trusted");

  // Codex's pass prints nothing (its contract), and notes nothing either.
  expect(event("UserPromptSubmit", "c1", "codex").stdout).toBe("");
  expect(existsSync(path.join(home.home, "sessions", "held-told.c1.json"))).toBe(false);
});
