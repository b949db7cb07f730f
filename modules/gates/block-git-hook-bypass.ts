// block-git-hook-bypass: refuses shell commands that make git skip the repository's
// hooks (pre-commit, commit-msg, pre-push, …). The command is split the way the shell
// splits it (shell-words.ts), so a `--no-verify` inside a quoted commit message is
// text, while one inside `$( )`, `bash -c '…'` or after `&&` is a flag git will see.
// Options are read per git subcommand, because `-n` means --no-verify only for
// commit and am; for push it is --dry-run, for merge/pull/rebase --no-stat, for log a count.
import path from "node:path";
import { statOf } from "../system/disk-moment.ts";
import { foldName } from "../system/name-case.ts";
import { READ_MAX_BYTES } from "../system/regular-file.ts";
import { readCode, shellLine } from "../tools/code-reading.ts";
import { callKind, codeOf, type CodeLanguage } from "../tools/declaration.ts";
import { codeWriteTargets, commandTargets, isDynamic, readableScripts, walkCall, walkShell, type RunCommand, type Scope } from "./shell-walk.ts";
import { parseShell } from "./shell-words.ts";
import { linkSources } from "./shell-writers.ts";
import { asGit } from "./git-commands.ts";
import { envConfigEntries, envConfigFiles, gitAliases, gitConfigEntries, isInclude, normalizeKey, type GitConfigEntry } from "./git-config.ts";
import { isLink, projectRoot, realPath, resolvedPath, throughLinks } from "./paths.ts";
import type { HookInput } from "../protocol/hook-input.ts";
import type { BuiltinGate, GateVerdict } from "./types.ts";

const PASS: GateVerdict = { decision: "pass" };
const FIX = "fix what the hooks report";
export const blockGitHookBypass: BuiltinGate = {
  id: "block-git-hook-bypass",
  description: "Refuses shell commands, code and file writes that skip the repository's git hooks (--no-verify, core.hooksPath, HUSKY=0, a hand-edited .git/config or .git/hooks, …).",
  events: ["pre_tool_use"],
  memoryless: true,
  tools: "any",
  evaluate(input: HookInput): GateVerdict {
    const toolName = input.tool_name ?? input.omp?.tool_name ?? "";
    if ((input.omp?.kind ?? callKind(toolName, input.tool_input)) === "write") {
      const file = input.tool_input?.file_path;
      const reason = typeof file === "string" ? gitFileChange(`${toolName} writes`, file, resolvedPath(input.cwd, file)) : undefined;
      return reason === undefined ? PASS : { decision: "block", reason };
    }
    const call = readableScripts(input);
    if (call === undefined) return PASS;
    const code = codeOf(input.tool_name ?? "", input.tool_input);
    const inCode = code === undefined ? undefined : codeEnvBypass(code.code, code.language);
    if (inCode !== undefined) return { decision: "block", reason: call.prefix + inCode };
    // The call's shared walk (shell-walk.ts walkCall), read with this gate's own record of what the line wrote.
    const written = new Set<string>();
    const reason = walkCall(input, (run) => visitRun(run, written));
    return reason === undefined ? PASS : { decision: "block", reason };
  },
};

/** Why `script` skips git hooks, or undefined when it does not. */
export function findGitHookBypass(script: string, depth = 0, env: Record<string, string> = {}, cwd?: string): string | undefined {
  return findIn(script, depth, { env: new Map(Object.entries(env)), cwd });
}

function findIn(script: string, depth: number, scope: Scope): string | undefined {
  // Files the script writes before a git command runs: a config file it names may not hold yet what the disk holds.
  const written = new Set<string>();
  return walkShell(script, scope, (run) => visitRun(run, written), depth);
}

/** Why one command the walk met skips git hooks; `written` gathers the files the line wrote before it (folded: name-case.ts). */
function visitRun(run: RunCommand, written: Set<string>): string | undefined {
  const reason = checkCommand(run, written);
  if (reason !== undefined) return reason;
  for (const target of commandTargets(run, codeWriteTargets(run))) {
    const file = resolvedPath(run.scope.cwd ?? process.cwd(), target.word, run.scope.links);
    written.add(foldName(file));
    const reason = gitFileChange(`${run.program ?? "the command"} ${target.effect}`, target.word, file, run.scope.links);
    if (reason !== undefined) return reason;
  }
  return undefined;
}

/** git's config and hooks, a linked worktree's own config among them; and `.git/` itself, which a copy or an archive writes into. */
const GIT_FILE = /(^|\/)\.git\/(config(?:\.worktree)?$|hooks(\/|$)|worktrees\/[^/]+\/config\.worktree$)|(^|\/)\.git\/?$/;

/**
 * Whether a path not named as git's may still land on one of its files through a link
 * (`g/config`, `g/hooks/x` with g a link to .git, `h/x` with h a link to .git/hooks):
 * resolving every write target costs a walk of the disk; this, two lstat calls at most.
 */
function mayBeGitFile(file: string): boolean {
  const name = foldName(path.basename(file));
  const parent = path.dirname(file);
  return name === "config" || name === "config.worktree" || foldName(path.basename(parent)) === "hooks" || isLink(file) || isLink(parent);
}

