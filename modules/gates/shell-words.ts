// A small POSIX/bash word splitter for policy gates. Node has no shell parser, and a
// gate that reads commands with regular expressions refuses text inside quoted
// messages while missing commands hidden in `$( )`, backticks or after `&&`. This
// splitter does what the shell does before running anything: quotes, escapes,
// operators, comments, redirections, here-documents and command substitutions.
// It never expands variables or globs; a word keeps `$VAR` as written.

import { foldName } from "../system/name-case.ts";

/** One simple command the shell would run, with its leading assignments apart. */
export interface ShellCommand {
  /** `NAME=value` words before the command name (`HUSKY=0 git commit`). */
  assignments: { name: string; value: string }[];
  /** The command name and its arguments, quotes removed. */
  argv: string[];
  /** Per word of `argv`: it had quotes or escapes (the shell does not split what a quoted substitution gives). */
  quoted: boolean[];
  /** What the command reads as a script on stdin: here-document bodies, here-strings. */
  stdin: string[];
  /**
   * Its stdin is the previous command's output (`a | b`, `a |& b`), or, inside a
   * substitution, the pipe the command holding it reads (`curl … | bash <(cat)`).
   */
  piped: boolean;
  /** Descriptors made copies of its stdin (`3<&0`): `/dev/fd/3` is its stdin too. */
  stdinCopies?: number[];
  /** How many substitutions (`$( )`, `<( )`, backticks) it sits in; 0 on the line itself. */
  level: number;
  /** Inside a substitution, it reads the stdin of the command the substitution is in (`$(cat)`), not a pipe of its own. */
  outerStdin: boolean;
  /** Its redirections: `>`/`>>`/`>|` targets are files it writes, `<` ones files it reads. */
  redirects: { op: string; target: string }[];
  /**
   * The subshells it runs in, outermost first, by id: `( … )`, a substitution, a pipeline's
   * member or a command put in the background. What it changes there (its directory, its
   * aliases) is gone after it. A negative id is a pipeline's last member, a subshell unless
   * `shopt -s lastpipe` (which OMP's shell may keep from an earlier call) runs it in the shell.
   */
  subshells?: number[];
  /** The list operator before it: it runs only where the command before succeeded (`&&`) or failed (`||`). */
  after?: "&&" | "||";
  /** It sits in a branch or a loop's body (`if`, `while`, `until`, `for`, `select`, `case`): it may not run. */
  branch?: boolean;
}

/** Words that start a compound command; the simple command begins after them. */
const RESERVED_PREFIXES = new Set(["!", "{", "}", "if", "then", "else", "elif", "while", "until", "do"]);

/** Words that open and close a compound command, whose commands share the stdin it is given. */
const GROUP_OPENS = new Set(["{", "if", "while", "until", "for", "select", "case"]);
const GROUP_CLOSES = new Set(["}", "fi", "done", "esac"]);

const TWO_CHAR_OPERATORS = new Set(["&&", "||", ";;", "|&", ";&"]);

const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)\+?=/;

/** Subshell ids, unique across parses: a script's commands may come from several (backticks, substitutions in words). */
let lastSubshell = 0;
const newSubshell = (): number => ++lastSubshell;

/**
 * Scripts parsed lately, with what they gave. One tool call's command is read by
 * several gates in turn: it is split once. Kept frozen, so a gate that changed what it
 * was given would throw rather than change what the next one reads.
 */
const parsed = new Map<string, readonly ShellCommand[]>();
const PARSED_KEPT = 16;
/** Longer scripts (a large here-document) are parsed each time rather than kept. */
const PARSED_MAX_CHARS = 64 * 1024;

/** Every simple command in `script`, including those inside substitutions, in source order of completion. */
export function parseShell(script: string): readonly ShellCommand[] {
  const known = parsed.get(script);
  if (known !== undefined) return known;
  const parser = new Parser(script);
  parser.parseList(null);
  const commands = Object.freeze(parser.commands.map(frozen));
  if (script.length <= PARSED_MAX_CHARS) {
    if (parsed.size >= PARSED_KEPT) parsed.delete(parsed.keys().next().value as string);
    parsed.set(script, commands);
  }
  return commands;
}

