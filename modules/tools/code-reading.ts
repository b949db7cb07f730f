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
  /** Symbolic links the code makes through calls whose paths are literals: the link, and what it names (both as spelled). */
  links: { link: string; target: string }[];
}

type Token =
  | { type: "str"; value: string }
  | { type: "id"; value: string }
  | { type: "punct"; value: string }
  /** A tagged template's tag is the identifier before it: `` $`git status` ``. */
  | { type: "tmpl"; value: string };

/** Process calls Perl and Ruby make without parentheses, whose next word is then the command. */
const BARE_SINKS = new Set(["system", "exec", "spawn"]);

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
]);

/** Calls that open a file in a mode given as a literal: Python's and PHP's, Node's fs, Ruby's File, Lua's io, Perl's `open(F, ">f")`. */
const OPENERS = new Set(["open", "fopen", "openSync", "File.open", "File.new", "io.open"]);

/** Calls whose second literal argument is a file they write (copies and moves). */
const WRITE_SECOND = new Set(["copyFile", "copyFileSync", "rename", "renameSync", "cp", "cpSync", "copy", "copy2", "copyfile", "move", "replace"]);

/** `Path("p").write_text(…)` and friends. */
const PATH_METHODS = new Set(["write_text", "write_bytes", "touch", "unlink", "rename", "replace"]);

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
  ) {}

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
        // Python string prefixes: r"…", b'…', f"…", rb"…"
        if (this.python && (quote === '"' || quote === "'") && /^(r|u|b|f|br|rb|fr|rf)$/i.test(word)) {
          const raw = /r/i.test(word);
          const value = this.readQuoted(quote, raw);
          // An f-string's `{…}` parts are computed: kept as `$_`, which no reader takes for a flag.
          this.tokens.push({ type: "str", value: /f/i.test(word) ? value.replace(/\{[^{}]*\}/g, "$_") : value });
        } else {
          this.tokens.push({ type: "id", value: word });
        }
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
        else text += JS_ESCAPES[next] ?? next;
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
  str?: string;
  list?: string[];
  /** The list goes on past its literal items with computed ones (`["black", f]`): read as one word built at run time. */
  computedTail?: boolean;
  /** `{ cmd: [...] }` (Bun.spawn's options form). */
  cmdList?: string[];
  /** `{ args: [...] }` (Deno.Command's options form). */
  argsList?: string[];
}

/** The call's positional arguments from the `(` at `open`, each read when it is a literal. */
function readArguments(tokens: readonly Token[], open: number): Argument[] {
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
  for (const group of groups) {
    // Keyword arguments (`shell=True`, `cwd="…"`) are not positional.
    if (group[0]?.type === "id" && group[1]?.type === "punct" && group[1].value === "=" && group[2]?.value !== "=") continue;
    const only = group.length === 1 ? group[0] : undefined;
    if (only && (only.type === "str" || only.type === "tmpl")) {
      args.push({ str: only.value });
    } else if (group[0]?.value === "[" && group[0].type === "punct") {
      const list = readList(group, 0);
      args.push(list && list.end === group.length - 1 ? { list: list.items } : literalHead(group));
    } else if (group[0]?.value === "{" && group[0].type === "punct") {
      const cmd = readListOption(group, "cmd");
      const listed = readListOption(group, "args");
      args.push({ ...(cmd ? { cmdList: cmd } : {}), ...(listed ? { argsList: listed } : {}) });
    } else if (group.length > 0) {
      args.push({});
    }
  }
  return args;
}

/** `[ "a", "b" ]` from the `[` at `open`; undefined when any item is not a literal. */
function readList(tokens: readonly Token[], open: number): { items: string[]; end: number } | undefined {
  const items: string[] = [];
  for (let j = open + 1; j < tokens.length; j++) {
    const token = tokens[j] as Token;
    if (token.type === "punct" && token.value === "]") return { items, end: j };
    if (token.type === "str") items.push(token.value);
    else if (!(token.type === "punct" && token.value === ",")) return undefined;
  }
  return undefined;
}

/** A list's literal items up to its first computed one (`["black", f.strip()]`), when it starts with one. */
function literalHead(group: readonly Token[]): Argument {
  const items: string[] = [];
  for (let j = 1; group[j]?.type === "str" && group[j + 1]?.type === "punct" && group[j + 1]?.value === ","; j += 2) items.push((group[j] as Token).value);
  return items.length > 0 ? { list: items, computedTail: true } : {};
}

/** Programs that run the words after them as a command line: a list naming one and going on computed runs a computed command. */
const RUNS_ITS_WORDS = /^(?:(?:ba|z|da|k|fi|c|tc)?sh|env|xargs|nohup|timeout|nice|ionice|time|sudo|doas|su|exec|eval|command|setsid|stdbuf|chroot|ssh|watch|script|unbuffer|flock)$/;

/** Whether a process call's first argument leaves its command computed (see CodeReading.runsComputed). */
function computedCommand(first: Argument | undefined): boolean {
  if (first === undefined || first.str !== undefined || first.cmdList !== undefined) return false;
  if (first.list === undefined) return true;
  const program = first.list[0]?.split("/").at(-1) ?? "";
  return first.computedTail === true && (RUNS_ITS_WORDS.test(program) || first.list.length === 1 && /^-/.test(program));
}