/**
 * `echo '[core] hooksPath=…' >> .git/config`, `rm .git/hooks/pre-commit`, a write tool's
 * `.git/config`: git's own files, changed by hand, where hooks are switched off.
 */
function gitFileChange(who: string, word: string, file: string, links?: ReadonlyMap<string, string>): string | undefined {
  // As named, and where links take it (`ln -s .git g`, then `g/config`); `config.worktree`
  // holds core.hooksPath too once extensions.worktreeConfig is on.
  // Folded: `.GIT/hooks/x` is git's hooks folder where the file system folds case (name-case.ts).
  const through = throughLinks(file, links);
  const gitFile = GIT_FILE.exec(foldName(file)) ?? GIT_FILE.exec(foldName(through)) ?? (mayBeGitFile(through) ? GIT_FILE.exec(foldName(realPath(through))) : null);
  if (!gitFile) return undefined;
  // `.git` itself: a copy, sync or extraction into it writes its config or hooks; moving or removing it (or a link to it) does not.
  if (gitFile[2] === undefined && !/\b(?:copies over|syncs over|extracts into|installs over|clones into|writes into|moves a file over)\b/.test(who)) return undefined;
  const what =
    gitFile[2] === undefined ? "git's own directory, where its config and hooks live" : gitFile[2].includes("config") ? "git's config, where core.hooksPath lives" : "the repository's installed git hooks";
  return `${who} ${word}, ${what}; leave it to git and the project's hook setup (\`git config\` for settings), and ${FIX}`;
}

/**
 * `ln .git/config gc`, `cp -l .git/hooks/pre-commit pc`: a hard link is the same file under
 * another name, and a later write to that name, which no reader can tie back, changes git's.
 */
function hardLinked(program: string | undefined, argv: readonly string[], scope: Scope): string | undefined {
  const cwd = scope.cwd ?? process.cwd();
  const source = linkSources(argv, true).find(({ word }) => GIT_FILE.test(foldName(resolvedPath(cwd, word))) || GIT_FILE.test(foldName(realPath(resolvedPath(cwd, word)))));
  return source === undefined ? undefined : `${program} ${displayWord(source.word)} makes a hard link to git's own file, which a write under the new name changes unseen; leave it to git and the project's hook setup, and ${FIX}`;
}

function checkCommand({ argv, program, dynamic, unknownBinary, env, depth, scope, code, command }: RunCommand, written: ReadonlySet<string>): string | undefined {
  for (const inline of code) {
    const reason = codeEnvBypass(inline.code, inline.language);
    if (reason !== undefined) return reason;
  }
  // A program named at run time (`$(echo git)`, `$g`) is read as git; git's own programs (`git-commit`) as git's command.
  const linked = hardLinked(program, argv, scope);
  if (linked !== undefined) return linked;
  const git = asGit({ program, argv, dynamic, ...(unknownBinary === true ? { unknownBinary } : {}) });
  if (git !== undefined) return envBypass(env) ?? gitBypass(git.argv.slice(1), depth, { ...scope, env }, written);
  if (program !== undefined && EXPORTERS.has(program)) return exportBypass(program, argv.slice(1), env);
  if (program === undefined && command.assignments.length > 0) return assignmentBypass(command.assignments);
  return undefined;
}

// ---------------------------------------------------------------------------
// Environment variables hook managers read.

interface EnvRule {
  matches(name: string): boolean;
  bypasses(value: string): boolean;
  effect: string;
}

const named = (wanted: string) => (name: string) => name === wanted;
const nonEmpty = (value: string): boolean => value !== "";
const isHooksPathKey = (key: string): boolean => key.trim().toLowerCase() === "core.hookspath";
/** Editors that only keep or show the todo list (`GIT_SEQUENCE_EDITOR=: git rebase -i --autosquash`) or let a person edit it. */
const PLAIN_EDITOR = /^(?::|true|cat|vim?|nvim|nano|emacs|micro|hx|code --wait|code -w)?$/;

/** Each rule is the manager's own documented off switch, with the values it checks. */
const ENV_RULES: readonly EnvRule[] = [
  { matches: named("HUSKY"), bypasses: (v) => v === "0", effect: "turns husky's git hooks off" },
  { matches: named("HUSKY_SKIP_HOOKS"), bypasses: (v) => v === "1" || v === "true", effect: "turns husky's git hooks off" },
  { matches: named("LEFTHOOK"), bypasses: (v) => v === "0" || v === "false", effect: "turns lefthook's git hooks off" },
  { matches: named("LEFTHOOK_EXCLUDE"), bypasses: nonEmpty, effect: "skips lefthook's hooks with those tags" },
  { matches: named("SKIP"), bypasses: nonEmpty, effect: "skips the named pre-commit (or overcommit) hooks" },
  {
    matches: (name) => name === "OVERCOMMIT_DISABLE" || name === "OVERCOMMIT_DISABLED",
    bypasses: (v) => (Number.parseInt(v, 10) || 0) !== 0,
    effect: "turns overcommit's git hooks off",
  },
  { matches: named("SKIP_SIMPLE_GIT_HOOKS"), bypasses: (v) => v === "1", effect: "turns simple-git-hooks off" },
  { matches: named("LEFTHOOK_BIN"), bypasses: nonEmpty, effect: "makes lefthook's hook scripts run that program in lefthook's place" },
  // `rebase -i`'s todo list, edited by a program that can add `exec git commit -n`.
  { matches: named("GIT_SEQUENCE_EDITOR"), bypasses: (v) => !PLAIN_EDITOR.test(v.trim()), effect: "edits the rebase's todo list with a program, which can add an exec line that commits with -n" },
  {
    matches: (name) => /^GIT_CONFIG_KEY_\d+$/.test(name),
    bypasses: isHooksPathKey,
    effect: "sets core.hooksPath and so points git at another hooks directory",
  },
  {
    matches: named("GIT_CONFIG_PARAMETERS"),
    bypasses: (v) => /core\.hookspath/i.test(v),
    effect: "sets core.hooksPath and so points git at another hooks directory",
  },
];

