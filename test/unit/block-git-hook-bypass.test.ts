import { describe, expect, it } from "vitest";
import { blockGitHookBypass, findGitHookBypass } from "../../modules/gates/block-git-hook-bypass.ts";
import { parseShell } from "../../modules/gates/shell-words.ts";
import type { HookInput } from "../../modules/protocol/hook-input.ts";

/** Command lines the gate refuses, with a fragment the reason must name. */
const REFUSED: [command: string, reason: string][] = [
  ["git commit --no-verify -m 'wip'", "git commit --no-verify skips the repository's pre-commit and commit-msg hooks; run the commit without it and fix what the hooks report"],
  ["git commit -n -m wip", "git commit -n (--no-verify) skips"],
  ['git commit -nm "x"', "git commit -n (--no-verify)"],
  ['git commit -anm "fix things"', "git commit -n (--no-verify)"],
  ["git commit -m 'msg' --no-verif", "git commit --no-verif (--no-verify)"],
  ["git commit --amend --no-edit --no-verify", "git commit --no-verify"],
  ["git commit --amend --no-post-rewrite", "git commit --no-post-rewrite skips the repository's post-rewrite hook"],
  ["git push --no-verify origin main", "git push --no-verify skips the repository's pre-push hook"],
  ["git push -f --no-verify", "git push --no-verify"],
  ["git merge --no-verify feature", "git merge --no-verify skips the repository's pre-merge-commit and commit-msg hooks"],
  ["git pull --no-verify --rebase=false", "git pull --no-verify"],
  ["git rebase --no-verify main", "git rebase --no-verify skips the repository's pre-rebase hook"],
  ["git am --no-verify 0001-fix.patch", "git am --no-verify skips the repository's pre-applypatch and applypatch-msg hooks"],
  ["git am -n 0001-fix.patch", "git am -n (--no-verify)"],
  ["git -C ../repo commit --no-verify -m x", "git commit --no-verify"],
  ["git --git-dir=.git --work-tree . commit -n -m x", "git commit -n (--no-verify)"],
  ["git --no-pager -c user.name=x commit -n", "git commit -n (--no-verify)"],
  ["git -c core.hooksPath=/dev/null commit -m x", "git -c core.hooksPath=/dev/null points git at another hooks directory"],
  ["git -c Core.HooksPath= push", "git -c Core.HooksPath= points git at another hooks directory"],
  ["git --config-env=core.hooksPath=EMPTY commit -m x", "git --config-env=core.hooksPath=EMPTY points git"],
  ["git --config-env core.hooksPath=EMPTY commit -m x", "git --config-env core.hooksPath=EMPTY points git"],
  ["git config core.hooksPath /dev/null", "git config core.hooksPath /dev/null changes which hooks git runs"],
  ["git config --global core.hooksPath ~/empty-hooks", "git config --global core.hooksPath"],
  ["git config --unset core.hooksPath", "git config --unset core.hooksPath changes which hooks git runs"],
  ["git config set core.hooksPath x", "git config set core.hooksPath x changes"],
  ["HUSKY=0 git commit -m wip", "HUSKY=0 turns husky's git hooks off; run git without it and fix what the hooks report"],
  ["HUSKY_SKIP_HOOKS=1 git push", "HUSKY_SKIP_HOOKS=1 turns husky's git hooks off"],
  ["SKIP=eslint,prettier git commit -m x", "SKIP=eslint,prettier skips the named pre-commit (or overcommit) hooks"],
  ["LEFTHOOK=0 git commit -m x", "LEFTHOOK=0 turns lefthook's git hooks off"],
  ["LEFTHOOK=false git push", "LEFTHOOK=false turns lefthook's git hooks off"],
  ["LEFTHOOK_EXCLUDE=lint git commit -m x", "LEFTHOOK_EXCLUDE=lint skips lefthook's hooks"],
  ["OVERCOMMIT_DISABLE=1 git commit -m x", "OVERCOMMIT_DISABLE=1 turns overcommit's git hooks off"],
  ["SKIP_SIMPLE_GIT_HOOKS=1 git commit -m x", "SKIP_SIMPLE_GIT_HOOKS=1 turns simple-git-hooks off"],
  ["GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=/dev/null git commit", "GIT_CONFIG_KEY_0=core.hooksPath sets core.hooksPath"],
  ["env HUSKY=0 git commit -m x", "HUSKY=0 turns husky's git hooks off"],
  ["env -i PATH=/usr/bin HUSKY=0 /usr/bin/git commit -m x", "HUSKY=0"],
  ["sudo -u dev HUSKY=0 git push", "HUSKY=0"],
  ["export HUSKY=0", "export HUSKY=0 turns husky's git hooks off for every later git command"],
  ["export HUSKY=0 && git commit -m x", "export HUSKY=0"],
  ["declare -x SKIP=mypy", "declare SKIP=mypy"],
  ["bash -c 'git commit --no-verify -m x'", "git commit --no-verify"],
  ["sh -c \"git push --no-verify\"", "git push --no-verify"],
  ["bash -lc 'cd repo && git commit -n -m x'", "git commit -n (--no-verify)"],
  ["bash -c \"sh -c 'git commit -n'\"", "git commit -n (--no-verify)"],
  ["npm test && git commit --no-verify -m x", "git commit --no-verify"],
  ["npm test; git commit -n", "git commit -n (--no-verify)"],
  ["npm test || git commit -n", "git commit -n (--no-verify)"],
  ["yes | git commit -n", "git commit -n (--no-verify)"],
  ["npm test & git push --no-verify", "git push --no-verify"],
  ["npm test\ngit commit --no-verify -m x", "git commit --no-verify"],
  ["echo $(git commit --no-verify -m x)", "git commit --no-verify"],
  ['echo "done: $(git commit -n -m x)"', "git commit -n (--no-verify)"],
  ["echo `git push --no-verify`", "git push --no-verify"],
  ["(cd sub && git commit -n -m x)", "git commit -n (--no-verify)"],
  ["{ git add -A; git commit -n -m x; }", "git commit -n (--no-verify)"],
  ["if true; then git commit -n -m x; fi", "git commit -n (--no-verify)"],
  ["for f in a b; do git commit -n -m $f; done", "git commit -n (--no-verify)"],
  ["timeout 60 git push --no-verify", "git push --no-verify"],
  ["command git commit -n", "git commit -n (--no-verify)"],
  ["nohup git push --no-verify >/dev/null 2>&1 &", "git push --no-verify"],
  ["eval \"git commit --no-verify -m x\"", "git commit --no-verify"],
  ["bash <<'EOF'\ngit commit --no-verify -m x\nEOF", "git commit --no-verify"],
  ["bash <<< 'git push --no-verify'", "git push --no-verify"],
  ["g\\it commit --no-verify", "git commit --no-verify"],
  ["git commit -m 'x' --no-verify --verify --no-verify", "git commit --no-verify"],
  ["git commit -m \"$(cat msg.txt)\" -n", "git commit -n (--no-verify)"],
  ["git rebase -x 'git commit --amend --no-edit --no-verify' main", "git commit --no-verify"],
  ["git config core.hooksPath ''", "git config core.hooksPath '' changes which hooks git runs"],
  ["echo x > >(git commit -n)", "git commit -n (--no-verify)"],
  ["git commit -m \"$(cat <<'EOF'\nfeat: x\nEOF\n)\" --no-verify", "git commit --no-verify"],
];

