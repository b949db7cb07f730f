// What `tama ui` reads from $TAMA_HOME: the quantiles it shows, the session view (never
// the control key), its project's held hooks, hooks left by an engine that is gone, each
// session's last abandonment.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ActivityRecord } from "../../modules/engine/activity.ts";
import { parseRegistry } from "../../modules/registry/registry.ts";
import { trustProject } from "../../modules/sources/sources.ts";
import { tamaPaths } from "../../modules/system/paths.ts";
import { latencyByHook, quantile, snapshot } from "../../modules/ui/snapshot.ts";

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const call = (at: number, hooks: [string, number][]): ActivityRecord => ({
  v: 1,
  at,
  engine: 1,
  dispatch: `d${at}`,
  session: "s",
  event: "pre_tool_use:bash",
  tool: "bash",
  decision: "pass",
  hooks: hooks.map(([hook, ms]) => ({ hook, outcome: "pass", ms })),
  totalMs: hooks.reduce((sum, [, ms]) => sum + ms, 0),
  stages: {},
  slowestStage: null,
});

describe("latency", () => {
  it("is p50 and p95 by nearest rank, per hook, with each call's point in time order", () => {
    expect(quantile([], 0.5)).toBe(0);
    expect(quantile([7], 0.95)).toBe(7);
    const ascending = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(quantile(ascending, 0.5)).toBe(50);
    expect(quantile(ascending, 0.95)).toBe(95);
    const records = ascending.map((ms, i) => call(1000 + i, [["slow", ms * 10], ["fast", 1]]));
    const [fast, slow] = latencyByHook(records, 20);
    expect(fast).toMatchObject({ hook: "fast", count: 100, p50: 1, p95: 1 });
    expect(slow).toMatchObject({ hook: "slow", count: 100, p50: 500, p95: 950 });
    expect(slow!.points).toHaveLength(20);
    expect(slow!.points.at(-1)).toEqual([1099, 1000]);
  });
});

describe("the snapshot", () => {
  it("shows a live session without its key, the gates of its catalog, hooks an engine that is gone left, and each session's last abandonment", () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "tama-ui-"));
    const home = path.join(dir, "home");
    const paths = tamaPaths({ TAMA_HOME: home });
    mkdirSync(path.dirname(paths.registry), { recursive: true });
    const registryText = JSON.stringify({
      schema: 1,
      hooks: [
        { id: "on", events: ["pre_tool_use"], builtin: "block-git-hook-bypass" },
        { id: "off", events: ["pre_tool_use"], builtin: "block-git-hook-bypass", enabled: false },
      ],
    });
    writeFileSync(paths.registry, registryText);
    const parsed = parseRegistry(registryText, paths.registry);
    if (!parsed.ok) throw new Error(parsed.error);
    mkdirSync(paths.running, { recursive: true, mode: 0o700 });
    // The session's cwd is in a repository with its own hooks, never trusted.
    const project = path.join(dir, "repo");
    mkdirSync(path.join(project, ".git"), { recursive: true });
    mkdirSync(path.join(project, ".tama"), { recursive: true });
    writeFileSync(path.join(project, ".tama", "hooks.json"), JSON.stringify({ schema: 1, hooks: [{ id: "lint", events: ["pre_tool_use"], command: ["true"] }] }));
    mkdirSync(path.join(project, "src"));
    const key = "ab".repeat(32);
    const record = {
      schema: 1,
      protocolVersion: 1,
      session: "s-live",
      ompPid: process.pid,
      enginePid: 4321,
      startedAtMs: 1,
      publishedAtMs: 2,
      cwd: path.join(project, "src"),
      adapterDigest: "cd".repeat(32),
      adapterReloadSupported: true,
      socket: path.join(paths.sessions, "s-live.sock"),
      key,
      instance: "i1",
      engineGeneration: { releaseId: "r9", catalogChecksum: parsed.checksum },
    };
    writeFileSync(path.join(paths.sessions, "session.s-live.json"), JSON.stringify(record), { mode: 0o600 });
    // An engine pid that cannot be running: what it recorded is left by an engine that is gone.
    writeFileSync(
      path.join(paths.running, "engine.999999999.json"),
      JSON.stringify({ corePid: 999999999, updatedAtMs: 1, hooks: [{ session: "s-live", event: "stop", hook: "slow-stop", processGroup: null, startedAtMs: 1000 }] }),
    );
    const abandonment = (at: number, hook: string) => ({ session: "s-live", reason: `signal ${at}`, abandonedAtMs: at, corePid: 5, hooks: [{ hook, event: "stop", processGroup: null, ranForMs: 3 }], text: "t" });
    writeFileSync(path.join(paths.sessions, "abandoned.s-live.json"), JSON.stringify(abandonment(200, "newer")));

    const view = snapshot(paths, 5000);
    expect(view.sessionsProblem).toBeNull();
    expect(view.unread).toEqual([]);
    expect(view.sessions).toEqual([
      {
        session: "s-live",
        ompPid: process.pid,
        cwd: path.join(project, "src"),
        adapterDigest: "cd".repeat(32),
        enginePid: 4321,
        releaseId: "r9",
        catalogChecksum: parsed.checksum,
        startedAtMs: 1,
        gates: ["on"],
        project: { root: project, trust: "untrusted", held: ["project:lint"], changes: [] },
      },
    ]);
    expect(JSON.stringify(view)).not.toContain(key);
    expect(view.running).toEqual([{ session: "s-live", event: "stop", hook: "slow-stop", enginePid: 999999999, engineGone: true, runningForMs: 4000 }]);
    expect(view.abandonments.map((a) => a.hooks[0]!.hook)).toEqual(["newer"]);
    expect(view.activity).toEqual([]);
    expect(view.slowest).toBeNull();

    // Trusted at this content: nothing held.
    trustProject(home, project);
    expect(snapshot(paths, 5000).sessions[0]!.project).toEqual({ root: project, trust: "trusted", held: [], changes: [] });

    // A registry changed since the engine loaded its catalog: the gates are not guessed.
    writeFileSync(paths.registry, JSON.stringify({ schema: 1, hooks: [] }));
    expect(snapshot(paths, 5000).sessions[0]!.gates).toBeNull();
  });
});