function envRuleFor(name: string, value: string): EnvRule | undefined {
  // A value built at run time (`HUSKY=$(echo 0)`, `${X:-0}`) may be the off switch.
  return ENV_RULES.find((rule) => rule.matches(name) && (rule.bypasses(value) || (isDynamic(value) && (rule.bypasses("0") || rule.bypasses("1") || rule.bypasses("core.hooksPath")))));
}

/** An off switch in the environment of a git command. */
function envBypass(env: Map<string, string>): string | undefined {
  for (const [name, value] of env) {
    const rule = envRuleFor(name, value);
    if (rule) return `${name}=${value} ${isDynamic(value) ? "(a value built at run time) may turn hooks off: it " : ""}${rule.effect}; run git without it and ${FIX}`;
  }
  return undefined;
}

/**
 * Code that puts an off switch in the environment of the processes it starts
 * (`os.environ["HUSKY"] = "0"`, `env={"HUSKY": "0"}`, `process.env.HUSKY = "0"`, `putenv("SKIP", "x")`).
 */
function codeEnvBypass(code: string, language: CodeLanguage): string | undefined {
  if (!readCode(code, language).startsProcesses) return undefined;
  const setting = /\b([A-Z][A-Z0-9_]*)\b['"]?\s*\]?\s*(?:=(?!=)|:|,)\s*['"`]([^'"`]*)['"`]/g;
  for (const match of code.matchAll(setting)) {
    const rule = envRuleFor(match[1] as string, match[2] as string);
    if (rule) return `code that sets ${match[1]}=${match[2]} for the processes it starts ${rule.effect}; leave it unset and ${FIX}`;
  }
  return undefined;
}

/** `export`/`declare -x` put an off switch in every later git command's environment. */
const EXPORTERS = new Set(["export", "declare", "typeset"]);

function exportBypass(program: string, args: string[], env: ReadonlyMap<string, string>): string | undefined {
  const exports = program === "export" || args.some((arg) => /^-[A-Za-z]*x/.test(arg));
  if (!exports) return undefined;
  for (const arg of args) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(arg);
    const rule = match && envRuleFor(match[1] as string, match[2] as string);
    if (rule) return `${program} ${arg} ${rule.effect} for every later git command; leave it unset and ${FIX}`;
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(arg)) continue;
    // `export HUSKY` of a value the line set (`printf -v HUSKY 0`) reads as that value.
    const known = env.get(arg);
    const set = known !== undefined ? envRuleFor(arg, known) : undefined;
    if (set) return `${program} ${arg} (${arg}=${known}) ${set.effect} for every later git command; leave it unset and ${FIX}`;
    // Else OMP's bash keeps its variables from one call to the next: the value may be one an earlier call set.
    const named = known === undefined ? envRuleFor(arg, `$${arg}`) : undefined;
    if (named) return `${program} ${arg} exports a value set before this command (OMP's bash keeps variables between calls), which may turn hooks off: it ${named.effect}; leave it unset and ${FIX}`;
  }
  return undefined;
}

/**
 * `HUSKY=0` on its own: not in git's environment yet, but OMP's bash keeps it for the
 * calls after this one, where `set -a` (from an earlier call) or a later `export HUSKY`
 * hands it to git.
 */
