// block-git-hook-bypass: refuses shell commands that make git skip the repository's
// hooks (pre-commit, commit-msg, pre-push, …). The command is split the way the shell
// splits it (shell-words.ts), so a `--no-verify` inside a quoted commit message is
// text, while one inside `$( )`, `bash -c '…'` or after `&&` is a flag git will see.
// Options are read per git subcommand, because `-n` means --no-verify only for
// commit and am; for push it is --dry-run, for merge/pull/rebase --no-stat, for log a count.
import { isShellTool, shellCommandOf } from "../tools/declaration.ts";
import { parseShell, type ShellCommand } from "./shell-words.ts";
import type { HookInput } from "../protocol/hook-input.ts";
import type { BuiltinGate, GateVerdict } from "./types.ts";

const PASS: GateVerdict = { decision: "pass" };
const FIX = "fix what the hooks report";
/** `bash -c "sh -c '…'"` nests; deeper than this is not a command line anyone writes. */
const MAX_DEPTH = 8;

export const blockGitHookBypass: BuiltinGate = {
  id: "block-git-hook-bypass",
  description: "Refuses shell commands that skip the repository's git hooks (--no-verify, core.hooksPath, HUSKY=0, …).",
  events: ["pre_tool_use"],
  evaluate(input: HookInput): GateVerdict {
    const command = shellCommand(input);
    const reason = command === undefined ? undefined : findGitHookBypass(command);
    return reason === undefined ? PASS : { decision: "block", reason };
  },
};

/** The command of a shell call, OMP's spelling first; undefined for other tools. */
function shellCommand(input: HookInput): string | undefined {
  const toolName = input.omp?.tool_name ?? input.tool_name;
  if (toolName === undefined || !isShellTool(toolName)) return undefined;
  return shellCommandOf(input.tool_input) ?? shellCommandOf(input.omp?.tool_input);
}

/** Why `script` skips git hooks, or undefined when it does not. */
export function findGitHookBypass(script: string, depth = 0): string | undefined {
  if (depth > MAX_DEPTH) return undefined;
  for (const command of parseShell(script)) {
    const reason = checkCommand(command, depth);
    if (reason !== undefined) return reason;
  }
  return undefined;
}

function checkCommand(command: ShellCommand, depth: number): string | undefined {
  const { env, argv } = unwrap(command);
  const program = argv[0] === undefined ? undefined : basename(argv[0]);
  for (const script of nestedScripts(program, argv, command.stdin)) {
    const reason = findGitHookBypass(script, depth + 1);
    if (reason !== undefined) return reason;
  }
  if (program === "git") return envBypass(env) ?? gitBypass(argv.slice(1), depth);
  if (program !== undefined && EXPORTERS.has(program)) return exportBypass(program, argv.slice(1));
  return undefined;
}

// ---------------------------------------------------------------------------
// Wrappers: commands that run the rest of their arguments as a command.

interface WrapperSpec {
  /** Options that take the next word as their value. */
  argOptions: readonly string[];
  /** Operands before the command (timeout's DURATION). */
  operands?: number;
  /** `NAME=value` words before the command are its environment (env, sudo). */
  assignments?: boolean;
  /** Options after which nothing runs (`command -v git` only looks git up). */
  lookupOptions?: readonly string[];
}

const WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  env: { argOptions: ["-u", "--unset", "-C", "--chdir", "-S", "--split-string"], assignments: true },
  sudo: { argOptions: ["-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "-R"], assignments: true },
  doas: { argOptions: ["-u", "-C"] },
  command: { argOptions: [], lookupOptions: ["-v", "-V"] },
  builtin: { argOptions: [] },
  exec: { argOptions: ["-a"] },
  nohup: { argOptions: [] },
  time: { argOptions: ["-o", "-f", "--output", "--format"] },
  nice: { argOptions: ["-n", "--adjustment"] },
  timeout: { argOptions: ["-s", "--signal", "-k", "--kill-after"], operands: 1 },
  stdbuf: { argOptions: ["-i", "-o", "-e", "--input", "--output", "--error"] },
  xargs: { argOptions: ["-I", "-n", "-P", "-L", "-d", "-s", "-a", "-E", "--max-args", "--max-procs", "--delimiter", "--arg-file"] },
};

/** The command a wrapper chain runs, with the environment the chain gives it. */
function unwrap(command: ShellCommand): { env: Map<string, string>; argv: string[] } {
  const env = new Map(command.assignments.map(({ name, value }) => [name, value]));
  let argv = command.argv;
  for (let spec = wrapperOf(argv[0]); spec !== undefined; spec = wrapperOf(argv[0])) {
    argv = skipWrapper(spec, argv.slice(1), env);
  }
  return { env, argv };
}

function wrapperOf(word: string | undefined): WrapperSpec | undefined {
  return word === undefined ? undefined : WRAPPERS[basename(word)];
}

function skipWrapper(spec: WrapperSpec, args: string[], env: Map<string, string>): string[] {
  let i = 0;
  while (i < args.length && (args[i] as string).startsWith("-")) {
    const arg = args[i] as string;
    i++;
    if (arg === "--") break;
    if (spec.lookupOptions?.includes(arg)) return [];
    if (spec.argOptions.includes(arg)) i++;
  }
  i += spec.operands ?? 0;
  for (; spec.assignments && i < args.length; i++) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(args[i] as string);
    if (!match) break;
    env.set(match[1] as string, match[2] as string);
  }
  return args.slice(i);
}

// ---------------------------------------------------------------------------
// Scripts a command runs: `bash -c '…'`, `sh <<EOF`, `eval "…"`.

const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash"]);
const SHELL_ARG_OPTIONS = new Set(["-o", "+o", "-O", "+O", "--rcfile", "--init-file"]);

