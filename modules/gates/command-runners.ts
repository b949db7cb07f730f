// Programs that run shell commands written in their own languages: a debugger's
// `shell` and `!`, an editor's `:!`, awk's `system()` and pipes, sed's `e`, a database
// shell's `\!` and `.shell`, tmux and screen command strings, Tcl's `exec` and
// `spawn`, git's command-valued settings and the subcommands that run a command
// (`submodule foreach`, `bisect run`, `difftool -x`, …). The walker (shell-walk.ts)
// reads what these hand to a shell as it reads `bash -c`, so every shell gate sees
// `gdb -batch -ex 'shell git commit --no-verify'` as the git command it runs.
//
// A language read here is read for its shell escapes and, where it can start a
// process, for every string literal (as code-reading.ts reads code): a literal that
// only looks like a refused command is refused too, which costs a rephrasing, never
// a command run unread.
import { readCode, shellLine } from "../tools/code-reading.ts";
import type { CodeLanguage } from "../tools/declaration.ts";
import { normalizeKey } from "./git-config.ts";

/** Characters of one language text read for escapes; a longer text is read up to here and refused past it (TOO_LONG). */
const MAX_TEXT = 256 * 1024;

/**
 * Programs whose options hand them lines of their own command language, by option
 * (`-ex` for gdb); `stdin`: the program reads such lines from its standard input
 * (`gdb -batch <<< 'shell …'`, `sqlite3 db <<< '.shell …'`, `ed -s f <<< '!…'`).
 */
interface LanguageSpec {
  options: readonly string[];
  /** Options that take a value the program does not run (skipped with their value when finding operands). */
  valued?: readonly string[];
  /** `+CMD` arguments are commands (vim, less). */
  plusCommands?: boolean;
  /** Operands after the first are commands (sqlite3 DB SQL…). */
  operands?: "after-first";
  stdin?: boolean;
}

const LANGUAGES: Readonly<Record<string, LanguageSpec>> = {
  gdb: { options: ["-ex", "--ex", "-eval-command", "--eval-command", "-iex", "--iex", "-init-eval-command", "--init-eval-command"], stdin: true },
  lldb: { options: ["-o", "--one-line", "-O", "--one-line-before-file", "-k", "--one-line-on-crash", "-K"], stdin: true },
  vim: { options: ["-c", "--cmd"], plusCommands: true, stdin: true },
  ed: { options: [], stdin: true },
  less: { options: [], plusCommands: true },
  emacs: { options: ["--eval", "-eval", "--execute", "-execute"] },
  expect: { options: ["-c"], stdin: true },
  tclsh: { options: [], stdin: true },
  sqlite3: { options: ["-cmd", "--cmd"], valued: ["-separator", "-newline", "-nullvalue", "-init", "-vfs", "-mmap", "-pagecache", "-lookaside", "-maxsize"], operands: "after-first", stdin: true },
  psql: { options: ["-c", "--command"], stdin: true },
  mysql: { options: ["-e", "--execute"], stdin: true },
  awk: { options: ["-e", "--source"] },
};

/** Other names of the programs above. */
const ALIASES: Readonly<Record<string, string>> = {
  "gdb-multiarch": "gdb",
  gdbtui: "gdb",
  "lldb-mi": "lldb",
  vi: "vim",
  nvim: "vim",
  vimdiff: "vim",
  view: "vim",
  gvim: "vim",
  rvim: "vim",
  ex: "vim",
  red: "ed",
  more: "less",
  wish: "tclsh",
  sqlite: "sqlite3",
  mariadb: "mysql",
  gawk: "awk",
  mawk: "awk",
  nawk: "awk",
};

/** Shells named outside the POSIX family whose `-c` (or `-Command`) value is a command line. */
const OTHER_SHELLS: Readonly<Record<string, readonly string[]>> = {
  pwsh: ["-c", "-command", "-co", "-com", "-comm", "-comma", "-comman"],
  powershell: ["-c", "-command", "-co", "-com", "-comm", "-comma", "-comman"],
  nu: ["-c", "--commands"],
  xonsh: ["-c"],
  elvish: ["-c"],
  ion: ["-c"],
  oil: ["-c"],
  osh: ["-c"],
  ysh: ["-c"],
  rc: ["-c"],
  es: ["-c"],
};