function assignmentBypass(assignments: readonly { name: string; value: string }[]): string | undefined {
  for (const { name, value } of assignments) {
    const rule = envRuleFor(name, value);
    if (rule) return `${name}=${value} stays in OMP's bash for later calls, where it ${rule.effect}; leave it unset and ${FIX}`;
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// git itself.

/** git's own options before the subcommand that take the next word (git.c handle_options). */
const GIT_GLOBAL_ARG_OPTIONS = new Set([
  "-C",
  "-c",
  "--config-env",
  "--git-dir",
  "--work-tree",
  "--namespace",
  "--super-prefix",
  "--attr-source",
]);

/** git's own commands: an alias of one of these names is never used (git runs the command). */
const GIT_BUILTINS = new Set(
  "add am annotate apply archive bisect blame branch bundle checkout cherry cherry-pick clean clone commit config describe diff fetch format-patch fsck gc grep init log ls-files merge mv notes pull push range-diff rebase reflog remote reset restore revert rm shortlog show sparse-checkout stash status submodule switch tag worktree".split(" "),
);
/** An alias that expands to another alias; git stops at loops, Tama at this depth. */
const MAX_ALIAS_DEPTH = 10;

function gitBypass(args: string[], depth: number, scope: Scope, written: ReadonlySet<string> = new Set(), aliasDepth = 0, inherited: readonly GitConfigEntry[] = []): string | undefined {
  let i = 0;
  let cwd = scope.cwd;
  let gitDir: string | undefined;
  // An alias's expansion still runs under the `-c` settings of the command that named it.
  const inline: GitConfigEntry[] = [...inherited];
  for (; i < args.length && (args[i] as string).startsWith("-"); i++) {
    const arg = args[i] as string;
    const value = GIT_GLOBAL_ARG_OPTIONS.has(arg) ? args[++i] : undefined;
    const reason = globalConfigBypass(arg, value);
    if (reason !== undefined) return reason;
    if (arg === "-c" && value !== undefined && value.includes("=")) {
      inline.push({ key: normalizeKey(value.slice(0, value.indexOf("="))), value: value.slice(value.indexOf("=") + 1) });
    } else if (arg === "-c" && value !== undefined) {
      inline.push({ key: normalizeKey(value), value: "true" });
    }
    const configEnv = arg === "--config-env" ? value : arg.startsWith("--config-env=") ? arg.slice("--config-env=".length) : undefined;
    if (configEnv !== undefined && configEnv.includes("=")) {
      const fromVar = scope.env.get(configEnv.slice(configEnv.indexOf("=") + 1));
      if (fromVar !== undefined) inline.push({ key: normalizeKey(configEnv.slice(0, configEnv.indexOf("="))), value: fromVar });
    }
    if (arg === "-C" && value !== undefined) cwd = path.resolve(cwd ?? process.cwd(), value);
    if (arg === "--git-dir" && value !== undefined) gitDir = value;
    if (arg.startsWith("--git-dir=")) gitDir = arg.slice("--git-dir=".length);
  }
  const fileReason = configFileBypass(scope, cwd, written) ?? includeBypass(inline, "git -c", cwd, written) ?? includeBypass(envConfigEntries(scope.env), "the GIT_CONFIG_* setting", cwd, written);
  if (fileReason !== undefined) return fileReason;
  const subcommand = args[i];
  if (subcommand === undefined) return undefined;
  if (subcommand === "config") return configBypass(args.slice(i + 1));
  // git's plumbing makes a commit no hook sees (`git commit-tree … && git reset --soft …`).
  if (subcommand === "commit-tree") return `git commit-tree makes a commit without running the repository's commit hooks; commit with \`git commit\` and ${FIX}`;
  if (!GIT_BUILTINS.has(subcommand) && aliasDepth < MAX_ALIAS_DEPTH) {
    const alias = gitAliases({ cwd, env: scope.env, inline, ...(gitDir !== undefined ? { gitDir } : {}) }).get(subcommand.toLowerCase());
    if (alias !== undefined) return aliasBypass(subcommand, alias, args.slice(i + 1), depth, { ...scope, cwd }, aliasDepth, inline, written);
  }
  if (subcommand === "rebase") {
    const reason = rebaseExecScripts(args.slice(i + 1)).map((script) => findIn(script, depth + 1, scope)).find(Boolean);
    if (reason !== undefined) return reason;
  }
  // `git $(./gen)`: what git runs is printed at run time, a commit with -n included.
  if (isDynamic(subcommand) && !PLAIN_VARIABLE.test(subcommand)) return `git ${displayWord(subcommand)} names git's command at run time, which may skip the repository's hooks (commit -n); name the command, and ${FIX}`;
  const spec = SUBCOMMANDS[subcommand];
  const found = spec && findSwitch(spec, args.slice(i + 1));
  if (!spec || !found) {
    const unhooked = commitWithoutHooks(subcommand, args.slice(i + 1));
    if (unhooked !== undefined) return `${unhooked}; commit with \`git commit\` and ${FIX}`;
    const elsewhere = HOOKED.has(subcommand) ? otherHooksDir(scope, cwd, gitDir) : undefined;
    if (elsewhere !== undefined) return `git ${subcommand} with ${elsewhere} runs the hooks of that repository, not this one's; run it in the repository itself and ${FIX}`;
    // Hook scripts are shell scripts: bash runs BASH_ENV's file first (an `exit 0` there ends the hook, passing).
    const bashEnv = HOOKED.has(subcommand) ? scope.env.get("BASH_ENV") : undefined;
    if (bashEnv !== undefined && bashEnv.length > 0) return `git ${subcommand} with BASH_ENV=${displayWord(bashEnv)}: every bash a hook starts runs that file first, which may end the hook; run git without it and ${FIX}`;
    const shadowing = HOOKED.has(subcommand) ? standInPathDir(scope, cwd) : undefined;
    if (shadowing !== undefined) return `git ${subcommand} with PATH starting at ${shadowing}: the hooks would run the programs found there (a stand-in npx or lint-staged checks nothing); run git with the PATH it had, and ${FIX}`;
    return undefined;
  }
  if (found.built) {
    return `git ${subcommand} ${displayWord(found.flag)}: an argument built at run time may be --no-verify, which skips the repository's ${found.hooks}; write the options out (paths after \`--\`), and ${FIX}`;
  }
  const spelled = found.flag === found.canonical ? found.flag : `${found.flag} (${found.canonical})`;
  return `git ${subcommand} ${spelled} skips the repository's ${found.hooks}; run the ${subcommand} without it and ${FIX}`;
}

/** A stash's commit (made from the work tree with no hook): `stash@{0}`, `refs/stash^`, `stash~1`. */
const STASH_REF = /^(?:[+]?)(?:refs\/)?stash(?:@\{[^}]*\})?(?:[~^][\d^~]*|\^\{[^}]*\})*(?::.*)?$|^:\//;
/** Subcommands that put a given commit on a branch. */
const MOVES_A_BRANCH = new Set(["merge", "cherry-pick", "reset", "update-ref", "rebase", "branch", "checkout", "switch", "push", "fetch"]);

