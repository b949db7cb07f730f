// `tama trust`, `--revoke`, `--list`, `tama hooks list --project` and
// `tama hooks claude-sources`: the built CLI on real files.
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTestHome, type TestHome } from "../support/engine-client.ts";
import { tama } from "./cli.ts";

let home: TestHome;
let userHome: string;
let repo: string;
const env = () => ({ HOME: userHome });

function write(file: string, body: unknown): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, typeof body === "string" ? body : JSON.stringify(body, null, 2));
}

beforeEach(() => {
  home = makeTestHome();
  userHome = path.join(home.dir, "user");
  mkdirSync(userHome, { recursive: true });
  repo = path.join(home.dir, "repo");
  mkdirSync(path.join(repo, ".git"), { recursive: true });
  mkdirSync(path.join(repo, "src"), { recursive: true });
  write(path.join(repo, ".claude", "hooks", "guard.py"), "import sys\nsys.exit(0)\n");
  write(path.join(repo, ".claude", "settings.json"), {
    hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "python3 .claude/hooks/guard.py" }] }] },
  });
  home.writeRegistry({ schema: 1, release: null, hooks: [] });
});
afterEach(() => home.cleanup());

describe("tama trust", () => {
  it("shows what would run, records the digests privately, and sees a change", () => {
    const on = tama(home, ["hooks", "claude-sources", "on"], { env: env() });
    expect(on.code).toBe(0);
    expect(JSON.parse(readFileSync(home.registry, "utf8"))).toMatchObject({ readClaudeSettings: true });

    const dry = tama(home, ["trust", "--dry-run"], { env: env(), cwd: path.join(repo, "src") });
    expect(dry.stdout).toContain(`Project ${repo}`);
    expect(dry.stdout).toContain("claude-project:pre_tool_use.guard");
    expect(dry.stdout).toMatch(/\.claude\/hooks\/guard\.py {2}sha256 [0-9a-f]{16}/);
    expect(dry.stdout).toContain("Nothing was recorded (--dry-run)");

    const trusted = tama(home, ["trust", "--json", repo], { env: env() });
    expect(trusted.code).toBe(0);
    const report = JSON.parse(trusted.stdout) as { record: string; files: Record<string, string | null>; trust: string };
    expect(report.trust).toBe("trusted");
    expect(Object.keys(report.files).sort()).toEqual([".claude/hooks/guard.py", ".claude/settings.json", ".claude/settings.local.json", ".tama/hooks.json"]);
    expect(report.files[".tama/hooks.json"]).toBeNull();
    expect(report.record.startsWith(path.join(home.home, "trust"))).toBe(true);
    expect(statSync(report.record).mode & 0o777).toBe(0o600);

    expect(tama(home, ["trust", repo], { env: env() }).stdout).toContain("Already trusted at this content");
    const listed = JSON.parse(tama(home, ["trust", "--list", "--json"], { env: env() }).stdout) as { projects: { project: string; trust: string }[] };
    expect(listed.projects).toEqual([expect.objectContaining({ project: repo, trust: "trusted" })]);

    write(path.join(repo, ".claude", "hooks", "guard.py"), "import sys\nsys.exit(2)\n");
    const list = tama(home, ["trust", "--list"], { env: env() });
    expect(list.stdout).toContain("changed: .claude/hooks/guard.py (changed)");
    const hooks = tama(home, ["hooks", "list", "--project", repo], { env: env() });
    expect(hooks.stdout).toContain(`Project ${repo}: CHANGED since it was trusted (.claude/hooks/guard.py (changed))`);
    expect(hooks.stdout).toContain(`\`tama trust ${repo}\` shows them and lets them run.`);

    const doctor = JSON.parse(tama(home, ["doctor", "--json", "--timeout-ms", "2000"], { env: env(), cwd: repo }).stdout) as { checks: { id: string; status: string; summary: string }[] };
    expect(doctor.checks.find((c) => c.id === "project-trust")).toMatchObject({ status: "error", summary: expect.stringContaining("changed since it was trusted (.claude/hooks/guard.py (changed))") });

    const again = tama(home, ["trust", repo], { env: env() });
    expect(again.stdout).toContain("Changed since it was last trusted: .claude/hooks/guard.py (changed).");
    expect(again.stdout).toContain("Trusted: the digests of 4 files are recorded");

    const revoked = tama(home, ["trust", "--revoke", repo], { env: env() });
    expect(revoked.stdout).toContain(`Revoked: the hooks of ${repo} run no more`);
    expect(tama(home, ["trust", "--revoke", repo], { env: env() }).stdout).toContain("was not trusted; nothing to revoke");
    expect(tama(home, ["hooks", "list", "--project", repo], { env: env() }).stdout).toContain("not trusted: its hooks are held");
  });

  it("names a project that does not load and a directory in no project", () => {
    write(path.join(repo, ".claude", "settings.local.json"), "{ nope");
    const shown = tama(home, ["trust", "--dry-run", repo], { env: env() });
    expect(shown.stdout).toMatch(/\.claude\/settings\.local\.json: broken, none of its hooks run: parsing .*settings\.local\.json: .* at line 1 column 2/);
    write(path.join(repo, ".claude", "settings.local.json"), { hooks: { Stop: [{ hooks: [{ type: "command", command: "sh .claude/hooks/missing.sh" }] }] } });
    tama(home, ["hooks", "claude-sources", "on"], { env: env() });
    const doctor = JSON.parse(tama(home, ["doctor", "--json", "--timeout-ms", "2000"], { env: env(), cwd: repo }).stdout) as { checks: { id: string; status: string }[] };
    expect(doctor.checks.find((c) => c.id === "script:.claude/hooks/missing.sh")?.status).toBe("warning");
    expect(doctor.checks.find((c) => c.id === "project-trust")?.status).toBe("warning");
    const loose = path.join(home.dir, "loose");
    mkdirSync(loose);
    const none = tama(home, ["trust", loose], { env: env() });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(`${loose} is in no project`);
    const empty = path.join(home.dir, "empty");
    mkdirSync(path.join(empty, ".git"), { recursive: true });
    expect(tama(home, ["trust", empty], { env: env() }).stderr).toContain("has no hook sources");
  });

  it("lists the user's Claude Code hooks as their own source when Claude sources are on", () => {
    write(path.join(userHome, ".claude", "settings.json"), { hooks: { Stop: [{ hooks: [{ type: "command", command: "echo bye" }] }] } });
    expect(tama(home, ["hooks", "list"], { env: env(), cwd: repo }).stdout).not.toContain("claude-user:");
    tama(home, ["hooks", "claude-sources", "on"], { env: env() });
    const listed = tama(home, ["hooks", "list"], { env: env(), cwd: repo });
    expect(listed.stdout).toContain("(Claude Code, the user's: no trust needed): 1 hooks");
    expect(listed.stdout).toContain("claude-user:stop.echo");
    // The cwd's project is shown when it has sources.
    expect(listed.stdout).toContain(`Project ${repo}: not trusted`);
    expect(JSON.parse(tama(home, ["hooks", "claude-sources", "--json"], { env: env() }).stdout)).toMatchObject({ claudeSources: true });
  });

  it("is offered by tama install when it finds Claude Code settings, saying what would run", () => {
    write(path.join(userHome, ".claude", "settings.json"), { hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "~/bin/guard.sh" }] }] } });
    const agentDir = path.join(home.dir, "agent");
    const offered = tama(home, ["install", "--omp", "--agent-dir", agentDir], { env: env() });
    expect(offered.code).toBe(0);
    expect(offered.stdout).toContain(`Found Claude Code settings at ${path.join(userHome, ".claude", "settings.json")}.`);
    expect(offered.stdout).toContain("From yours it would run, in every session:\n  pre_tool_use: sh -c '~/bin/guard.sh'");
    expect(offered.stdout).toContain("`tama hooks claude-sources on`");
    const turnedOn = JSON.parse(tama(home, ["install", "--omp", "--agent-dir", agentDir, "--claude-sources", "on", "--json"], { env: env() }).stdout) as { claudeSources: string[] };
    expect(turnedOn.claudeSources).toEqual([`Claude sources: on (readClaudeSettings in ${home.registry}).`]);
    expect(tama(home, ["install", "--omp", "--agent-dir", agentDir], { env: env() }).stdout).toContain("Claude sources: on.");
  });
});
