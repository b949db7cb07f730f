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
import { hasComputed, readCode, shellLine } from "../tools/code-reading.ts";
import type { CodeLanguage } from "../tools/declaration.ts";
import path from "node:path";
import { gitScripts } from "./git-commands.ts";
import { makeRecipes } from "./script-files.ts";
import { direnvScripts, miseScripts } from "./project-runners.ts";

/** Literals of one text read as the start of a command line with the literals after them (`call-process "git" nil "commit"`). */
const MAX_LITERAL_STARTS = 32;
const MAX_LITERAL_RUN = 16;

/**
 * The text of a file a program is told to read its commands from, when the walker
 * knows it: standard input (`-`, `/dev/stdin`), a process substitution that prints
 * literal text (`<(echo …)`), a file the same command line wrote first.
 */
export type FileText = (word: string) => string | undefined;

/**
 * Programs whose options hand them lines of their own command language, by option
 * (`-ex` for gdb); `stdin`: the program reads such lines from its standard input
 * (`gdb -batch <<< 'shell …'`, `sqlite3 db <<< '.shell …'`, `ed -s f <<< '!…'`).
 */
interface LanguageSpec {
  options: readonly string[];
  /** Options whose value is a file of such lines (gdb -x, vim -S). */
  fileOptions?: readonly string[];
  /** Options that take a value the program does not run (skipped with their value when finding operands). */
  valued?: readonly string[];
  /** `+CMD` arguments are commands (vim, less). */
  plusCommands?: boolean;
  /** Operands after the first are commands (sqlite3 DB SQL…); or the first is a script file (tclsh FILE). */
  operands?: "after-first" | "script-file";
  stdin?: boolean;
}