/**
 * Other ways git makes or lands a commit no commit hook saw: `git stash create`,
 * `git hash-object -t commit`, `git fast-import`, `git am` (it runs neither pre-commit
 * nor commit-msg), and a stash's commit put on a branch (`git merge --ff-only stash@{0}`).
 */
function commitWithoutHooks(subcommand: string, args: readonly string[]): string | undefined {
  if (subcommand === "stash" && args[0] === "create") return "git stash create makes a commit from the work tree without running the repository's commit hooks";
  if (subcommand === "hash-object" && args.some((arg, i) => (arg === "-t" && args[i + 1] === "commit") || arg === "-tcommit" || arg === "--type=commit")) {
    return "git hash-object -t commit writes a commit without running the repository's commit hooks";
  }
  if (subcommand === "fast-import") return "git fast-import writes commits without running the repository's commit hooks";
  if (subcommand === "am" && !args.some((arg) => arg === "--abort" || arg === "--quit" || arg === "--show-current-patch" || arg.startsWith("--show-current-patch="))) {
    return "git am commits each patch without running the pre-commit and commit-msg hooks; apply it with `git apply`";
  }
  const stash = MOVES_A_BRANCH.has(subcommand) ? args.find((arg) => STASH_REF.test(arg)) : undefined;
  if (stash !== undefined && (subcommand !== "checkout" || args.some((arg) => /^-[bB]$/.test(arg)))) {
    return stash.startsWith(":/")
      ? `git ${subcommand} ${stash} names a commit by its message, which may be a stash's, made without the repository's commit hooks; name the commit`
      : `git ${subcommand} ${stash} puts a stash's commit, made without the repository's commit hooks, on a branch; apply the stash (\`git stash pop\`)`;
  }
  // `git pull ./clone topic`: commits made in a local clone, which has no hooks, come in as they are.
  const local = subcommand === "pull" ? args.find((arg) => !arg.startsWith("-") && /^(?:\.{1,2}\/|\/|file:)/.test(arg)) : undefined;
  if (local !== undefined) return `git pull ${local} brings in commits made in a repository on this disk, whose hooks are not this one's`;
  return undefined;
}

/**
 * A folder the line's PATH puts before the harness's own that the harness's PATH does not
 * hold (the project's, a relative one, one built at run time, any other): the programs a
 * hook runs by name (`sh`, `npx`, `pre-commit`) are then whatever the agent put there.
 */
function standInPathDir(scope: Scope, cwd: string | undefined): string | undefined {
  const value = scope.env.get("PATH");
  if (value === undefined || value === process.env.PATH) return undefined;
  const where = cwd ?? process.cwd();
  const root = projectRoot(where);
  const own = new Set((process.env.PATH ?? "").split(":"));
  for (const dir of value.split(":")) {
    if (own.has(dir) || dir === "$PATH" || dir === "${PATH}") return undefined;
    // The project's own tool bins: a hook's `npx lint-staged` runs from node_modules/.bin whatever PATH says.
    if (/(?:^|\/)node_modules\/\.bin\/?$/.test(dir)) continue;
    // A folder of the project, a relative one, one built at run time, or any other folder the harness's PATH does not hold.
    if (dir === "" || !path.isAbsolute(dir) || isDynamic(dir) || realPath(path.resolve(where, dir)).startsWith(`${root}/`) || !own.has(realPath(dir))) return dir === "" ? "." : dir;
  }
  return undefined;
}

/** Subcommands that run the repository's hooks. */
const HOOKED = new Set(["commit", "merge", "pull", "push", "rebase", "am", "cherry-pick", "revert"]);

/**
 * A git directory other than the project's, whose hooks (a fresh clone's: none) run in
 * the project's place: `--git-dir=tmp.git`, `GIT_DIR`, `GIT_COMMON_DIR` (hooks are looked
 * up there while objects and refs may be the project's own).
 */
function otherHooksDir(scope: Scope, cwd: string | undefined, gitDir: string | undefined): string | undefined {
  const common = scope.env.get("GIT_COMMON_DIR");
  if (common !== undefined && common.length > 0) return `GIT_COMMON_DIR=${displayWord(common)}`;
  const named = gitDir ?? scope.env.get("GIT_DIR");
  if (named === undefined || named.length === 0) return undefined;
  const spelled = gitDir !== undefined ? `--git-dir=${displayWord(gitDir)}` : `GIT_DIR=${displayWord(named)}`;
  if (isDynamic(named)) return spelled;
  const where = cwd ?? process.cwd();
  const own = path.join(projectRoot(where), ".git");
  return realPath(path.resolve(where, named)) === realPath(own) ? undefined : spelled;
}