function frozen(command: ShellCommand): ShellCommand {
  for (const part of [command.assignments, command.argv, command.quoted, command.stdin, command.redirects, command.stdinCopies ?? [], command.subshells ?? []]) Object.freeze(part);
  for (const item of [...command.assignments, ...command.redirects]) Object.freeze(item);
  return Object.freeze(command);
}

/** What a word is while it is read: its text, and the part before any quote or escape. */
interface WordBuffer {
  text: string;
  /** Text read before the first quote, escape or expansion, so `"A=1"` is not an assignment. */
  plainPrefix: string;
  quoted: boolean;
  started: boolean;
  /** Per character of `text`: "1" where it came from quotes, escapes or expansions (brace expansion skips those). */
  mask: string;
}

interface PendingHeredoc {
  delimiter: string;
  stripTabs: boolean;
  target: ShellCommand;
}

class Parser {
  readonly commands: ShellCommand[] = [];
  private i = 0;
  private pendingHeredocs: PendingHeredoc[] = [];
  /** How deep in substitutions the parser reads. */
  private level = 0;
  /** The command whose words are being read: a substitution in them reads its stdin. */
  private enclosing: ShellCommand | undefined;
  /**
   * Compound commands open here (`{ …; }`, `( … )`, loops, `if`, `case`): each, whether a pipe
   * feeds it (its commands all read it), where its commands start, and the subshell it opened (0: none).
   */
  private groups: { fed: boolean; start: number; subshell: number; kind: string }[] = [];
  /** The subshells open where the parser reads, outermost first (ShellCommand.subshells). */
  private path: number[] = [];
  /** The command begun after a `|`, until it opens a compound command (which is then the pipeline's member). */
  private pipeTarget: ShellCommand | undefined;
  /** The compound command that just closed, while nothing has been read after it: a `|` or `&` next runs it in a subshell. */
  private closed: { start: number; subshell: number; at: number } | undefined;

  constructor(private readonly src: string) {}

  /**
   * Read commands until `close` (")" for `$( )`, null for the whole script) and
   * return the index after it. Parentheses of subshells inside are balanced.
   */
  parseList(close: ")" | null): number {
    // A substitution's commands read the stdin of the command it is in, unless piped among themselves.
    const outer = this.level > 0 && this.enclosing?.piped === true;
    // `curl … | { read -r x; bash; }`, `… | while read l; do $l; done`: a compound command's commands share the stdin it is fed.
    const fresh = (pipe: boolean): ShellCommand => {
      const grouped = !pipe && this.groups.at(-1)?.fed === true;
      return { ...newCommand(), piped: pipe || outer || grouped, outerStdin: !pipe && outer, level: this.level };
    };
    let current = fresh(false);
    let depth = 0;
    // `apart`: the command (or the compound command that just closed) is a pipeline's member before its last, or put in the background.
    const finish = (pipe = false, apart = false, op?: string): void => {
      if (apart && this.closed !== undefined && current.argv.length === 0) this.ranApart(this.closed);
      // `{ …; } > f`, `(…) < f` and `exec 3< f`: redirections alone still open files.
      if (current.argv.length > 0 || current.assignments.length > 0 || current.redirects.length > 0) {
        // `coproc cd d`: a coprocess runs in a subshell too.
        const own = apart || current.argv[0] === "coproc" ? newSubshell() : current === this.pipeTarget ? -newSubshell() : undefined;
        current.subshells = own === undefined ? [...this.path] : [...this.path, own];
        if (this.groups.some((group) => group.kind !== "{" && group.kind !== "(")) current.branch = true;
        this.commands.push(current);
      }
      this.closed = undefined;
      current = fresh(pipe);
      if (op === "&&" || op === "||") current.after = op;
      this.pipeTarget = pipe ? current : undefined;
    };
    while (this.i < this.src.length) {
      const ch = this.src[this.i] as string;
      if (ch === " " || ch === "\t") {
        this.i++;
      } else if (ch === "\n") {
        this.i++;
        finish();
        this.readHeredocBodies();
      } else if (ch === "#") {
        this.skipComment();
      } else if (ch === "&" && this.src[this.i + 1] === ">") {
        this.i++; // `&>file`, `&>>file`: both streams redirected, not a background operator
        this.readRedirection(current);
      } else if (ch === ";" || ch === "&" || ch === "|") {
        const op = TWO_CHAR_OPERATORS.has(this.src.slice(this.i, this.i + 2)) ? this.src.slice(this.i, this.i + 2) : ch;
        this.i += op.length;
        const pipe = op === "|" || op === "|&";
        finish(pipe, pipe || op === "&", op);
      } else if (ch === "(") {
        this.i++;
        depth++;
        // `curl … | (bash)`: the subshell's first command reads the pipe.
        const fed = current.piped && !current.outerStdin && current.argv.length === 0;
        finish(fed);
        this.pipeTarget = undefined;
        const subshell = newSubshell();
        this.groups.push({ fed, start: this.commands.length, subshell, kind: "(" });
        this.path.push(subshell);
      } else if (ch === ")") {
        this.i++;
        finish();
        // `case $x in a) …;; esac`: a pattern's `)` closes no subshell or substitution.
        if (this.groups.at(-1)?.kind === "case") continue;
        if (depth === 0 && close === ")") return this.i;
        if (depth > 0) this.closeGroup();
        depth = Math.max(0, depth - 1);
      } else if (ch === "<" || ch === ">") {
        this.readRedirection(current);
      } else {
        this.readWordInto(current);
      }
    }
    finish();
    return this.i;
  }