const LANGUAGES: Readonly<Record<string, LanguageSpec>> = {
  gdb: { options: ["-ex", "--ex", "-eval-command", "--eval-command", "-iex", "--iex", "-init-eval-command", "--init-eval-command"], fileOptions: ["-x", "--x", "-command", "--command", "-ix", "--ix", "-init-command", "--init-command"], stdin: true },
  lldb: { options: ["-o", "--one-line", "-O", "--one-line-before-file", "-k", "--one-line-on-crash", "-K"], fileOptions: ["-s", "--source", "-S", "--source-before-file"], stdin: true },
  vim: { options: ["-c", "--cmd"], fileOptions: ["-s", "-S", "-u", "-w", "-W"], plusCommands: true, stdin: true },
  ed: { options: [], stdin: true },
  less: { options: [], plusCommands: true },
  emacs: { options: ["--eval", "-eval", "--execute", "-execute"], fileOptions: ["-l", "--load", "-load", "--script", "-script"] },
  expect: { options: ["-c"], fileOptions: ["-f"], operands: "script-file", stdin: true },
  tclsh: { options: [], operands: "script-file", stdin: true },
  sqlite3: { options: ["-cmd", "--cmd"], fileOptions: ["-init", "--init"], valued: ["-separator", "-newline", "-nullvalue", "-vfs", "-mmap", "-pagecache", "-lookaside", "-maxsize"], operands: "after-first", stdin: true },
  psql: { options: ["-c", "--command"], fileOptions: ["-f", "--file"], valued: ["-d", "-h", "-p", "-U", "-v", "--set", "--variable", "-o", "--output", "-L", "--log-file", "-P", "--pset"], stdin: true },
  mysql: { options: ["-e", "--execute"], valued: ["-u", "-h", "-P", "-D", "--user", "--host", "--port", "--database"], stdin: true },
  awk: { options: ["-e", "--source"], fileOptions: ["-f", "--file", "-E", "--exec"], valued: ["-F", "--field-separator", "-v", "--assign", "-i", "--include", "-l", "--load"] },
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

/** ssh options (`-o Key=value`) whose value is a command run on this machine. */
const SSH_LOCAL_COMMANDS = /^\s*(proxycommand|knownhostscommand|localcommand|remotecommand)\s*[=\s]\s*(.*)$/is;

/**
 * The shell command lines `program` runs from its own arguments and standard input
 * (`stdin`: the here-documents and here-strings it is given), beyond its argv as a
 * command. `env`: the command's environment, for git's command-valued variables and
 * less's LESSOPEN; `fileText`: the text of a file it reads commands from, when known.
 */
export function runnerScripts(program: string | undefined, argv: readonly string[], stdin: readonly string[], env: ReadonlyMap<string, string>, fileText: FileText = () => undefined): string[] {
  if (program === undefined) return [];
  const lower = program.toLowerCase();
  const name = lower.endsWith(".exe") ? lower.slice(0, -4) : lower;
  // Most commands are none of these: answered before any work.
  if (!READ_PROGRAMS.has(name)) return [];
  const args = argv.slice(1);
  if (name === "git") return gitScripts(args, env, stdin);
  if (name === "direnv") return direnvScripts(args, fileText);
  if (name === "mise") return miseScripts(args, fileText, env);
  if (name === "sed" || name === "gsed") return sedScripts(args, stdin, fileText);
  if (name === "screen") return screenScripts(args);
  if (name === "tmux") return tmuxScripts(args, stdin);
  if (name === "make" || name === "gmake" || name === "bmake") return makeScripts(args, stdin, fileText, env);
  if (["ssh", "scp", "sftp", "rsync", "autossh", "mosh", "sshpass"].includes(name)) return sshScripts(name, args, stdin);
  // `concurrently 'cmd' 'npm:x'`, `run-s a b`, `npm-run-all a`: command lines, and package scripts by name.
  if (name === "concurrently") return args.filter((arg) => !arg.startsWith("-")).map((arg) => (arg.startsWith("npm:") ? `npm run ${arg.slice(4)}` : arg));
  if (name === "run-s" || name === "run-p" || name === "npm-run-all") return args.filter((arg) => !arg.startsWith("-")).map((arg) => `npm run ${arg}`);
  const optionCommands = OPTION_COMMANDS[name];
  if (optionCommands !== undefined) return optionScripts(args, optionCommands);
  const shellOptions = OTHER_SHELLS[name];
  if (shellOptions !== undefined) return otherShellScripts(args, shellOptions, name === "pwsh" || name === "powershell");
  const language = ALIASES[name] ?? name;
  const spec = LANGUAGES[language];
  if (spec === undefined) return [];
  const { texts, data } = languageTexts(language, spec, args, stdin, fileText);
  const scripts = texts.flatMap((text) => commandsInText(text));
  // LESSOPEN (`|cmd %s`) is a command less runs on each file it opens.
  if (language === "less") {
    const open = env.get("LESSOPEN") ?? env.get("LESSCLOSE");
    if (open !== undefined && open.length > 0) scripts.push(open.replace(/^\|+-?/, ""));
  }
  // mysql's pager is a command its output is piped to.
  if (language === "mysql") {
    for (let i = 0; i < args.length; i++) {
      const arg = args[i] as string;
      if (arg === "--pager" && args[i + 1] !== undefined) scripts.push(args[++i] as string);
      else if (arg.startsWith("--pager=")) scripts.push(arg.slice("--pager=".length));
    }
  }
  // awk hands a process what its program computes: its -v values, operands (`c=cmd` as its value) and input (the files' lines
  // too), the environment the line sets (ENVIRON), and each of them after a string of the program (`"git commit " ARGV[1]`).
  if (language === "awk" && texts.some((text) => PROCESS_WORDS.test(text))) {
    const values = data.map((word) => /^[A-Za-z_]\w*=/.exec(word) === null ? word : word.slice(word.indexOf("=") + 1));
    const environ = texts.some((text) => text.includes("ENVIRON")) ? [...env].filter(([name, value]) => process.env[name] !== value).map(([, value]) => value) : [];
    const given = [...values, ...environ];
    const strings = texts.flatMap((text) => [...text.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((match) => match[1] as string)).filter((literal) => literal.trim().length > 0).slice(0, 16);
    scripts.push(...given, ...given.slice(0, 16).flatMap((word) => fileText(word)?.split("\n") ?? []), ...strings.flatMap((literal) => given.slice(0, 16).map((word) => `${literal}${word}`)));
  }
  return scripts;
}

/** Options whose value is a command the program runs (`rg --pre CMD`, `tar -I CMD`, `sort --compress-program=CMD`). */
const OPTION_COMMANDS: Readonly<Record<string, readonly string[]>> = {
  rg: ["--pre"],
  sort: ["--compress-program"],
  tar: ["-I", "--use-compress-program", "--to-command", "--info-script", "--new-volume-script", "-F", "--rsh-command"],
  zip: ["-TT", "--unzip-command"],
  man: ["-P", "--pager"],
  fzf: ["--preview", "--bind"],
};

/** The commands given as option values (`--opt CMD`, `--opt=CMD`, `-ICMD`), and tar's `--checkpoint-action=exec=CMD`. */
function optionScripts(args: readonly string[], options: readonly string[]): string[] {
  const scripts: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const eq = arg.indexOf("=");
    if (options.includes(arg)) scripts.push(args[++i] ?? "");
    else if (eq > 0 && options.includes(arg.slice(0, eq))) scripts.push(arg.slice(eq + 1));
    else if (/^-[A-Z]./.test(arg) && options.includes(arg.slice(0, 2))) scripts.push(arg.slice(2));
    else if (arg.startsWith("--checkpoint-action=exec=")) scripts.push(arg.slice("--checkpoint-action=exec=".length));
  }
  return scripts.filter((script) => script.length > 0);
}

/** Every program name this module reads. */
const READ_PROGRAMS: ReadonlySet<string> = new Set([
  ...Object.keys(OPTION_COMMANDS),
  ...Object.keys(LANGUAGES),
  ...Object.keys(ALIASES),
  ...Object.keys(OTHER_SHELLS),
  ...["concurrently", "run-s", "run-p", "npm-run-all", "direnv", "mise", "git", "sed", "gsed", "screen", "tmux", "make", "gmake", "bmake", "ssh", "scp", "sftp", "rsync", "autossh", "mosh", "sshpass"],
]);

/** The arguments (and stdin) that hold the program's own command language, and (awk) the data its program reads. */
function languageTexts(language: string, spec: LanguageSpec, args: readonly string[], stdin: readonly string[], fileText: FileText): LanguageTexts {
  const texts: string[] = [];
  const data: string[] = [];
  const operands: string[] = [];
  let programGiven = false;
  const valueOf = (option: string): "text" | "file" | "skip" | undefined =>
    spec.options.includes(option) ? "text" : spec.fileOptions?.includes(option) ? "file" : spec.valued?.includes(option) ? "skip" : undefined;
  const take = (kind: "text" | "file" | "skip", option: string, value: string | undefined): void => {
    if (value === undefined) return;
    if (kind === "skip") {
      if (language === "awk" && (option === "-v" || option === "--assign")) data.push(value.slice(value.indexOf("=") + 1));
      return;
    }
    programGiven = true;
    const text = kind === "text" ? value : fileText(value);
    if (text !== undefined) texts.push(text);
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--") {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (spec.plusCommands && arg.startsWith("+") && arg.length > 1) {
      texts.push(arg.slice(1));
      continue;
    }
    if (!arg.startsWith("-") || arg === "-") {
      // awk reads no option after its program text: the rest are its operands (`awk 'prog' -n`).
      if (language === "awk" && !programGiven && operands.length === 0) {
        operands.push(...args.slice(i));
        break;
      }
      operands.push(arg);
      continue;
    }
    // `--eval-command=…`, `-ex=…`: the value glued with `=`.
    const eq = arg.indexOf("=");
    const glued = eq > 0 ? valueOf(arg.slice(0, eq)) : undefined;
    if (glued !== undefined) {
      take(glued, arg.slice(0, eq), arg.slice(eq + 1));
      continue;
    }
    const whole = valueOf(arg);
    if (whole !== undefined) {
      take(whole, arg, args[++i]);
      continue;
    }
    // `-sc CMD` (ex), `-nx -ex`: a cluster of one-letter options whose last takes the next word.
    // (`vim -es -c …`: an option word after it means the last letter was a flag there.)
    const next = args[i + 1] ?? "-";
    const last = /^-[A-Za-z]{2,}$/.test(arg) && !next.startsWith("-") && !(spec.plusCommands && next.startsWith("+")) ? valueOf(`-${arg.at(-1)}`) : undefined;
    if (last !== undefined) {
      take(last, `-${arg.at(-1)}`, args[++i]);
      continue;
    }
    // `-ccmd` (vim, psql), `-eCODE` (mysql): a one-letter option glued to its value.
    const short = valueOf(arg.slice(0, 2));
    if (short !== undefined && arg.length > 2 && !arg.startsWith("--") && language !== "gdb" && language !== "sqlite3") take(short, arg.slice(0, 2), arg.slice(2));
  }
  // awk's program is its first operand unless -e or -f gave it.
  if (language === "awk" && !programGiven && operands[0] !== undefined) {
    texts.push(operands[0]);
    data.push(...operands.slice(1));
  } else if (language === "awk") data.push(...operands);
  if (language === "awk") data.push(...stdin);
  if (spec.operands === "after-first") texts.push(...operands.slice(1));
  if (spec.operands === "script-file" && !programGiven && operands[0] !== undefined) {
    const script = fileText(operands[0]);
    if (script !== undefined) texts.push(script);
  }
  if (spec.stdin) texts.push(...stdin);
  return { texts, data, operands };
}

