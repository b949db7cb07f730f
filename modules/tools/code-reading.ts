// What a static reader can see of code a code-execution call runs (OMP's `eval`,
// `debug` launches): the literal command lines it hands to process APIs and the
// literal paths it writes. Code can compute a command or a path in ways no reader
// follows (variables, string building, imports, eval of strings); those parts are
// unreadable, and callers say so instead of treating the code as harmless.
import type { CodeLanguage } from "./declaration.ts";

export interface CodeWrite {
  /** The path as the code spells it (not yet resolved). */
  path: string;
  /** The text written, when it is a literal. */
  content?: string;
  /** A removal of the whole tree at the path (`shutil.rmtree`, `rmSync(p, { recursive: true })`, `remove_tree`). */
  tree?: true;
}

export interface CodeReading {
  /** Shell command lines the code passes, as literals, to a process API. */
  commands: string[];
  /** Files the code writes through calls whose path is a literal. */
  writes: CodeWrite[];
  /** Whether the code calls a process API at all (readable or not). */
  startsProcesses: boolean;
  /**
   * Whether a process call's command is not spelled out in the code: a variable, an
   * expression, a list with computed items (`os.system(line)`, Perl's `system $_`). Such
   * a command may be anything the code reads: its arguments, its stdin, its files.
   */
  runsComputed: boolean;
  /** Every string literal, and every list of string literals as one command line. */
  literals: string[];
  /** The lists among them (`["commit", "-n"]` as `commit -n`): words a list that goes on with one may be spread into. */
  lists: string[];
  /** Symbolic links the code makes through calls whose paths are literals: the link, and what it names (both as spelled). */
  links: { link: string; target: string }[];
  /**
   * The code writes (or removes) a path it computes, and reads its arguments: the path
   * may be any word the command gives it (`open(sys.argv[1], "w")`, `rmtree(sys.argv[1])`).
   */
  givenWrites: boolean;
}

/** Operators that join two strings. */
const JOINS = new Set(["+", "."]);

/** Code that reads its command-line arguments. */
const READS_ARGV = /\bargv\b|\bARGV\b|\$ARGV\b|\bDeno\.args\b|\bBun\.argv\b|\$argv\b/;

type Token =
  | { type: "str"; value: string }
  | { type: "id"; value: string }
  | { type: "punct"; value: string }
  /** A tagged template's tag is the identifier before it: `` $`git status` ``. */
  | { type: "tmpl"; value: string };

/** Process calls Perl and Ruby make without parentheses, whose next word is then the command. */
const BARE_SINKS = new Set(["system", "exec", "spawn"]);

/** Process calls named by a string (`getattr(os, "system")`, `cp["execSync"]`): names too particular to be data. */
const NAMED_SINKS = new Set(["system", "popen", "execSync", "execFileSync", "spawnSync", "check_output", "check_call", "Popen", "getoutput", "getstatusoutput", "shell_exec", "passthru", "proc_open"]);

/**
 * A process call's name not called where it stands: renamed (`{ execSync: run }`, `import
 * run as go`, `f = os.system`) or, in Perl and Ruby, called without parentheses (`system $_`):
 * its command is one no reader follows.
 */
function renamedOrBare(tokens: readonly Token[], at: number): boolean {
  const next = tokens[at + 1];
  if (BARE_SINKS.has((tokens[at] as Token).value) && (next?.type === "id" || next?.value === "@" || next?.value === "$")) return true;
  // Renamed, or handed on as a value (`map(os.system, args)`).
  if (next?.value === ":" || next?.value === "as" || next?.value === "," || next?.value === ")") return true;
  // The start of its dotted name: `f = os.system`.
  let start = at;
  while (tokens[start - 1]?.value === "." && tokens[start - 2]?.type === "id") start -= 2;
  return tokens[start - 1]?.value === "=" && tokens[start - 2]?.value !== "=" && tokens[start - 2]?.value !== "!";
}

/** Modules whose import means the code can start processes. */
const PROCESS_MODULES = new Set(["subprocess", "child_process", "pty"]);

/** Calls that run a shell line, or a program with arguments, by their last name part. */
const PROCESS_SINKS = new Set([
  // Node and Bun
  "exec",
  "execSync",
  "execFile",
  "execFileSync",
  "spawn",
  "spawnSync",
  "fork",
  // Python
  "system",
  "popen",
  "run",
  "call",
  "check_call",
  "check_output",
  "Popen",
  "getoutput",
  "getstatusoutput",
  "create_subprocess_shell",
  "create_subprocess_exec",
  "execl",
  "execle",
  "execlp",
  "execlpe",
  "execv",
  "execve",
  "execvp",
  "execvpe",
  "spawnl",
  "spawnle",
  "spawnlp",
  "spawnlpe",
  "spawnv",
  "spawnve",
  "spawnvp",
  "spawnvpe",
  "posix_spawn",
  "posix_spawnp",
  // Deno
  "Command",
  // Perl's IPC::Open2 and IPC::Open3
  "open2",
  "open3",
  // Elixir's System.shell, Erlang's os:cmd, Clojure's sh
  "shell",
  "cmd",
  // Ruby's Open3
  "capture2",
  "capture2e",
  "capture3",
  "popen2",
  "popen3",
  // Lua's os.execute, R's system2, PHP's
  "execute",
  "system2",
  "shell_exec",
  "passthru",
  "proc_open",
  "pcntl_exec",
]);

/** Bun's shell: `` $`…` `` and `` Bun.$`…` ``. */
const SHELL_TAGS = new Set(["$", "Bun.$"]);

/** Calls whose first literal argument is a file they write (the prelude's write, Bun, fs). */
const WRITE_FIRST = new Set([
  "write",
  "Bun.write",
  "writeFile",
  "writeFileSync",
  "appendFile",
  "appendFileSync",
  "createWriteStream",
  "truncate",
  "truncateSync",
  "rm",
  "rmSync",
  "unlink",
  "unlinkSync",
  "remove",
  "os.remove",
  "os.unlink",
  "os.truncate",
  // PHP, Ruby
  "file_put_contents",
  "File.write",
  "File.binwrite",
  "IO.write",
  "IO.binwrite",
  "File.delete",
  "File.unlink",
  // Trees and directories removed: Python's shutil, Node's, Perl's File::Path, Ruby's FileUtils
  "rmtree",
  "rmdir",
  "rmdirSync",
  "removedirs",
  "remove_tree",
  "rm_rf",
  "rm_r",
  // Modes and owners changed (a hook that is not executable does not run)
  "chmod",
  "chmodSync",
  "lchmod",
  "lchmodSync",
  "os.chmod",
  "os.lchmod",
  "chown",
  "chownSync",
  "lchown",
  "lchownSync",
  "os.chown",
  "os.lchown",
]);

