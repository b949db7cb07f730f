// What a subshell changes is gone when it ends: `( … )`, a substitution, a pipeline's
// member and a command put in the background each run in one, so a `cd` or an alias made
// there does not move the commands after it. Read the other way, a `cd` there would let
// `(cd src/a); rm -rf ..` pass as `rm -rf src`, and turn `(cd /); rm -rf build` into `/build`.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseShell } from "../../modules/gates/shell-words.ts";
import { scratchProject, type ScratchProject } from "../support/gate-refusals.ts";

let scratch: ScratchProject;
beforeAll(() => {
  scratch = scratchProject("subshell", { "src/a/": "", ".claude/settings.json": "{}" });
});
afterAll(() => scratch.remove());

const bash = (command: string): Promise<string[]> => scratch.bash(command);

describe("what a subshell changes", () => {
  it.each([
    "(cd src/a); rm -rf ..",
    "(cd src/a && true) && rm -rf ..",
    "echo $(cd src/a); rm -rf ..",
    "echo `cd src/a`; rm -rf ..",
    "cd src/a | cat; rm -rf ..",
    "{ cd src/a; } | cat; rm -rf ..",
    "cd src/a & rm -rf ..",
    "while false; do :; done < /dev/null | { cd src/a; }; rm -rf ..",
    "cd src; (cd a); rm -rf ../..",
    // A case pattern's `)` and a compound command after `time` or `coproc` close no subshell early.
    '(case "$CI" in true) set -x;; esac; cd src/a); rm -rf ..',
    'v=$(case "$1" in -q) echo q;; esac; cd src/a); rm -rf ..',
    "(time { :; }; cd src/a); rm -rf ..",
    "(coproc { :; }; cd src/a); rm -rf ..",
    // A coprocess runs in a subshell; `env cd` runs a program, which moves no shell.
    "coproc cd src/a; rm -rf ..",
    "env cd src/a; rm -rf ..",
  ])("does not move the commands after it: %s reaches the project's parent", async (command) => {
    expect(await bash(command)).toContain("block-destructive-deletes");
  });

  it.each([
    "(cd /); rm -rf build",
    "cd src/a; (cd /); rm -rf build",
    "(cd / && echo hi) | cat; rm -rf build",
    "cd src; { cd a; } && rm -rf build",
    // A subshell inside a pipeline's last member ends with it: the member itself changed no directory.
    'find . -name package.json | while read -r f; do (cd "$(dirname "$f")" && npm test); done; rm -rf build',
    "time { cd src/a; }; rm -rf ../build",
  ])(
    "%s removes a folder of the project",
    async (command) => {
      expect(await bash(command)).toEqual([]);
    },
  );

  it("still moves the commands inside it, and a group that is no subshell moves the line", async () => {
    expect(await bash("(cd src/a && rm -rf ../../..)")).toContain("block-destructive-deletes");
    expect(await bash("{ cd /; }; rm -rf usr")).toContain("block-destructive-deletes");
    expect(await bash("if true; then cd /; fi; rm -rf usr")).toContain("block-destructive-deletes");
    expect(await bash("case x in x) cd /;; esac; rm -rf usr")).toContain("block-destructive-deletes");
    expect(await bash("coproc { cd /; rm -rf usr; }")).toContain("block-destructive-deletes");
  });

  it("a directory a pipeline's last member changes is not known after it (OMP's shell may hold shopt -s lastpipe)", async () => {
    expect(await bash("echo | cd /; rm -rf usr")).toContain("block-destructive-deletes");
    expect(await bash("echo | cd src/a; rm -rf build")).toContain("block-destructive-deletes");
  });

  it("an alias a subshell defines does not hide the line's own", async () => {
    expect(await bash('alias c="git commit"; (alias c=true); c --no-verify')).toContain("block-git-hook-bypass");
  });

  it("marks each command with the subshells it runs in", () => {
    const ids = (script: string): number[][] => parseShell(script).map((command) => [...(command.subshells ?? [])]);
    const [inner, after] = ids("(cd a); ls");
    expect(inner).toHaveLength(1);
    expect(after).toEqual([]);
    const [first, last] = ids("cd a | cat");
    expect(first?.[0]).toBeGreaterThan(0);
    expect(last?.[0]).toBeLessThan(0);
    // A compound command piped on is one subshell: its commands share it.
    const [one, two, piped] = ids("{ cd a; ls; } | cat");
    expect(one).toEqual(two);
    expect(one?.[0]).toBeGreaterThan(0);
    expect(piped?.[0]).toBeLessThan(0);
    const grouped = ids("{ cd a; ls; }; pwd");
    expect(grouped.every((path) => path.length === 0)).toBe(true);
  });
});