/** A command's texts in its program's own language (see languageTexts), with the language's name. */
export interface LanguageTexts {
  /** Lines of the program's own language: option values, files it reads them from, operands, stdin. */
  texts: string[];
  /** What awk's program reads as data (its -v values, its input, the operands after the program). */
  data: string[];
  /** The operands (awk: its program first, when no -e or -f gave it). */
  operands: string[];
}

/**
 * The texts `program` reads as its own command language in this command (sed's
 * scripts, gdb's -ex, vim's -c, sqlite3's SQL, …), for readers of what those texts
 * do besides running commands; undefined for a program none of this module reads.
 */
export function languageOf(program: string | undefined, argv: readonly string[], stdin: readonly string[], fileText: FileText): (LanguageTexts & { language: string }) | undefined {
  if (program === undefined) return undefined;
  const lower = program.toLowerCase();
  const name = lower.endsWith(".exe") ? lower.slice(0, -4) : lower;
  if (!READ_PROGRAMS.has(name)) return undefined;
  const args = argv.slice(1);
  if (name === "sed" || name === "gsed") return { language: "sed", texts: sedTexts(args, fileText), data: [], operands: [] };
  const language = ALIASES[name] ?? name;
  const spec = LANGUAGES[language];
  return spec === undefined ? undefined : { language, ...languageTexts(language, spec, args, stdin, fileText) };
}

