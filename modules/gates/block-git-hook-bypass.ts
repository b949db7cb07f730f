// block-git-hook-bypass: refuses shell commands that make git skip the repository's
// hooks (pre-commit, commit-msg, pre-push, …). The command is split the way the shell
// splits it (shell-words.ts), so a `--no-verify` inside a quoted commit message is
// text, while one inside `$( )`, `bash -c '…'` or after `&&` is a flag git will see.
// Options are read per git subcommand, because `-n` means --no-verify only for
// commit and am; for push it is --dry-run, for merge/pull/rebase --no-stat, for log a count.
import { callKind, codeOf, shellCommandOf, shellEnvOf } from "../tools/declaration.ts";
import { readCode, shellLine } from "../tools/code-reading.ts";
import { parseShell, type ShellCommand } from "./shell-words.ts";
import path from "node:path";
import { envConfigFiles, gitAliases, gitConfigEntries, normalizeKey, type GitConfigEntry } from "./git-config.ts";
import type { HookInput } from "../protocol/hook-input.ts";
import type { BuiltinGate, GateVerdict } from "./types.ts";

const PASS: GateVerdict = { decision: "pass" };
const FIX = "fix what the hooks report";
/** `bash -c "sh -c '…'"` nests; deeper than this is not a command line anyone writes. */
const MAX_DEPTH = 8;

export const blockGitHookBypass: BuiltinGate = {
  id: "block-git-hook-bypass",
  description: "Refuses shell commands and code that skip the repository's git hooks (--no-verify, core.hooksPath, HUSKY=0, …).",
  events: ["pre_tool_use"],
  evaluate(input: HookInput): GateVerdict {
    const call = readableScripts(input);
    if (call === undefined) return PASS;
    const scope: Scope = { env: new Map(Object.entries(call.env ?? {})), cwd: input.cwd };
    for (const script of call.scripts) {
      const reason = findIn(script, 0, scope);
      if (reason !== undefined) return { decision: "block", reason: call.prefix + reason };
    }
    return PASS;
  },
};

/**
 * What a call runs as shell: a shell call's command (with OMP's bash `env`), or the
 * readable command lines of a code-execution call. Undefined for other tools.
 */
function readableScripts(input: HookInput): { scripts: string[]; env?: Record<string, string>; prefix: string } | undefined {
  const toolName = input.tool_name ?? input.omp?.tool_name;
  if (toolName === undefined) return undefined;
  const kind = input.omp?.kind ?? callKind(toolName, input.tool_input);
  if (kind === "shell") {
    const command = shellCommandOf(input.tool_input) ?? shellCommandOf(input.omp?.tool_input);
    if (command === undefined) return undefined;
    const env = shellEnvOf(input.tool_input) ?? shellEnvOf(input.omp?.tool_input);
    // A command read out of code (eval's subprocess call) says where it came from.
    const outer = input.omp?.tool_name;
    const fromCode = outer !== undefined && outer !== toolName && callKind(outer, input.omp?.tool_input) === "code";
    return { scripts: [command], ...(env ? { env } : {}), prefix: fromCode ? `${outer} code runs a command: ` : "" };
  }
  if (kind !== "code") return undefined;
  const code = codeOf(toolName, input.tool_input);
  if (code === undefined) return undefined;
  const fields = (input.tool_input ?? {}) as Record<string, unknown>;
  if (code.language === "program") {
    const program = typeof fields.program === "string" ? fields.program : undefined;
    const args = Array.isArray(fields.args) ? fields.args.filter((a): a is string => typeof a === "string") : [];
    return program === undefined ? undefined : { scripts: [shellLine([program, ...args])], prefix: `${toolName} runs: ` };
  }
  const reading = readCode(code.code, code.language);
  // Code that starts processes may hand them any of its literals through a variable.
  const scripts = [...reading.commands, ...(reading.startsProcesses ? reading.literals : [])];
  return { scripts, prefix: `${toolName} code runs a command: ` };
}

/** What a command line is read under: the environment it gets (the call's own `env` too) and its directory. */
interface Scope {
  env: ReadonlyMap<string, string>;
  cwd: string | undefined;
}

