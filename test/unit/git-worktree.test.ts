// git commands that overwrite or delete work-tree files by their state, against real
// repositories: the self-protection gate refuses the ones that would throw away a
// person's uncommitted edit of a hook source or delete an untracked one, and lets the
// same commands through where no policy file would change. Each refusal row is checked
// against what git itself says it would do (`git clean -n`, `git stash` in a copy).
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseGitIndex, readGitIndex } from "../../modules/gates/git-index.ts";
import { isIgnored } from "../../modules/gates/git-ignore.ts";
import { gitWorkTreeRewrite, rewrittenFiles } from "../../modules/gates/git-worktree.ts";
import { findSelfProtectionBreach } from "../../modules/gates/self-protection.ts";
import type { GateContext } from "../../modules/gates/types.ts";
import type { HookInput } from "../../modules/protocol/hook-input.ts";

const root = mkdtempSync(path.join(os.tmpdir(), "tama-git-worktree-"));
const home = path.join(root, "home");
const tamaHome = path.join(home, ".tama");
mkdirSync(tamaHome, { recursive: true });
const gitEnv = { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: "1", GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" };
const git = (cwd: string, ...args: string[]): string => execFileSync("git", args, { cwd, env: gitEnv, encoding: "utf8" });

/** A repository with a committed `.claude/settings.json`, an ignored local settings file and a `main` branch. */
function project(name: string, options: { dirty?: boolean; untrackedTama?: boolean } = {}): string {
  const dir = path.join(root, name);
  mkdirSync(path.join(dir, ".claude"), { recursive: true });
  mkdirSync(path.join(dir, "src"));
  git(dir, "init", "-q", "-b", "topic");
  writeFileSync(path.join(dir, ".claude", "settings.json"), '{"hooks":{}}\n');
  writeFileSync(path.join(dir, ".claude", ".gitignore"), "settings.local.json\n");
  writeFileSync(path.join(dir, "src", "a.txt"), "a\n");
  git(dir, "add", "-A");
  git(dir, "commit", "-qm", "init");
  git(dir, "branch", "main");
  writeFileSync(path.join(dir, ".claude", "settings.local.json"), "{}\n");
  writeFileSync(path.join(dir, "src", "a.txt"), "changed\n");
  if (options.dirty === true) writeFileSync(path.join(dir, ".claude", "settings.json"), '{"hooks":{"PreToolUse":[]}}\n');
  if (options.untrackedTama === true) {
    mkdirSync(path.join(dir, ".tama"));
    writeFileSync(path.join(dir, ".tama", "hooks.json"), "{}\n");
  }
  return dir;
}

/** A branch `name` on HEAD with one file added at `file`, made without touching the work tree (as a fetched branch would be). */
function branchHolding(dir: string, name: string, file: string): void {
  const blob = execFileSync("git", ["hash-object", "-w", "--stdin"], { cwd: dir, input: '{"hooks":{"x":1}}\n', encoding: "utf8" }).trim();
  const index = { ...gitEnv, GIT_INDEX_FILE: path.join(dir, `${name}.idx`) };
  git(dir, "read-tree", `--index-output=${name}.idx`, "HEAD");
  execFileSync("git", ["update-index", "--add", "--cacheinfo", `100644,${blob},${file}`], { cwd: dir, env: index });
  const tree = execFileSync("git", ["write-tree"], { cwd: dir, env: index, encoding: "utf8" }).trim();
  git(dir, "branch", name, git(dir, "commit-tree", tree, "-p", "HEAD", "-m", name).trim());
}

const dirty = project("dirty", { dirty: true });
const clean = project("clean");
const untracked = project("untracked", { untrackedTama: true });

const context: GateContext = { tamaHome, env: { HOME: home, TAMA_HOME: tamaHome, PI_CODING_AGENT_DIR: path.join(home, ".omp", "agent") } };
const bash = (cwd: string, command: string): HookInput => ({
  hook_event_name: "PreToolUse",
  cwd,
  tool_name: "Bash",
  tool_input: { command },
  omp: { tool_name: "bash", tool_input: { command } },
});
const verdict = (cwd: string, command: string) => findSelfProtectionBreach(bash(cwd, command), context);

describe("an uncommitted edit of a hook source", () => {
  it.each([
    "git stash",
    "git stash push",
    "git stash -u",
    "git stash save wip",
    "git stash push -- .claude",
    "git checkout -- .",
    "git checkout .",
    "git checkout -- '*.json'",
    "git checkout -- '.cl*'",
    "git -C src checkout -- ..",
    "git checkout -f main",
    "git checkout main -- .",
    "git checkout HEAD -- .claude",
    "git restore .",
    "git restore --worktree --staged .",
    "git restore --source=main .",
    "git restore -s main -- .claude",
    "git reset --hard",
    "git reset --hard HEAD~0",
    "git switch --discard-changes main",
    "git switch -f main",
    "git checkout-index -f -a",
    "git read-tree --reset -u HEAD",
    "git -c alias.co=checkout co -- .",
    "cd src && git checkout -- ../.claude",
  ])("is thrown away by %s: refused", (command) => {
    expect(verdict(dirty, command)).toMatch(/throws away the uncommitted changes to .*\.claude\/settings\.json/);
  });

  it.each([
    "git stash push -- src",
    "git stash push -- . ':!.claude'",
    "git stash push -- . ':(exclude).claude'",
    "git stash list",
    "git stash show -p",
    "git checkout -- src",
    "git checkout src/a.txt",
    "git checkout main",
    "git switch main",
    "git checkout main -- src",
    "git restore src",
    "git restore --staged .",
    "git reset HEAD -- .",
    "git reset --soft HEAD",
    "git clean -n",
    "git checkout-index -a",
  ])("is left alone by %s: passes", (command) => {
    expect(verdict(dirty, command)).toBeUndefined();
  });

  it("is there: git stash in a copy of the repository really reverts it", () => {
    const copy = path.join(root, "dirty-copy");
    cpSync(dirty, copy, { recursive: true });
    git(copy, "stash");
    expect(readFileSync(path.join(copy, ".claude", "settings.json"), "utf8")).toBe('{"hooks":{}}\n');
  });
});

describe("the forms the second red-team pass found", () => {
  it.each([
    // git's abbreviations of long options, -p with no paths, a prefix that is the work tree, case-folded pathspecs, a patch applied in reverse.
    "git reset --har", "git switch --discard main", "git checkout --forc main", "git checkout-index --forc -a", "git read-tree --rese -u HEAD",
    "git checkout-index -f -a --prefix=", "git checkout-index -f -a --prefix=./", "git checkout -p", "git checkout -p HEAD",
    "git diff .claude/settings.json | git apply -R", "git --icase-pathspecs checkout -- .CLAUDE", "git checkout -- ':(icase).CLAUDE'", "GIT_ICASE_PATHSPECS=1 git restore .CLAUDE",
  ])("%s: refused", (command) => {
    expect(verdict(dirty, command)).toMatch(/refused/);
  });

  it.each(["git checkout-index -f -a --prefix=out/", "git restore --stag .", "git stash push --staged", "git apply --check -R p.patch", "git apply --stat p.patch"])("%s: passes", (command) => {
    expect(verdict(dirty, command)).toBeUndefined();
  });

  it("a patch file is read for the files it changes", () => {
    const dir = project("patched", { dirty: true });
    writeFileSync(path.join(dir, "p.patch"), git(dir, "diff", ".claude/settings.json"));
    writeFileSync(path.join(dir, "src.patch"), "--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1 +1 @@\n-a\n+b\n");
    expect(verdict(dir, "git apply -R p.patch")).toMatch(/\.claude\/settings\.json/);
    expect(verdict(dir, "git apply src.patch")).toBeUndefined();
  });

  it("an edit staged and not committed goes with reset --hard, checkout -f and stash; as committed, it does not", () => {
    const dir = project("staged", { dirty: true });
    git(dir, "add", ".claude/settings.json");
    for (const command of ["git reset --hard", "git checkout -f main", "git stash", "git read-tree --reset -u HEAD", "git stash push --staged"]) {
      expect(verdict(dir, command), command).toMatch(/throws away the staged, uncommitted changes to .*settings\.json/);
    }
    expect(verdict(dir, "git checkout -- .")).toBeUndefined();
    git(dir, "commit", "-qm", "hooks");
    expect(verdict(dir, "git reset --hard")).toBeUndefined();
  });

  it("a split index, which keeps its entries in another file, leaves every covered file at risk", () => {
    const dir = project("split", { dirty: false });
    git(dir, "update-index", "--split-index");
    expect(verdict(dir, "git stash")).toMatch(/index could not be read/);
  });

  it("core.worktree names the work tree wherever git runs, through a git directory not named .git", () => {
    const dir = project("worktree-config", { dirty: true });
    git(dir, "config", "core.worktree", dir);
    const elsewhere = path.join(root, "elsewhere");
    mkdirSync(elsewhere);
    symlinkSync(path.join(dir, ".git"), path.join(elsewhere, "g"));
    expect(verdict(dir, `cd ${elsewhere} && git --git-dir=g checkout -- .`)).toMatch(/throws away the uncommitted changes/);
  });

  it("git clean -e takes a file out of the ignore rules: ignored files may go", () => {
    expect(verdict(clean, "git clean -f -e '!.claude/settings.local.json'")).toMatch(/settings\.local\.json/);
  });
});

describe("the forms the third red-team pass found", () => {
  it.each([
    // `:/path` is the path from the top when no commit message matches it; names printed at run time or handed on by xargs may be any.
    "git checkout :/.claude", "git checkout --ignore-skip-worktree-bits :/.claude", "git ls-files -m | xargs git checkout --", "git checkout -- $(git ls-files -m)", "for f in $(git ls-files -m); do git checkout HEAD -- $f; done",
    // patch(1) of a patch that names it, or of one no reader saw; the person's change recorded by the agent.
    "git diff -R > r.patch; patch -p1 < r.patch", "cat r.patch | patch -p1", "git add -A", "git add .", "git commit -am wip", "git commit -a -m wip",
  ])("%s: refused", (command) => {
    expect(verdict(dirty, command)).toMatch(/refused/);
  });

  it("a patch with quoted names, or one put under --directory, is read for the file it changes", () => {
    const dir = project("quoted", { dirty: true });
    const body = "@@ -1 +1 @@\n-x\n+y\n";
    writeFileSync(path.join(dir, "q.patch"), `diff --git "a/.claude/settings.json" "b/.claude/settings.json"\n--- "a/.claude/settings.json"\n+++ "b/.claude/settings.json"\n${body}`);
    writeFileSync(path.join(dir, "d.patch"), `--- a/settings.json\n+++ b/settings.json\n${body}`);
    writeFileSync(path.join(dir, "r.patch"), `--- a/.claude/settings.json\n+++ b/.claude/settings.json\n${body}`);
    expect(verdict(dir, "git apply q.patch")).toMatch(/settings\.json/);
    expect(verdict(dir, "git apply --directory=.claude d.patch")).toMatch(/settings\.json/);
    expect(verdict(dir, "patch -p1 -i r.patch")).toMatch(/settings\.json/);
    expect(verdict(clean, "git add src")).toBeUndefined();
    expect(verdict(clean, "git commit -m wip src/a.txt")).toBeUndefined();
  });

  it("a branch that holds an ignored policy file overwrites it on checkout: refused; one that does not passes", () => {
    const dir = project("overwrite");
    branchHolding(dir, "evil", ".claude/settings.local.json");
    for (const command of ["git checkout evil", "git switch evil", "git merge evil"]) expect(verdict(dir, command), command).toMatch(/overwrites the untracked .*settings\.local\.json with what evil holds/);
    expect(verdict(dir, "git checkout main")).toBeUndefined();
  });
});

describe("the forms the fourth pass found", () => {
  it("CRLF line ends git stores as LF leave a file as committed", () => {
    const dir = path.join(root, "crlf");
    mkdirSync(path.join(dir, ".claude"), { recursive: true });
    git(dir, "init", "-q", "-b", "topic");
    writeFileSync(path.join(dir, ".gitattributes"), "* text=auto eol=crlf\n");
    writeFileSync(path.join(dir, ".claude", "settings.json"), '{"hooks":{}}\n');
    git(dir, "add", "-A");
    git(dir, "commit", "-qm", "init");
    // git writes the file back with CRLF, and holds it as committed.
    writeFileSync(path.join(dir, ".claude", "settings.json"), "");
    git(dir, "checkout", "--", ".claude/settings.json");
    expect(readFileSync(path.join(dir, ".claude", "settings.json"), "utf8")).toContain("\r\n");
    expect(git(dir, "status", "--porcelain", "--", ".claude")).toBe("");
    for (const command of ["git stash", "git add -A", "git checkout -- .", "git reset --hard"]) expect(verdict(dir, command), command).toBeUndefined();
  });

  it("git clean -e keeps what its rule matches; only a '!' rule lets an ignored file go", () => {
    expect(verdict(clean, "git clean -fd -e dist")).toBeUndefined();
    expect(verdict(clean, "git clean -fdx -e .claude")).toBeUndefined();
    expect(verdict(clean, "git clean -fdx -e .claude/")).toBeUndefined();
    expect(verdict(clean, "git clean -fdx -e .env")).toMatch(/settings\.local\.json/);
  });

  it.each([
    "git commit -p -m x", "git commit --interactive", "git add -p", "git add --edit",
  ])("%s may record any hunk: refused", (command) => {
    expect(verdict(dirty, command)).toMatch(/records the person's uncommitted/);
  });

  it("git add -p offers the pathspecs' tracked changes alone; -i may add untracked files; an edited patch any file", () => {
    for (const command of ["git add -p src", "git add --patch -- src/a.txt"]) expect(verdict(dirty, command), command).toBeUndefined();
    for (const command of ["git add -p", "git add -p src"]) expect(verdict(untracked, command), command).toBeUndefined();
    for (const command of ["git add -i", "git add --interactive .tama", "git add -A -p"]) expect(verdict(untracked, command), command).toMatch(/records the person's uncommitted new file .*hooks\.json/);
    expect(verdict(dirty, "git add -e src")).toMatch(/records the person's uncommitted change/);
  });

  it("a revision reached another way (abbreviated --create, --keep, a merge of the upstream, pull, rebase, cherry-pick) overwrites an ignored policy file it holds", () => {
    const dir = project("reached");
    branchHolding(dir, "evil", ".claude/settings.local.json");
    for (const command of ["git switch --cre new evil", "git checkout --orph o evil", "git reset --keep evil", "git reset --merge evil", "git pull . evil", "git rebase --autostash evil", "git cherry-pick -n evil", "git read-tree -m -u HEAD evil"]) {
      expect(verdict(dir, command), command).toMatch(/overwrites the untracked .*settings\.local\.json/);
    }
    git(dir, "branch", "-u", "evil");
    expect(verdict(dir, "git merge")).toMatch(/overwrites the untracked .*settings\.local\.json/);
  });

  it("a context diff, an Index: line and a CRLF patch name the file they change", () => {
    const dir = project("ctx", { dirty: true });
    writeFileSync(path.join(dir, "ctx.diff"), "*** .claude/settings.json\n--- src/zz/none.ts\n***************\n*** 1 ****\n! x\n--- 1 ----\n! y\n");
    writeFileSync(path.join(dir, "crlf.diff"), "--- a/.claude/settings.json\r\n+++ b/src/nonexist/x.ts\r\n@@ -1 +1 @@\r\n-x\r\n+y\r\n");
    expect(verdict(dir, "patch -p0 < ctx.diff")).toMatch(/settings\.json/);
    expect(verdict(dir, "patch -p1 < crlf.diff")).toMatch(/settings\.json/);
  });
});

describe("a hook source as committed", () => {
  it.each(["git stash", "git checkout -- .", "git restore .", "git reset --hard", "git checkout -f main", "git clean -fd"])("is unchanged by %s: passes", (command) => {
    expect(verdict(clean, command)).toBeUndefined();
  });

  it.each(["git checkout main -- .", "git restore --source=main .claude", "git checkout HEAD -- ."])("is left as it is by %s where that revision holds the same bytes: passes", (command) => {
    expect(verdict(clean, command)).toBeUndefined();
  });

  it("is overwritten from a revision that holds other bytes: refused", () => {
    const dir = project("diverged");
    git(dir, "checkout", "-q", "-b", "older");
    writeFileSync(path.join(dir, ".claude", "settings.json"), '{"hooks":"older"}\n');
    git(dir, "commit", "-qam", "older");
    git(dir, "checkout", "-q", "topic");
    for (const command of ["git checkout older -- .", "git restore --source=older .claude", "git checkout older -- '*.json'"]) {
      expect(verdict(dir, command), command).toMatch(/may overwrite .*\.claude\/settings\.json/);
    }
    expect(verdict(dir, "git checkout older -- src")).toBeUndefined();
  });
});

describe("untracked policy files", () => {
  it.each(["git clean -fd", "git clean -fdx", "git clean -fd -- src/..", "git stash -u", "git stash --all"])("are deleted by %s: refused", (command) => {
    expect(verdict(untracked, command)).toMatch(/deletes the untracked .*\.tama\/hooks\.json/);
  });

  // A protected path named to git is refused before its state is looked at.
  it.each([
    [untracked, "git clean -f .tama"],
    [untracked, "git clean -fd -- .tama"],
    [dirty, "git checkout -- .claude/settings.json"],
    [dirty, "git checkout-index -f .claude/settings.json"],
  ])("named to git (%s, %s): refused", (cwd, command) => {
    expect(verdict(cwd, command)).toMatch(/refused/);
  });

  it("git clean -f without -d leaves an untracked folder alone, as git does", () => {
    expect(git(untracked, "clean", "-n")).not.toMatch(/\.tama/);
    expect(verdict(untracked, "git clean -f")).toBeUndefined();
  });

  it("an ignored local settings file goes only with -x or -X, as git says", () => {
    expect(git(clean, "clean", "-nd")).not.toMatch(/settings\.local/);
    expect(verdict(clean, "git clean -fd")).toBeUndefined();
    expect(git(clean, "clean", "-ndx")).toMatch(/settings\.local\.json/);
    expect(verdict(clean, "git clean -fdx")).toMatch(/deletes the untracked .*settings\.local\.json/);
    expect(verdict(clean, "git clean -fX")).toMatch(/deletes the untracked .*settings\.local\.json/);
  });

  it("git stash -u keeps ignored files, git stash --all takes them", () => {
    expect(verdict(clean, "git stash -u")).toBeUndefined();
    expect(verdict(clean, "git stash --all")).toMatch(/settings\.local\.json/);
  });
});

describe("git mv and git rm of a policy folder", () => {
  it.each(["git mv .claude old", "git mv .claude/settings.json x.json", "git rm -r .claude", "git rm -rf .claude", "git rm .claude/settings.json"])("%s: refused", (command) => {
    expect(verdict(clean, command)).toMatch(/refused/);
  });
  it.each(["git mv src lib", "git rm -r src", "git rm -r --cached .claude", "git mv -n .claude x"])("%s: passes", (command) => {
    expect(verdict(clean, command)).toBeUndefined();
  });
});

describe("the index and ignore readers", () => {
  it("read the entries git lists, in index versions 2, 3 and 4", () => {
    for (const version of ["2", "3", "4"]) {
      const dir = project(`index-v${version}`);
      git(dir, "update-index", "--index-version", version);
      const index = readGitIndex(path.join(dir, ".git"));
      expect([...(index?.entries.keys() ?? [])].sort()).toEqual(git(dir, "ls-files").trim().split("\n").sort());
    }
  });

  it("refuse bytes that are no index", () => {
    expect(parseGitIndex(Buffer.from("not an index"))).toBeUndefined();
    expect(parseGitIndex(Buffer.concat([Buffer.from("DIRC"), Buffer.from([0, 0, 0, 9, 0, 0, 0, 1])]))).toBeUndefined();
    expect(parseGitIndex(Buffer.concat([Buffer.from("DIRC"), Buffer.from([0, 0, 0, 2, 0, 0, 0, 5])]))).toBeUndefined();
  });

  it("an index that cannot be read leaves every covered file at risk", () => {
    const dir = project("broken-index", { dirty: false });
    writeFileSync(path.join(dir, ".git", "index"), "DIRC garbage");
    expect(verdict(dir, "git stash")).toMatch(/index could not be read/);
  });

  it.each([
    ["settings.local.json", ".claude/settings.local.json", true],
    ["*.json\n!settings.json", ".claude/settings.json", false],
    ["/.claude/", ".claude/settings.json", true],
    ["**/hooks/", ".claude/hooks/pre/x.sh", true],
    ["docs/*.md", "docs/a.md", true],
    ["docs/*.md", "docs/sub/a.md", false],
    // git trims trailing spaces, not tabs: `.tama<TAB>` is no rule for .tama.
    [".tama\t", ".tama/hooks.json", false],
    [".clau?e", ".claude/settings.json", true],
  ])("a .gitignore of %j ignores %s: %s (as git check-ignore says)", (rules, file, expected) => {
    const dir = path.join(root, `ignore-${Math.random().toString(36).slice(2)}`);
    mkdirSync(path.join(dir, path.dirname(file)), { recursive: true });
    git(dir, "init", "-q");
    writeFileSync(path.join(dir, ".gitignore"), `${rules}\n`);
    writeFileSync(path.join(dir, file), "x");
    let byGit = true;
    try {
      git(dir, "check-ignore", "-q", file);
    } catch {
      byGit = false;
    }
    expect(byGit).toBe(expected);
    expect(isIgnored(dir, path.join(dir, ".git"), file, undefined, new Map([["HOME", home]]))).toBe(expected);
  });

  it("a rewrite outside any repository is none", () => {
    expect(gitWorkTreeRewrite(["stash"], os.tmpdir() === "/" ? "/" : path.parse(root).root, new Map())).toBeUndefined();
    const rewrite = gitWorkTreeRewrite(["checkout", "--", "src"], dirty, new Map());
    expect(rewrite === undefined ? [] : rewrittenFiles(rewrite, [path.join(dirty, ".claude", "settings.json")])).toEqual([]);
  });
});