/** Prefixes of a word a program accepts in place of it (gdb's `she` for `shell`), at least `min` long. */
function abbreviations(word: string, min: number): string {
  return `${word.slice(0, min)}${[...word.slice(min)].reduceRight((rest, ch) => `(?:${ch}${rest})?`, "")}`;
}

/** Line starts that hand the rest of the line to a shell, across these languages. */
const ESCAPE_PREFIXES: readonly RegExp[] = [
  new RegExp(
    `^(?:${[
      // lldb's `platform shell` (`pl sh`), gdb's `shell` (`she`), sqlite3's `.shell`/`.system` (`.sh`, `.sy`), vim's `:terminal` (`ter`)
      `${abbreviations("platform", 2)}\\s+${abbreviations("shell", 2)}`,
      abbreviations("shell", 2),
      `\\.${abbreviations("shell", 2)}`,
      `\\.${abbreviations("system", 2)}`,
      abbreviations("terminal", 3),
      // mysql's `system` and `pager`, psql's `\\o |…`, Tcl's and expect's `exec`, `spawn`, `system`, tmux's commands
      "system",
      "pager",
      "\\\\P",
      "exec",
      "spawn",
      "run-shell",
      "run",
      "new-session",
      "new-window",
      "split-window",
      "respawn-pane",
      "respawn-window",
      "if-shell",
      "pipe-pane",
      "display-popup",
      "popup",
    ].join("|")})\\b(?:\\s+-{1,2}[A-Za-z-]+)*\\s+(.*)$`,
    "s",
  ),
  // gdb `pipe CMD | SHELL`, `| CMD | SHELL`; psql's `\o |cmd`, `\g |cmd`
  /^(?:pipe\b|\|)[^|]*\|\s*(.*)$/s,
  /^\\[og]\s*\|\s*(.*)$/s,
];