/** Why `script` skips git hooks, or undefined when it does not. */
export function findGitHookBypass(script: string, depth = 0, env: Record<string, string> = {}, cwd?: string): string | undefined {
  return findIn(script, depth, { env: new Map(Object.entries(env)), cwd });
}

function findIn(script: string, depth: number, scope: Scope): string | undefined {
  if (depth > MAX_DEPTH) return undefined;
  for (const command of parseShell(script)) {
    const reason = checkCommand(command, depth, scope);
    if (reason !== undefined) return reason;
  }
  return undefined;
}

function checkCommand(command: ShellCommand, depth: number, scope: Scope): string | undefined {
  const env = new Map(scope.env);
  for (const { name, value } of command.assignments) env.set(name, value);
  const { argv, scripts } = unwrap(command.argv, env);
  const inner: Scope = { ...scope, env };
  const program = argv[0] === undefined ? undefined : basename(argv[0]);
  for (const script of [...scripts, ...nestedScripts(program, argv, command.stdin)]) {
    const reason = findIn(script, depth + 1, inner);
    if (reason !== undefined) return reason;
  }
  if (program === "git") return envBypass(env) ?? gitBypass(argv.slice(1), depth, inner);
  if (program !== undefined && EXPORTERS.has(program)) return exportBypass(program, argv.slice(1));
  return undefined;
}

// ---------------------------------------------------------------------------
// Wrappers: commands that run the rest of their arguments as a command.

interface WrapperSpec {
  /** Options that take the next word as their value. */
  argOptions: readonly string[];
  /** Operands before the command (timeout's DURATION, flock's lock file, chroot's root). */
  operands?: number;
  /** `NAME=value` words before the command are its environment (env, sudo). */
  assignments?: boolean;
  /** Options after which nothing runs (`command -v git` only looks git up, `ionice -p` sets a running process). */
  lookupOptions?: readonly string[];
  /** Options whose value is a shell command line the wrapper runs (`flock -c`, `su -c`, `script -c`). */
  scriptOptions?: readonly string[];
  /** The rest of the words is one shell line (watch and sg hand it to `sh -c`). */
  restIsScript?: boolean;
}

const WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  env: { argOptions: ["-u", "--unset", "-C", "--chdir", "-P", "--block-signal", "--default-signal", "--ignore-signal"], assignments: true },
  sudo: { argOptions: ["-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "-R", "--user", "--group", "--host", "--prompt", "--chdir", "--role", "--type", "--other-user", "--command-timeout", "--close-from", "--chroot"], assignments: true },
  doas: { argOptions: ["-u", "-C"] },
  pkexec: { argOptions: ["--user"] },
  run0: { argOptions: ["-u", "--user", "-g", "--group", "-D", "--chdir", "--setenv", "--description", "--slice", "--nice", "--unit", "--property"] },
  command: { argOptions: [], lookupOptions: ["-v", "-V"] },
  builtin: { argOptions: [] },
  exec: { argOptions: ["-a"] },
  nohup: { argOptions: [] },
  setsid: { argOptions: [] },
  time: { argOptions: ["-o", "-f", "--output", "--format"] },
  nice: { argOptions: ["-n", "--adjustment"] },
  ionice: { argOptions: ["-c", "-n", "--class", "--classdata"], lookupOptions: ["-p", "-P", "-u", "--pid", "--pgid", "--uid"] },
  chrt: { argOptions: ["-T", "-P", "-D", "--sched-runtime", "--sched-period", "--sched-deadline"], operands: 1, lookupOptions: ["-p", "--pid"] },
  taskset: { argOptions: [], operands: 1, lookupOptions: ["-p", "--pid"] },
  numactl: { argOptions: ["-C", "-N", "-m", "-i", "-p", "-P", "--cpunodebind", "--membind", "--physcpubind", "--interleave", "--preferred", "--preferred-many"] },
  timeout: { argOptions: ["-s", "--signal", "-k", "--kill-after"], operands: 1 },
  stdbuf: { argOptions: ["-i", "-o", "-e", "--input", "--output", "--error"] },
  xargs: { argOptions: ["-I", "-n", "-P", "-L", "-d", "-s", "-a", "-E", "--max-args", "--max-procs", "--delimiter", "--arg-file", "--max-lines", "--max-chars", "--eof", "--replace", "--process-slot-var"] },
  flock: { argOptions: ["-w", "--wait", "--timeout", "-E", "--conflict-exit-code"], operands: 1, scriptOptions: ["-c", "--command"] },
  strace: { argOptions: ["-o", "-e", "-p", "-s", "-u", "-a", "-b", "-I", "-E", "-S", "-P", "-O", "-X", "--output", "--trace", "--signal", "--status", "--attach", "--user", "--env", "--trace-path", "--string-limit", "--columns"] },
  ltrace: { argOptions: ["-o", "-e", "-p", "-s", "-u", "-a", "-A", "-D", "-F", "-l", "-n", "-w", "-x", "--output", "--library", "--indent", "--where"] },
  unbuffer: { argOptions: [] },
  chronic: { argOptions: [] },
  busybox: { argOptions: [] },
  chroot: { argOptions: ["--userspec", "--groups"], operands: 1 },
  nsenter: { argOptions: ["-t", "--target", "-S", "--setuid", "-G", "--setgid"] },
  unshare: { argOptions: ["--propagation", "-R", "--root", "-w", "--wd", "-S", "--setuid", "-G", "--setgid", "--map-user", "--map-group"] },
  firejail: { argOptions: [] },
  faketime: { argOptions: [], operands: 1 },
  caffeinate: { argOptions: ["-t", "-w"] },
  "dbus-run-session": { argOptions: ["--config-file", "--dbus-daemon"] },
  "ssh-agent": { argOptions: ["-a", "-E", "-P", "-t", "-O"] },
  "systemd-run": { argOptions: ["-u", "--unit", "-p", "--property", "--description", "--slice", "-M", "--machine", "-H", "--host", "--uid", "--gid", "--nice", "-D", "--working-directory", "--on-active", "--on-boot", "--on-calendar"] },
  script: { argOptions: ["-E", "--echo", "-I", "--log-in", "-O", "--log-out", "-B", "--log-io", "-T", "--log-timing", "-m", "--logging-format"], scriptOptions: ["-c", "--command"] },
  su: { argOptions: ["-s", "--shell", "-g", "--group", "-G", "--supp-group", "-w", "--whitelist-environment"], scriptOptions: ["-c", "--command", "--session-command"] },
  runuser: { argOptions: ["-u", "--user", "-s", "--shell", "-g", "--group", "-G", "--supp-group", "-w", "--whitelist-environment"], scriptOptions: ["-c", "--command", "--session-command"] },
  watch: { argOptions: ["-n", "--interval", "-q", "--equexit", "-d", "--differences"], restIsScript: true },
  sg: { argOptions: [], operands: 1, scriptOptions: ["-c"], restIsScript: true },
};

/** The command a wrapper chain runs, and the shell lines wrappers run on the way. */
function unwrap(start: readonly string[], env: Map<string, string>): { argv: string[]; scripts: string[] } {
  let argv = [...start];
  const scripts: string[] = [];
  for (let guard = 0; guard < 32; guard++) {
    const program = argv[0] === undefined ? undefined : basename(argv[0]);
    if (program === "find") {
      scripts.push(...findExecScripts(argv.slice(1)));
      return { argv: [], scripts };
    }
    if (program === "gdb" && argv.includes("--args")) {
      argv = argv.slice(argv.indexOf("--args") + 1);
      continue;
    }
    const spec = program === undefined ? undefined : WRAPPERS[program];
    if (spec === undefined) break;
    const next = skipWrapper(program as string, spec, argv.slice(1), env, scripts);
    if (next === undefined) return { argv: [], scripts };
    argv = next;
  }
  return { argv, scripts };
}

/** `env -S 'git commit -n'`: env splits the string into words itself (quotes honoured). */
function splitString(value: string): string[] {
  const [first] = parseShell(value);
  if (!first) return [];
  return [...first.assignments.map(({ name, value: v }) => `${name}=${v}`), ...first.argv];
}

function skipWrapper(program: string, spec: WrapperSpec, input: string[], env: Map<string, string>, scripts: string[]): string[] | undefined {
  let args = input;
  let i = 0;
  let restIsScript = spec.restIsScript === true;
  while (i < args.length && (args[i] as string).startsWith("-") && args[i] !== "-") {
    const arg = args[i] as string;
    i++;
    if (arg === "--") break;
    const [name, glued] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    if (program === "env" && (name === "-S" || name === "--split-string" || /^-S./s.test(arg))) {
      const value = glued ?? (name === "-S" || name === "--split-string" ? args[i++] : arg.slice(2)) ?? "";
      args = [...splitString(value), ...args.slice(i)];
      i = 0;
      continue;
    }
    if (spec.lookupOptions?.includes(name)) return undefined;
    if (spec.scriptOptions?.includes(name)) {
      const value = glued ?? args[i++];
      if (value !== undefined) scripts.push(value);
      restIsScript = false;
      continue;
    }
    if (program === "watch" && (name === "-x" || name === "--exec")) restIsScript = false;
    if (spec.argOptions.includes(name) && glued === undefined) i++;
  }
  i += spec.operands ?? 0;
  // `su -c` and `flock -c` may follow the operands (`flock /tmp/lock -c '…'`, `su root -c '…'`).
  for (let j = i; j < args.length; j++) {
    const arg = args[j] as string;
    if (spec.scriptOptions?.includes(arg) && args[j + 1] !== undefined) {
      scripts.push(args[j + 1] as string);
      return undefined;
    }
  }
  for (; spec.assignments && i < args.length; i++) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(args[i] as string);
    if (!match) break;
    env.set(match[1] as string, match[2] as string);
  }
  if (spec.scriptOptions !== undefined && (program === "su" || program === "runuser") && !args.slice(0, i).some((a) => a === "-u" || a === "--user")) {
    // su's operands are a user and the shell's arguments, not a command.
    return scripts.length > 0 ? undefined : [];
  }
  const rest = args.slice(i);
  if (restIsScript && rest.length > 0) {
    scripts.push(rest.join(" "));
    return undefined;
  }
  return rest;
}