  /** A compound command ends: the subshell it opened closes, and a `|` or `&` right after it may still put it in one. */
  private closeGroup(): void {
    const group = this.groups.pop();
    if (group === undefined) return;
    if (group.subshell !== 0) this.path.pop();
    this.closed = { start: group.start, subshell: group.subshell, at: this.path.length };
  }

  /** `{ cd d; } | …`, `while …; done &`: the compound command that closed runs in a subshell (a pipeline's member before its last). */
  private ranApart(closed: { start: number; subshell: number; at: number }): void {
    if (closed.subshell > 0) return;
    const subshell = closed.subshell < 0 ? -closed.subshell : newSubshell();
    for (const command of this.commands.slice(closed.start)) {
      const path = command.subshells ?? [];
      if (closed.subshell < 0 && path[closed.at] === closed.subshell) path[closed.at] = subshell;
      else if (closed.subshell === 0) path.splice(closed.at, 0, subshell);
      command.subshells = path;
    }
  }

  /** A word, or a redirection when the word is an fd number glued to `<`/`>`. */
  private readWordInto(command: ShellCommand): void {
    this.enclosing = command;
    const word = this.readWord();
    if (!word.started) return;
    const next = this.src[this.i];
    if ((next === "<" || next === ">") && /^\d+$/.test(word.text) && !word.quoted) {
      this.readRedirection(command, Number(word.text));
      return;
    }
    const assignment = ASSIGNMENT.exec(word.plainPrefix);
    if (command.argv.length === 0 && assignment?.[1]) {
      command.assignments.push({ name: assignment[1], value: word.text.slice(word.text.indexOf("=") + 1) });
      return;
    }
    // `time { …; }`, `coproc { …; }`, `coproc NAME { …; }`: a compound command after the words that may lead it.
    const led = command.argv.every((w) => w === "time" || w === "-p") || (command.argv[0] === "coproc" && command.argv.length <= 2);
    if (led && command.assignments.length === 0 && !word.quoted) {
      if (GROUP_OPENS.has(word.text)) {
        // `… | while read f; do …; done`: the compound command is the pipeline's member, in a subshell of its own; so is a coprocess.
        const subshell = command.argv[0] === "coproc" ? newSubshell() : command === this.pipeTarget ? -newSubshell() : 0;
        this.pipeTarget = undefined;
        this.groups.push({ fed: command.piped, start: this.commands.length, subshell, kind: word.text });
        if (subshell !== 0) this.path.push(subshell);
        if (command.argv.length > 0) {
          // The leading words are done with: the group's first command is its own.
          command.argv.length = 0;
          command.quoted.length = 0;
          return;
        }
      } else if (GROUP_CLOSES.has(word.text) && command.argv.length === 0) this.closeGroup();
      if (RESERVED_PREFIXES.has(word.text) && command.argv.length === 0) return;
    }
    this.closed = undefined;
    const words = expandBraces(word.text, word.mask);
    command.argv.push(...words);
    command.quoted.push(...words.map(() => word.quoted));
  }