/** A language word that makes the text's string literals what a process may run. */
const PROCESS_WORDS = /\b(?:system2?|popen|exec\w*|spawn\w*|execute|shell(?:-command\w*)?|call-process\w*|start-process\w*|make-process|process-lines|getline|terminal|pipe|program|run|call|Popen|check_output|check_call|subprocess|_shell)\b|\|/;

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
  luado: "unknown",
  guile: "unknown",
  tcl: "unknown",
};

/**
 * The shell lines a text of one of these languages runs: the rest of each line after
 * a shell escape (`!`, `shell`, `.system`, `\!`, `platform shell`, …), embedded script
 * code read as code (its literals as this language's commands too: gdb's
 * `python gdb.execute("shell …")`), and, when the text can start a process at all,
 * each string literal, each Tcl brace group and each run of literals as one command
 * line (`vim.system({"git", "commit"})`, `(call-process "git" nil nil nil "commit")`).
 * Every part is read a bounded number of times, so its cost grows with the text.
 */
export function commandsInText(text: string, nested = false): string[] {
  const commands = new Set<string>();
  // Lines, and Tcl's commands after `;` or inside `[…]` that start a process.
  for (const rawLine of text.split(/\r?\n|;(?=\s*(?:!|sh|\.sh|\.sy|system\b|exec\b|spawn\b))|\[(?=\s*(?:exec|spawn|system)\b)/)) {
    // vim's `:`, `silent!`, `exe`; cppdbg's `-exec`, which hands the rest to gdb.
    const line = rawLine.trim().replace(/^(?:[:\s]+|-exec\s+|(?:silent!?|sil!?|exe(?:cute)?|keepalt)\s+)+/, "");
    if (line.length === 0) continue;
    for (const prefix of ESCAPE_PREFIXES) {
      const rest = prefix.exec(line)?.[1]?.trim();
      if (rest === undefined || rest.length === 0) continue;
      commands.add(rest);
      // tmux's and Tcl's quoting: `run-shell 'cmd …'` runs what is inside the quotes.
      const quoted = /^'([^']*)'$|^"((?:[^"\\]|\\.)*)"$/s.exec(rest);
      if (quoted) commands.add(quoted[1] ?? quoted[2] ?? "");
    }
    // `!cmd`, `:r !cmd`, `%!cmd`, `\! cmd`, `w !cmd`: the rest of the line after the first and the last `!` (not `!=`, `!~`).
    const bangs = [...line.matchAll(/!(?![=~])/g)];
    for (const bang of [bangs[0], bangs.at(-1)]) {
      const rest = bang === undefined ? "" : line.slice((bang.index ?? 0) + 1).trim();
      if (rest.length > 0) commands.add(rest);
    }
    const embedded = /^([a-z][a-z0-9-]*)\s+(.*)$/s.exec(line);
    const language = embedded ? EMBEDDED[embedded[1] as string] : undefined;
    if (language !== undefined) {
      const reading = readCode(embedded?.[2] ?? "", language);
      for (const command of reading.commands) commands.add(command);
      for (const literal of reading.literals) {
        if (reading.startsProcesses) commands.add(literal);
        if (!nested) for (const command of commandsInText(literal, true)) commands.add(command);
      }
    }
  }
  if (PROCESS_WORDS.test(text)) {
    const reading = readCode(text, "unknown");
    for (const command of [...reading.commands, ...reading.literals]) commands.add(command);
    // Tcl quotes with braces: `exec sh -c {…}` (awk's and C's blocks are braces too, and not commands).
    for (const group of text.matchAll(/(?:-c|exec|spawn|system|eval)\s+\{([^{}]*)\}/g)) commands.add(group[1] as string);
    for (const run of literalRuns(reading.literals)) commands.add(run);
  }
  return [...commands];
}