/**
 * `git ci …` where alias.ci is `commit --no-verify` (or `!git commit -n`): the
 * alias is read as git expands it — a `!` alias is a shell line with the arguments
 * appended, any other is git words put in place of the alias name.
 */
function aliasBypass(
  name: string,
  alias: string,
  rest: string[],
  depth: number,
  scope: Scope,
  aliasDepth: number,
  inline: readonly GitConfigEntry[],
  written: ReadonlySet<string>,
): string | undefined {
  const explain = (reason: string) => `git ${name} is the alias "${alias}": ${reason}`;
  if (alias.startsWith("!")) {
    const reason = findIn([alias.slice(1), ...rest.map((word) => shellLine([word]))].join(" "), depth + 1, scope);
    return reason === undefined ? undefined : explain(reason);
  }
  const words = parseShell(alias)[0];
  if (!words) return undefined;
  const expanded = [...words.assignments.map(({ name: n, value }) => `${n}=${value}`), ...words.argv, ...rest];
  const reason = gitBypass(expanded, depth, scope, written, aliasDepth + 1, inline);
  return reason === undefined ? undefined : explain(reason);
}

/** GIT_CONFIG_GLOBAL and the like naming a file that sets core.hooksPath (or one the same command writes first). */
function configFileBypass(scope: Scope, cwd: string | undefined, written: ReadonlySet<string>): string | undefined {
  for (const { name, file } of envConfigFiles(scope.env, cwd)) {
    if (written.has(foldName(file)) || isDynamic(file)) {
      return `${name}=${scope.env.get(name)} names a config file this command writes or builds at run time, which may set core.hooksPath; run git without it and ${FIX}`;
    }
    // Past what Tama reads of a file, git still reads it all: what it sets is not known.
    const size = statOf(file)?.size;
    if (size !== undefined && size > READ_MAX_BYTES) {
      return `${name}=${scope.env.get(name)} names a config file larger than Tama reads, which may set core.hooksPath; run git without it and ${FIX}`;
    }
    const entries = gitConfigEntries({ cwd: undefined, env: fileAlone(file), inline: [] });
    const hooksPath = entries.find((entry) => entry.key === "core.hookspath");
    if (hooksPath !== undefined) {
      return `${name}=${scope.env.get(name)} names a config file that sets core.hooksPath and so points git at another hooks directory; run git without it and ${FIX}`;
    }
    // Includes are not followed here: what one brings in (`[includeIf "onbranch:…"] path = …`) may set it.
    const include = entries.find((entry) => isInclude(entry.key));
    if (include !== undefined) {
      return `${name}=${scope.env.get(name)} names a config file that includes another (${include.key} = ${include.value}), which may set core.hooksPath; run git without it and ${FIX}`;
    }
  }
  return undefined;
}


/** What git reads with `file` as its only config: the file and what it includes. */
const fileAlone = (file: string): Map<string, string> => new Map([["GIT_CONFIG_GLOBAL", file], ["GIT_CONFIG_NOSYSTEM", "1"]]);

/** `-c include.path=FILE` (and includeIf), or one set through GIT_CONFIG_*: the included file may set core.hooksPath. */
function includeBypass(settings: readonly GitConfigEntry[], setBy: string, cwd: string | undefined, written: ReadonlySet<string>): string | undefined {
  for (const { key, value } of settings) {
    if (!isInclude(key)) continue;
    const file = path.resolve(cwd ?? process.cwd(), value.replace(/^~(?=\/)/, process.env.HOME ?? ""));
    const entries = written.has(foldName(file)) || isDynamic(value) ? undefined : gitConfigEntries({ cwd: undefined, env: fileAlone(file), inline: [] });
    if (entries === undefined || entries.some((entry) => entry.key === "core.hookspath" || isInclude(entry.key))) {
      return `${setBy} ${key}=${displayWord(value)} includes a config file that ${entries === undefined ? "this command writes or builds, and that may set" : "sets"} core.hooksPath; run git without it and ${FIX}`;
    }
  }
  return undefined;
}

/** `-c core.hooksPath=…` and `--config-env core.hooksPath=VAR` before the subcommand. */
function globalConfigBypass(arg: string, value: string | undefined): string | undefined {
  let setting: string | undefined;
  if (arg === "-c" || arg === "--config-env") setting = value;
  else if (arg.startsWith("--config-env=")) setting = arg.slice("--config-env=".length);
  if (setting === undefined || !isHooksPathKey(setting.split("=")[0] as string)) return undefined;
  const spelled = arg.includes("=") ? displayWord(arg) : `${arg} ${displayWord(setting)}`;
  return `git ${spelled} points git at another hooks directory and so skips the repository's git hooks; run git without it and ${FIX}`;
}