/** PowerShell's base64 (UTF-16LE) command, spelled any way PowerShell accepts a prefix of it. */
const ENCODED_COMMAND = /^-e(c|n|nc|nco|ncod|ncode|ncoded|ncodedc|ncodedco|ncodedcom|ncodedcomm|ncodedcomma|ncodedcomman|ncodedcommand)?$/i;

/**
 * The shell command lines `program` runs from its own arguments and standard input
 * (`stdin`: the here-documents and here-strings it is given), beyond its argv as a
 * command. `env`: the command's environment, for git's command-valued variables.
 */
export function runnerScripts(program: string | undefined, argv: readonly string[], stdin: readonly string[], env: ReadonlyMap<string, string>): string[] {
  if (program === undefined) return [];
  const name = program.toLowerCase().replace(/\.exe$/, "");
  if (name === "git") return gitScripts(argv.slice(1), env);
  if (name === "sed" || name === "gsed") return sedScripts(argv.slice(1));
  if (name === "screen") return screenScripts(argv.slice(1));
  if (name === "tmux") return tmuxScripts(argv.slice(1));
  if (name === "make" || name === "gmake") return makeScripts(argv.slice(1), stdin);
  const shellOptions = OTHER_SHELLS[name];
  if (shellOptions !== undefined) return otherShellScripts(argv.slice(1), shellOptions, name === "pwsh" || name === "powershell");
  const language = ALIASES[name] ?? name;
  const spec = LANGUAGES[language];
  if (spec === undefined) return [];
  const texts = languageTexts(language, spec, argv.slice(1), stdin);
  return texts.flatMap((text) => commandsInText(text));
}

/** The arguments (and stdin) that hold the program's own command language. */
function languageTexts(language: string, spec: LanguageSpec, args: readonly string[], stdin: readonly string[]): string[] {
  const texts: string[] = [];
  const operands: string[] = [];
  let programGiven = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const eq = arg.indexOf("=");
    const [option, glued] = arg.startsWith("--") && eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, undefined];
    if (spec.options.includes(option)) {
      const value = glued ?? args[++i];
      if (value !== undefined) texts.push(value);
      programGiven = true;
      continue;
    }
    // `-ccmd` (vim, psql), `-eCODE` (mysql): a short option glued to its value.
    const short = spec.options.find((o) => o.length === 2 && arg.length > 2 && arg.startsWith(o) && !arg.startsWith("--"));
    if (short !== undefined && language !== "gdb" && language !== "sqlite3") {
      texts.push(arg.slice(2));
      programGiven = true;
      continue;
    }
    if (spec.plusCommands && arg.startsWith("+") && arg.length > 1) {
      texts.push(arg.slice(1));
      continue;
    }
    if (language === "awk" && (arg === "-f" || arg === "--file")) {
      // The program is in a file, which is not read; the operands are its input files.
      i++;
      programGiven = true;
      continue;
    }
    if (spec.valued?.includes(arg) || (language === "awk" && (arg === "-v" || arg === "-F"))) {
      i++;
      continue;
    }
    if (arg === "--") {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (arg.startsWith("-") && arg !== "-") continue;
    operands.push(arg);
  }
  // awk's program is its first operand unless -e or -f gave it.
  if (language === "awk" && !programGiven && operands[0] !== undefined) texts.push(operands[0]);
  if (spec.operands === "after-first") texts.push(...operands.slice(1));
  if (spec.stdin) texts.push(...stdin);
  return texts;
}

/** Line starts that hand the rest of the line to a shell, across these languages. */
const ESCAPE_PREFIXES: readonly RegExp[] = [
  // gdb `shell`, lldb `platform shell`, sqlite3 `.shell`/`.system`, mysql `system`, vim `:sh`/`:terminal`, Tcl/expect `exec`/`spawn`/`system`
  /^(?:platform\s+shell|\.shell|\.system|shell|system|terminal|term|exec|spawn|run-shell|run|new-session|new-window|split-window|respawn-pane|respawn-window|if-shell|pipe-pane|display-popup|popup)\b(?:\s+-{1,2}[A-Za-z-]+)*\s+(.*)$/s,
  // gdb `pipe CMD | SHELL`, `| CMD | SHELL`
  /^(?:pipe\b|\|)[^|]*\|\s*(.*)$/s,
];