/** Command lines the gate lets through: nothing here skips a hook. */
const PASSED: string[] = [
  "git log -n 5",
  "git log -n5 --oneline",
  "git show -n1",
  "git commit -m \"mention --no-verify in message\"",
  "git commit -m 'do not use -n here'",
  "git commit -m --no-verify",
  "git commit --message --no-verify",
  "git commit -mnothing",
  "git commit -F -n",
  "echo \"git commit --no-verify\"",
  "echo git commit --no-verify",
  "printf '%s\\n' 'HUSKY=0 git commit'",
  "grep -n foo src/index.ts",
  "grep -rn -- --no-verify docs/",
  "git commit --amend",
  "git commit --amend --no-edit",
  "git commit -am 'fix'",
  "git commit -v -m x",
  "git push -n origin main",
  "git push --dry-run",
  "git push --force-with-lease origin HEAD",
  "git merge -n feature",
  "git pull -n",
  "git rebase -n main",
  "git rebase --verify main",
  "git cherry-pick -n abc123",
  "git revert -n HEAD",
  "git commit -- -n",
  "git commit -m x # --no-verify",
  "git config --get core.hooksPath",
  "git config core.hooksPath",
  "git config get core.hooksPath",
  "git config --list",
  "git config user.name dev",
  "git -c user.email=a@b commit -m x",
  "HUSKY=0 npm ci",
  "HUSKY=1 git commit -m x",
  "LEFTHOOK=1 git commit -m x",
  "SKIP= git commit -m x",
  "PRE_COMMIT_ALLOW_NO_CONFIG=1 git commit -m x",
  "SKIP=flake8 pre-commit run --all-files",
  "export PATH=$PATH:/opt/bin",
  "cat <<'EOF' > notes.md\ngit commit --no-verify\nEOF",
  "bash scripts/release.sh --no-verify",
  "command -v git",
  "\"HUSKY=0\" git commit",
  "gitk --all",
  "git status && git diff -n",
  "npm run lint -- --no-verify",
  "git commit -m \"$(cat <<'EOF'\nfeat: x\n\nnever use --no-verify\nEOF\n)\"",
  "git rebase -x 'npm test' main",
  "git commit -S -m 'signed'",
];