/** Runs of a text's string literals as command lines: a process API given a program and its words one literal each. */
export function literalRuns(literals: readonly string[]): string[] {
  // A literal with a computed part (a list read as a line) is read where its command is, filled in (code-hands.ts): not quoted here.
  const plain = literals.filter((literal) => !hasComputed(literal));
  const runs: string[] = [];
  for (let k = 0; k < Math.min(plain.length - 1, MAX_LITERAL_STARTS); k++) runs.push(shellLine(plain.slice(k, k + MAX_LITERAL_RUN)));
  return runs;
}

// ---------------------------------------------------------------------------
// sed: the `e` command runs a line, or (bare) the pattern space; the `e` flag of `s`
// runs the pattern space the substitution made.

function sedScripts(args: readonly string[], stdin: readonly string[], fileText: FileText): string[] {
  return sedTexts(args, fileText).flatMap((script) => sedCommands(script, stdin));
}

/** sed's scripts: each -e, each -f file the walker knows, or the first operand. */
function sedTexts(args: readonly string[], fileText: FileText): string[] {
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
    } else if (arg === "-f" || arg === "--file" || arg.startsWith("--file=")) {
      const file = arg.startsWith("--file=") ? arg.slice("--file=".length) : args[++i];
      const text = file === undefined ? undefined : fileText(file);
      if (text !== undefined) scripts.push(text);
      given = true;
    } else if (/^-[nrEsuzi]*e.+/.test(arg) && !arg.startsWith("--")) {
      scripts.push(arg.slice(arg.indexOf("e") + 1));
      given = true;
    } else if (arg === "-l" || arg === "--line-length") {
      i++;
    } else if (!arg.startsWith("-") && !given) {
      scripts.push(arg);
      given = true;
    }
  }
  return scripts;
}

/** A sed address: a line (`1`, `1~2`), `$`, a regex (`/re/`, `\\%re%`), and a second one after `,`; each starts with no space. */
const SED_ONE_ADDRESS = String.raw`(?:\d+(?:~\d+)?|\$|\/(?:[^\/\\\n]|\\.)*\/[IM]*|\\(.)(?:(?!\1).)*\1[IM]*)`;
/**
 * `e CMD`, `1eCMD`, `/re/e CMD`: the command, the rest of the line (GNU sed runs it
 * whole, `;` included); a bare `e` runs the pattern space. Each space run is matched by
 * one quantifier only, so a long run costs one pass.
 */
const SED_E = new RegExp(String.raw`(?:^|[;\n{}])[ \t]*(?:${SED_ONE_ADDRESS}(?:[ \t]*,[ \t]*(?:[~+]\d+|\d+|\$|\/(?:[^\/\\\n]|\\.)*\/[IM]*))?[ \t]*)?(?:![ \t]*)?e[ \t]*([^\n]*)`, "g");

/** One `s` command of a sed script: its replacement, its flags, and the rest of its line (a `w` flag's file). */
export interface SedSubstitution {
  replacement: string;
  flags: string;
  rest: string;
}

/** A sed script's `s` commands, read in one pass (each character once). */
export function sedSubstitutions(script: string): SedSubstitution[] {
  const found: SedSubstitution[] = [];
  for (let i = 0; i < script.length; i++) {
    // `1s/…/…/e`: an address before it is digits; a letter before it makes it part of a word.
    if (script[i] !== "s" || (i > 0 && /[A-Za-z_]/.test(script[i - 1] as string))) continue;
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
    // Unterminated: sed reads no further command, and neither does this scan.
    if (parts.length < 2) break;
    let flags = "";
    for (; j < script.length && /[A-Za-z0-9]/.test(script[j] as string); j++) flags += script[j];
    // A `w` flag's file name is the rest of the line: no further command is on it.
    const writes = flags.includes("w");
    const end = writes ? script.indexOf("\n", j) : j;
    found.push({ replacement: parts[1] as string, flags, rest: writes ? script.slice(j, end === -1 ? undefined : end) : "" });
    i = (end === -1 ? script.length : end) - 1;
  }
  return found;
}