/** A language word that makes the text's string literals what a process may run. */
const PROCESS_WORDS = /\b(?:system2?|popen|exec\w*|spawn\w*|execute|shell(?:-command\w*)?|call-process\w*|start-process\w*|make-process|process-lines|getline|terminal|pipe|run|call|Popen|check_output|check_call|subprocess|_shell)\b|\|/;

/** Script languages these programs embed, by the command that starts a line of one. */
const EMBEDDED: Readonly<Record<string, CodeLanguage>> = {
  python: "python",
  python3: "python",
  py: "python",
  py3: "python",
  pyx: "python",
  pi: "python",
  "python-interactive": "python",
  script: "python",
  perl: "unknown",
  ruby: "unknown",
  lua: "unknown",
  guile: "unknown",
  tcl: "unknown",
};

/**
 * The shell lines a text of one of these languages runs: the rest of each line after
 * a shell escape (`!`, `shell`, `.system`, `\!`, `platform shell`, …), embedded script
 * code read as code, and, when the text can start a process at all, each string literal.
 */
export function commandsInText(text: string): string[] {
  const source = text.length > MAX_TEXT ? text.slice(0, MAX_TEXT) : text;
  const commands: string[] = [];
  for (const rawLine of source.split(/\r?\n|;(?=\s*(?:!|shell\b|\.shell\b|\.system\b|system\b))/)) {
    const line = rawLine.trim().replace(/^[:\s]+/, "").replace(/^(?:silent!?|sil!?|exe(?:cute)?|keepalt)\s+/, "");
    for (const prefix of ESCAPE_PREFIXES) {
      const rest = prefix.exec(line)?.[1];
      if (rest !== undefined && rest.trim().length > 0) commands.push(rest);
    }
    // `!cmd`, `:r !cmd`, `%!cmd`, `\! cmd`, `w !cmd`: the rest of the line after each `!` (not `!=`, `!~`).
    for (const match of line.matchAll(/!(?![=~])/g)) {
      const rest = line.slice((match.index ?? 0) + 1).trim();
      if (rest.length > 0) commands.push(rest);
    }
    const embedded = /^([a-z][a-z0-9-]*)\s+(.*)$/s.exec(line);
    const language = embedded ? EMBEDDED[embedded[1] as string] : undefined;
    if (language !== undefined) {
      const reading = readCode(embedded?.[2] ?? "", language);
      commands.push(...reading.commands, ...(reading.startsProcesses ? reading.literals : []));
    }
  }
  if (PROCESS_WORDS.test(source)) {
    const reading = readCode(source, "unknown");
    commands.push(...reading.commands, ...reading.literals);
  }
  return [...new Set(commands)];
}

// ---------------------------------------------------------------------------
// sed: the `e` command runs a line; the `e` flag of `s` runs the pattern space it made.

function sedScripts(args: readonly string[]): string[] {
  const scripts: string[] = [];
  let given = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "-e" || arg === "--expression") {
      scripts.push(args[++i] ?? "");
      given = true;
    } else if (arg.startsWith("--expression=")) {
      scripts.push(arg.slice("--expression=".length));
      given = true;
    } else if (/^-[nrEsuzi]*e.+/.test(arg) && !arg.startsWith("--")) {
      scripts.push(arg.slice(arg.indexOf("e") + 1));
      given = true;
    } else if (arg === "-f" || arg === "--file" || arg === "-l" || arg === "--line-length") {
      if (arg === "-f" || arg === "--file") given = true;
      i++;
    } else if (!arg.startsWith("-") && !given) {
      scripts.push(arg);
      given = true;
    }
  }
  return scripts.flatMap(sedCommands);
}

