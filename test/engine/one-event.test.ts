// The one-event interface, `tama run-hook <event> <agent-id>`, and `tama hook <id>`.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTestHome, ROOT, TAMA_BIN, type TestHome } from "../support/engine-client.ts";

let home: TestHome;
beforeEach(() => {
  home = makeTestHome();
  home.writeRegistry({
    schema: 1,
    release: { id: "r1" },
    hooks: [
      { id: "block-git-hook-bypass", events: ["pre_tool_use"], tools: "shell", builtin: "block-git-hook-bypass" },
      { id: "no-rm", events: ["pre_tool_use"], tools: "shell", command: [path.join(ROOT, "test/fixtures/hooks/deny-bash-rm.py")] },
    ],
  });
});
afterEach(() => home.cleanup());

function run(args: string[], input: string, env: NodeJS.ProcessEnv = {}) {
  const base: NodeJS.ProcessEnv = { ...process.env, TAMA_HOME: home.home };
  delete base.TAMA_AGENT_ID;
  delete base.TAMA_PROVIDER;
  const r = spawnSync(process.execPath, [TAMA_BIN, ...args], { input, env: { ...base, ...env }, encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const claudeBash = (command: string) => JSON.stringify({ session_id: "c1", hook_event_name: "PreToolUse", cwd: home.dir, tool_name: "Bash", tool_input: { command } });

describe("tama run-hook <event> <agent-id>", () => {
  it("Claude gets the canonical decision and exit 2 on a block", () => {
    const r = run(["run-hook", "PreToolUse", "agent-1"], claudeBash("git commit --no-verify -m x"));
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ decision: "block" });
    expect(r.stderr).toMatch(/--no-verify/);
    const record = JSON.parse(readFileSync(path.join(home.home, "sessions", "agent.agent-1.json"), "utf8")) as Record<string, unknown>;
    expect(record).toMatchObject({ agentId: "agent-1", provider: "claude", session: "c1" });
  });

  it("a pass exits 0 with nothing on stdout", () => {
    const r = run(["run-hook", "pre_tool_use", "agent-1"], claudeBash("ls"));
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
  });

  it("Codex gets its minimal block response and exit 0, and no stdout on a pass", () => {
    const blocked = run(["run-hook", "PreToolUse", "agent-1"], claudeBash("rm -rf /"), { TAMA_PROVIDER: "codex" });
    expect(blocked.code).toBe(0);
    expect(JSON.parse(blocked.stdout)).toEqual({ decision: "block", reason: "rm -rf is not allowed here" });
    const passed = run(["run-hook", "PreToolUse", "agent-1", "--provider", "codex"], claudeBash("ls"));
    expect(passed.code).toBe(0);
    expect(passed.stdout).toBe("");
  });

  it("takes the agent id from TAMA_AGENT_ID, and refuses a run with none", () => {
    expect(run(["run-hook", "PreToolUse"], claudeBash("ls"), { TAMA_AGENT_ID: "from-env" }).code).toBe(0);
    const r = run(["run-hook", "PreToolUse"], claudeBash("ls"));
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("TAMA_HOOK_INFRASTRUCTURE: tama run-hook needs an agent id: pass it after the event or set TAMA_AGENT_ID\n");
  });

  for (const name of ["TAMA_AGENT_ID", "TAMA_PROVIDER", "TAMA_ONLY_HOOK_ID", "TAMA_DISABLED_HOOKS", "TAMA_ENABLED_HOOKS"]) {
    it(`refuses ${name} holding a value that is not text, by name`, () => {
      // Bytes that are not UTF-8 cannot be put in env through Node, so a shell sets them.
      const r = spawnSync("/bin/sh", ["-c", `${name}=$(printf '\\377\\376') exec "$0" "$@"`, process.execPath, TAMA_BIN, "run-hook", "PreToolUse", "a"], {
        input: claudeBash("ls"),
        env: { ...process.env, TAMA_HOME: home.home },
        encoding: "utf8",
      });
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`^TAMA_HOOK_INFRASTRUCTURE: ${name} cannot be read: `));
    });
  }

  it("a registry that cannot load exits 1 with TAMA_HOOK_INFRASTRUCTURE, never a pass", () => {
    home.writeRegistry("{broken");
    const r = run(["run-hook", "PreToolUse", "agent-1"], claudeBash("ls"));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^TAMA_HOOK_INFRASTRUCTURE: parsing hook registry .*registry\.json: /);
  });

  it("leaves no running-hook record behind, however long its hook ran", () => {
    const slow = home.script("slow.sh", "#!/bin/sh\ncat >/dev/null\nsleep 0.2\n");
    home.writeRegistry({ schema: 1, release: null, hooks: [{ id: "slow", events: ["pre_tool_use"], command: [slow] }] });
    expect(run(["run-hook", "PreToolUse", "agent-1"], claudeBash("ls")).code).toBe(0);
    const listed = JSON.parse(run(["hooks", "running", "--json"], "").stdout) as { running: unknown[] };
    expect(listed.running).toEqual([]);
  });

  it("TAMA_ONLY_HOOK_ID and TAMA_DISABLED_HOOKS narrow the hooks that run", () => {
    expect(run(["run-hook", "PreToolUse", "a"], claudeBash("rm -rf x"), { TAMA_ONLY_HOOK_ID: "block-git-hook-bypass" }).code).toBe(0);
    expect(run(["run-hook", "PreToolUse", "a"], claudeBash("rm -rf x"), { TAMA_DISABLED_HOOKS: "no-rm" }).code).toBe(0);
    expect(run(["run-hook", "PreToolUse", "a"], claudeBash("rm -rf x")).code).toBe(2);
  });
});

describe("tama hook <id>", () => {
  it("reads an OMP shell call and prints the refusal naming the bypass", () => {
    const r = run(["hook", "block-git-hook-bypass"], JSON.stringify({ tool_name: "bash", tool_input: { command: "git commit --no-verify -m x" } }));
    expect(r.code).toBe(0);
    const answer = JSON.parse(r.stdout) as { decision: string; reason: string };
    expect(answer.decision).toBe("block");
    expect(answer.reason).toMatch(/--no-verify/);
  });

  it("prints nothing for a harmless call", () => {
    const r = run(["hook", "block-git-hook-bypass"], JSON.stringify({ tool_name: "bash", tool_input: { command: "git log -n 5" } }));
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
  });

  it("names an unknown gate", () => {
    const r = run(["hook", "nope"], "{}");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no built-in gate "nope"/);
  });
});

describe("tama hooks checksum", () => {
  it("computes the checksum a registry may declare", () => {
    const r = run(["hooks", "checksum", home.registry], "");
    expect(r.code).toBe(0);
    const checksum = r.stdout.trim();
    expect(checksum).toMatch(/^[0-9a-f]{64}$/);
    const value = JSON.parse(readFileSync(home.registry, "utf8")) as Record<string, unknown>;
    home.writeRegistry({ ...value, checksum });
    expect(run(["run-hook", "PreToolUse", "a"], claudeBash("ls")).code).toBe(0);
    home.writeRegistry({ ...value, checksum: checksum.replace(/^./, (c) => (c === "0" ? "1" : "0")) });
    const mismatch = run(["run-hook", "PreToolUse", "a"], claudeBash("ls"));
    expect(mismatch.code).toBe(1);
    expect(mismatch.stderr).toMatch(/checksum mismatch: expected [0-9a-f]{64}, actual [0-9a-f]{64}/);
  });
});