/** The command lines a sed script runs: `e CMD`; with a bare `e` or an `s///e`, what its substitutions and its input make. */
function sedCommands(script: string, stdin: readonly string[]): string[] {
  const commands: string[] = [];
  let runsPatternSpace = false;
  for (const match of script.matchAll(SED_E)) {
    const command = (match.at(-1) ?? "").trim();
    if (command.length > 0) commands.push(command);
    else runsPatternSpace = true;
  }
  const replacements: string[] = [];
  for (const substitution of sedSubstitutions(script)) {
    replacements.push(substitution.replacement);
    if (substitution.flags.includes("e")) runsPatternSpace = true;
  }
  // The pattern space is an input line, or what a substitution made of it.
  if (runsPatternSpace) commands.push(...replacements, ...stdin);
  return [...new Set(commands)];
}

// ---------------------------------------------------------------------------
// screen: `screen -dm CMD…` runs CMD; `-X stuff 'text'` types text into a window's shell.

const SCREEN_VALUED = new Set(["-S", "-c", "-e", "-h", "-p", "-T", "-t", "-s", "-Logfile", "-x", "-r", "-R"]);

function screenScripts(args: readonly string[]): string[] {
  const stuff = args.indexOf("-X");
  if (stuff !== -1) return [args.slice(stuff + 1).join(" "), ...args.slice(stuff + 1)];
  let i = 0;
  while (i < args.length && (args[i] as string).startsWith("-")) {
    const arg = args[i] as string;
    // `-dmS name`: a cluster whose last option takes the next word.
    const valued = SCREEN_VALUED.has(arg) || (/^-[A-Za-z]{2,}$/.test(arg) && SCREEN_VALUED.has(`-${arg.at(-1)}`));
    i += valued ? 2 : 1;
  }
  return i < args.length ? [shellLine(args.slice(i))] : [];
}

// ---------------------------------------------------------------------------
// tmux: `-c` runs a shell command; a new session, window or pane, run-shell, if-shell
// and send-keys take shell lines or a command's words. Which of a command's options take
// a value differs by command, so every word is read as a line and as the start of the
// command's words: reading an option's value too costs nothing it runs.

const MAX_TMUX_WORDS = 64;

function tmuxScripts(args: readonly string[], stdin: readonly string[]): string[] {
  const scripts: string[] = [];
  let words: string[] = [];
  const flush = (): void => {
    const rest = words.slice(1, 1 + MAX_TMUX_WORDS);
    for (let k = 0; k < rest.length; k++) {
      const word = rest[k] as string;
      if (word.startsWith("-")) continue;
      scripts.push(word, shellLine(rest.slice(k)));
    }
    words = [];
  };
  for (const arg of args) {
    // `tmux new -d 'a' \; send-keys 'b' Enter`: each tmux command on its own.
    if (arg === ";" || arg === "\\;") flush();
    else words.push(arg);
  }
  flush();
  // `tmux source-file -` reads tmux commands from stdin.
  for (const text of stdin) scripts.push(text, ...commandsInText(text), ...text.split("\n").map((line) => line.trim().replace(/^\S+\s*/, "")));
  return scripts;
}

// ---------------------------------------------------------------------------
// make: a makefile read from stdin or a known file, or given with --eval, runs its recipe lines.

/** make's options that take the next word. */
const MAKE_VALUED = new Set(["-f", "--file", "--makefile", "-E", "--eval", "-C", "--directory", "-I", "--include-dir", "-o", "--old-file", "--assume-old", "-W", "--what-if", "--new-file", "--assume-new", "-l", "--load-average"]);

/** `make -C DIR` (also `-CDIR`, `--directory=DIR`; several join up, an absolute one starts over): where make reads its makefiles and runs its recipes. */
export function makeDirectory(args: readonly string[]): string | undefined {
  let dir: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const value = arg === "-C" || arg === "--directory" ? args[++i] : arg.startsWith("--directory=") ? arg.slice("--directory=".length) : /^-C./.test(arg) ? arg.slice(2) : undefined;
    if (value !== undefined) dir = dir === undefined || path.isAbsolute(value) ? value : path.join(dir, value);
  }
  return dir;
}