/** The command lines a sed script runs: `e CMD`, and `s/…/REPLACEMENT/e` (its replacement, as far as text shows it). */
function sedCommands(script: string): string[] {
  const commands: string[] = [];
  for (const match of script.matchAll(/(?:^|[;\n{}])\s*(?:[0-9$,/\\.^*!]+\s*)?e\s+([^\n;}]+)/g)) commands.push(match[1] as string);
  for (let i = 0; i < script.length; i++) {
    if (script[i] !== "s" || (i > 0 && /[A-Za-z0-9_]/.test(script[i - 1] as string))) continue;
    const delim = script[i + 1];
    if (delim === undefined || /[\s\\\n]/.test(delim)) continue;
    const parts: string[] = [];
    let j = i + 2;
    let part = "";
    for (; j < script.length && parts.length < 2; j++) {
      const ch = script[j] as string;
      if (ch === "\\" && j + 1 < script.length) {
        part += script[j + 1] === delim ? delim : ch + (script[j + 1] as string);
        j++;
      } else if (ch === delim) {
        parts.push(part);
        part = "";
      } else part += ch;
    }
    if (parts.length < 2) continue;
    const flags = /^[A-Za-z0-9]*/.exec(script.slice(j))?.[0] ?? "";
    if (flags.includes("e")) commands.push(parts[1] as string, script);
    i = j - 1;
  }
  return commands;
}

// ---------------------------------------------------------------------------
// screen: `screen -dm CMD…` runs CMD; `-X stuff 'text'` types text into a window's shell.

const SCREEN_VALUED = new Set(["-S", "-c", "-e", "-h", "-p", "-T", "-t", "-s", "-L", "-Logfile", "-x", "-r", "-R"]);

function screenScripts(args: readonly string[]): string[] {
  const stuff = args.indexOf("-X");
  if (stuff !== -1) return [args.slice(stuff + 1).join(" "), ...args.slice(stuff + 1)];
  let i = 0;
  while (i < args.length && (args[i] as string).startsWith("-")) i += SCREEN_VALUED.has(args[i] as string) ? 2 : 1;
  return i < args.length ? [shellLine(args.slice(i))] : [];
}

// ---------------------------------------------------------------------------
// tmux: a new session, window or pane, run-shell, if-shell and send-keys take shell
// lines (or a command's words); reading every operand as one costs nothing it runs.

const TMUX_VALUED = new Set(["-t", "-s", "-n", "-c", "-e", "-x", "-y", "-F", "-f", "-L", "-S", "-l", "-p", "-T", "-w", "-h", "-b", "-N", "-X"]);

function tmuxScripts(args: readonly string[]): string[] {
  const scripts: string[] = [];
  let words: string[] = [];
  const flush = (): void => {
    if (words.length > 1) scripts.push(...words.slice(1), shellLine(words.slice(1)));
    words = [];
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    // `tmux new -d 'a' \; send-keys 'b' Enter`: each tmux command on its own.
    if (arg === ";" || arg === "\\;") {
      flush();
      continue;
    }
    if (arg.startsWith("-") && arg.length > 1) {
      if (TMUX_VALUED.has(arg) || (/^-[A-Za-z]+$/.test(arg) && TMUX_VALUED.has(`-${arg.at(-1)}`))) i++;
      continue;
    }
    words.push(arg);
  }
  flush();
  return scripts;
}

// ---------------------------------------------------------------------------
// make: a makefile read from stdin (`-f -`) or given with --eval runs its recipe lines.

function makeScripts(args: readonly string[], stdin: readonly string[]): string[] {
  const texts: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if ((arg === "-f" || arg === "--file" || arg === "--makefile") && (args[i + 1] === "-" || args[i + 1] === "/dev/stdin")) texts.push(...stdin);
    else if (arg === "-E" || arg === "--eval") texts.push(args[++i] ?? "");
    else if (arg.startsWith("--eval=")) texts.push(arg.slice("--eval=".length));
  }
  return texts.flatMap((text) => text.split("\n").filter((line) => line.startsWith("\t")).map((line) => line.slice(1).replace(/^[@+-]+/, "")));
}

// ---------------------------------------------------------------------------
// PowerShell, nushell, xonsh and the like: `-c` is a command line.