  /** Read one word up to an unquoted blank or operator. */
  private readWord(): WordBuffer {
    const word: WordBuffer = { text: "", plainPrefix: "", quoted: false, started: false, mask: "" };
    let plain = true;
    const append = (text: string, isPlain: boolean): void => {
      word.started = true;
      word.text += text;
      word.mask += (isPlain ? "0" : "1").repeat(text.length);
      if (!isPlain) plain = false;
      if (plain) word.plainPrefix += text;
    };
    while (this.i < this.src.length) {
      const ch = this.src[this.i] as string;
      if (" \t\n;&|()<>".includes(ch)) {
        // `<(` and `>(` inside a word are process substitutions, which run commands.
        if ((ch === "<" || ch === ">") && this.src[this.i + 1] === "(" && word.started) {
          append(this.readProcessSubstitution(), false);
          continue;
        }
        break;
      }
      if (ch === "\\") {
        const next = this.src[this.i + 1];
        this.i += 2;
        if (next === "\n" || next === undefined) continue; // line continuation
        word.quoted = true;
        append(next, false);
      } else if (ch === "'") {
        word.quoted = true;
        append(this.readSingleQuoted(), false);
      } else if (ch === '"') {
        word.quoted = true;
        append(this.readDoubleQuoted(), false);
      } else if (ch === "`") {
        append(this.readBackticks(), false);
      } else if (ch === "$") {
        append(this.readDollar(), false);
      } else {
        this.i++;
        append(ch, true);
      }
    }
    return word;
  }

  private readSingleQuoted(): string {
    const end = this.src.indexOf("'", this.i + 1);
    const stop = end === -1 ? this.src.length : end;
    const text = this.src.slice(this.i + 1, stop);
    this.i = stop + 1;
    return text;
  }

  /** `"…"`: backslash escapes only `$ \` " \\` and newline; `$( )` and backticks still run. */
  private readDoubleQuoted(): string {
    this.i++;
    let text = "";
    while (this.i < this.src.length) {
      const ch = this.src[this.i] as string;
      if (ch === '"') {
        this.i++;
        return text;
      }
      if (ch === "\\") {
        const next = this.src[this.i + 1] ?? "";
        this.i += 2;
        if (next === "\n") continue;
        text += "$`\"\\".includes(next) && next !== "" ? next : "\\" + next;
      } else if (ch === "`") {
        text += this.readBackticks();
      } else if (ch === "$") {
        text += this.readDollar();
      } else {
        text += ch;
        this.i++;
      }
    }
    return text;
  }

  /** `$(…)`, `$((…))`, `${…}`, `$'…'`, `$"…"` or a plain `$`; substitutions are parsed as commands. */
  private readDollar(): string {
    const start = this.i;
    const next = this.src[this.i + 1];
    if (next === "(") {
      this.i += 2;
      this.substitution();
      return this.src.slice(start, this.i);
    }
    if (next === "{") {
      this.i = this.skipBraces(this.i + 1);
      // `${x:-$(cmd)}`, `${x/a/`cmd`}`: substitutions inside a parameter expansion run too.
      this.readSubstitutionsIn(this.src.slice(start + 2, this.i - 1));
      return this.src.slice(start, this.i);
    }
    if (next === "'") {
      this.i++;
      return this.readAnsiC();
    }
    if (next === '"') {
      this.i++;
      return this.readDoubleQuoted();
    }
    this.i++;
    return "$";
  }