/** Calls that remove a whole tree: Python's shutil, Perl's File::Path, Ruby's FileUtils. */
const TREE_REMOVERS = new Set(["rmtree", "remove_tree", "rm_rf", "rm_r"]);
/** Node's removals, which take a tree with `{ recursive: true }`. */
const RECURSIVE_REMOVERS = new Set(["rm", "rmSync", "rmdir", "rmdirSync"]);

/** Calls that open a file in a mode given as a literal: Python's and PHP's, Node's fs, Ruby's File, Lua's io, Perl's `open(F, ">f")`. */
const OPENERS = new Set(["open", "fopen", "openSync", "File.open", "File.new", "io.open"]);

/** Calls whose second literal argument is a file they write (copies and moves). */
const WRITE_SECOND = new Set(["copyFile", "copyFileSync", "rename", "renameSync", "cp", "cpSync", "copy", "copy2", "copyfile", "copytree", "copy_tree", "cp_r", "move", "replace"]);

/** Of WRITE_SECOND, the calls that take the file away from its first path. */
const MOVES = new Set(["rename", "renameSync", "move", "replace"]);

/** `Path("p").write_text(…)` and friends. */
const PATH_METHODS = new Set(["write_text", "write_bytes", "touch", "unlink", "rename", "replace"]);

/** Perl's and PHP's builtins (and File::Copy's) that make a file at their second argument. */
const FILE_MAKERS = new Set(["rename", "link", "symlink", "copy", "move", "cp", "mv"]);

/** `os.symlink(target, link)`, `fs.symlinkSync(target, link)`, `File.symlink`, Perl's and PHP's `symlink`. */
const SYMLINKERS = new Set(["symlink", "symlinkSync"]);

/**
 * The directory a write's relative path is read from after the code's own `chdir`
 * (`os.chdir`, `process.chdir`, `Dir.chdir`): a literal one joins up; one the code
 * computes makes the path unknown (`$CHDIR/…`, which gates read as built at run time).
 */
function afterChdir(file: string, dir: string | undefined): string {
  if (dir === undefined || file.startsWith("/") || file.startsWith("~")) return file;
  return dir.endsWith("/") ? `${dir}${file}` : `${dir}/${file}`;
}

const JS_ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", "0": "\0", b: "\b", f: "\f", v: "\v" };

class Lexer {
  readonly tokens: Token[] = [];
  private i = 0;

  constructor(
    private readonly src: string,
    private readonly python: boolean,
    /** Perl's `q qq qw qx` and Ruby's `%w %q %Q %x` with any delimiter are strings (Perl, Ruby, PHP: "unknown"). */
    private readonly quoteLike = false,
  ) {}

  /** The text up to the delimiter that closes the one at `this.i` (brackets nest); the position is moved past it. */
  private delimited(): string {
    const src = this.src;
    const open = src[this.i] as string;
    const close = ({ "(": ")", "[": "]", "{": "}", "<": ">" } as Record<string, string>)[open] ?? open;
    let depth = 0;
    const start = ++this.i;
    for (; this.i < src.length; this.i++) {
      const ch = src[this.i] as string;
      if (ch === "\\") {
        this.i++;
        continue;
      }
      if (ch === open && close !== open) depth++;
      else if (ch === close) {
        if (depth === 0) break;
        depth--;
      }
    }
    const text = src.slice(start, this.i);
    this.i++;
    return text;
  }

  /** A quote-like form's tokens: a string, a list of words, or a command (as a backtick template). */
  private quoteForm(kind: string): void {
    const text = this.delimited();
    if (kind === "qw" || kind === "w" || kind === "W" || kind === "i") {
      this.tokens.push({ type: "punct", value: "[" });
      text.split(/\s+/).filter((word) => word.length > 0).forEach((word, k) => {
        if (k > 0) this.tokens.push({ type: "punct", value: "," });
        this.tokens.push({ type: "str", value: word });
      });
      this.tokens.push({ type: "punct", value: "]" });
    } else if (kind === "qx" || kind === "x") this.tokens.push({ type: "tmpl", value: text });
    else this.tokens.push({ type: "str", value: text });
  }