function otherShellScripts(args: readonly string[], options: readonly string[], powershell: boolean): string[] {
  const scripts: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const lower = powershell ? arg.toLowerCase() : arg;
    if (options.includes(lower)) {
      // PowerShell runs the rest of the line as the command.
      const value = powershell ? args.slice(i + 1).join(" ") : args[i + 1];
      if (value !== undefined && value.length > 0) scripts.push(value);
      break;
    }
    if (powershell && ENCODED_COMMAND.test(arg) && args[i + 1] !== undefined) {
      scripts.push(Buffer.from(args[i + 1] as string, "base64").toString("utf16le"));
      i++;
    }
  }
  return scripts;
}

// ---------------------------------------------------------------------------
// git: settings and variables whose value is a command git runs, and subcommands that run one.

/** The last part of a setting whose value git runs as a command (core.pager, diff.<driver>.textconv, …). */
const COMMAND_KEY_ENDS = new Set(["pager", "editor", "sshcommand", "fsmonitor", "askpass", "helper", "external", "command", "textconv", "clean", "smudge", "process", "driver", "program", "cmd", "difffilter", "gitproxy", "packobjectshook", "trustexitcode"]);

/** Sections whose every setting names a command (pager.log, pager.diff …). */
const COMMAND_SECTIONS = new Set(["pager"]);

/** Environment variables git runs as commands. */
const COMMAND_VARIABLES = ["GIT_PAGER", "PAGER", "GIT_EDITOR", "EDITOR", "VISUAL", "GIT_SEQUENCE_EDITOR", "GIT_SSH_COMMAND", "GIT_SSH", "GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "SSH_ASKPASS", "GIT_PROXY_COMMAND"];

/**
 * The environment the commands git runs (its pager, its editor) are read under: without
 * the variables that named them, as each would otherwise name itself again when read.
 */
export function runnerEnv(program: string | undefined, env: Map<string, string>): Map<string, string> {
  if (program?.toLowerCase() !== "git" || !COMMAND_VARIABLES.some((name) => env.has(name))) return env;
  const rest = new Map(env);
  for (const name of COMMAND_VARIABLES) rest.delete(name);
  return rest;
}

function isCommandKey(key: string): boolean {
  const normalized = normalizeKey(key.trim());
  const section = normalized.slice(0, normalized.indexOf("."));
  const last = normalized.slice(normalized.lastIndexOf(".") + 1);
  if (last === "trustexitcode") return false;
  return COMMAND_SECTIONS.has(section) || COMMAND_KEY_ENDS.has(last);
}

/** A setting's value as the command git runs: credential helpers and aliases mark a shell line with `!`. */
const commandValue = (value: string): string => (value.startsWith("!") ? value.slice(1) : value);

/** Options whose value is a command, by subcommand (fetch's --upload-pack, difftool's -x, filter-branch's filters, …). */
const SUBCOMMAND_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  difftool: ["-x", "--extcmd"],
  mergetool: [],
  "filter-branch": ["--env-filter", "--tree-filter", "--index-filter", "--parent-filter", "--msg-filter", "--commit-filter", "--tag-name-filter"],
  fetch: ["--upload-pack"],
  pull: ["--upload-pack"],
  clone: ["-u", "--upload-pack"],
  "ls-remote": ["--upload-pack"],
  push: ["--receive-pack", "--exec"],
  archive: ["--exec"],
  "send-email": ["--to-cmd", "--cc-cmd", "--header-cmd", "--sendmail-cmd", "--smtp-server"],
  rebase: ["-x", "--exec"],
};

