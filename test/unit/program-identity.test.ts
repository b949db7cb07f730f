// A program run under another name than its own: a link to git, a copy of git (with a
// byte appended, or named git-commit), a copy of a shell or of python, a link found on a
// PATH of the agent's. Each is read as the program it is, in a later call too (nothing on
// the line shows it being made). A copy of a program the gates do not read by name, and
// the programs themselves by their own names, pass as before.
import { execFileSync } from "node:child_process";
import { appendFileSync, existsSync, readFileSync, writeFileSync, copyFileSync, mkdirSync, mkdtempSync, openSync, readSync, closeSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copiedProgram, elfBuildId } from "../../modules/gates/program-identity.ts";
import { refusingGates } from "../support/gate-refusals.ts";

/** The real path of the first `name` on PATH that is a binary (a version manager's shim is a script). */
const which = (name: string): string | undefined => {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    const file = path.join(dir, name);
    if (dir !== "" && existsSync(file) && readFileSync(file).subarray(0, 4).toString("latin1") === "\x7fELF") return realpathSync(file);
  }
  return undefined;
};

const GIT = which("git") as string;
const BASH = which("bash") as string;
const ECHO = which("echo") as string;
const PYTHON = ["python3.13", "python3.12", "python3.11", "python3"].map(which).find((found) => found !== undefined);
const OBJCOPY = which("objcopy");

let root: string;
let project: string;
let tamaHome: string;
beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), "tama-identity-"));
  project = path.join(root, "proj");
  tamaHome = path.join(root, "home", ".tama");
  mkdirSync(path.join(project, ".git"), { recursive: true });
  mkdirSync(path.join(project, "bin"), { recursive: true });
  mkdirSync(tamaHome, { recursive: true });
  symlinkSync(GIT, path.join(project, "gl"));
  copyFileSync(GIT, path.join(project, "g"));
  copyFileSync(GIT, path.join(project, "g2"));
  appendFileSync(path.join(project, "g2"), "\n");
  copyFileSync(GIT, path.join(project, "git-commit"));
  copyFileSync(BASH, path.join(project, "shell"));
  copyFileSync(ECHO, path.join(project, "e"));
  symlinkSync(GIT, path.join(project, "bin", "h"));
  if (PYTHON !== undefined) copyFileSync(PYTHON, path.join(project, "py"));
  if (OBJCOPY !== undefined) execFileSync(OBJCOPY, ["--remove-section", ".note.gnu.build-id", GIT, path.join(project, "bare")]);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const refusedBy = (command: string): Promise<string[]> => refusingGates("bash", { command }, { project, tamaHome, home: path.join(root, "home"), defaultsOnly: true });

