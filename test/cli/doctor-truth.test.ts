// `tama doctor` tells the truth: hook programs checked the way they will run (the
// first word of an `sh -c` script after expansion, relative paths against the
// project, interpreters and their scripts), the environment values Tama reads, OMP's
// agent dir, TAMA_HOME that is a file, and the OMP plugin standing in for the shell.
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTestHome, type TestHome } from "../support/engine-client.ts";
import { json, tama } from "./cli.ts";

interface Check {
  id: string;
  status: "ok" | "warning" | "error";
  summary: string;
  fix?: string;
}
interface Report {
  ok: boolean;
  checks: Check[];
}

let home: TestHome;
let agentDir: string;
let user: string;
beforeEach(() => {
  home = makeTestHome("tama-doctor-truth-");
  rmSync(path.dirname(home.registry), { recursive: true, force: true });
  agentDir = path.join(home.dir, "omp-agent");
  user = path.join(home.dir, "user");
  mkdirSync(user);
  const r = tama(home, ["install", "--omp", "--agent-dir", agentDir, "--json"]);
  expect(r.code, r.stderr).toBe(0);
});
afterEach(() => home.cleanup());

const doctor = (env: NodeJS.ProcessEnv = {}, args: string[] = []) => tama(home, ["doctor", "--agent-dir", agentDir, "--json", ...args], { env: { HOME: user, ...env } });
const checks = (env: NodeJS.ProcessEnv = {}, args: string[] = []) => json<Report>(doctor(env, args)).checks;
const find = (list: Check[], id: string) => list.find((c) => c.id === id);
const add = (...args: string[]) => {
  const r = tama(home, ["hooks", "add", ...args]);
  expect(r.code, r.stderr).toBe(0);
};