/** `find … -exec CMD {} ;` (and -execdir, -ok, -okdir): each runs CMD per file. */
function findExecScripts(args: readonly string[]): string[] {
  const scripts: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (!["-exec", "-execdir", "-ok", "-okdir"].includes(args[i] as string)) continue;
    const words: string[] = [];
    for (i++; i < args.length && args[i] !== ";" && args[i] !== "+"; i++) words.push(args[i] as string);
    if (words.length > 0) scripts.push(shellLine(words));
  }
  return scripts;
}

// ---------------------------------------------------------------------------
// Scripts a command runs: `bash -c '…'`, `sh <<EOF`, `eval "…"`, `python3 -c '…'`.

const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "fish", "tcsh", "csh"]);
const SHELL_ARG_OPTIONS = new Set(["-o", "+o", "-O", "+O", "--rcfile", "--init-file"]);

/** Interpreters whose inline code flag runs code Tama reads like eval's. */
const INTERPRETERS: Readonly<Record<string, { flags: readonly string[]; language: "python" | "javascript" | "unknown" }>> = {
  python: { flags: ["-c"], language: "python" },
  python3: { flags: ["-c"], language: "python" },
  node: { flags: ["-e", "--eval", "-p", "--print"], language: "javascript" },
  bun: { flags: ["-e", "--eval", "-p", "--print"], language: "javascript" },
  deno: { flags: ["eval"], language: "javascript" },
  perl: { flags: ["-e", "-E"], language: "unknown" },
  ruby: { flags: ["-e"], language: "unknown" },
  php: { flags: ["-r"], language: "unknown" },
};

function interpreterOf(program: string): (typeof INTERPRETERS)[string] | undefined {
  return INTERPRETERS[program] ?? (/^python3(\.\d+)?$/.test(program) ? INTERPRETERS.python : undefined);
}