function bashCall(command: string): HookInput {
  return { hook_event_name: "PreToolUse", cwd: "/repo", tool_name: "Bash", tool_input: { command } };
}

describe("block-git-hook-bypass", () => {
  it.each(REFUSED)("refuses %j", async (command, reason) => {
    const verdict = await blockGitHookBypass.evaluate(bashCall(command), { tamaHome: "/tmp/tama" });
    expect(verdict).toMatchObject({ decision: "block" });
    expect(verdict.decision === "block" ? verdict.reason : "").toContain(reason);
  });

  it.each(PASSED)("lets %j through", (command) => {
    expect(findGitHookBypass(command)).toBeUndefined();
    expect(blockGitHookBypass.evaluate(bashCall(command), { tamaHome: "/tmp/tama" })).toEqual({ decision: "pass" });
  });

  it("has a table of at least 40 real command lines", () => {
    expect(REFUSED.length + PASSED.length).toBeGreaterThanOrEqual(40);
  });

  it("reads OMP's spelling of the call first", () => {
    const input: HookInput = {
      hook_event_name: "PreToolUse",
      cwd: "/repo",
      tool_name: "Bash",
      tool_input: {},
      omp: { tool_name: "bash", tool_input: { command: "git commit -n" } },
    };
    expect(blockGitHookBypass.evaluate(input, { tamaHome: "/tmp/tama" })).toMatchObject({ decision: "block" });
  });

  it("asks the tool declaration, so any shell spelling counts and other tools pass", () => {
    const command = "git push --no-verify";
    for (const tool_name of ["exec_command", "functions.shell", "run_command"]) {
      const input: HookInput = { hook_event_name: "PreToolUse", cwd: "/", tool_name, tool_input: { cmd: command } };
      expect(blockGitHookBypass.evaluate(input, { tamaHome: "/" })).toMatchObject({ decision: "block" });
    }
    const write: HookInput = { hook_event_name: "PreToolUse", cwd: "/", tool_name: "Write", tool_input: { command } };
    expect(blockGitHookBypass.evaluate(write, { tamaHome: "/" })).toEqual({ decision: "pass" });
  });

  it("reads argv-array commands", () => {
    const input: HookInput = { hook_event_name: "PreToolUse", cwd: "/", tool_name: "exec_command", tool_input: { command: ["git", "commit", "-n"] } };
    expect(blockGitHookBypass.evaluate(input, { tamaHome: "/" })).toMatchObject({ decision: "block" });
  });

  it("reads only pre_tool_use", () => {
    expect(blockGitHookBypass.events).toEqual(["pre_tool_use"]);
  });
});

describe("parseShell", () => {
  it("keeps quoted text as one word and splits on operators", () => {
    const commands = parseShell(`A=1 git commit -m "a; b && c" && echo 'x|y' | wc -l`);
    expect(commands.map((c) => c.argv)).toEqual([
      ["git", "commit", "-m", "a; b && c"],
      ["echo", "x|y"],
      ["wc", "-l"],
    ]);
    expect(commands[0]?.assignments).toEqual([{ name: "A", value: "1" }]);
  });

  it("finds commands inside substitutions, nested ones included", () => {
    const argvs = parseShell(`echo "$(git rev-parse $(echo HEAD))" \`date\``).map((c) => c.argv[0]);
    expect(argvs).toEqual(expect.arrayContaining(["echo", "git", "date"]));
  });

  it("drops redirections and keeps here-document bodies as stdin", () => {
    const [cat] = parseShell("cat <<-EOF 2>/dev/null >out.txt\n\thello\n\tEOF\necho after");
    expect(cat?.argv).toEqual(["cat"]);
    expect(cat?.stdin).toEqual(["hello"]);
    expect(parseShell("cat <<EOF\nx\nEOF\necho after").map((c) => c.argv)).toEqual([["cat"], ["echo", "after"]]);
  });

  it("handles escapes, ANSI-C quotes and line continuations", () => {
    expect(parseShell(`echo a\\ b $'c\\td' "e\\"f" g\\\nh`)[0]?.argv).toEqual(["echo", "a b", "c\td", 'e"f', "gh"]);
  });

  it("is lenient with unterminated quotes", () => {
    expect(parseShell(`git commit -m "unterminated`)[0]?.argv).toEqual(["git", "commit", "-m", "unterminated"]);
  });
});