function gitScripts(args: readonly string[], env: ReadonlyMap<string, string>): string[] {
  const scripts: string[] = [];
  for (const variable of COMMAND_VARIABLES) {
    const value = env.get(variable);
    if (value !== undefined && value.length > 0) scripts.push(value);
  }
  let i = 0;
  for (; i < args.length && (args[i] as string).startsWith("-"); i++) {
    const arg = args[i] as string;
    const value = arg === "-c" ? args[++i] : arg.startsWith("-c") && arg.length > 2 ? arg.slice(2) : undefined;
    if (value !== undefined && value.includes("=") && isCommandKey(value.slice(0, value.indexOf("=")))) scripts.push(commandValue(value.slice(value.indexOf("=") + 1)));
    else if (["-C", "--git-dir", "--work-tree", "--namespace", "--config-env", "--exec-path"].includes(arg)) i++;
  }
  const subcommand = args[i];
  const rest = args.slice(i + 1);
  if (subcommand === "config") scripts.push(...configSetting(rest));
  if (subcommand === "submodule") {
    const foreach = rest.indexOf("foreach");
    if (foreach !== -1) {
      const words = rest.slice(foreach + 1).filter((w, k, all) => !(w.startsWith("--") && all.slice(0, k).every((x) => x.startsWith("--"))));
      if (words.length > 0) scripts.push(words.join(" "));
    }
  }
  if (subcommand === "bisect" && rest[0] === "run" && rest.length > 1) scripts.push(shellLine(rest.slice(1)));
  const options = subcommand === undefined ? undefined : SUBCOMMAND_OPTIONS[subcommand];
  for (let j = 0; options !== undefined && j < rest.length; j++) {
    const arg = rest[j] as string;
    const eq = arg.indexOf("=");
    const [name, glued] = arg.startsWith("--") && eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, undefined];
    if (!options.includes(name)) continue;
    const value = glued ?? rest[++j];
    if (value !== undefined) scripts.push(value);
  }
  return scripts;
}

/** `git config [scope] KEY VALUE`, `git config set KEY VALUE`, `--add`, `--replace-all`: a command-valued setting's new value. */
function configSetting(args: readonly string[]): string[] {
  const words = args.filter((w, k) => !w.startsWith("-") && !(["-f", "--file", "--blob", "--type", "--comment", "--value"].includes(args[k - 1] ?? "")));
  const [first, ...others] = words;
  const operands = first === "set" ? others : words;
  if (first === "get" || first === "unset" || first === "list" || first === "edit" || first === "rename-section" || first === "remove-section") return [];
  const [key, value] = operands;
  return key !== undefined && value !== undefined && isCommandKey(key) ? [commandValue(value)] : [];
}

// ---------------------------------------------------------------------------
// Package and environment runners: `npx -c '…'`, `npm exec -- git …`, `pnpm exec git …`,
// `uv run …`, `bundle exec …`, `nix develop -c …`: a command line or a command they run.

interface RunnerSpec {
  /** Options that take the next word. */
  valued?: readonly string[];
  /** Options whose value is a shell line, and then nothing else runs (`npx -c`, `nix-shell --run`). */
  scriptOptions?: readonly string[];
  /** Flags that make the command words one shell line (`pnpm exec -c`). */
  shellMode?: readonly string[];
  /** Options after which the rest is the command (`nix develop -c CMD…`). */
  commandAfter?: readonly string[];
  /** Operands before the command (direnv exec DIR). */
  operands?: number;
  /** The words after the options are one shell line (`bun exec '…'`). */
  restIsScript?: boolean;
  /** Only a script option runs anything (nix-shell without --run opens a shell). */
  onlyScripts?: boolean;
}