  run(): Token[] {
    const src = this.src;
    while (this.i < src.length) {
      const ch = src[this.i] as string;
      if (/\s/.test(ch)) {
        this.i++;
      } else if (this.python && ch === "#") {
        this.skipLine();
      } else if (!this.python && ch === "/" && src[this.i + 1] === "/") {
        this.skipLine();
      } else if (!this.python && ch === "/" && src[this.i + 1] === "*") {
        const end = src.indexOf("*/", this.i + 2);
        this.i = end === -1 ? src.length : end + 2;
      } else if (ch === '"' || ch === "'") {
        this.tokens.push({ type: "str", value: this.readQuoted(ch, false) });
      } else if (!this.python && ch === "`") {
        this.tokens.push({ type: "tmpl", value: this.readTemplate() });
      } else if (/[A-Za-z_$]/.test(ch)) {
        const start = this.i;
        while (this.i < src.length && /[\w$]/.test(src[this.i] as string)) this.i++;
        const word = src.slice(start, this.i);
        const quote = src[this.i];
        // Perl's `qw(git commit -n)`, `qx{…}`, `q|…|` (space before the delimiter allowed).
        const delimiterAt = this.quoteLike && /^(?:q|qq|qw|qx)$/.test(word) ? this.i + (src.slice(this.i).match(/^\s*/)?.[0].length ?? 0) : -1;
        if (delimiterAt !== -1 && /[([{<|\/!#~^]/.test(src[delimiterAt] ?? "")) {
          this.i = delimiterAt;
          this.quoteForm(word);
          continue;
        }
        // Python string prefixes: r"…", b'…', f"…", rb"…"
        if (this.python && (quote === '"' || quote === "'") && /^(r|u|b|f|br|rb|fr|rf)$/i.test(word)) {
          const raw = /r/i.test(word);
          const value = this.readQuoted(quote, raw);
          // An f-string's `{…}` parts are computed: kept as `$_`, which no reader takes for a flag.
          this.tokens.push({ type: "str", value: /f/i.test(word) ? value.replace(/\{[^{}]*\}/g, "$_") : value });
        } else {
          this.tokens.push({ type: "id", value: word });
        }
      } else if (this.quoteLike && ch === "%" && /^[wWqQxi][([{<|!\/]/.test(src.slice(this.i + 1, this.i + 3))) {
        // Ruby's `%w(…)`, `%q(…)`, `%x(…)`.
        const kind = src[this.i + 1] as string;
        this.i += 2;
        this.quoteForm(kind === "Q" ? "q" : kind);
      } else {
        this.tokens.push({ type: "punct", value: ch });
        this.i++;
      }
    }
    return this.tokens;
  }

  private skipLine(): void {
    const end = this.src.indexOf("\n", this.i);
    this.i = end === -1 ? this.src.length : end;
  }

  private readQuoted(quote: string, raw: boolean): string {
    const src = this.src;
    const triple = this.python && src.startsWith(quote.repeat(3), this.i);
    const close = triple ? quote.repeat(3) : quote;
    this.i += close.length;
    let text = "";
    while (this.i < src.length) {
      if (src.startsWith(close, this.i)) {
        this.i += close.length;
        return text;
      }
      const ch = src[this.i] as string;
      if (ch === "\n" && !triple) return text; // an unterminated string ends at the line
      if (ch === "\\" && this.i + 1 < src.length) {
        const next = src[this.i + 1] as string;
        this.i += 2;
        if (raw) text += "\\" + next;
        else if (next === "\n") continue;
        else {
          // `\x6e`, `\u006e`, `\U0000006e`, `\u{6e}`, `\156`: the character they name.
          const coded = /^x([0-9a-fA-F]{2})|^u\{([0-9a-fA-F]{1,6})\}|^u([0-9a-fA-F]{4})|^U([0-9a-fA-F]{8})|^([0-7]{1,3})/.exec(src.slice(this.i - 1, this.i + 10));
          if (coded !== null) {
            const hex = coded[1] ?? coded[2] ?? coded[3] ?? coded[4];
            const point = hex !== undefined ? Number.parseInt(hex, 16) : Number.parseInt(coded[5] as string, 8);
            text += point <= 0x10ffff ? String.fromCodePoint(point) : "";
            this.i += coded[0].length - 1;
          } else text += JS_ESCAPES[next] ?? next;
        }
        continue;
      }
      text += ch;
      this.i++;
    }
    return text;
  }

  /** A template literal; each `${…}` becomes `$_`, a word no reader takes for a flag. */
  private readTemplate(): string {
    const src = this.src;
    this.i++;
    let text = "";
    while (this.i < src.length && src[this.i] !== "`") {
      const ch = src[this.i] as string;
      if (ch === "\\" && this.i + 1 < src.length) {
        const next = src[this.i + 1] as string;
        text += JS_ESCAPES[next] ?? next;
        this.i += 2;
      } else if (ch === "$" && src[this.i + 1] === "{") {
        let depth = 0;
        for (; this.i < src.length; this.i++) {
          if (src[this.i] === "{") depth++;
          else if (src[this.i] === "}" && --depth === 0) break;
        }
        this.i++;
        text += "$_";
      } else {
        text += ch;
        this.i++;
      }
    }
    this.i++;
    return text;
  }
}

/** A word list as one shell line, each word quoted when it needs it. */
export function shellLine(argv: readonly string[]): string {
  return argv.map((word) => (/^[\w@%+=:,./~-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`)).join(" ");
}

/** A dotted name ending at token `end` (inclusive): `subprocess.run`, `Bun.spawn`. */
function dottedNameEndingAt(tokens: readonly Token[], end: number): string {
  const parts: string[] = [];
  let j = end;
  while (j >= 0) {
    const token = tokens[j];
    if (token?.type !== "id") break;
    parts.unshift(token.value);
    if (tokens[j - 1]?.type === "punct" && tokens[j - 1]?.value === "." && tokens[j - 2]?.type === "id") j -= 2;
    else break;
  }
  return parts.join(".");
}

interface Argument {
  /** A literal; computed parts (an interpolation, a `"…" + x` tail) stand as COMPUTED_WORD. */
  str?: string;
  /** A list's items; a computed item (`sys.argv[1]`, `*args`, a `+ rest` after it) is COMPUTED. */
  list?: string[];
  /** `{ cmd: [...] }` (Bun.spawn's options form). */
  cmdList?: string[];
  /** `{ args: [...] }` (Deno.Command's options form). */
  argsList?: string[];
  /** An object literal: options, not words. */
  options?: boolean;
}

/** A list item, or an argument, the code computes. */
const COMPUTED = "\u0000computed";

/**
 * How a command line reads what the code computes, which the walker fills with what the
 * code is given: one word of a list (`"$_"`), or text inside a shell line (`${_}`, and
 * a Python f-string's `$_`).
 */
export const COMPUTED_WORD = '"$_"';
export const COMPUTED_TEXT = "${_}";

/** The call's positional arguments from the `(` at `open`, each read when it is a literal. */
function readArguments(tokens: readonly Token[], open: number, computedParts = false, dotJoins = false): Argument[] {
  const groups: Token[][] = [[]];
  let depth = 0;
  for (let j = open; j < tokens.length; j++) {
    const token = tokens[j] as Token;
    if (token.type === "punct" && "([{".includes(token.value)) {
      depth++;
      if (depth === 1) continue;
    } else if (token.type === "punct" && ")]}".includes(token.value)) {
      depth--;
      if (depth === 0) break;
    } else if (depth === 1 && token.type === "punct" && token.value === ",") {
      groups.push([]);
      continue;
    }
    groups.at(-1)?.push(token);
  }
  const args: Argument[] = [];
  let keywordCommand: Argument | undefined;
  for (const group of groups) {
    // Keyword arguments (`shell=True`, `cwd="…"`) are not positional; `args=…` is the command all the same.
    if (group[0]?.type === "id" && group[1]?.type === "punct" && group[1].value === "=" && group[2]?.value !== "=") {
      if (group[0].value === "args" || group[0].value === "cmd") keywordCommand = argumentOf(group.slice(2), computedParts, dotJoins);
      // `open(p, mode="w")`: the mode named is the mode all the same.
      if (group[0].value === "mode" && args.length === 1) args.push(argumentOf(group.slice(2), computedParts, dotJoins));
      continue;
    }
    if (group.length > 0) args.push(argumentOf(group, computedParts, dotJoins));
  }
  return args.length === 0 && keywordCommand !== undefined ? [keywordCommand] : args;
}

/** Perl's statement modifiers: what follows one is no argument. */
const STATEMENT_MODIFIERS = new Set(["if", "unless", "while", "until", "for", "foreach", "or", "and"]);

/** A call's arguments written without parentheses (Perl's `open F, ">", "f";`): to the end of the statement. */
function bareArguments(tokens: readonly Token[], from: number): Argument[] {
  const groups: Token[][] = [[]];
  let depth = 0;
  for (let j = from; j < tokens.length; j++) {
    const token = tokens[j] as Token;
    if (token.type === "punct" && "([{".includes(token.value)) depth++;
    else if (token.type === "punct" && ")]}".includes(token.value)) {
      if (depth === 0) break;
      depth--;
    } else if (depth === 0 && token.type === "punct" && (token.value === ";" || (token.value === "|" && tokens[j + 1]?.value === "|"))) break;
    // A statement modifier ends the arguments (`rename "a", "b" if -e "a"`).
    else if (depth === 0 && token.type === "id" && STATEMENT_MODIFIERS.has(token.value)) break;
    else if (depth === 0 && token.type === "punct" && (token.value === "," || (token.value === "=" && tokens[j + 1]?.value === ">"))) {
      // `=>` is Perl's comma too.
      if (token.value === "=") j++;
      groups.push([]);
      continue;
    }
    groups.at(-1)?.push(token);
  }
  return groups.filter((group) => group.length > 0).map((group) => argumentOf(group));
}

/** One argument's tokens, read; `computedParts`: a literal with computed parts keeps them as COMPUTED (a command line), else it is no literal (a path). */
function argumentOf(group: readonly Token[], computedParts = false, dotJoins = false): Argument {
  const first = group[0];
  if (first === undefined) return {};
  if (first.type === "punct" && first.value === "[") {
    const list = readList(group, 0);
    if (list === undefined) return {};
    // `["git"] + sys.argv[1:]`: the list goes on computed.
    return { list: list.end === group.length - 1 ? list.items : [...list.items, COMPUTED] };
  }
  if (first.type === "punct" && first.value === "{") {
    const cmd = readListOption(group, "cmd");
    const listed = readListOption(group, "args");
    return { options: true, ...(cmd ? { cmdList: cmd } : {}), ...(listed ? { argsList: listed } : {}) };
  }
  const place = placeOf(group);
  if (place !== undefined) return { str: place };
  const text = joinedText(group, computedParts, dotJoins);
  return text === undefined || (!computedParts && text.includes(COMPUTED)) ? {} : { str: text };
}

/** The home directory as the languages ask for it: `os.homedir()`, `Path.home()`, `os.environ["HOME"]`, Perl's `$ENV{HOME}`, Ruby's `Dir.home`. */
const HOME_EXPRESSION =
  /^(?:(?:require\(["']os["']\)|os|pathlib\.Path|Path|Dir)\.)?(?:homedir|home)\(\)$|^(?:os\.environ\[["']HOME["']\]|os\.environ\.get\(["']HOME["'].*\)|os\.getenv\(["']HOME["'].*\)|process\.env\.HOME|process\.env\[["']HOME["']\]|\$ENV\{["']?HOME["']?\}|ENV\[["']HOME["']\]|ENV\.fetch\(["']HOME["'].*\)|Dir\.home|getenv\(["']HOME["']\)|glob\(["']~\/?["']\))$/;
/** The working directory: `os.getcwd()`, `process.cwd()`, `Path.cwd()`, `Dir.pwd`, PHP's `getcwd()`. */
const CWD_EXPRESSION = /^(?:(?:os|process|pathlib\.Path|Path|Dir|Deno)\.)?(?:getcwd|cwd)\(\)$|^Dir\.pwd$|^(?:os\.environ\[["']PWD["']\]|os\.environ\.get\(["']PWD["'].*\)|os\.getenv\(["']PWD["'].*\)|process\.env\.PWD|process\.env\[["']PWD["']\]|\$ENV\{["']?PWD["']?\}|ENV\[["']PWD["']\])$|^(?:os\.path\.)?(?:abspath|realpath)\((?:os\.curdir|["']\.\/?["'])\)$|^os\.curdir$|^(?:require\(["'](?:node:)?path["']\)|path)\.resolve\((?:["']\.\/?["'])?\)$/;

/** `~` or `.` for an expression that is the home or the working directory, which a removal of it deletes whole. */
function placeOf(group: readonly Token[]): string | undefined {
  if (group.length < 2 || group.length > 16) return undefined;
  // `__import__("os").getcwd()` is `os.getcwd()`.
  const text = group
    .map((token) => (token.type === "str" ? `"${token.value}"` : token.value))
    .join("")
    .replace(/^__import__\(["']os["']\)\./, "os.");
  if (HOME_EXPRESSION.test(text)) return "~";
  if (CWD_EXPRESSION.test(text)) return ".";
  return undefined;
}

/**
 * An expression's text, read as string concatenation: `"git commit " + x`, `x + " -n"`,
 * `"a" "b"`, a template's `${…}`, Python's `"git {}".format("n")` and `"%s" % x` (the
 * placeholders filled with literal arguments, else computed), Perl's and PHP's `.` with
 * `dotJoins`. Computed parts are COMPUTED;
 * undefined for an expression with no literal at all.
 */
function joinedText(group: readonly Token[], computedParts: boolean, dotJoins = false): string | undefined {
  // Parts split at `+` outside brackets.
  const parts: Token[][] = [[]];
  let depth = 0;
  for (const token of group) {
    if (token.type === "punct" && "([{".includes(token.value)) depth++;
    else if (token.type === "punct" && ")]}".includes(token.value)) depth--;
    // Perl's and PHP's `.` joins strings too.
    if (depth === 0 && token.type === "punct" && (token.value === "+" || (dotJoins && token.value === "."))) parts.push([]);
    else parts.at(-1)?.push(token);
  }
  let text = "";
  let literal = false;
  for (const part of parts) {
    const strings = part.filter((token) => token.type === "str" || token.type === "tmpl");
    const head = part.findIndex((token) => token.type !== "str" && token.type !== "tmpl");
    const value = (token: Token): string => (token.type === "tmpl" && computedParts ? token.value.replace(/\$\{[^}]*\}/g, COMPUTED) : token.value);
    if (part.length > 0 && head === -1) {
      // Adjacent literals ("a" "b") are one.
      text += strings.map(value).join("");
      literal = true;
      continue;
    }
    // `"git {}".format("n")`, `"git %s" % "n"`, `"git %s %s" % ("a", b)`.
    const formatAt = head > 0 && ((part[head]?.value === "." && part[head + 1]?.value === "format") || part[head]?.value === "%") ? head : -1;
    if (formatAt > 0) {
      const fills = part.slice(formatAt + (part[formatAt]?.value === "%" ? 1 : 2));
      const values = readArguments(fills[0]?.value === "(" ? fills : [{ type: "punct", value: "(" }, ...fills, { type: "punct", value: ")" }], 0).map((arg) => arg.str ?? COMPUTED);
      let at = 0;
      text += part
        .slice(0, formatAt)
        .map(value)
        .join("")
        .replace(PY_PLACEHOLDER, () => values[at++] ?? COMPUTED);
      literal = true;
      continue;
    }
    // `os.path.join("/opt", "x")`, `path.join(…)`, `Path("a", "b")`, `os.path.expanduser("~/x")`, `File.join(…)`: the path they spell.
    const joined = joinedPath(part);
    if (joined !== undefined) {
      text += joined;
      literal = true;
      continue;
    }
    text += COMPUTED;
  }
  return literal ? text : undefined;
}

/** Calls that join or expand path pieces, by their last name: `os.path.join`, `path.resolve`, `Path`, `File.join`. */
const PATH_JOINERS = new Set(["join", "resolve", "expanduser", "Path", "PurePath", "PosixPath", "abspath", "normpath", "realpath"]);

/** The path a joiner call with literal pieces spells (computed pieces as COMPUTED); undefined for any other expression. */
function joinedPath(part: readonly Token[]): string | undefined {
  let open = 0;
  while (open < part.length && (part[open]?.type === "id" || part[open]?.value === ".")) open++;
  if (open === 0 || part[open]?.value !== "(" || closingParen(part, open) !== part.length - 1) return undefined;
  const name = part.slice(0, open).map((token) => token.value).join("");
  const last = part[open - 1]?.value ?? "";
  if (!PATH_JOINERS.has(last) || !(/path|Path|File/.test(name) || last === "Path")) return undefined;
  const pieces = readArguments(part, open).map((arg) => arg.str ?? COMPUTED);
  if (pieces.length === 0 || pieces.every((piece) => piece === COMPUTED)) return undefined;
  return last === "resolve" || last === "abspath" ? pieces.join("/").replace(/^.*\/(?=\/)/, "") : pieces.join("/").replace(/\/{2,}/g, "/");
}

/** `[ "a", b, *c ]` from the `[` at `open`: literal items as they are, computed ones as COMPUTED; undefined when it does not close. */
function readList(tokens: readonly Token[], open: number): { items: string[]; end: number } | undefined {
  const items: string[] = [];
  let item: Token[] = [];
  let depth = 0;
  const close = (): void => {
    if (item.length === 0) return;
    const only = item.length === 1 ? item[0] : undefined;
    // `"-" + x`, `"--no-" + x`: a word with a computed part; `os.getcwd()`, `os.homedir()`: the place it is.
    items.push(only?.type === "str" ? only.value : (placeOf(item) ?? joinedText(item, true) ?? COMPUTED));
    item = [];
  };
  for (let j = open + 1; j < tokens.length; j++) {
    const token = tokens[j] as Token;
    if (token.type === "punct" && depth === 0 && (token.value === "]" || token.value === ",")) {
      close();
      if (token.value === "]") return { items, end: j };
      continue;
    }
    if (token.type === "punct" && "([{".includes(token.value)) depth++;
    else if (token.type === "punct" && ")]}".includes(token.value)) depth--;
    item.push(token);
  }
  return undefined;
}

/** Programs that run the words after them as a command line: a command naming one with a computed word runs a computed command. */
const RUNS_ITS_WORDS = /^(?:(?:ba|z|da|k|fi|c|tc)?sh|env|xargs|nohup|timeout|nice|ionice|time|sudo|doas|su|exec|eval|command|setsid|stdbuf|chroot|ssh|watch|script|unbuffer|flock)$/;

/** Interpolations in a literal another language fills in at run time: `${x}`, `#{x}`, `$x`, `@x`, `$x[0]`, Python's `{}`/`%s` before `.format`/`%`. */
const INTERPOLATION = /\$\{[^}]*\}|#\{[^}]*\}|[$@][A-Za-z_]\w*(?:\[[^\]]*\]|\{[^}]*\})?/g;
const PY_PLACEHOLDER = /\{[^{}]*\}|%[-#0 +]*\d*(?:\.\d+)?[sdifrx]/g;

/** A call's words, with COMPUTED for each computed one, or a whole line (a string a shell runs). */
function wordsOf(arg: Argument | undefined): string[] | undefined {
  if (arg === undefined || arg.options === true) return undefined;
  if (arg.list !== undefined) return arg.list;
  if (arg.str === undefined) return [COMPUTED];
  return undefined;
}

/** A shell line with each computed part written as COMPUTED_TEXT. */
const marked = (line: string): string => line.split(COMPUTED).join(COMPUTED_TEXT);

/** A command line from words, computed ones written as COMPUTED_WORD. */
const wordsLine = (words: readonly string[]): string =>
  words
    .map((word) => (word.includes(COMPUTED) ? word.split(COMPUTED).map((piece) => (piece === "" ? "" : shellLine([piece]))).join(COMPUTED_WORD) : shellLine([word])))
    .join(" ");

/**
 * The command lines one process call runs, from its arguments: literals as they are,
 * computed parts as COMPUTED_WORD. `interpolates`: the language fills `$x`/`#{x}` in its
 * strings (Perl, Ruby, PHP).
 */
function commandsOfCall(name: string, args: Argument[], interpolates: boolean): string[] {
  const last = name.slice(name.lastIndexOf(".") + 1);
  const line = (arg: Argument): string | undefined => {
    if (arg.str === undefined) return undefined;
    let text = arg.str;
    if (interpolates) text = text.replace(INTERPOLATION, COMPUTED);
    return marked(text);
  };
  const [first, second] = args;
  // os.execv*/spawnv*: the list is the whole argv (its first word names the program again).
  if (/^(exec|spawn)v/.test(last)) {
    const listed = args.find((arg) => arg.list !== undefined)?.list;
    return listed && listed.length > 0 ? [wordsLine(listed)] : args.length > 1 ? [COMPUTED_TEXT] : [];
  }
  // os.execl*/spawnl*: the arguments after the path are the argv.
  if (/^(exec|spawn)l/.test(last)) {
    const words = args.slice(1).filter((arg) => arg.options !== true).map((arg) => arg.str ?? COMPUTED);
    return words.length > 0 ? [wordsLine(words)] : [];
  }
  if (first === undefined) return [];
  if (first.cmdList) return [wordsLine(first.cmdList)];
  if (first.list) return first.list.length > 0 ? [wordsLine(first.list)] : [];
  const whole = line(first);
  if (whole === undefined) return [COMPUTED_TEXT];
  if (second?.argsList) return [wordsLine([first.str as string, ...second.argsList])];
  if (second?.list) return [wordsLine([first.str as string, ...second.list])];
  // A program and its words: `spawn("git", ["commit", x])`, `execFile("git", args)`, Perl's `system("git", "commit", $x)`.
  if (second !== undefined && second.options !== true && PROGRAM_AND_WORDS.has(last)) {
    const rest = args.slice(1).flatMap((arg) => wordsOf(arg) ?? (arg.str !== undefined ? [arg.str] : []));
    return [wordsLine([first.str as string, ...rest])];
  }
  return [whole];
}

/** Calls that take a program and then its words (not one shell line). */
const PROGRAM_AND_WORDS = new Set(["spawn", "spawnSync", "execFile", "execFileSync", "system", "exec", "Popen", "Command", "pipeline", "capture2", "capture2e", "capture3", "popen2", "popen3", "proc_open", "pcntl_exec", "system2"]);

/** Whether a command line leaves the program it runs to what the code computes: its first word is computed, or it is a shell or wrapper given a computed word. */
export function runsComputedLine(line: string): boolean {
  if (!hasComputed(line)) return false;
  const first = line.trim().split(/\s+/)[0] ?? "";
  const program = first.replace(/^['"]|['"]$/g, "").split("/").at(-1) ?? "";
  return hasComputed(first) || RUNS_ITS_WORDS.test(program);
}

/** Whether a command line holds a part the code computes (COMPUTED_WORD, COMPUTED_TEXT, an f-string's `$_`). */
export const hasComputed = (line: string): boolean => line.includes(COMPUTED_WORD) || line.includes(COMPUTED_TEXT) || /\$_(?!\w)/.test(line);

/** The literal list under `key` in an object literal: `{ cmd: ["git", "status"] }`. */
function readListOption(tokens: readonly Token[], key: string): string[] | undefined {
  for (let j = 1; j < tokens.length - 2; j++) {
    const token = tokens[j] as Token;
    if ((token.type === "id" || token.type === "str") && token.value === key && tokens[j + 1]?.value === ":") {
      // `{ args: Deno.args }`, `{ args: ["-c", x] }`: words the code computes.
      return tokens[j + 2]?.value === "[" ? (readList(tokens, j + 2)?.items ?? [COMPUTED]) : [COMPUTED];
    }
  }
  return undefined;
}

/** IPython's shell escapes in a Python cell: `!cmd`, `x = !cmd`, `%sx`/`%system`, `%%bash`. */
function ipythonCommands(code: string): { commands: string[]; rest: string } {
  const lines = code.split("\n");
  const first = lines.findIndex((line) => line.trim().length > 0);
  const magic = first === -1 ? undefined : /^\s*%%(bash|sh|script\s+\S*(?:ba|z|da|k)?sh)\b/.exec(lines[first] as string);
  if (magic) return { commands: [lines.slice(first + 1).join("\n")], rest: "" };
  const commands: string[] = [];
  const rest = lines.map((line) => {
    const bang = /^\s*(?:[A-Za-z_][\w\s,]*=\s*)?!{1,2}(.+)$/.exec(line);
    const percent = /^\s*(?:[A-Za-z_][\w\s,]*=\s*)?%(?:sx|system|sc(?:\s+-\S+)*\s+\w+\s*=)\s*(.+)$/.exec(line);
    const found = bang?.[1] ?? percent?.[1];
    if (found === undefined || /^\s*!=/.test(line)) return line;
    commands.push(found);
    return "";
  });
  return { commands, rest: rest.join("\n") };
}

/**
 * Readings of the code read lately: a command's inline code or script file is read by
 * the walker and again by each gate that reads code, on every call that runs it.
 */
const readings = new Map<string, CodeReading>();
const READINGS_KEPT = 32;

/** Read the commands and writes `code` shows to a static reader (the same reading, frozen, for the same code). */
export function readCode(code: string, language: CodeLanguage): CodeReading {
  const key = `${language}\0${code}`;
  const kept = readings.get(key);
  if (kept !== undefined) return kept;
  const reading = Object.freeze(readCodeOnce(code, language));
  if (readings.size >= READINGS_KEPT) readings.delete(readings.keys().next().value as string);
  readings.set(key, reading);
  return reading;
}

function readCodeOnce(code: string, language: CodeLanguage): CodeReading {
  const commands: string[] = [];
  const writes: CodeWrite[] = [];
  // A write whose path the code computes, in code that reads its arguments (READS_ARGV).
  let givenWrites = false;
  const readsArgv = READS_ARGV.test(code);
  const literals: string[] = [];
  const lists: string[] = [];
  const links: { link: string; target: string }[] = [];
  let startsProcesses = false;
  let runsComputed = false;
  let source = code;
  let chdir: string | undefined;
  const wrote = (write: CodeWrite): void => {
    writes.push({ ...write, path: afterChdir(write.path, chdir) });
  };
  // A command the code starts after its own chdir runs there: read as `cd DIR && …` (a computed DIR stays unknown).
  const ran = (line: string): string => (chdir === undefined ? line : `cd ${chdir === "$CHDIR" ? '"$CHDIR"' : shellLine([chdir])} && ${line}`);
  const python = language === "python";
  if (python) {
    const shell = ipythonCommands(code);
    commands.push(...shell.commands);
    if (shell.commands.length > 0) startsProcesses = true;
    source = shell.rest;
  }
  const tokens = new Lexer(source, python, language === "unknown").run();
  for (let j = 0; j < tokens.length; j++) {
    const token = tokens[j] as Token;
    if (token.type === "str") {
      literals.push(token.value);
      // `'.e' + 'nv'`, Perl's and PHP's `".e" . "nv"`: a string joined from literals is a literal too.
      if (tokens[j - 2]?.type !== "str" || !JOINS.has(tokens[j - 1]?.value ?? "")) {
        let joined = token.value;
        let k = j;
        while (tokens[k + 2]?.type === "str" && (tokens[k + 1]?.value === "+" || (language === "unknown" && tokens[k + 1]?.value === "."))) {
          joined += (tokens[k + 2] as Token).value;
          k += 2;
        }
        if (k > j) literals.push(joined);
      }
    }
    // A process API renamed on import (`const { execSync: run } = require("child_process")`,
    // `from subprocess import run as go`) starts processes under a name no call shows.
    if ((token.type === "str" && /^(node:)?child_process$/.test(token.value)) || (token.type === "id" && (PROCESS_MODULES.has(token.value) || (PROCESS_SINKS.has(token.value) && tokens[j + 1]?.value !== "(")))) {
      startsProcesses = true;
      if (token.type === "id" && PROCESS_SINKS.has(token.value) && renamedOrBare(tokens, j)) runsComputed = true;
      // Perl's and Ruby's `system "git commit $x"`: the string is the command line.
      const bare = tokens[j + 1];
      if (token.type === "id" && BARE_SINKS.has(token.value) && (bare?.type === "str" || bare?.type === "tmpl")) {
        // Its argument runs to the end of the statement: `system "git commit -" . shift`.
        let end = j + 1;
        while (end < tokens.length && !(tokens[end]?.type === "punct" && (tokens[end]?.value === ";" || tokens[end]?.value === "}"))) end++;
        const lines = commandsOfCall(token.value, [argumentOf(tokens.slice(j + 1, end), true, language === "unknown")], language === "unknown");
        if (lines.some(runsComputedLine)) runsComputed = true;
        commands.push(...lines.map(ran));
      }
    }
    // `getattr(os, "system")`, `cp["execSync"]`, Perl's `qx(…)` and Ruby's `%x{…}`: a process call no reader follows.
    if ((token.type === "str" && NAMED_SINKS.has(token.value)) || (token.type === "id" && token.value === "qx" && tokens[j + 1]?.type === "punct") || (token.type === "punct" && token.value === "%" && tokens[j + 1]?.value === "x" && /^[{([<|]$/.test(tokens[j + 2]?.value ?? ""))) {
      startsProcesses = true;
      runsComputed = true;
    }
    if (token.type === "tmpl") {
      literals.push(token.value);
      const tag = tokens[j - 1]?.type === "id" ? dottedNameEndingAt(tokens, j - 1) : "";
      // Bun's `$` tag runs its template; in Perl, Ruby and PHP a backtick string is a shell command.
      if (SHELL_TAGS.has(tag) || language === "unknown") {
        startsProcesses = true;
        const line = marked(token.value.replace(language === "unknown" ? INTERPOLATION : /\$\{[^}]*\}/g, COMPUTED));
        if (runsComputedLine(line)) runsComputed = true;
        commands.push(ran(line));
      }
      continue;
    }
    if (token.type === "punct" && token.value === "[") {
      const list = readList(tokens, j);
      if (list && list.items.length > 0) {
        literals.push(wordsLine(list.items));
        lists.push(wordsLine(list.items));
      }
      continue;
    }
    // Perl's `open F, ">", "f"` and `open my $f, ">f"`: an open without parentheses.
    if (language === "unknown" && token.type === "id" && token.value === "open" && tokens[j + 1]?.value !== "(" && tokens[j - 1]?.value !== ".") {
      const bare = bareArguments(tokens, j + 1).map((argument) => argument?.str);
      const opened = openedForWriting(bare);
      if (opened !== undefined) wrote({ path: opened });
      else if (readsArgv && bare.some((arg) => arg !== undefined && /^\s*(?:\+?>|>>)\s*$/.test(arg))) givenWrites = true;
      continue;
    }
    // Perl's and PHP's rename, link and symlink builtins, with or without parentheses: the second argument is made.
    // `CORE::rename` too; PHP's names in any case.
    const coreQualified = tokens[j - 1]?.value === ":" && tokens[j - 2]?.value === ":" && tokens[j - 3]?.value === "CORE";
    if (language === "unknown" && token.type === "id" && FILE_MAKERS.has(token.value.toLowerCase()) && (coreQualified || ![".", ">", ":", "$", "&"].includes(tokens[j - 1]?.value ?? ""))) {
      const args = (tokens[j + 1]?.value === "(" ? readArguments(tokens, j + 1) : bareArguments(tokens, j + 1)).map((argument) => argument?.str);
      const [from, to] = args;
      if (to !== undefined) wrote({ path: to });
      // A rename takes the file away from where it was.
      const maker = token.value.toLowerCase();
      if ((MOVES.has(maker) || maker === "mv") && from !== undefined) wrote({ path: from });
      if (SYMLINKERS.has(maker) && from !== undefined && to !== undefined) links.push({ link: afterChdir(to, chdir), target: from });
      continue;
    }
    if (token.type !== "id" || tokens[j + 1]?.value !== "(") continue;
    const name = dottedNameEndingAt(tokens, j);
    const last = token.value;
    // `f.write(…)`, `open(…).write(…)`: a method of some object, not a bare call.
    const qualified = name.includes(".") || (tokens[j - 1]?.type === "punct" && tokens[j - 1]?.value === ".");
    if (PROCESS_SINKS.has(last) || (last === "$" && qualified)) {
      startsProcesses = true;
      const args = readArguments(tokens, j + 1, true, language === "unknown");
      const lines = commandsOfCall(name, args, language === "unknown");
      if (lines.some(runsComputedLine)) runsComputed = true;
      commands.push(...lines.map(ran));
      continue;
    }
    // Perl's `open(F, "cmd |")`, `open(my $f, "-|", @cmd)`: a process, its command the string or the words after the mode.
    if (last === "open" && language === "unknown") {
      const args = readArguments(tokens, j + 1, true);
      const mode = args.findIndex((arg) => arg.str === "|-" || arg.str === "-|");
      const piped = args.map((arg) => arg.str === undefined ? undefined : /^\s*\|(.*)$|^(.*?)\|\s*$/s.exec(arg.str)).find((match) => match != null);
      const lines = mode !== -1 ? [wordsLine(args.slice(mode + 1).flatMap((arg) => wordsOf(arg) ?? (arg.str !== undefined ? [arg.str] : [])))] : piped != null ? [marked((piped[1] ?? piped[2] ?? "").trim().replace(INTERPOLATION, COMPUTED))] : [];
      if (lines.length > 0) {
        startsProcesses = true;
        if (lines.some(runsComputedLine)) runsComputed = true;
        commands.push(...lines.map(ran));
        continue;
      }
    }
    // The prelude's write() is unqualified; `f.write(…)` writes to an open file, named where it was opened.
    if (last === "chdir") {
      const dir = readArguments(tokens, j + 1)[0]?.str;
      chdir = dir === undefined ? "$CHDIR" : afterChdir(dir, chdir);
      continue;
    }
    if (SYMLINKERS.has(last)) {
      const [target, link] = readArguments(tokens, j + 1);
      if (target?.str !== undefined && link?.str !== undefined) links.push({ link: afterChdir(link.str, chdir), target: target.str });
      // The link is a file the code writes, whatever it names.
      if (link?.str !== undefined) wrote({ path: link.str });
      continue;
    }
    const isPreludeWrite = last === "write" && !qualified;
    if (isPreludeWrite || (last !== "write" && WRITE_FIRST.has(last)) || (name !== "write" && WRITE_FIRST.has(name))) {
      const [target, content] = readArguments(tokens, j + 1);
      const tree = TREE_REMOVERS.has(last) || (RECURSIVE_REMOVERS.has(last) && tokens.slice(j + 1, closingParen(tokens, j + 1)).some((t) => t.value === "recursive"));
      if (target?.str !== undefined) wrote({ path: target.str, ...(content?.str !== undefined && !tree ? { content: content.str } : {}), ...(tree ? { tree: true as const } : {}) });
      else if (target !== undefined && readsArgv) givenWrites = true;
      continue;
    }
    if (WRITE_SECOND.has(last) && qualified) {
      const [source, destination] = readArguments(tokens, j + 1);
      if (destination?.str !== undefined) wrote({ path: destination.str });
      else if (destination !== undefined && readsArgv) givenWrites = true;
      // A move takes the file away from where it was (`os.rename(".git/hooks/pre-commit", "x")`).
      if (MOVES.has(last) && source?.str !== undefined) wrote({ path: source.str });
      continue;
    }
    if (OPENERS.has(last) || OPENERS.has(name)) {
      const opening = readArguments(tokens, j + 1);
      const opened = openedForWriting(opening.map((argument) => argument?.str));
      if (opened !== undefined) wrote({ path: opened });
      // `open(sys.argv[1], "w")`: a computed path opened to write.
      else if (readsArgv && opening[0] !== undefined && opening[0].str === undefined && openedForWriting(["$", ...opening.slice(1).map((argument) => argument?.str)]) === "$") givenWrites = true;
      continue;
    }
    // Path("p").write_text(…)
    if (python && (last === "Path" || last === "PurePath" || last === "PosixPath")) {
      // `Path(".claude", "settings.json")`: the pieces joined.
      const pieces = readArguments(tokens, j + 1);
      const target = pieces.length > 1 && pieces.every((piece) => piece.str !== undefined) ? { str: pieces.map((piece) => piece.str).join("/") } : pieces[0];
      const close = closingParen(tokens, j + 1);
      const method = tokens[close + 2];
      if (target?.str !== undefined && tokens[close + 1]?.value === "." && method?.type === "id" && PATH_METHODS.has(method.value)) {
        wrote({ path: target.str });
      }
      // Path("link").symlink_to("target")
      if (target?.str !== undefined && tokens[close + 1]?.value === "." && method?.value === "symlink_to") {
        const named = readArguments(tokens, close + 3)[0]?.str;
        if (named !== undefined) links.push({ link: afterChdir(target.str, chdir), target: named });
        wrote({ path: target.str });
      }
    }
  }
  return { commands, writes, startsProcesses, runsComputed, literals, lists, links, givenWrites };
}

/**
 * The file an open call writes, from its literal arguments: `open("f", "w")` (any mode
 * with w, a, x or +), Perl's `open(F, ">f")` and `open(F, ">>", "f")`.
 */
function openedForWriting(args: readonly (string | undefined)[]): string | undefined {
  for (let k = 0; k < args.length; k++) {
    const arg = args[k];
    if (arg === undefined) continue;
    // Perl: `>`, `>>`, `+<` and `+>` write; `<` only reads.
    const perl = /^\s*(\+?[<>]|>>)\s*(.*)$/s.exec(arg);
    if (perl !== null && perl[1] !== "<") return (perl[2] as string).length > 0 ? perl[2] : args[k + 1];
    const mode = args[k + 1];
    if (mode !== undefined && /^[rwaxbt+]{1,4}(?::.*)?$/.test(mode) && /^[^:]*[wax+]/.test(mode)) return arg;
  }
  return undefined;
}

function closingParen(tokens: readonly Token[], open: number): number {
  let depth = 0;
  for (let j = open; j < tokens.length; j++) {
    const value = tokens[j]?.value;
    if (tokens[j]?.type !== "punct") continue;
    if (value === "(" || value === "[" || value === "{") depth++;
    else if ((value === ")" || value === "]" || value === "}") && --depth === 0) return j;
  }
  return tokens.length;
}