interface SubcommandSpec {
  /** The short option that means --no-verify, if any. */
  noVerifyShort?: string;
  /** Short options whose value is the rest of the word or the next word. */
  shortWithValue: string;
  /** Short options whose optional value can only be glued on (`-S<keyid>`, `-u<mode>`). */
  shortWithOptionalValue: string;
  /** Long options whose value may be the next word. */
  longWithValue: readonly string[];
  /** The hooks --no-verify skips. */
  hooks: string;
  /** Other long switches that skip a hook, with the hook they skip. */
  otherSwitches?: Readonly<Record<string, string>>;
}

/** git accepts unambiguous prefixes of long options; `--no-ver` is ambiguous with --no-verbose. */
const NO_VERIFY_SPELLINGS = /^--no-veri(f|fy)?$/;

/**
 * The subcommands with a hook switch (git 2.51 `git <cmd> -h`): commit, merge, pull,
 * push, rebase and am take --no-verify; only commit and am spell it -n as well.
 */
const SUBCOMMANDS: Readonly<Record<string, SubcommandSpec>> = {
  commit: {
    noVerifyShort: "n",
    shortWithValue: "CcFmt",
    shortWithOptionalValue: "Su",
    longWithValue: ["author", "date", "message", "file", "template", "reuse-message", "reedit-message", "fixup", "squash", "cleanup", "trailer", "pathspec-from-file"],
    hooks: "pre-commit and commit-msg hooks",
    otherSwitches: { "--no-post-rewrite": "post-rewrite hook" },
  },
  am: {
    noVerifyShort: "n",
    shortWithValue: "Cp",
    shortWithOptionalValue: "S",
    longWithValue: ["quoted-cr", "whitespace", "directory", "exclude", "include", "patch-format", "resolvemsg", "empty"],
    hooks: "pre-applypatch and applypatch-msg hooks",
  },
  merge: {
    shortWithValue: "mFsX",
    shortWithOptionalValue: "S",
    longWithValue: ["message", "file", "strategy", "strategy-option", "cleanup", "into-name"],
    hooks: "pre-merge-commit and commit-msg hooks",
  },
  pull: {
    shortWithValue: "sXo",
    shortWithOptionalValue: "S",
    longWithValue: ["strategy", "strategy-option", "cleanup", "upload-pack", "depth", "deepen", "shallow-since", "shallow-exclude", "negotiation-tip", "server-option", "refmap"],
    hooks: "pre-merge-commit and commit-msg hooks",
  },
  push: {
    shortWithValue: "o",
    shortWithOptionalValue: "",
    longWithValue: ["repo", "receive-pack", "exec", "push-option", "recurse-submodules"],
    hooks: "pre-push hook",
  },
  rebase: {
    shortWithValue: "xsXC",
    shortWithOptionalValue: "S",
    longWithValue: ["onto", "exec", "strategy", "strategy-option", "whitespace"],
    hooks: "pre-rebase hook",
  },
};

interface FoundSwitch {
  /** As written: `--no-verify`, `-n`, `--no-verif`; or the argument built at run time. */
  flag: string;
  canonical: string;
  hooks: string;
  /** The flag is an argument built at run time (`$(./gen)`, a word code computes), which may be --no-verify. */
  built?: true;
}

/**
 * A word git reads as an argument whose text is made at run time and may start with `-`:
 * a substitution (`$(./gen)`, `$(echo LW4= | base64 -d)`), what code computes (`"$_"`),
 * an array or a transformed value (`${a[@]}`, `${o/x/n}`, `${o,,}`). Not one a literal
 * starts (`origin/$(…)`), not a plain variable the walker never saw set (the person's
 * environment: what the agent sets, on the line or in OMP's shell, is known), and not a
 * command that prints a ref.
 */