function nestedScripts(program: string | undefined, argv: string[], stdin: string[]): string[] {
  if (program === "eval") return [argv.slice(1).join(" ")];
  if (program === undefined) return [];
  const interpreter = interpreterOf(program);
  if (interpreter) {
    const at = argv.findIndex((arg, i) => i > 0 && interpreter.flags.includes(arg));
    const glued = argv.find((arg, i) => i > 0 && interpreter.flags.some((flag) => flag.startsWith("--") && arg.startsWith(`${flag}=`)));
    const code = at > 0 ? argv[at + 1] : glued?.slice(glued.indexOf("=") + 1);
    if (code === undefined) return [];
    const reading = readCode(code, interpreter.language);
    return [...reading.commands, ...(reading.startsProcesses ? reading.literals : [])];
  }
  if (!SHELLS.has(program)) return [];
  let readsString = false;
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--" || arg === "-") {
      if (readsString) return argv.slice(i + 1, i + 2);
      return i + 1 === argv.length ? stdin : [];
    }
    if (arg === "--command" || arg === "-C") return argv.slice(i + 1, i + 2); // fish
    if (arg.startsWith("--command=")) return [arg.slice("--command=".length)];
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

/** git's own commands: an alias of one of these names is never used (git runs the command). */
const GIT_BUILTINS = new Set(
  "add am annotate apply archive bisect blame branch bundle checkout cherry cherry-pick clean clone commit config describe diff fetch format-patch fsck gc grep init log ls-files merge mv notes pull push range-diff rebase reflog remote reset restore revert rm shortlog show sparse-checkout stash status submodule switch tag worktree".split(" "),
);
/** An alias that expands to another alias; git stops at loops, Tama at this depth. */
const MAX_ALIAS_DEPTH = 10;

function gitBypass(args: string[], depth: number, scope: Scope, aliasDepth = 0, inherited: readonly GitConfigEntry[] = []): string | undefined {
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
  const fileReason = configFileBypass(scope, cwd);
  if (fileReason !== undefined) return fileReason;
  const subcommand = args[i];
  if (subcommand === undefined) return undefined;
  if (subcommand === "config") return configBypass(args.slice(i + 1));
  if (!GIT_BUILTINS.has(subcommand) && aliasDepth < MAX_ALIAS_DEPTH) {
    const alias = gitAliases({ cwd, env: scope.env, inline, ...(gitDir !== undefined ? { gitDir } : {}) }).get(subcommand.toLowerCase());
    if (alias !== undefined) return aliasBypass(subcommand, alias, args.slice(i + 1), depth, { ...scope, cwd }, aliasDepth, inline);
  }
  if (subcommand === "rebase") {
    const reason = rebaseExecScripts(args.slice(i + 1)).map((script) => findIn(script, depth + 1, scope)).find(Boolean);
    if (reason !== undefined) return reason;
  }
  const spec = SUBCOMMANDS[subcommand];
  const found = spec && findSwitch(spec, args.slice(i + 1));
  if (!spec || !found) return undefined;
  const spelled = found.flag === found.canonical ? found.flag : `${found.flag} (${found.canonical})`;
  return `git ${subcommand} ${spelled} skips the repository's ${found.hooks}; run the ${subcommand} without it and ${FIX}`;
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
): string | undefined {
  const explain = (reason: string) => `git ${name} is the alias "${alias}": ${reason}`;
  if (alias.startsWith("!")) {
    const reason = findIn([alias.slice(1), ...rest.map((word) => shellLine([word]))].join(" "), depth + 1, scope);
    return reason === undefined ? undefined : explain(reason);
  }
  const words = parseShell(alias)[0];
  if (!words) return undefined;
  const expanded = [...words.assignments.map(({ name: n, value }) => `${n}=${value}`), ...words.argv, ...rest];
  const reason = gitBypass(expanded, depth, scope, aliasDepth + 1, inline);
  return reason === undefined ? undefined : explain(reason);
}

/** GIT_CONFIG_GLOBAL and the like naming a file that sets core.hooksPath. */
function configFileBypass(scope: Scope, cwd: string | undefined): string | undefined {
  for (const { name, file } of envConfigFiles(scope.env, cwd)) {
    const env = new Map([["GIT_CONFIG_GLOBAL", file]]);
    const entries = gitConfigEntries({ cwd: undefined, env, inline: [] });
    const hooksPath = entries.find((entry) => entry.key === "core.hookspath");
    if (hooksPath !== undefined) {
      return `${name}=${scope.env.get(name)} names a config file that sets core.hooksPath and so points git at another hooks directory; run git without it and ${FIX}`;
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