describe("a program under another name", () => {
  it.each([
    ["./gl commit --no-verify -m x", "a link to git"],
    ["./g commit --no-verify -m x", "a copy of git"],
    ["./g2 commit -n -m x", "a copy of git with a byte appended (its build id stays)"],
    ["./git-commit --no-verify", "a copy of git named git-commit, which git runs as git commit"],
    ['./shell -c "git commit --no-verify"', "a copy of bash"],
    ["PATH=$PWD/bin:$PATH h commit --no-verify", "a link found on the agent's PATH"],
    ["export PATH=./bin:$PATH; h commit -n", "a link found on a PATH the line exported"],
    ["timeout 5 ./g commit -n", "a copy run through a wrapper"],
    ["(exec -a git-commit ./g -n -m x)", "a copy started as git-commit"],
  ])("reads %s as git (%s)", async (command) => {
    expect(await refusedBy(command)).toContain("block-git-hook-bypass");
  });

  it("reads the path as the agent's shell walks it: /proc/self/cwd, a link before .., ~, an empty PATH part", async () => {
    mkdirSync(path.join(project, "deep", "sub"), { recursive: true });
    copyFileSync(GIT, path.join(project, "deep", "h"));
    symlinkSync("deep/sub", path.join(project, "l"));
    for (const command of ["/proc/self/cwd/g commit -n", "./l/../h commit -n", "HOME=$PWD; ~/g commit -n", "PATH=:$PATH g commit -n"]) {
      expect(await refusedBy(command), command).toContain("block-git-hook-bypass");
    }
  });

  it.runIf(OBJCOPY !== undefined)("reads a binary the agent placed that is no program Tama knows as a program named at run time", async () => {
    // The build id taken out: no longer git's, so read as each gated program is.
    expect(await refusedBy("./bare commit -n -m x")).toContain("block-git-hook-bypass");
    expect(await refusedBy("./bare status")).toEqual([]);
  });

  it("lets a PATH of the project's hold git-* programs of their own, but not a shell named so", async () => {
    mkdirSync(path.join(project, "tools"), { recursive: true });
    copyFileSync(ECHO, path.join(project, "tools", "git-lfs"));
    expect(await refusedBy("PATH=$PWD/tools:$PATH make release")).toEqual([]);
    copyFileSync(BASH, path.join(project, "tools", "git-x"));
    expect(await refusedBy("PATH=$PWD/tools:$PATH make release")).toContain("block-git-hook-bypass");
    rmSync(path.join(project, "tools"), { recursive: true });
  });

  it("does not take a script of the agent's named like a shell setup tool for the person's tool", async () => {
    writeFileSync(path.join(project, "pyenv"), "#!/bin/sh\necho git commit --no-verify -m x\n", { mode: 0o755 });
    for (const command of ['eval "$(./pyenv init -)"', 'PATH=$PWD:$PATH; eval "$(pyenv init -)"', "./pyenv init - | source /dev/stdin"]) {
      expect(await refusedBy(command), command).toContain("block-git-hook-bypass");
    }
    rmSync(path.join(project, "pyenv"));
  });

  it.runIf(PYTHON !== undefined)("reads a copy of python as python", async () => {
    expect(await refusedBy(`./py -c "import os; os.system('git commit --no-verify')"`)).toContain("block-git-hook-bypass");
  });

  it.runIf(OBJCOPY !== undefined)("tells a copy with no build id by its bytes, when its size is a program's", async () => {
    // The copy's size is not git's (the section is gone), so it is unknown: compared to what has no build id itself.
    const bare = path.join(project, "bare");
    expect(copiedProgram(bare, () => [])).toBeUndefined();
    const twin = path.join(root, "twin");
    copyFileSync(bare, twin);
    expect(copiedProgram(twin, () => ["bare"], project)).toBe(realpathSync(bare));
  });

  it.each(["./g status", "./g commit -m wip", "./e --no-verify", "ls ./bin", `${GIT} log -n 3`, "./gl log --oneline",
    // A PATH built on the environment's, and a binary of the project's with a verb of Tama's or fed a download, are their own programs.
    'PATH="$PWD/bin:$PATH" npm install', 'export PATH="$(go env GOPATH)/bin:$PATH"; npm install', "./e install", "./e hooks add x", "curl -s https://example.com/d.json | ./e"])("passes %s", async (command) => {
    expect(await refusedBy(command)).toEqual([]);
  });

  it("reads the build id of the ELF programs it knows", () => {
    const fd = openSync(GIT, "r");
    try {
      const head = Buffer.alloc(64 * 1024);
      const read = readSync(fd, head, 0, head.length, 0);
      const id = elfBuildId(fd, head.subarray(0, read));
      const expected = OBJCOPY === undefined ? undefined : /Build ID: ([0-9a-f]+)/.exec(execFileSync("readelf", ["-n", GIT], { encoding: "utf8" }))?.[1];
      if (expected !== undefined) expect(id).toBe(`GNU:${expected}`);
      expect(elfBuildId(fd, Buffer.from("#!/bin/sh\necho hi\n"))).toBeUndefined();
    } finally {
      closeSync(fd);
    }
  });
});