/** A literal list as a command line; one that goes on computed ends in a word built at run time. */
const listLine = (items: readonly string[], computedTail: boolean | undefined): string => (computedTail === true ? `${shellLine(items)}${COMPUTED_TAIL}` : shellLine(items));

/** How a command line from a list that goes on computed ends: a word built at run time. */
export const COMPUTED_TAIL = ' "$_"';

/** The literal list under `key` in an object literal: `{ cmd: ["git", "status"] }`. */
function readListOption(tokens: readonly Token[], key: string): string[] | undefined {
  for (let j = 1; j < tokens.length - 2; j++) {
    const token = tokens[j] as Token;
    if ((token.type === "id" || token.type === "str") && token.value === key && tokens[j + 1]?.value === ":" && tokens[j + 2]?.value === "[") {
      return readList(tokens, j + 2)?.items;
    }
  }
  return undefined;
}

/** The command lines one process call runs, from its literal arguments. */
function commandsOfCall(name: string, args: Argument[]): string[] {
  const last = name.slice(name.lastIndexOf(".") + 1);
  const [first, second] = args;
  // os.execv*/spawnv*: the list is the whole argv (its first word names the program again).
  if (/^(exec|spawn)v/.test(last)) {
    const listed = args.find((arg) => arg.list !== undefined);
    return listed?.list && listed.list.length > 0 ? [listLine(listed.list, listed.computedTail)] : [];
  }
  // os.execl*/spawnl*: the literal arguments after the path are the argv.
  if (/^(exec|spawn)l/.test(last)) {
    const strings = args.map((arg) => arg.str).filter((s): s is string => s !== undefined);
    return strings.length > 1 ? [shellLine(strings.slice(1))] : [];
  }
  if (first?.cmdList) return [shellLine(first.cmdList)];
  if (first?.list) return first.list.length > 0 ? [listLine(first.list, first.computedTail)] : [];
  if (first?.str !== undefined) {
    if (second?.list) return [listLine([first.str, ...second.list], second.computedTail)];
    if (second?.argsList) return [shellLine([first.str, ...second.argsList])];
    return [first.str];
  }
  return [];
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
  const literals: string[] = [];
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
  const tokens = new Lexer(source, python).run();
  for (let j = 0; j < tokens.length; j++) {
    const token = tokens[j] as Token;
    if (token.type === "str") literals.push(token.value);
    // A process API renamed on import (`const { execSync: run } = require("child_process")`,
    // `from subprocess import run as go`) starts processes under a name no call shows.
    if ((token.type === "str" && /^(node:)?child_process$/.test(token.value)) || (token.type === "id" && (PROCESS_MODULES.has(token.value) || (PROCESS_SINKS.has(token.value) && tokens[j + 1]?.value !== "(")))) {
      startsProcesses = true;
      // Perl's and Ruby's calls without parentheses: `system $_`, `exec cmd`.
      if (token.type === "id" && BARE_SINKS.has(token.value) && tokens[j + 1]?.type === "id") runsComputed = true;
    }
    if (token.type === "tmpl") {
      literals.push(token.value);
      const tag = tokens[j - 1]?.type === "id" ? dottedNameEndingAt(tokens, j - 1) : "";
      // Bun's `$` tag runs its template; in Perl, Ruby and PHP a bare backtick string is a shell command.
      if (SHELL_TAGS.has(tag) || (language === "unknown" && tag === "")) {
        startsProcesses = true;
        commands.push(ran(token.value));
      }
      continue;
    }
    if (token.type === "punct" && token.value === "[") {
      const list = readList(tokens, j);
      if (list && list.items.length > 0) literals.push(shellLine(list.items));
      continue;
    }
    if (token.type !== "id" || tokens[j + 1]?.value !== "(") continue;
    const name = dottedNameEndingAt(tokens, j);
    const last = token.value;
    // `f.write(…)`, `open(…).write(…)`: a method of some object, not a bare call.
    const qualified = name.includes(".") || (tokens[j - 1]?.type === "punct" && tokens[j - 1]?.value === ".");
    if (PROCESS_SINKS.has(last) || (last === "$" && qualified)) {
      startsProcesses = true;
      const args = readArguments(tokens, j + 1);
      if (computedCommand(args[0])) runsComputed = true;
      commands.push(...commandsOfCall(name, args).map(ran));
      continue;
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
      if (target?.str !== undefined) wrote({ path: target.str, ...(content?.str !== undefined ? { content: content.str } : {}) });
      continue;
    }
    if (WRITE_SECOND.has(last) && qualified) {
      const destination = readArguments(tokens, j + 1)[1];
      if (destination?.str !== undefined) wrote({ path: destination.str });
      continue;
    }
    if (OPENERS.has(last) || OPENERS.has(name)) {
      const opened = openedForWriting(readArguments(tokens, j + 1).map((argument) => argument?.str));
      if (opened !== undefined) wrote({ path: opened });
      continue;
    }
    // Path("p").write_text(…)
    if (python && (last === "Path" || last === "PurePath" || last === "PosixPath")) {
      const target = readArguments(tokens, j + 1)[0];
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
  return { commands, writes, startsProcesses, runsComputed, literals, links };
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
