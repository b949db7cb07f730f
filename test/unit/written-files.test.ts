// The files a command line wrote, kept so that a view taken at one command sees them
// as they stood then, and so that a line of many writes is read in time that grows
// with its length, not with its square.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { GateRuns } from "../../modules/engine/gate-run.ts";
import type { HookInput } from "../../modules/protocol/hook-input.ts";
import { HookEntry } from "../../modules/registry/registry.ts";
import { WrittenFiles } from "../../modules/gates/written-files.ts";

describe("written files", () => {
  it("a view sees each file as it stood when the view was taken; what is written through the view stays in it", () => {
    const written = WrittenFiles.empty();
    expect(written.isEmpty()).toBe(true);
    written.record("/p/s.sh", { text: "git commit -n" });
    const then = written.view();
    written.record("/p/s.sh", { text: "true" });
    written.record("/p/t.sh", { opaque: true });
    expect(written.state("/p/s.sh")).toEqual({ text: "true" });
    expect(then.state("/p/s.sh")).toEqual({ text: "git commit -n" });
    expect(then.state("/p/t.sh")).toBeUndefined();
    then.record("/p/u.sh", { text: "echo" });
    expect(written.state("/p/u.sh")).toBeUndefined();
    expect(then.view().state("/p/u.sh")).toEqual({ text: "echo" });
    // A view taken before anything was written is empty, whatever was written after.
    const fresh = WrittenFiles.empty();
    const early = fresh.view();
    fresh.record("/p/x", { text: "x" });
    expect(early.isEmpty()).toBe(true);
    expect(fresh.isEmpty()).toBe(false);
  });

  it("matches a file named through a link on disk to the key it was written under", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "tama-written-"));
    try {
      mkdirSync(path.join(dir, "real"));
      symlinkSync(path.join(dir, "real"), path.join(dir, "via"));
      const written = WrittenFiles.empty();
      written.record(path.join(dir, "real", "s.sh"), { text: "x" });
      expect(written.keyFor(path.join(dir, "via", "s.sh"))).toBe(path.join(dir, "real", "s.sh"));
      expect(written.view().keyFor(path.join(dir, "via", "s.sh"))).toBe(path.join(dir, "real", "s.sh"));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a line of 5,000 writes is read by the gates in one pass (it took minutes when each command copied or searched what came before)", { timeout: 60_000 }, () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "tama-many-"));
    try {
      mkdirSync(path.join(dir, ".git"));
      const command = Array.from({ length: 5_000 }, (_, i) => `echo a > f${i}`).join("; ");
      const input: HookInput = { hook_event_name: "PreToolUse", session_id: "s", cwd: dir, tool_name: "bash", tool_input: { command } };
      const runs = new GateRuns();
      for (const id of ["self-protection", "block-git-hook-bypass", "deny-writes-outside-repo"]) {
        expect(runs.run(HookEntry.parse({ id, builtin: id, events: ["pre_tool_use"] }), id, input, { tamaHome: path.join(dir, "tama") })).toMatchObject({ verdict: "pass" });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