function nestedScripts(program: string | undefined, argv: string[], stdin: string[]): string[] {
  if (program === "eval") return [argv.slice(1).join(" ")];
  if (program === undefined || !SHELLS.has(program)) return [];
  let readsString = false;
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--" || arg === "-") {
      if (readsString) return argv.slice(i + 1, i + 2);
      return i + 1 === argv.length ? stdin : [];
    }
    if (SHELL_ARG_OPTIONS.has(arg)) {
      i++;
    } else if (/^-[A-Za-z]+$/.test(arg)) {
      readsString ||= arg.includes("c");
    } else if (!arg.startsWith("-") && !arg.startsWith("+")) {
      // The first operand is the script itself (-c) or a script file, which Tama cannot read.
      return readsString ? [arg] : [];
    }
  }
  return readsString ? [] : stdin;
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
  return ENV_RULES.find((rule) => rule.matches(name) && rule.bypasses(value));
}

/** An off switch in the environment of a git command. */
function envBypass(env: Map<string, string>): string | undefined {
  for (const [name, value] of env) {
    const rule = envRuleFor(name, value);
    if (rule) return `${name}=${value} ${rule.effect}; run git without it and ${FIX}`;
  }
  return undefined;
}

/** `export`/`declare -x` put an off switch in every later git command's environment. */
const EXPORTERS = new Set(["export", "declare", "typeset"]);

function exportBypass(program: string, args: string[]): string | undefined {
  const exports = program === "export" || args.some((arg) => /^-[A-Za-z]*x/.test(arg));
  if (!exports) return undefined;
  for (const arg of args) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(arg);
    const rule = match && envRuleFor(match[1] as string, match[2] as string);
    if (rule) return `${program} ${arg} ${rule.effect} for every later git command; leave it unset and ${FIX}`;
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

function gitBypass(args: string[], depth: number): string | undefined {
  let i = 0;
  for (; i < args.length && (args[i] as string).startsWith("-"); i++) {
    const arg = args[i] as string;
    const value = GIT_GLOBAL_ARG_OPTIONS.has(arg) ? args[++i] : undefined;
    const reason = globalConfigBypass(arg, value);
    if (reason !== undefined) return reason;
  }
  const subcommand = args[i];
  if (subcommand === undefined) return undefined;
  if (subcommand === "config") return configBypass(args.slice(i + 1));
  if (subcommand === "rebase") {
    const reason = rebaseExecScripts(args.slice(i + 1)).map((script) => findGitHookBypass(script, depth + 1)).find(Boolean);
    if (reason !== undefined) return reason;
  }
  const spec = SUBCOMMANDS[subcommand];
  const found = spec && findSwitch(spec, args.slice(i + 1));
  if (!spec || !found) return undefined;
  const spelled = found.flag === found.canonical ? found.flag : `${found.flag} (${found.canonical})`;
  return `git ${subcommand} ${spelled} skips the repository's ${found.hooks}; run the ${subcommand} without it and ${FIX}`;
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
  /** As written: `--no-verify`, `-n`, `--no-verif`. */
  flag: string;
  canonical: string;
  hooks: string;
}

/**
 * The hook-skipping switch in a subcommand's arguments, read the way git's
 * parse-options reads them: short clusters, values glued or in the next word,
 * `--` ending options, the last of --no-verify/--verify winning.
 */
function findSwitch(spec: SubcommandSpec, args: string[]): FoundSwitch | undefined {
  let noVerify: string | undefined;
  let other: FoundSwitch | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--") break;
    if (arg.startsWith("--")) {
      const otherHooks = spec.otherSwitches?.[arg];
      if (NO_VERIFY_SPELLINGS.test(arg)) noVerify = arg;
      else if (arg === "--verify") noVerify = undefined;
      else if (otherHooks !== undefined) other = { flag: arg, canonical: arg, hooks: otherHooks };
      else if (spec.longWithValue.includes(arg.slice(2))) i++;
    } else if (arg.startsWith("-") && arg.length > 1) {
      const short = readShortCluster(spec, arg);
      if (short.noVerify) noVerify = `-${spec.noVerifyShort}`;
      if (short.takesNextWord) i++;
    }
  }
  if (noVerify !== undefined) return { flag: noVerify, canonical: "--no-verify", hooks: spec.hooks };
  return other;
}

/** One `-abc` word: whether it holds the -n switch before an option that takes the rest as its value. */
function readShortCluster(spec: SubcommandSpec, word: string): { noVerify: boolean; takesNextWord: boolean } {
  let noVerify = false;
  for (let j = 1; j < word.length; j++) {
    const letter = word[j] as string;
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
  const valueOptions = new Set(["-f", "--file", "--blob", "--type", "--default", "--comment", "--value"]);
  const positionals: string[] = [];
  let writes = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (valueOptions.has(arg)) i++;
    else if (/^--(unset|unset-all|add|replace-all)$/.test(arg)) writes = true;
    else if (!arg.startsWith("-")) positionals.push(arg);
  }
  const [first, second] = positionals;
  const key = first === "set" || first === "unset" ? second : first;
  if (key === undefined || !isHooksPathKey(key)) return undefined;
  const isWrite = writes || first === "set" || first === "unset" || positionals.length >= 2;
  if (!isWrite) return undefined;
  return `git config ${args.map(displayWord).join(" ")} changes which hooks git runs; leave core.hooksPath as the repository set it and ${FIX}`;
}

/** A word as it could be typed back into a shell, for reasons that quote a command. */
function displayWord(word: string): string {
  return /^[\w@%+=:,./~-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

function basename(word: string): string {
  return word.slice(word.lastIndexOf("/") + 1);
}