function makeScripts(args: readonly string[], stdin: readonly string[], fileText: FileText, env: ReadonlyMap<string, string>): string[] {
  const files: string[] = [];
  const evals: string[] = [];
  const goals: string[] = [];
  const overrides = new Map<string, string>();
  // Makefiles are read from where -C takes make, whichever order the options come in.
  const dir = makeDirectory(args) ?? "";
  let named = false;
  // `-e`: the environment's variables before the makefile's.
  const environmentFirst = args.some((arg) => /^-[A-Za-z]*e[A-Za-z]*$/.test(arg) && !arg.startsWith("--")) || args.includes("--environment-overrides");
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    // `-f FILE`, `-fFILE`, `--file=FILE`, and a cluster ending in f (`-sf FILE`).
    const clusterF = /^-[A-Za-eg-z]+f$/.test(arg);
    if (arg === "-f" || clusterF || arg === "--file" || arg === "--makefile" || /^--(?:file|makefile)=/.test(arg) || /^-f./.test(arg)) {
      named = true;
      const file = arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : arg.length > 2 && !arg.startsWith("--") && !clusterF ? arg.slice(2) : (args[++i] ?? "");
      const text = file === "-" ? stdin.join("\n") : fileText(path.join(dir, file));
      if (text !== undefined) files.push(text);
    } else if (arg === "-E" || arg === "--eval") evals.push(args[++i] ?? "");
    else if (arg.startsWith("--eval=")) evals.push(arg.slice("--eval=".length));
    else if (arg.startsWith("--directory=")) continue;
    else if (MAKE_VALUED.has(arg)) i++;
    else if (/^-C./.test(arg)) continue;
    else if (/^[A-Za-z_][\w.-]*=/.test(arg)) overrides.set(arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1));
    // `-j 4`: a job count, not a goal.
    else if (!arg.startsWith("-") && !(/^\d+$/.test(arg) && /^-[A-Za-z]*[jl]$/.test(args[i - 1] ?? ""))) goals.push(arg);
  }
  // With no -f, make reads GNUmakefile, makefile or Makefile where it runs.
  if (!named) {
    const text = ["GNUmakefile", "makefile", "Makefile"].map((name) => fileText(path.join(dir, name))).find((found) => found !== undefined);
    if (text !== undefined) files.push(text);
  }
  const recipes = (text: string): string[] => text.split("\n").filter((line) => line.startsWith("\t")).map((line) => line.slice(1).replace(/^[@+-]+/, ""));
  const include = (file: string): string | undefined => fileText(path.join(dir, file));
  const context = { overrides, environment: env, environmentFirst, read: include, curdir: dir === "" ? "$PWD" : `$PWD/${dir}` };
  return [...files.flatMap((text) => makeRecipes(text, goals, context)), ...evals.flatMap(recipes)];
}

// ---------------------------------------------------------------------------
// ssh and its relatives: commands they run on this machine (ProxyCommand, LocalCommand,
// rsync's -e, scp's -S), and the remote shell's script on stdin.

function sshScripts(name: string, args: readonly string[], stdin: readonly string[]): string[] {
  const scripts: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    let option: string | undefined;
    if (arg === "-o" || arg === "--option") option = args[++i];
    else if (/^-o./s.test(arg)) option = arg.slice(2);
    const local = option === undefined ? undefined : SSH_LOCAL_COMMANDS.exec(option);
    if (local?.[2] !== undefined) scripts.push(local[2]);
    if ((name === "rsync" && (arg === "-e" || arg === "--rsh")) || ((name === "scp" || name === "sftp") && arg === "-S") || (name === "mosh" && arg === "--ssh")) {
      const value = args[++i];
      if (value !== undefined) scripts.push(value);
    } else if ((name === "rsync" && arg.startsWith("--rsh=")) || (name === "mosh" && arg.startsWith("--ssh="))) scripts.push(arg.slice(arg.indexOf("=") + 1));
  }
  if (name === "ssh" || name === "autossh") scripts.push(...stdin);
  return scripts;
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
