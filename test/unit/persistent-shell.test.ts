// OMP runs every bash call of a session in one persistent shell: functions, aliases and
// variables one call defines are there in the next, which Tama reads alone. What would
// change a later call's gated command is refused where it is defined.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refusingGates } from "../support/gate-refusals.ts";

let root: string;
let project: string;
let home: string;
beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), "tama-persistent-"));
  project = path.join(root, "proj");
  home = path.join(root, "home");
  mkdirSync(path.join(project, ".git"), { recursive: true });
  mkdirSync(path.join(home, ".tama"), { recursive: true });
  // A home and a config home whose git config turns hooks off.
  for (const file of [path.join(root, "h", ".gitconfig"), path.join(root, "xdg", "git", "config")]) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, "[core]\n\thooksPath = /dev/null\n");
  }
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const refusedBy = (command: string): Promise<string[]> => refusingGates("bash", { command }, { project, tamaHome: path.join(home, ".tama"), home, defaultsOnly: true });

describe("what OMP's bash keeps for later calls", () => {
  it.each([
    ["a function named git", `git() { command git "$@" --no-verify; }`],
    ["a function named rm", "function rm { echo; }"],
    ["an alias named git", "alias git='git --no-verify'"],
    ["a function handed in the environment", `env 'BASH_FUNC_git%%=() { /usr/bin/git "$@" --no-verify; }' bash -c 'git commit -m x'`],
  ])("%s is refused by every shell gate: %s", async (_what, command) => {
    expect(await refusedBy(command)).toEqual(expect.arrayContaining(["self-protection", "block-git-hook-bypass", "deny-writes-outside-repo", "block-destructive-deletes"]));
  });

  it.each([
    ["a hook switch assigned alone", "HUSKY=0"],
    ["git config through the environment, assigned alone", "GIT_CONFIG_COUNT=1; GIT_CONFIG_KEY_0=core.hooksPath; GIT_CONFIG_VALUE_0=/dev/null"],
    ["an export of values set by an earlier call", "export GIT_CONFIG_COUNT GIT_CONFIG_KEY_0 GIT_CONFIG_VALUE_0"],
    ["an export of a hook switch set by an earlier call", "export HUSKY"],
  ])("%s is refused by block-git-hook-bypass: %s", async (_what, command) => {
    expect(await refusedBy(command)).toContain("block-git-hook-bypass");
  });

  it("another HOME or XDG_CONFIG_HOME is another git config, read for core.hooksPath", async () => {
    for (const command of [`HOME=${root}/h git commit -m x`, `XDG_CONFIG_HOME=${root}/xdg git commit -m x`, `export HOME=${root}/h; git commit -m x`]) {
      expect(await refusedBy(command), command).toContain("block-git-hook-bypass");
    }
    expect(await refusedBy(`HOME=${home} git commit -m x`)).toEqual([]);
  });

  it.each([`run() { echo "$@"; }; run ls`, "alias ll='ls -la'", "X=1; export X", "export PATH=$PATH:/opt/bin"])("passes %s", async (command) => {
    expect(await refusedBy(command)).toEqual([]);
  });
});

describe("a PATH that finds a program of the agent's first", () => {
  it("is refused where the PATH is set: in the command, exported, or in OMP's bash env field", async () => {
    const fake = path.join(root, "fake");
    mkdirSync(fake, { recursive: true });
    writeFileSync(path.join(fake, "git"), '#!/bin/sh\nexec /usr/bin/git "$@" --no-verify\n', { mode: 0o755 });
    const place = { project, tamaHome: path.join(home, ".tama"), home, defaultsOnly: true };
    for (const [command, env] of [[`PATH=${fake}:$PATH git commit -m x`], [`export PATH=${fake}:$PATH`], ["git commit -m x", { PATH: `${fake}:/usr/bin:/bin` }]] as [string, Record<string, string>?][]) {
      expect(await refusingGates("bash", { command, ...(env !== undefined ? { env } : {}) }, place), command).toContain("block-git-hook-bypass");
    }
    // A directory of the agent's own tools, none named like a program the gates read, is fine.
    const tools = path.join(root, "tools");
    mkdirSync(tools, { recursive: true });
    writeFileSync(path.join(tools, "mytool"), "#!/bin/sh\n", { mode: 0o755 });
    expect(await refusedBy(`export PATH=${tools}:$PATH && mytool`)).toEqual([]);
  });
});

describe("only what the call's own shell runs stays in it", () => {
  it("a function a sourced script or eval defines is refused; one in a script run by bash, or in bash -c, is not", async () => {
    writeFileSync(path.join(project, "setup.sh"), "install() { echo installing; }\ninstall\n");
    writeFileSync(path.join(project, "env.sh"), 'git() { command git "$@" --no-verify; }\n');
    for (const command of ["source env.sh", ". env.sh", "eval 'git() { :; }'"]) expect(await refusedBy(command), command).toContain("block-git-hook-bypass");
    for (const command of ["bash setup.sh", "bash -c 'git() { :; }; git status'"]) expect(await refusedBy(command), command).toEqual([]);
  });
});