const NPM_VALUED = ["-p", "--package", "--prefix", "--cache", "-w", "--workspace", "--userconfig", "--registry", "-C"];
const PNPM_VALUED = ["--filter", "-F", "-C", "--dir", "--workspace-concurrency", "--report-summary", "--package"];
const RUNNERS: Readonly<Record<string, RunnerSpec>> = {
  npx: { valued: NPM_VALUED, scriptOptions: ["-c", "--call"] },
  "npm exec": { valued: NPM_VALUED, scriptOptions: ["-c", "--call"] },
  "npm x": { valued: NPM_VALUED, scriptOptions: ["-c", "--call"] },
  "pnpm exec": { valued: PNPM_VALUED, shellMode: ["-c", "--shell-mode"] },
  "pnpm dlx": { valued: PNPM_VALUED, shellMode: ["-c", "--shell-mode"] },
  pnpx: { valued: PNPM_VALUED, shellMode: ["-c", "--shell-mode"] },
  "yarn exec": {},
  "yarn dlx": { valued: ["-p", "--package"] },
  bunx: { valued: ["-p", "--package"] },
  "bun x": { valued: ["-p", "--package"] },
  "bun exec": { restIsScript: true },
  "uv run": { valued: ["--with", "--python", "-p", "--directory", "--project", "--package", "--env-file", "--extra", "--group", "--index", "--index-url"] },
  uvx: { valued: ["--with", "--python", "-p", "--from", "--index", "--index-url"] },
  "pipx run": { valued: ["--spec", "--python", "--index-url"] },
  "poetry run": { valued: ["-C", "--directory", "-P", "--project"] },
  "pipenv run": {},
  "pdm run": { valued: ["-p", "--project"] },
  "hatch run": {},
  "rye run": {},
  "pixi run": { valued: ["-e", "--environment", "--manifest-path"] },
  "bundle exec": {},
  "mise exec": { valued: ["-C", "--cd", "-j", "--jobs"] },
  "mise x": { valued: ["-C", "--cd", "-j", "--jobs"] },
  "asdf exec": {},
  "direnv exec": { operands: 1 },
  "conda run": { valued: ["-n", "--name", "-p", "--prefix", "--cwd"] },
  "mamba run": { valued: ["-n", "--name", "-p", "--prefix", "--cwd"] },
  "micromamba run": { valued: ["-n", "--name", "-p", "--prefix", "--cwd"] },
  "nix develop": { commandAfter: ["-c", "--command"], onlyScripts: true },
  "nix shell": { commandAfter: ["-c", "--command"], onlyScripts: true },
  "nix-shell": { scriptOptions: ["--run", "--command"], valued: ["-p", "--packages", "-A", "--attr", "-I", "--arg", "--argstr"], onlyScripts: true },
  dotenv: { valued: ["-e", "-v", "-c", "-p"] },
};

/** The program words that name a runner (`npm exec`, `npx`), and where its own words start. */
function runnerOf(program: string, argv: readonly string[]): { spec: RunnerSpec; at: number } | undefined {
  const single = RUNNERS[program];
  if (single !== undefined) return { spec: single, at: 1 };
  // The subcommand is the first word that is not an option (`pnpm -C dir exec …`).
  for (let i = 1; i < argv.length && i < 8; i++) {
    const word = argv[i] as string;
    if (word.startsWith("-")) {
      if (["-C", "--dir", "--prefix", "-w", "--workspace", "--filter", "-F"].includes(word)) i++;
      continue;
    }
    const spec = RUNNERS[`${program} ${word}`];
    return spec === undefined ? undefined : { spec, at: i + 1 };
  }
  return undefined;
}

/**
 * What a package or environment runner runs: the command (its argv) and the shell
 * lines; undefined when `program` is not one. An empty argv: it runs no other command.
 */
export function runnerCommand(program: string | undefined, argv: readonly string[]): { argv: string[]; scripts: string[] } | undefined {
  if (program === undefined) return undefined;
  const runner = runnerOf(program, argv);
  if (runner === undefined) return undefined;
  const { spec } = runner;
  const scripts: string[] = [];
  // `pnpm -c exec '…'`: a flag before the subcommand counts too.
  let shell = argv.slice(1, runner.at).some((word) => spec.shellMode?.includes(word) === true);
  let i = runner.at;
  for (; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") {
      i++;
      break;
    }
    if (!arg.startsWith("-") || arg === "-") break;
    const eq = arg.indexOf("=");
    const [name, glued] = arg.startsWith("--") && eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, undefined];
    if (spec.scriptOptions?.includes(name)) {
      const value = glued ?? argv[++i];
      if (value !== undefined) scripts.push(value);
      return { argv: [], scripts };
    }
    if (spec.commandAfter?.includes(name)) {
      i++;
      break;
    }
    if (spec.shellMode?.includes(name)) shell = true;
    else if (spec.valued?.includes(name) && glued === undefined) i++;
  }
  if (spec.onlyScripts && !spec.commandAfter?.includes(argv[i - 1] ?? "")) return { argv: [], scripts };
  i += spec.operands ?? 0;
  const rest = argv.slice(i);
  if (rest.length === 0) return { argv: [], scripts };
  if (spec.restIsScript || shell) return { argv: [], scripts: [...scripts, rest.join(" ")] };
  return { argv: rest, scripts };
}