function mayBeOption(word: string): boolean {
  // `[-]n`, `*n`, `?-verify`: a glob matches names on disk, `./-n` among them.
  if (/^[[*?]/.test(word)) return true;
  if (!isDynamic(word) || !/^[$`]/.test(word)) return false;
  if (BASH_SET.test(word)) return true;
  if (PLAIN_VARIABLE.test(word) || PRINTS_A_REF.test(word)) return false;
  return true;
}
/** Variables bash itself sets from what the line gives it (`[[ … =~ ]]`, getopts, read and select with no name). */
const BASH_SET = /^\$\{?(?:BASH_REMATCH|OPTARG|REPLY|MAPFILE|BASH_ARGV|COPROC|READLINE_LINE)\b/;
// `$_` (what code computes; bash's last argument) may run on into a literal once its quotes are gone (`"$_"n` is `$_n`).
const PLAIN_VARIABLE = /^\$(?:[A-Za-z]\w*|\{[A-Za-z]\w*\}|[0-9@*]|\{[0-9@*]\})$/;

/** Prints the current branch's name or a commit id, never an option: `git push origin "$(git branch --show-current)"`. */
const PRINTS_A_REF = /^\$\(\s*git (?:branch --show-current|symbolic-ref (?:--short )?HEAD|rev-parse (?:(?:--abbrev-ref|--short|--verify|-q|--quiet|--symbolic-full-name) )*(?:HEAD|@|[\w./]+)(?:[~^]\d*|@\{u(?:pstream)?\})*|merge-base (?:--fork-point )?[\w./@{}~^]+ [\w./@{}~^]+)\s*\)$/;

/**
 * The hook-skipping switch in a subcommand's arguments, read the way git's
 * parse-options reads them: short clusters, values glued or in the next word,
 * `--` ending options, the last of --no-verify/--verify winning.
 */
function findSwitch(spec: SubcommandSpec, args: string[]): FoundSwitch | undefined {
  let noVerify: string | undefined;
  let other: FoundSwitch | undefined;
  // An option word git reads that holds text printed or computed at run time.
  let built: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--") break;
    if (arg.startsWith("--")) {
      const otherHooks = spec.otherSwitches?.[arg];
      if (NO_VERIFY_SPELLINGS.test(arg)) noVerify = arg;
      else if (arg === "--verify") noVerify = undefined;
      else if (otherHooks !== undefined) other = { flag: arg, canonical: arg, hooks: otherHooks };
      else if (spec.longWithValue.includes(arg.slice(2))) i++;
      else if (isDynamic(arg.split("=")[0] as string)) built ??= arg;
    } else if (arg.startsWith("-") && arg.length > 1) {
      const short = readShortCluster(spec, arg);
      if (short.noVerify) noVerify = `-${spec.noVerifyShort}`;
      if (short.built) built ??= arg;
      if (short.takesNextWord) i++;
    } else if (mayBeOption(arg)) {
      built ??= arg;
    }
  }
  if (noVerify !== undefined) return { flag: noVerify, canonical: "--no-verify", hooks: spec.hooks };
  return other ?? (built === undefined ? undefined : { flag: built, canonical: "--no-verify", hooks: spec.hooks, built: true });
}

/** One `-abc` word: whether it holds the -n switch before an option that takes the rest as its value. */
function readShortCluster(spec: SubcommandSpec, word: string): { noVerify: boolean; takesNextWord: boolean; built?: boolean } {
  let noVerify = false;
  for (let j = 1; j < word.length; j++) {
    const letter = word[j] as string;
    // `-$(./gen)`, `-"$_"`: letters printed at run time, before any option that takes the rest.
    if (letter === "$" || letter === "`") return { noVerify, takesNextWord: false, built: true };
    if (letter === spec.noVerifyShort) noVerify = true;
    if (spec.shortWithOptionalValue.includes(letter)) break;
    if (spec.shortWithValue.includes(letter)) return { noVerify, takesNextWord: j === word.length - 1 };
  }
  return { noVerify, takesNextWord: false };
}

/** `git rebase -x CMD` / `--exec CMD` runs CMD through the shell after each commit. */
function rebaseExecScripts(args: string[]): string[] {
  const scripts: string[] = [];
  for (let i = 0; i < args.length && args[i] !== "--"; i++) {
    const arg = args[i] as string;
    if (arg === "-x" || arg === "--exec") scripts.push(args[++i] ?? "");
    else if (arg.startsWith("--exec=")) scripts.push(arg.slice("--exec=".length));
    else if (/^-x./s.test(arg)) scripts.push(arg.slice(2));
  }
  return scripts;
}

/** `git config core.hooksPath X`, `--unset`, `set`/`unset`: writes; `--get` and a bare key only read. */
function configBypass(args: string[]): string | undefined {
  // `git config --edit` (with GIT_EDITOR='tee -a' and the text on stdin, say): any setting, core.hooksPath too, unread.
  const edits = args.find((arg) => arg === "-e" || arg === "--edit" || arg === "edit");
  if (edits !== undefined) return `git config ${edits} changes git's config in an editor, where core.hooksPath may be set unseen; set what you need with \`git config KEY VALUE\`, and ${FIX}`;
  const valueOptions = new Set(["-f", "--file", "--blob", "--type", "--default", "--comment", "--value"]);
  const positionals: string[] = [];
  let writes = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (valueOptions.has(arg)) i++;
    else if (/^--(unset|unset-all|add|replace-all)$/.test(arg)) writes = true;
    else if (/^--(remove|rename)-section$/.test(arg) || arg === "remove-section" || arg === "rename-section") {
      // Dropping or renaming the core section takes core.hooksPath with it; renaming one to core brings one in.
      const sections = args.slice(i + 1).filter((a) => !a.startsWith("-")).slice(0, arg.includes("rename") ? 2 : 1);
      if (sections.some((section) => section.toLowerCase() === "core")) return `git config ${args.map(displayWord).join(" ")} ${arg.includes("rename") ? "changes git's core section, where core.hooksPath lives, and so" : "drops core.hooksPath with the section and so changes"} which hooks git runs; leave it as the repository set it and ${FIX}`;
    }
    else if (!arg.startsWith("-")) positionals.push(arg);
  }
  const [first, second] = positionals;
  const key = first === "set" || first === "unset" ? second : first;
  // An include makes git read another file, which may set core.hooksPath.
  const includes = key !== undefined && /^(include\.path|includeif\..*\.path)$/i.test(key);
  if (key === undefined || (!isHooksPathKey(key) && !includes)) return undefined;
  const isWrite = writes || first === "set" || first === "unset" || positionals.length >= 2;
  if (!isWrite) return undefined;
  return `git config ${args.map(displayWord).join(" ")} changes which hooks git runs; leave core.hooksPath as the repository set it and ${FIX}`;
}

/** A word as it could be typed back into a shell, for reasons that quote a command. */
function displayWord(word: string): string {
  return /^[\w@%+=:,./~-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

