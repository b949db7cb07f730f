// block-pipe-to-shell: refuses running what a download returns without reading it —
// `curl … | sh`, `wget -O- … | sudo bash`, `bash <(curl …)`, `sh -c "$(curl …)"`,
// `python3 <(wget -qO- …)`. Download to a file, read it, then run it.
import path from "node:path";
import type { HookInput } from "../protocol/hook-input.ts";
import { callKind, codeOf, type CodeLanguage } from "../tools/declaration.ts";
import { readCode } from "../tools/code-reading.ts";
import { parseShell } from "./shell-words.ts";
import { programName, isDynamic, unwrapped, walkCall, type RunCommand } from "./shell-walk.ts";
import type { BuiltinGate, GateVerdict } from "./types.ts";
import { STDIN_FILES } from "./stdin-files.ts";
import { DOWNLOADERS } from "./downloaders.ts";

const SHELLS = new Set(["sh", "bash", "rbash", "zsh", "dash", "ksh", "ksh93", "mksh", "ash", "yash", "posh", "fish", "tcsh", "csh", "busybox"]);
const RUNNERS = new Set([...SHELLS, "python", "python2", "python3", "pypy", "pypy3", "ipython", "ipython3", "perl", "ruby", "irb", "node", "bun", "deno", "php", "pwsh", "lua", "luajit", "rscript", "julia", "tclsh", "source", ".", "eval", "parallel"]);
/** Shell options that take the next word (`bash -o pipefail`, `-O extglob`, `+o x`, `--rcfile F`): not a script file. */
const SHELL_VALUED = /^[-+][A-Za-z]*[oO]$|^--(?:rcfile|init-file)$/;
/** Interpreter options that take the next word (`python3 -W ignore`, `-X dev`, `node -r mod`, `ruby -C dir`, `php -d x=1`). */
const INTERPRETER_VALUED = new Set(["-W", "-X", "-r", "--require", "--import", "-I", "--loader", "--env-file", "-M", "--check-hash-based-pycs", "-C", "-d"]);
/** Python modules that run what they read from stdin (`python3 -m code`, an interactive console). */
const STDIN_MODULES = new Set(["code", "IPython", "ptpython", "bpython", "idlelib", "pdb"]);
/** Code that runs text it was handed: what a download fed to it would be run by (Perl's and Ruby's `eval` take no parentheses). */
const RUNS_TEXT = /\b(?:exec|eval|compile|execfile|system|popen|spawn|execSync|spawnSync|Function|run_path|dofile|loadstring)\s*\(|\b(?:eval|instance_eval)\s+[\w$<"'@]|\/dev\/stdin|\/dev\/fd\/0|\/proc\/(?:self|thread-self|\d+)\/fd\/0/;
/** Calls that fetch from the network, in code (`urllib.request.urlopen`, `fetch`, Perl's LWP, Ruby's open-uri). */
const FETCHES = /\burlopen\s*\(|\burlretrieve\s*\(|\brequests\.(?:get|post)\s*\(|\bhttpx\.(?:get|post|Client)|\bfetch\s*\(|\bhttps?\.get\s*\(|\bLWP::|\bget(?:store)?\s*\(\s*["']https?:\/\/|\bHTTP::Tiny\b|\bNet::HTTP\b|\bopen-uri\b|\bURI\.open\b|\bfile_get_contents\s*\(\s*["']https?:/;
/** Code that runs code or hands text to a process: with a fetch, what was fetched may be what runs. */
const RUNS_FETCHED = /\b(?:exec|eval|compile)\s*\(|\bnew\s+Function\b|\bFunction\s*\(|\bvm\.run\w*\s*\(|\b(?:eval|instance_eval)\s+[\w$<"'@]|\binput\s*[=:]|\bstdin\.write\s*\(/;
/** Shell code that runs text built at run time: a substitution, `"$@"`, a variable where a command starts, eval, source. */
const SHELL_RUNS_TEXT = /\$\(|`|\$\{?[@*]|(?:^|[;&|({]|\b(?:then|do|else)\b)\s*"?\$\{?\w|\b(?:eval|source)\b|(?:^|[;&|({]\s*)\.\s/;
const INSTEAD = "download it to a file, read it, then run that file";

/** A command line that downloads, through its wrappers too (`$(command curl …)`, `<(timeout 9 curl …)`). */
const downloads = (script: string): boolean =>
  parseShell(script).some((c) => {
    const argv = unwrapped(c.argv);
    return argv[0] !== undefined && DOWNLOADERS.has(programName(argv[0]));
  });

export const blockPipeToShell: BuiltinGate = {
  id: "block-pipe-to-shell",
  description: "Refuses running a download unread: curl … | sh, bash <(curl …), sh -c \"$(curl …)\".",
  events: ["pre_tool_use"],
  memoryless: true,
  tools: "shell",
  onByDefault: true,
  evaluate(input: HookInput): GateVerdict {
    // The code tool's code (OMP's eval) that fetches and runs what it got.
    const toolName = input.tool_name ?? input.omp?.tool_name ?? "";
    const code = (input.omp?.kind ?? callKind(toolName, input.tool_input)) === "code" ? codeOf(toolName, input.tool_input) : undefined;
    if (code !== undefined && fetchesAndRuns(code.code, code.language)) {
      return { decision: "block", reason: `code fetching from the network and running code or a program on what it gets runs a download unread; ${INSTEAD}` };
    }
    // Commands come in source order; a piped command reads what the pipeline before it wrote,
    // so a download anywhere upstream (`curl … | tee log | sh`) feeds it.
    // Each nesting depth has its own pipelines: a script nested in a command is read before that command.
    // Within a depth, each substitution level too: `$(cat)` in `curl … | bash -c "$(cat)"` reads the pipe
    // bash stands in, and is read before bash without ending that pipeline.
    const upstream = new Map<number, Map<number, string | undefined>>();
    // What was set last at each depth: a nested script's first piped command reads the pipe its command stood in.
    const lastAtDepth = new Map<number, string | undefined>();
    const at = (depth: number, level: number): { has: boolean; value: string | undefined } => {
      const levels = upstream.get(depth);
      return { has: levels?.has(level) === true, value: levels?.get(level) };
    };
    // A download read into a descriptor (`exec 3< <(curl …)`) feeds whatever later reads that descriptor (`bash <&3`).
    let onDescriptor: string | undefined;
    // A line that downloads: an eval of a value it read (`… | while read l; do eval "$l"; done`) may run the download.
    let downloaded: string | undefined;
    const reason = walkCall(input, (run) => {
      // A deeper script read after this command's is another's: its pipes start afresh.
      for (const depth of upstream.keys()) if (depth > run.depth) upstream.delete(depth);
      for (const depth of lastAtDepth.keys()) if (depth > run.depth) lastAtDepth.delete(depth);
      const { level, outerStdin } = run.command;
      const same = at(run.depth, level);
      const outer = at(run.depth, level - 1);
      // A piped command first in a nested script (an alias's text) reads the pipe its command stood in.
      const fromPipe = outerStdin ? (outer.has ? outer.value : lastAtDepth.get(run.depth - 1)) : same.has ? same.value : outer.has ? outer.value : lastAtDepth.get(run.depth - 1);
      const feeding = run.command.piped ? fromPipe : onDescriptor;
      // …or a command named by such a value (`read -r x < <(curl …); $x`).
      const evalOfValue = downloaded !== undefined && (((run.program === "eval" || run.program === "source" || run.program === ".") && run.argv.slice(1).some(isDynamic)) || (run.argv[0] !== undefined && isDynamic(run.argv[0])));
      const found = evalOfValue ? `${run.program} of a value read on a line that downloads (${downloaded}) may run the download; ${INSTEAD}` : check(run, feeding);
      const carried = run.program !== undefined && DOWNLOADERS.has(run.program) ? run.program : feeding;
      const levels = upstream.get(run.depth) ?? new Map<number, string | undefined>();
      levels.set(level, carried);
      // This command done, the substitutions in it are done.
      for (const deeper of levels.keys()) if (deeper > level) levels.delete(deeper);
      upstream.set(run.depth, levels);
      lastAtDepth.set(run.depth, carried);
      if (run.program !== undefined && DOWNLOADERS.has(run.program)) downloaded = run.program;
      const fromDownload = run.command.argv[0] === "exec" ? [...run.command.argv, ...run.command.redirects.map((r) => r.target)].find((w) => /^<\(/.test(w) && downloads(w.slice(2, -1))) : undefined;
      if (fromDownload !== undefined) onDescriptor = `a download read into a descriptor (${fromDownload.slice(0, 40)})`;
      return found;
    });
    return reason === undefined ? { decision: "pass" } : { decision: "block", reason };
  },
};

/** Operands that make a runner read its script from stdin anyway. */

function readsStdin(run: Pick<RunCommand, "program" | "argv">): boolean {
  const args = run.argv.slice(1);
  const shell = SHELLS.has(run.program ?? "");
  // `bash -s ARGS`: -s reads the script from stdin and passes ARGS to it.
  if (shell && args.some((w) => /^-[A-Za-z]*s[A-Za-z]*$/.test(w))) return true;
  // Code it is handed that runs what it reads (`python3 -c 'exec(sys.stdin.read())'`, `bash -c 'source /dev/stdin'`,
  // `bash -c 'sh'`, xargs's `sh -c {}`); plain code reading data does not.
  const code = codeArgument(args);
  // In a shell's code, text built at run time where a command runs (`$(cat)`, `` `cat` ``, `"$@"`, `$x` first, eval);
  // in another language's, `$` is its own syntax (`perl -ne 'print $1'`, a template string).
  if (code !== undefined) return RUNS_TEXT.test(code) || /^\{\}$/.test(code) || (shell && (SHELL_RUNS_TEXT.test(code) || parseShell(code).some((c) => c.argv[0] !== undefined && RUNNERS.has(programName(c.argv[0])) && c.argv.length === 1)));
  // `python3 -m mod` runs a module; an interactive console (`-m code`) runs what it reads.
  const moduleAt = shell ? -1 : args.indexOf("-m");
  if (moduleAt !== -1) return STDIN_MODULES.has(args[moduleAt + 1] ?? "");
  // The script file: the first word that is no option and no option's value (`bash -o pipefail`, `python3 -W ignore`).
  let first: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as string;
    // A descriptor (`bash /dev/fd/3` after `exec 3< <(curl …)` or `3<&0`) is what was fed to it; `/dev//stdin` and `/dev/./stdin` are the same file.
    const file = word.startsWith("/") ? path.posix.normalize(word).replace(/(?<=.)\/$/, "") : word;
    if (STDIN_FILES.has(file) || /^\/dev\/fd\/\d+$|^\/proc\/(?:self|thread-self)\/fd\/\d+$/.test(file)) return true;
    if (word.startsWith("-") || (shell && word.startsWith("+"))) {
      if ((shell && SHELL_VALUED.test(word)) || (!shell && INTERPRETER_VALUED.has(word))) i++;
      continue;
    }
    first = word;
    break;
  }
  return first === undefined || /\$\(\s*cat\s*\)/.test(first) || substitutionReadsStdin(first);
}

/**
 * `<(cat)`, `<(tee log)`: a process substitution whose command may read the stdin of the
 * command it is in (one printing only its own words, or reading a file given by `<`, does
 * not). Fed a download, the runner given it as its script runs the download.
 */
function substitutionReadsStdin(word: string): boolean {
  const inner = /^<\((.*)\)$/s.exec(word)?.[1];
  if (inner === undefined) return false;
  // Any of its commands may (`<(echo; cat)`): each that is not one printing its own words, or reading a file given by `<`.
  return parseShell(inner).some((command) => {
    const program = command.argv[0] === undefined ? undefined : programName(command.argv[0]);
    return command.level === 0 && program !== undefined && program !== "echo" && program !== "printf" && program !== "true" && program !== ":" && !command.redirects.some((r) => r.op === "<") && command.stdin.length === 0;
  });
}

/** The code given on the command line: `-c CODE`, `-e CODE`, glued (`-cCODE`, `--eval=CODE`). */
function codeArgument(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as string;
    if (/^-[A-Za-z]*[ceE]$/.test(word) || word === "--eval" || word === "--command") return args[i + 1] ?? "";
    const glued = /^-[ceE](.+)$/s.exec(word) ?? /^--(?:eval|command)=(.*)$/s.exec(word);
    if (glued) return glued[1] as string;
    if (!word.startsWith("-")) return undefined;
  }
  return undefined;
}

/** awk's programs: one fed a download and starting commands (`awk '{system($0)}'`, `print | "sh"`) runs its lines. */
const AWKS = new Set(["awk", "gawk", "mawk", "nawk", "busybox-awk"]);

/** Words that run the command after them in their place. */
const STARTERS = new Set(["exec", "command", "builtin", "env", "nohup", "time", "nice", "setsid", "stdbuf"]);
/** How deep a function's calls of other functions are followed for a runner of its stdin. */
const MAX_FUNCTION_DEPTH = 8;

/**
 * A shell function whose body hands its stdin to a runner (`f() { bash; }`, `f() { eval "$(cat)"; }`,
 * or a function that calls one): fed a download, it runs it. OMP's shell keeps such a function
 * from an earlier call, so `curl … | f` in a later one reads it from there.
 */
function functionRunsStdin(name: string, functions: ReadonlyMap<string, string> | undefined, depth = 0): boolean {
  const body = functions?.get(name);
  if (body === undefined || depth > MAX_FUNCTION_DEPTH) return false;
  return parseShell(body).some((command) => {
    // `exec bash`, `command sh`, `env bash`: the program after the words that only run it.
    const argv = command.argv.slice(command.argv.findIndex((word) => !STARTERS.has(word)));
    const program = argv[0] === undefined ? undefined : programName(argv[0]);
    if (program === undefined || argv[0] === undefined || command.redirects.some((r) => r.op === "<")) return false;
    // A program named at run time (`$SHELL`, `"$@"`) may be any shell.
    if (isDynamic(program)) return true;
    // Functions are called by their names as spelled (bash's keep case everywhere).
    if (argv[0] !== name && functions?.has(argv[0]) === true) return functionRunsStdin(argv[0], functions, depth + 1);
    if ((program === "eval" || program === "source" || program === ".") && command.argv.slice(1).some(isDynamic)) return true;
    return RUNNERS.has(program) && readsStdin({ program, argv });
  });
}

/**
 * Code that fetches from the network and runs code, hands text to a process, or starts a
 * command it computes (`os.system(urlopen(u).read())`): what it fetched may be what runs.
 * A fetch beside a command spelled out (`subprocess.run(["tar", "xf", "a.tgz"])`) passes.
 */
function fetchesAndRuns(code: string, language: CodeLanguage): boolean {
  return FETCHES.test(code) && (RUNS_FETCHED.test(code) || readCode(code, language).runsComputed);
}

/**
 * Programs that run what they read on stdin in a language of their own: `make -f -`
 * (recipes), `awk -f /dev/stdin` (a program), GNU sed's `e` (lines as commands), vim's
 * and ex's `-e`/`-s` and ed (editor commands, `!cmd` among them).
 */
function runsStdinOtherwise(program: string, args: readonly string[]): boolean {
  const stdinFile = (word: string | undefined): boolean => word !== undefined && (STDIN_FILES.has(word.startsWith("/") ? path.posix.normalize(word) : word) || /^\/dev\/fd\/0$/.test(word));
  if (program === "make" || program === "gmake") return args.some((a, i) => (a === "-f" || a === "--file" || a === "--makefile") && stdinFile(args[i + 1])) || args.some((a) => /^(?:-f|--(?:make)?file=)(.+)$/.test(a) && stdinFile(/^(?:-f|--(?:make)?file=)(.+)$/.exec(a)?.[1]));
  if (AWKS.has(program)) return args.some((a, i) => a === "-f" && stdinFile(args[i + 1]));
  if (program === "sed" || program === "gsed") {
    const scripts = args.filter((a, i) => !a.startsWith("-") || args[i - 1] === "-e" || args[i - 1] === "--expression").slice(0, 1).concat(args.filter((_a, i) => args[i - 1] === "-e" || args[i - 1] === "--expression"));
    return scripts.some((script) => /(?:^|[;{}\n]\s*)\d*[,$\d]*\s*e(?:\s|;|$)|s(.).*\1.*\1[gpIiMm\d]*e/.test(script));
  }
  if (program === "ed" || program === "red") return true;
  // Database shells run a dot- or backslash-command from what they read: sqlite3's `.shell`, psql's and mysql's `\!`.
  if (program === "sqlite3" || program === "psql" || program === "mysql" || program === "mariadb") return !args.some((a) => a === "-c" || a === "--command" || a === "-e" || a === "--execute" || a === "-f" || a === "--file");
  if (program === "ex" || program === "vim" || program === "vi" || program === "nvim") return program === "ex" || args.some((a) => /^-[A-Za-z]*[es]/.test(a));
  return false;
}

function check(run: RunCommand, feeding: string | undefined): string | undefined {
  if (feeding !== undefined && run.program !== undefined && runsStdinOtherwise(run.program, run.argv.slice(1))) {
    return `piping ${feeding} into ${run.program}, which runs what it reads as commands, runs whatever the download holds; ${INSTEAD}`;
  }
  for (const { code, language } of run.code) {
    if (fetchesAndRuns(code, language)) return `${run.program ?? "code"} fetching from the network and running code or a program on what it gets runs a download unread; ${INSTEAD}`;
  }
  if (feeding !== undefined && run.shellFunction && run.argv[0] !== undefined && functionRunsStdin(run.argv[0], run.scope.functions)) {
    return `piping ${feeding} into the shell function ${run.program}, which runs what it reads, runs whatever the download holds; ${INSTEAD}`;
  }
  if (feeding !== undefined && run.program !== undefined && AWKS.has(run.program) && run.argv.slice(1).some((w) => /\bsystem\s*\(|\|\s*"|\|&/.test(w))) {
    return `piping ${feeding} into ${run.program}, whose program runs commands, runs what the download holds; ${INSTEAD}`;
  }
  // `x=$(curl …); $x`: a command named by what a download returns.
  const named = run.argv[0];
  if (run.dynamic && named !== undefined && [...named.matchAll(/\$\(|`/g)].some((m) => downloads(named.slice((m.index ?? 0) + m[0].length).replace(/\)[^)]*$|`[^`]*$/, "")))) {
    return `running what a download returns as a command (${named.slice(0, 60)}) runs whatever it holds; ${INSTEAD}`;
  }
  const known = run.program !== undefined && (RUNNERS.has(run.program) || /^python3(\.\d+)?$/.test(run.program));
  // A runner named at run time (`| $SHELL`) may be any shell.
  const runner = known || run.dynamic ? (run.program ?? "a program") : undefined;
  if (runner === undefined) return undefined;
  // `curl … | bash`: a runner reading its script from a download on stdin; `| xargs sh -c`, words from it.
  if (feeding !== undefined && (readsStdin(run) || run.unreadArgs || ((run.program === "eval" || run.program === "source" || run.program === ".") && run.argv.some(isDynamic)))) {
    return `piping ${feeding} into ${runner} runs whatever the download holds; ${INSTEAD}`;
  }
  // The script it runs — its first operand, its `-c`/`-e` code (glued too), all of eval's words, a here-string — being a download.
  const args = run.argv.slice(1);
  const code = args.findIndex((w) => /^-[A-Za-z]*[ceEr]$/.test(w));
  const scripts = run.program === "eval" ? args : [args.find((w) => !w.startsWith("-")), code === -1 ? undefined : args[code + 1], codeArgument(args)].filter((w): w is string => w !== undefined);
  // `bash < <(curl …)`: its stdin is the download, read as its script.
  const fedIn = readsStdin(run) ? run.command.redirects.filter((r) => r.op === "<" && r.target.startsWith("<(")).map((r) => r.target) : [];
  for (const text of [...scripts, ...run.command.stdin, ...fedIn]) {
    const fromDownload = [...text.matchAll(/<\(|\$\(|`/g)].some((m) => downloads(text.slice((m.index ?? 0) + m[0].length).replace(/\)[^)]*$|`[^`]*$/, "")));
    if (fromDownload) {
      return `${runner} would run a download it never saved (${text.slice(0, 60)}); ${INSTEAD}`;
    }
  }
  return undefined;
}