describe("a cd that may not run", () => {
  it.each([
    // Into a folder that is not there: cd fails and the shell stays.
    "cd .claude; cd nope; echo x > settings.json",
    // After `&&`, in a branch: after the list the shell is in either folder.
    "cd .claude; false && cd ..; echo x > settings.json",
    "cd .claude; if false; then cd ..; fi; echo x > settings.json",
    "cd .claude; [ -n \"$CI\" ] && cd ..; echo x > settings.json",
    // `popd -n` takes the entry off the stack and stays.
    "pushd .claude >/dev/null; popd -n; echo x > settings.json",
    // A folder not there yet that the line may have made another way than mkdir: where the shell is, is not known.
    "ln -s .claude c; cd c; echo x > settings.json",
    // Either folder: a relative path is read from both.
    "cd .claude; [ -d x ] && cd x; echo > settings.json",
    "[ -d src ] && cd src; rm -rf ..",
    // A cd - after a cd that may not have run; a pushd or popd that may not have; `||` before a cd; a cd that fails after one
    // that may not have run; the folder either way inside a substitution.
    "cd src; true && cd ../.claude; cd /; cd -; echo {} > settings.json",
    "cd .claude; pushd ../src; false && pushd /etc; popd; echo {} > settings.json",
    "cd src; pushd ../.claude; false && popd; echo {} > settings.json",
    "cd .claude; true || cd ../src && echo {} > settings.json",
    "cd .claude; false && cd ../src && cd nope; echo {} > settings.json",
    "cd .claude; false && cd ../src; x=$(echo {} > settings.json)",
    'echo "$(cd .claude; false && cd ../src; echo {} > settings.json)"',
    "git clone https://example.com/r.git c; cd c; cd lnk; echo x > settings.json",
    // In a branch too, a cd after `&&` or `||` may not have run for what follows it there.
    "cd .claude; if true; then true || cd ../src && echo {} > settings.json; fi",
    "cd .claude; if true; then false && cd ../src; echo {} > settings.json; fi",
  ])("%s is not read as leaving the policy folder", async (command) => {
    expect(await bash(command)).not.toEqual([]);
  });

  it.each([
    "mkdir -p build && cd build && cmake .. && make > build.log",
    "cd src && npm test; echo done > status.txt",
    "npm ci && cd src && echo ok > out.txt",
    "cd nope && echo hi > x",
    "[ -d src ] && cd src; echo x > a.ts",
    "if [ -d src ]; then cd src; fi; echo x > a.ts",
    "cd src && ls && cd ..; echo done > status.txt",
    "mkdir -p out && cd out && echo x | tee a.txt",
    "mkdir -p tmp/a && cd tmp/a && echo x > f && cd - && echo y > g",
    "for d in src; do cd $d; echo x > o.txt; cd ..; done; echo done > out.log",
    "mkdir -p a/b; cd a; touch x",
    "git worktree add wt -b topic2 && cd wt && echo x > f.txt",
    "mkdir -p vendor && cd vendor && echo x | tee a.txt",
  ])(
    "%s passes",
    async (command) => {
      expect(await bash(command)).toEqual([]);
    },
  );
});