  /** `$'…'`: single quotes with bash's C escapes (`\n`, `\x2f`, `\057`, `\u00e9`, `\cA`, …). */
  private readAnsiC(): string {
    const escapes: Record<string, string> = { n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"', "?": "?", e: "\x1b", E: "\x1b", a: "\x07", b: "\b", f: "\f", v: "\v" };
    this.i++;
    let text = "";
    while (this.i < this.src.length && this.src[this.i] !== "'") {
      const ch = this.src[this.i] as string;
      if (ch !== "\\" || this.i + 1 >= this.src.length) {
        text += ch;
        this.i++;
        continue;
      }
      const rest = this.src.slice(this.i + 1);
      const numeric = /^(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.)/.exec(rest)?.[1];
      if (numeric !== undefined) {
        const kind = numeric[0] as string;
        const code = kind === "c" ? (numeric.charCodeAt(1) & 0x1f) : Number.parseInt(/[0-7]/.test(kind) ? numeric : numeric.slice(1), /[0-7]/.test(kind) ? 8 : 16);
        text += code <= 0x10ffff ? String.fromCodePoint(code) : "";
        this.i += 1 + numeric.length;
        continue;
      }
      const next = rest[0] as string;
      text += escapes[next] ?? "\\" + next;
      this.i += 2;
    }
    this.i++;
    return text;
  }

  /** The index after the `}` matching the `{` at `open`, skipping quoted text. */
  private skipBraces(open: number): number {
    let depth = 0;
    for (let j = open; j < this.src.length; j++) {
      const ch = this.src[j];
      if (ch === "\\") j++;
      else if (ch === "'") j = endOf(this.src, "'", j + 1);
      else if (ch === "{") depth++;
      else if (ch === "}" && --depth === 0) return j + 1;
    }
    return this.src.length;
  }

  /** The commands of every `$(…)` and backtick substitution in `text`. */
  private readSubstitutionsIn(text: string): void {
    for (let k = 0; k < text.length; k++) {
      if (text[k] === "\\") k++;
      else if ((text[k] === "$" && text[k + 1] === "(") || text[k] === "`") {
        const inner = new Parser(text);
        inner.i = k;
        if (text[k] === "`") inner.readBackticks();
        else inner.readDollar();
        for (const command of inner.commands) command.subshells = [...this.path, ...(command.subshells ?? [])];
        this.commands.push(...inner.commands);
        k = inner.i - 1;
      }
    }
  }

  /** `` `…` ``: the body (with `\`` `\\` `\$` unescaped) is parsed as its own script. */
  private readBackticks(): string {
    const start = this.i;
    let body = "";
    this.i++;
    while (this.i < this.src.length && this.src[this.i] !== "`") {
      const ch = this.src[this.i] as string;
      const next = this.src[this.i + 1];
      if (ch === "\\" && next !== undefined && "`\\$".includes(next)) {
        body += next;
        this.i += 2;
      } else {
        body += ch;
        this.i++;
      }
    }
    this.i++;
    // The body is parsed on its own (and kept): placed here one level deeper, reading this command's stdin.
    const outer = this.enclosing?.piped === true;
    const subshell = newSubshell();
    this.commands.push(...parseShell(body).map((command) => ({
      ...command,
      subshells: [...this.path, subshell, ...(command.subshells ?? [])],
      level: command.level + this.level + 1,
      piped: command.piped || (command.level === 0 && outer),
      outerStdin: command.outerStdin || (command.level === 0 && !command.piped && outer),
    })));
    return this.src.slice(start, this.i);
  }

  private readProcessSubstitution(): string {
    const start = this.i;
    // `>(cmd)` reads what the command writes into it, not the command's stdin (the walker feeds it that).
    const output = this.src[this.i] === ">";
    this.i += 2;
    if (output) this.enclosing = undefined;
    this.substitution();
    return this.src.slice(start, this.i);
  }

  /** The commands of a substitution up to its `)`, one level deeper, reading the stdin of the command they are in. */
  private substitution(): void {
    const enclosing = this.enclosing;
    const groups = this.groups;
    const pipeTarget = this.pipeTarget;
    this.groups = [];
    this.pipeTarget = undefined;
    this.level++;
    this.path.push(newSubshell());
    try {
      this.parseList(")");
    } finally {
      this.path.pop();
      this.level--;
      this.enclosing = enclosing;
      this.groups = groups;
      this.pipeTarget = pipeTarget;
    }
  }

  /** `<`, `>`, `>>`, `<<`, `<<-`, `<<<`, `>&`, `&>`-style operators and their target word. */
  private readRedirection(command: ShellCommand, fd?: number): void {
    const op = /^(<<<|<<-|<<|<>|<&|>>|>&|>\||<|>)/.exec(this.src.slice(this.i, this.i + 3))?.[1] ?? "<";
    if ((op === "<" || op === ">") && this.src[this.i + 1] === "(") {
      this.enclosing = command;
      command.argv.push(this.readProcessSubstitution());
      command.quoted.push(false);
      return;
    }
    this.i += op.length;
    while (this.src[this.i] === " " || this.src[this.i] === "\t") this.i++;
    // `> >(cmd)`, `< <(cmd)`: the target is a process substitution.
    if ((this.src[this.i] === "<" || this.src[this.i] === ">") && this.src[this.i + 1] === "(" && op !== "<<" && op !== "<<-" && op !== "<<<") {
      this.enclosing = command;
      const text = this.readProcessSubstitution();
      if (op !== ">&" && op !== "<&") command.redirects.push({ op, target: text });
      return;
    }
    const target = this.readWord();
    if (op !== "<<" && op !== "<<-" && op !== "<<<" && op !== ">&" && op !== "<&") command.redirects.push({ op, target: target.text });
    // `>& FILE` (not `>&2`, `>&-`) writes stdout and stderr to FILE, as `&>` does.
    if (op === ">&" && !/^(\d+|-)$/.test(target.text)) command.redirects.push({ op: ">", target: target.text });
    // `3<&0`: descriptor 3 reads the command's stdin too (`bash 3<&0 /dev/fd/3`).
    if (((op === "<&" && /^0-?$/.test(target.text)) || (op === "<" && /^\/dev\/stdin$|^\/dev\/fd\/0$|^\/proc\/self\/fd\/0$/.test(target.text))) && fd !== undefined && fd > 0) {
      command.stdinCopies = [...(command.stdinCopies ?? []), fd];
    }
    if (op === "<<<") command.stdin.push(target.text);
    if (op === "<<" || op === "<<-") {
      this.pendingHeredocs.push({ delimiter: target.text, stripTabs: op === "<<-", target: command });
    }
  }

  /** After a newline: the bodies of the here-documents the last line opened, in order. */
  private readHeredocBodies(): void {
    for (const heredoc of this.pendingHeredocs.splice(0)) {
      const lines: string[] = [];
      while (this.i < this.src.length) {
        const end = endOfLine(this.src, this.i);
        let line = this.src.slice(this.i, end);
        this.i = Math.min(end + 1, this.src.length);
        if (heredoc.stripTabs) line = line.replace(/^\t+/, "");
        if (line === heredoc.delimiter) break;
        lines.push(line);
      }
      heredoc.target.stdin.push(lines.join("\n"));
    }
  }

  private skipComment(): void {
    this.i = endOfLine(this.src, this.i);
  }
}

function newCommand(): ShellCommand {
  return { assignments: [], argv: [], quoted: [], stdin: [], piped: false, redirects: [], level: 0, outerStdin: false };
}

function endOf(src: string, char: string, from: number): number {
  const at = src.indexOf(char, from);
  return at === -1 ? src.length : at;
}

function endOfLine(src: string, from: number): number {
  return endOf(src, "\n", from);
}

/** Words brace expansion gives at most; `{1..99999999}` is not a command line anyone means. */
const MAX_BRACE_WORDS = 256;

/**
 * Bash's brace expansion of one word (`{/usr,x}`, `-{n,m}`, `{1..3}`), on the braces
 * that were not quoted (`mask` marks quoted characters with "1"). A word without an
 * expansion is itself.
 */
export function expandBraces(text: string, mask: string): string[] {
  const words: string[] = [];
  const pending: [string, string][] = [[text, mask]];
  while (pending.length > 0 && words.length < MAX_BRACE_WORDS) {
    const [word, marks] = pending.shift() as [string, string];
    const found = firstBrace(word, marks);
    if (found === undefined) {
      words.push(word);
      continue;
    }
    const { open, close, parts } = found;
    for (const [part, partMask] of parts) {
      if (pending.length + words.length >= MAX_BRACE_WORDS) break;
      pending.push([word.slice(0, open) + part + word.slice(close + 1), marks.slice(0, open) + partMask + marks.slice(close + 1)]);
    }
  }
  return words.length > 0 ? words : [text];
}

/** The first unquoted `{…}` holding a top-level comma or a `a..b` sequence, and what it expands to. */
function firstBrace(word: string, mask: string): { open: number; close: number; parts: [string, string][] } | undefined {
  for (let open = 0; open < word.length; open++) {
    if (word[open] !== "{" || mask[open] === "1") continue;
    let depth = 0;
    const commas: number[] = [];
    for (let j = open; j < word.length; j++) {
      if (mask[j] === "1") continue;
      if (word[j] === "{") depth++;
      else if (word[j] === "}" && --depth === 0) {
        const inner = word.slice(open + 1, j);
        if (commas.length > 0) {
          const cuts = [open, ...commas, j];
          const parts: [string, string][] = cuts.slice(1).map((cut, k) => [word.slice((cuts[k] as number) + 1, cut), mask.slice((cuts[k] as number) + 1, cut)]);
          return { open, close: j, parts };
        }
        const sequence = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$/.exec(inner);
        if (sequence && !mask.slice(open, j + 1).includes("1")) return { open, close: j, parts: sequenceOf(sequence[1] as string, sequence[2] as string, sequence[3]).map((p) => [p, "0".repeat(p.length)]) };
        break;
      } else if (word[j] === "," && depth === 1) commas.push(j);
    }
  }
  return undefined;
}

function sequenceOf(from: string, to: string, step: string | undefined): string[] {
  const numeric = /^-?\d+$/.test(from) && /^-?\d+$/.test(to);
  if (!numeric && (/\d/.test(from) || /\d/.test(to))) return [`{${from}..${to}}`];
  const a = numeric ? Number.parseInt(from, 10) : from.charCodeAt(0);
  const b = numeric ? Number.parseInt(to, 10) : to.charCodeAt(0);
  const by = Math.max(1, Math.abs(Number.parseInt(step ?? "1", 10) || 1));
  const out: string[] = [];
  for (let v = a; (a <= b ? v <= b : v >= b) && out.length < MAX_BRACE_WORDS; v += a <= b ? by : -by) out.push(numeric ? String(v) : String.fromCharCode(v));
  return out;
}

/**
 * The program a command word names, as the gates read it: its base name (`/usr/bin/git` →
 * `git`), folded (`GIT` → `git`), since a shell on a file system that folds case finds git
 * by either (name-case.ts). Only the name read is folded: the word itself, which the walker
 * looks up and reads scripts by, is kept as written.
 */
export function programName(word: string): string {
  return foldName(word.slice(word.lastIndexOf("/") + 1));
}

/**
 * The program a command word names when it is spelled as that program (`echo`, `/bin/echo`),
 * else undefined: what the walker knows a program prints, it knows of that program only
 * (`Echo` may be a script of the agent's where the file system keeps case).
 */
export function spelledProgram(word: string): string | undefined {
  const name = programName(word);
  return word.endsWith(name) && (word.length === name.length || word[word.length - name.length - 1] === "/") ? name : undefined;
}

/** A word still holding an expansion the walker could not perform. */
export const isDynamic = (word: string): boolean => /[$`]/.test(word);
