// The disk's answers are shared by the gates on one call and never outlive the
// synchronous stretch that asked: a link the agent makes between two calls is seen by
// the second.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { GateRuns } from "../../modules/engine/gate-run.ts";
import type { HookInput } from "../../modules/protocol/hook-input.ts";
import { HookEntry } from "../../modules/registry/registry.ts";
import { exists, lstatOf, namesIn, realpathOf, statOf, withDiskMoment } from "../../modules/system/disk-moment.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "tama-moment-"));
  dirs.push(dir);
  return dir;
}

describe("one look at the disk per moment", () => {
  it("keeps each answer for the rest of the synchronous stretch, across runs in it, and drops them at the next microtask", async () => {
    const dir = tempDir();
    const file = path.join(dir, "f");
    const seen = withDiskMoment(() => {
      const before = [exists(file), statOf(file), lstatOf(file), namesIn(dir).length];
      writeFileSync(file, "x");
      // Asked again in the same stretch: the first answers.
      return [...before, exists(file), statOf(file), lstatOf(file), namesIn(dir).length];
    });
    expect(seen).toEqual([false, undefined, undefined, 0, false, undefined, undefined, 0]);
    // A second run in the same stretch shares them.
    expect(withDiskMoment(() => exists(file))).toBe(false);
    // Outside a run nothing is kept, even in the same stretch.
    expect(exists(file)).toBe(true);
    await Promise.resolve();
    expect(withDiskMoment(() => [exists(file), statOf(file)?.isFile(), namesIn(dir)])).toEqual([true, true, ["f"]]);
  });

  it("throws again what the question threw, and a run that throws leaves no moment behind it", async () => {
    const dir = tempDir();
    const missing = path.join(dir, "missing");
    const codes = withDiskMoment(() =>
      [0, 1].map(() => {
        try {
          realpathOf(missing);
          return "resolved";
        } catch (error) {
          return (error as NodeJS.ErrnoException).code;
        }
      }),
    );
    expect(codes).toEqual(["ENOENT", "ENOENT"]);
    expect(() => withDiskMoment(() => namesIn(missing))).toThrow(/ENOENT/);
    expect(() =>
      withDiskMoment(() => {
        throw new Error("the gate threw");
      }),
    ).toThrow("the gate threw");
    mkdirSync(missing);
    // Thrown out of a run: later asks in this stretch are not kept.
    expect(exists(missing)).toBe(true);
    await Promise.resolve();
    expect(withDiskMoment(() => realpathOf(missing))).toBe(missing);
  });

  it("a link made between two calls is seen by the second, when the gates run as a dispatch runs them", async () => {
    const dir = tempDir();
    const repo = path.join(dir, "repo");
    mkdirSync(path.join(repo, ".git"), { recursive: true });
    const runs = new GateRuns();
    const hook = HookEntry.parse({ id: "deny-writes-outside-repo", builtin: "deny-writes-outside-repo", events: ["pre_tool_use"] });
    const call = (): HookInput => ({ hook_event_name: "PreToolUse", session_id: "s", cwd: repo, tool_name: "Bash", tool_input: { command: "echo x > out/notes.txt" } });
    const context = { tamaHome: path.join(dir, "tama") };
    expect(runs.run(hook, "deny-writes-outside-repo", call(), context)).toMatchObject({ verdict: "pass" });
    // Outside the project and the temporary directories the gate lets a session write in.
    symlinkSync("/etc", path.join(repo, "out"));
    await Promise.resolve();
    expect(runs.run(hook, "deny-writes-outside-repo", call(), context)).toMatchObject({ verdict: "block" });
  });
});