describe("hook programs, as they will run", () => {
  it("expands the script of sh -c with the hook's environment before looking for its first word", () => {
    add("--id", "check-bash", "--event", "pre_tool_use", "--tools", "shell", "--", "sh", "-c", "$HOME/hooks/check-bash.sh");
    expect(find(checks(), "command:check-bash")).toEqual({
      id: "command:check-bash",
      status: "warning",
      summary: `check-bash: ${user}/hooks/check-bash.sh does not exist; it fails open, so it never gives a verdict`,
      fix: `install ${user}/hooks/check-bash.sh (on OMP's PATH, which may differ from this shell's), fix the command, or tama hooks disable check-bash`,
    });
    mkdirSync(path.join(user, "hooks"));
    writeFileSync(path.join(user, "hooks", "check-bash.sh"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    expect(find(checks(), "command:check-bash")).toBeUndefined();
    expect(find(checks(), "commands")?.status).toBe("ok");
  });

  it("reads env NAME=value words, quotes and ${VAR} as the engine's spawn and the shell would", () => {
    add("--id", "project-hook", "--event", "stop", "--fail-mode", "closed", "--", "env", "CLAUDE_PROJECT_DIR=/nonexistent/proj", "sh", "-c", '"${CLAUDE_PROJECT_DIR}"/.claude/hooks/stop.sh --strict');
    const check = find(checks(), "command:project-hook");
    expect(check?.status).toBe("error");
    expect(check?.summary).toBe("project-hook: /nonexistent/proj/.claude/hooks/stop.sh does not exist; its failMode is closed, so every call it matches is refused");
  });

  it("finds an interpreter on PATH, and the script it is given against the project", () => {
    // A PATH with sh and node only: no uv, no python3.
    const bin = path.join(home.dir, "bin");
    mkdirSync(bin);
    symlinkSync("/bin/sh", path.join(bin, "sh"));
    symlinkSync(process.execPath, path.join(bin, "node"));
    const project = path.join(home.dir, "project");
    mkdirSync(project);
    add("--id", "uv-hook", "--event", "stop", "--", "sh", "-c", "uv run --with requests hooks/check.py");
    add("--id", "py-hook", "--event", "stop", "--", "python3", "/nonexistent/check.py");
    add("--id", "node-hook", "--event", "stop", "--", "node", "hooks/check.js");
    add("--id", "pipe-hook", "--event", "stop", "--", "sh", "-c", "cat | no-such-filter-xyz");
    const list = checks({ PATH: bin }, ["--project", project]);
    expect(find(list, "command:uv-hook")?.summary).toBe("uv-hook: uv is not on PATH; it fails open, so it never gives a verdict");
    expect(find(list, "command:py-hook")?.summary).toBe("py-hook: python3 is not on PATH; it fails open, so it never gives a verdict");
    expect(find(list, "command:node-hook")?.summary).toBe(`node-hook: ${project}/hooks/check.js (the script node runs) does not exist; it fails open, so it never gives a verdict`);
    expect(find(list, "command:pipe-hook")?.summary).toBe("pipe-hook: cat is not on PATH; no-such-filter-xyz is not on PATH; it fails open, so it never gives a verdict");
    mkdirSync(path.join(project, "hooks"));
    writeFileSync(path.join(project, "hooks", "check.js"), "");
    expect(find(checks({ PATH: bin }, ["--project", project]), "command:node-hook")).toBeUndefined();
  });

  it("says what it cannot check (an unset variable, a substitution) instead of passing it", () => {
    add("--id", "unset", "--event", "stop", "--", "sh", "-c", "$NO_SUCH_VAR_XYZ/hook.sh");
    add("--id", "subst", "--event", "stop", "--", "sh", "-c", "$(which hook) --x");
    const list = checks();
    expect(find(list, "command:unset")).toMatchObject({ status: "warning", summary: "unset: $NO_SUCH_VAR_XYZ/hook.sh cannot be checked: $NO_SUCH_VAR_XYZ is not set in this environment" });
    expect(find(list, "command:subst")).toMatchObject({ status: "warning", summary: expect.stringContaining("cannot be checked: it is a command substitution") });
  });
});

describe("the environment Tama reads", () => {
  it("TAMA_FAIL_MODE=bogus is an error that names the values and the effect", () => {
    const r = doctor({ TAMA_FAIL_MODE: "bogus" });
    expect(r.code).toBe(1);
    expect(find(json<Report>(r).checks, "env:TAMA_FAIL_MODE")).toEqual({
      id: "env:TAMA_FAIL_MODE",
      status: "error",
      summary: 'TAMA_FAIL_MODE="bogus" is not open or closed: the adapter treats it as closed (tool calls it cannot check are refused) and warns in every session',
      fix: "set TAMA_FAIL_MODE to open or closed, or unset it",
    });
    expect(doctor({ TAMA_FAIL_MODE: "open" }).code).toBe(0);
  });

  it("TAMA_PROVIDER, TAMA_ENGINE_COMMAND and hook ids in TAMA_ONLY_HOOK_ID are checked", () => {
    const list = checks({ TAMA_PROVIDER: "gpt", TAMA_ENGINE_COMMAND: "tama run-hook", TAMA_ONLY_HOOK_ID: "no-such-hook" });
    expect(find(list, "env:TAMA_PROVIDER")?.status).toBe("error");
    expect(find(list, "env:TAMA_ENGINE_COMMAND")?.summary).toMatch(/not a JSON array of strings/);
    expect(find(list, "env:TAMA_ONLY_HOOK_ID")).toMatchObject({ status: "error", summary: expect.stringContaining('"no-such-hook", which the registry does not hold, so no hook runs at all') });
  });

  it("TAMA_HOME that is a file: that error and its fix, not install hints that cannot work", () => {
    const file = path.join(home.dir, "not-a-dir");
    writeFileSync(file, "");
    const r = doctor({ TAMA_HOME: file });
    expect(r.code).toBe(1);
    const list = json<Report>(r).checks;
    expect(list[0]).toEqual({
      id: "env:TAMA_HOME",
      status: "error",
      summary: `TAMA_HOME=${file} is a file, not a directory: nothing can be installed or read there`,
      fix: "point TAMA_HOME at a directory (or unset it for ~/.tama), then tama install --omp",
    });
    expect(find(list, "release")).toBeUndefined();
    const install = tama(home, ["install", "--omp", "--agent-dir", agentDir], { env: { TAMA_HOME: file } });
    expect(install.code).toBe(1);
    expect(install.stderr).toContain(`TAMA_HOME is ${file}: it must be a directory you can write`);
    expect(install.stderr).not.toContain("built package");
  });
});

describe("OMP's agent dir", () => {
  it("one that does not exist is an error, for the doctor and for contracts status", () => {
    const missing = path.join(home.dir, "nonexistent-agent");
    const r = tama(home, ["doctor", "--agent-dir", missing, "--json"], { env: { HOME: user } });
    expect(r.code).toBe(1);
    expect(find(json<Report>(r).checks, "agent-dir")).toMatchObject({ status: "error", summary: `OMP's agent dir ${missing} (--agent-dir/--profile) does not exist: OMP has never run with it` });
    const contracts = tama(home, ["contracts", "status", "--omp", "--agent-dir", missing]);
    expect(contracts.code).toBe(1);
    expect(contracts.stderr).toMatch(new RegExp(`^tama contracts: OMP's agent dir ${missing} cannot be read: ENOENT`));
  });
});

describe("the OMP plugin", () => {
  it("installed with omp plugin install, it is the shell; with an extensions-dir shell too, a warning says to keep one", () => {
    const plugin = path.join(user, ".omp", "plugins", "node_modules", "tama-hooks");
    mkdirSync(plugin, { recursive: true });
    writeFileSync(path.join(plugin, "package.json"), JSON.stringify({ name: "tama-hooks", version: "0.1.0" }));
    expect(find(checks(), "shell")).toMatchObject({ status: "warning", summary: expect.stringContaining("the plugin stands aside for the extensions-dir shell") });
    expect(tama(home, ["uninstall", "--omp", "--agent-dir", agentDir]).code).toBe(0);
    expect(tama(home, ["install", "--omp", "--agent-dir", agentDir]).code).toBe(0);
    rmSync(path.join(agentDir, "extensions", "omp-shared-hooks.js"));
    expect(find(checks(), "shell")).toEqual({ id: "shell", status: "ok", summary: `the OMP plugin ${plugin} (it installs its release on load)` });
  });
});
