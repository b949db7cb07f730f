// Script files a command runs, read from disk: the agent writes a file with one call and
// runs it with the next. Each form below ran a refused command unread before.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeRecipes, readScriptFile, shebangProgram } from "../../modules/gates/script-files.ts";
import { SCRIPT_TOO_LARGE, walkShell } from "../../modules/gates/shell-walk.ts";
import { refusingGates } from "../support/gate-refusals.ts";

let root: string;
let project: string;
let home: string;
let extension: string;
const FORCE = "git push --force origin HEAD:main";

beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), "tama-scriptfiles-"));
  project = path.join(root, "proj");
  home = path.join(root, "home");
  mkdirSync(path.join(project, ".git"), { recursive: true });
  writeFileSync(path.join(project, ".git", "HEAD"), "ref: refs/heads/topic\n");
  mkdirSync(path.join(home, ".omp", "agent", "extensions"), { recursive: true });
  mkdirSync(path.join(home, ".tama"), { recursive: true });
  extension = path.join(home, ".omp", "agent", "extensions", "evil.js");
  const files: Record<string, string> = {
    "commit.sh": "git commit --no-verify -m x\n",
    "plant.sh": `echo x > ${extension}\n`,
    "commit.py": `import os\nos.system("git commit --no-verify -m x")\n`,
    "plant.py": `open("${extension}", "w").write("x")\n`,
    "commit.js": `require("child_process").execSync("git commit --no-verify -m x")\n`,
    "run-py": `#!/usr/bin/env python3\nimport os\nos.system("git commit --no-verify -m x")\n`,
    "x.gdb": "shell git commit --no-verify -m x\n",
    "x.awk": `BEGIN{system("git commit --no-verify -m x")}\n`,
    "Makefile": `all: build\nbuild:\n\tgit commit --no-verify -m x\ntest:\n\techo tests\nrelease:\n\t${FORCE}\n`,
    "package.json": JSON.stringify({ scripts: { x: "git commit --no-verify -m x", pretest: "git commit -n -m y", test: "echo tests", release: FORCE } }),
    "ok.sh": "echo fine > out.txt\n",
  };
  for (const [file, text] of Object.entries(files)) {
    writeFileSync(path.join(project, file), text);
    chmodSync(path.join(project, file), 0o755);
  }
  mkdirSync(path.join(project, "sub"));
  writeFileSync(path.join(project, "sub", "Makefile"), `all:\n\t${FORCE}\n`);
  // A script past what is read, and a large program whose #! line names node.
  writeFileSync(path.join(project, "huge.sh"), `${"# padding\n".repeat(120_000)}git commit --no-verify -m x\n`);
  writeFileSync(path.join(project, "bundle.js"), `#!/usr/bin/env node\n${"// padding\n".repeat(120_000)}`);
  chmodSync(path.join(project, "bundle.js"), 0o755);
  execFileSync("mkfifo", [path.join(project, "fifo.sh")]);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const refusedBy = (command: string): Promise<string[]> =>
  refusingGates("bash", { command }, { project, tamaHome: path.join(home, ".tama"), home, defaultsOnly: true });

describe("a script file the command runs", () => {
  it.each([
    ["bash FILE", "bash commit.sh", "block-git-hook-bypass"],
    ["sh FILE", "sh commit.sh", "block-git-hook-bypass"],
    ["source FILE", "source commit.sh", "block-git-hook-bypass"],
    [". ./FILE", ". ./commit.sh", "block-git-hook-bypass"],
    ["./FILE with no #! line", "./commit.sh", "block-git-hook-bypass"],
    ["a shell script after cd", "cd / && bash " + "PROJECT/commit.sh", "block-git-hook-bypass"],
    ["a shell script writing OMP's extensions", "bash plant.sh", "self-protection"],
    ["python3 FILE", "python3 commit.py", "block-git-hook-bypass"],
    ["python3 FILE writing OMP's extensions", "python3 plant.py", "self-protection"],
    ["node FILE", "node commit.js", "block-git-hook-bypass"],
    ["./FILE by its #! line", "./run-py", "block-git-hook-bypass"],
    ["gdb -x FILE", "gdb -batch -x x.gdb", "block-git-hook-bypass"],
    ["awk -f FILE", "awk -f x.awk", "block-git-hook-bypass"],
    ["make (the first target and its prerequisites)", "make", "block-git-hook-bypass"],
    ["make TARGET", "make build", "block-git-hook-bypass"],
    ["make -C DIR", "make -C sub", "protect-branches"],
    ["npm run SCRIPT", "npm run x", "block-git-hook-bypass"],
    ["npm test's pre script", "npm test", "block-git-hook-bypass"],
    ["pnpm SCRIPT", "pnpm x", "block-git-hook-bypass"],
    ["bun run SCRIPT", "bun run release", "protect-branches"],
  ])("%s", async (_name, command, gate) => {
    expect(await refusedBy(command.replace("PROJECT", project))).toContain(gate);
  });

  it("refuses a shell script too large to read, and passes a large program its #! line gives to node", async () => {
    let reason = walkShell("bash huge.sh", { env: new Map(), cwd: project }, () => undefined);
    expect(reason).toBe(SCRIPT_TOO_LARGE);
    reason = walkShell("./bundle.js", { env: new Map(), cwd: project }, () => undefined);
    expect(reason).toBeUndefined();
    expect(await refusedBy("/usr/bin/env true")).toEqual([]);
  });

  it("never blocks on a FIFO named as a script", () => {
    expect(readScriptFile(path.join(project, "fifo.sh"))).toEqual({ missing: true });
    expect(walkShell("bash fifo.sh", { env: new Map(), cwd: project }, () => undefined)).toBeUndefined();
  });

  it.each([
    ["make test reads only the test recipe", "make test"],
    ["a script that works in the project", "bash ok.sh"],
    ["a missing script", "bash missing.sh"],
    ["python3 -m with a module", "python3 -m json.tool package.json"],
  ])("passes: %s", async (_name, command) => {
    expect(await refusedBy(command)).toEqual([]);
  });
});

describe("makeRecipes", () => {
  const makefile = "CC := cc\nall: a b\na:\n\techo a\nb: c\n\t@echo b\nc:\n\t-echo c\n%.o: %.c\n\t$(CC) -c $<\nother:\n\trm -rf /\nquick: ; echo quick\n";
  it("follows the goals and their prerequisites, and keeps pattern rules", () => {
    expect(makeRecipes(makefile, [])).toEqual(["$(CC) -c $<", "echo a", "echo b", "echo c"]);
    expect(makeRecipes(makefile, ["c"])).toEqual(["$(CC) -c $<", "echo c"]);
    expect(makeRecipes(makefile, ["quick"])).toEqual(["$(CC) -c $<", "echo quick"]);
  });
});

describe("shebangProgram", () => {
  it.each([
    ["#!/bin/sh\n", "sh"],
    ["#!/usr/bin/env python3\n", "python3"],
    ["#!/usr/bin/env -S node --no-warnings\n", "node"],
    ["echo hi\n", undefined],
  ])("%j", (text, program) => {
    expect(shebangProgram(text)).toBe(program);
  });
});
