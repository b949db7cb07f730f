// Hooks OMP stops waiting for before their own timeout are named where they enter the
// registry (import, `tama hooks add`) and by doctor, with what OMP does then.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTestHome, type TestHome } from "../support/engine-client.ts";
import { json, tama } from "./cli.ts";

let home: TestHome;
beforeEach(() => {
  home = makeTestHome("tama-omp-limits-");
});
afterEach(() => home.cleanup());

describe("hooks OMP cuts short", () => {
  it("tama hooks add and doctor name a slow stop hook and a slow tool check, and what OMP does then", () => {
    expect(tama(home, ["install", "--omp", "--agent-dir", path.join(home.dir, "agent")]).code).toBe(0);
    const stop = tama(home, ["hooks", "add", "--id", "slow-tests", "--event", "stop", "--timeout-ms", "35000", "--", "/bin/true"]);
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stdout).toContain("warning: in OMP it may run 35 s, but OMP stops waiting for a stop hook after 30 s: OMP ends the turn as if no stop hook had refused");
    const pre = tama(home, ["hooks", "add", "--id", "slow-check", "--event", "pre_tool_use", "--timeout-ms", "35000", "--", "/bin/true"]);
    expect(pre.stdout).toContain("raise extensionHandlers.toolCallTimeoutMs in OMP's config.yml");
    const quick = tama(home, ["hooks", "add", "--id", "quick", "--event", "stop", "--timeout-ms", "30000", "--", "/bin/true"]);
    expect(quick.stdout).not.toContain("OMP stops waiting");

    const doctor = json<{ checks: { id: string; status: string; fix?: string }[] }>(tama(home, ["doctor", "--agent-dir", path.join(home.dir, "agent"), "--json"]));
    const limits = doctor.checks.filter((c) => c.id.startsWith("omp-limit:"));
    expect(limits.map((c) => [c.id, c.status])).toEqual([
      ["omp-limit:slow-tests", "warning"],
      ["omp-limit:slow-check", "warning"],
    ]);
    expect(limits[1]?.fix).toContain("set extensionHandlers.toolCallTimeoutMs to at least 35000");
  });

  it("import says which Claude Code hooks OMP will cut short, that a lower-case matcher matches nothing in Claude Code, and runs an identical command once", () => {
    const user = path.join(home.dir, "user");
    mkdirSync(path.join(user, ".claude"), { recursive: true });
    writeFileSync(
      path.join(user, ".claude", "settings.json"),
      JSON.stringify({
        hooks: {
          Stop: [{ hooks: [{ type: "command", command: "/bin/true run-tests", timeout: 35 }] }],
          PreToolUse: [
            { matcher: "bash", hooks: [{ type: "command", command: "/bin/true check", timeout: 5 }] },
            { matcher: "Write", hooks: [{ type: "command", command: "/bin/true check", timeout: 5 }] },
            { matcher: "Edit", hooks: [{ type: "command", command: "/bin/true check", timeout: 5 }] },
          ],
        },
      }),
    );
    const r = tama(home, ["hooks", "import", "--from-claude", "--json"], { env: { HOME: user }, cwd: home.dir });
    expect(r.code, r.stderr).toBe(0);
    const { imported, notTranslated: untranslated } = json<{ imported: { claudeEvent: string; notes: string[]; hook: { tools?: unknown } }[]; notTranslated: { matcher?: string; why: string }[] }>(r);
    // "bash" matches nothing in Claude Code (its matchers are case-sensitive): that group is not run here either.
    // One command in two matching groups is one hook, as Claude Code runs it once.
    expect(imported.filter((i) => i.claudeEvent === "PreToolUse").map((i) => i.hook.tools)).toEqual([["Write", "Edit"]]);
    expect(untranslated.find((u) => u.matcher === "bash")?.why).toBe(
      `it never runs in Claude Code: Claude Code's matchers are case-sensitive, so there "bash" matches no tool (Bash does); it is left out here too`,
    );
    const stop = imported.find((i) => i.claudeEvent === "Stop");
    expect(stop?.notes).toContain("in OMP it may run 35 s, but OMP stops waiting for a stop hook after 30 s: OMP ends the turn as if no stop hook had refused");
  });
});
