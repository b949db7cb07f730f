// Script files a command runs, read from disk: `bash x.sh`, `source x.sh`, `./x.sh`,
// `python3 x.py`, `node x.js`, `make` (its makefile), `npm run x` (package.json's
// scripts), `gdb -x f`, `awk -f f`. An agent can write a file with its write tool and
// run it with the next call; the gates read what the file holds as they read a command
// line. Only a regular file is read (opened without blocking, so a FIFO put there never
// holds the gate), at most MAX_SCRIPT bytes, and text only.
import { closeSync, constants, fstatSync, openSync, readSync, statSync } from "node:fs";
import path from "node:path";

/** Larger script files are not read (a shell script that large is refused; see shell-walk.ts). */
export const MAX_SCRIPT = 1024 * 1024;

/** What reading a script file gave: its text, or why there is none. */
export type ScriptFile = { text: string } | { missing: true } | { tooLarge: true; head: string } | { binary: true };

interface Cached {
  key: string;
  file: ScriptFile;
}

/** Files read lately, by path, kept while their identity, size and times are unchanged (package.json on every `npm test`). */
const cache = new Map<string, Cached>();
const CACHE_SIZE = 64;

/** Read `file` as a script: a regular file, without blocking, up to MAX_SCRIPT bytes, with no NUL byte. */
export function readScriptFile(file: string): ScriptFile {
  // Most files asked for are not there (package.json above the project, a makefile): told without an exception.
  const seen = statSync(file, { throwIfNoEntry: false });
  if (seen === undefined || !seen.isFile()) return { missing: true };
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch {
    return { missing: true };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { missing: true };
    if (stat.size > MAX_SCRIPT) {
      // A program (`/usr/bin/git`) is binary from its first bytes; a script that large is text.
      const head = Buffer.alloc(4096);
      const n = readSync(fd, head, 0, head.length, 0);
      const start = head.subarray(0, Math.min(80, n));
      const firstLine = start.includes(10) ? start.subarray(0, start.indexOf(10)) : start;
      return firstLine.includes(0) ? { binary: true } : { tooLarge: true, head: head.subarray(0, n).toString("utf8").replace(/\0/g, "") };
    }
    const key = `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;
    const cached = cache.get(file);
    if (cached?.key === key) return cached.file;
    const buffer = Buffer.alloc(stat.size);
    let read = 0;
    while (read < stat.size) {
      const n = readSync(fd, buffer, read, stat.size - read, read);
      if (n === 0) break;
      read += n;
    }
    const bytes = buffer.subarray(0, read);
    // A program is binary the way bash tells it: a NUL on its first line (within 80 bytes); NULs later are dropped as bash drops them.
    const firstLine = bytes.subarray(0, Math.min(80, bytes.includes(10) ? bytes.indexOf(10) : bytes.length));
    const result: ScriptFile = firstLine.includes(0) ? { binary: true } : { text: bytes.toString("utf8").replace(/\0/g, "") };
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    cache.set(file, { key, file: result });
    return result;
  } catch {
    return { missing: true };
  } finally {
    closeSync(fd);
  }
}

/** The text of `file` (relative to `cwd`), or undefined when it is not a readable text file. */
export function scriptText(file: string, cwd: string): string | undefined {
  const read = readScriptFile(path.resolve(cwd, file));
  return "text" in read ? read.text : undefined;
}

/**
 * The interpreter a `#!` line names (`#!/usr/bin/env python3` → `python3`), with the
 * words after it (`#!/usr/bin/make -f` → `make`, [`-f`]); through `env` and its `-S`,
 * the first word `known` accepts (`#!/usr/bin/env -S uv run --script` → `python3` when
 * told that uv runs Python), else the first program word. Undefined without a `#!` line.
 */
export function shebang(text: string): { program: string; args: string[] } | undefined {
  if (!text.startsWith("#!")) return undefined;
  const end = text.indexOf("\n");
  const words = text.slice(2, end === -1 ? undefined : end).trim().split(/\s+/).filter(Boolean);
  let at = 0;
  if (path.basename(words[0] ?? "") === "env") {
    at = 1;
    while (at < words.length && (words[at] as string).startsWith("-")) at++;
  }
  const program = words[at];
  return program === undefined ? undefined : { program: path.basename(program), args: words.slice(at + 1) };
}

/** The interpreter a `#!` line names, its base name only (see shebang). */
export function shebangProgram(text: string): string | undefined {
  return shebang(text)?.program;
}

// ---------------------------------------------------------------------------
// Makefiles: the recipes of the targets a `make` builds (those named, else the first)
// and their prerequisites, a pattern rule's where one makes a target, with make's
// variables expanded as make expands them (`$(BUILD)`, `$@`, `$<`, `$(MAKE)`), so that
// the shell lines read are the ones make runs.

const MAKEFILES = ["GNUmakefile", "makefile", "Makefile"];

/** The makefile `make` reads in `dir` when no -f names one. */
export function defaultMakefile(dir: string): string | undefined {
  for (const name of MAKEFILES) {
    const text = scriptText(name, dir);
    if (text !== undefined) return text;
  }
  return undefined;
}

interface MakeRule {
  prerequisites: string[];
  recipe: string[];
}

/** make's own variables, as GNU make sets them. */
const MAKE_DEFAULTS: Readonly<Record<string, string>> = { MAKE: "make", CC: "cc", CXX: "g++", CPP: "$(CC) -E", AR: "ar", AS: "as", RM: "rm -f", LD: "ld", SHELL: "/bin/sh", LEX: "lex", YACC: "yacc" };
const MAX_INCLUDES = 16;
const MAX_EXPANSION = 64 * 1024;
/** Characters one makefile's expansions may read in all (each expansion stops at MAX_EXPANSION). */
const MAX_EXPANSION_WORK = 4 * 1024 * 1024;

/**
 * The recipe lines `make` may run for `goals` (none: the first target), from a
 * makefile's text; `overrides` are the command line's `VAR=value`, `read` gives an
 * included makefile's text. Lines of `$(shell …)` and `VAR != …` are included: make runs them.
 */
export function makeRecipes(text: string, goals: readonly string[], overrides: ReadonlyMap<string, string> = new Map(), read: (file: string) => string | undefined = () => undefined): string[] {
  const vars = new Map<string, string>(Object.entries(MAKE_DEFAULTS));
  let expansionLeft = MAX_EXPANSION_WORK;
  const rules = new Map<string, MakeRule>();
  const patterns: { target: RegExp; rule: MakeRule }[] = [];
  const commands: string[] = [];
  let first: string | undefined;
  let current: MakeRule[] = [];
  let define: { name: string; lines: string[] } | undefined;
  const lines: string[] = [];
  let includes = 0;
  let prefix = "\t";
  const addLines = (source: string): void => {
    // A backslash at a line's end joins the next line to it.
    lines.push(...source.replace(/\\\r?\n/g, " ").split(/\r?\n/));
  };
  addLines(text);
  for (let index = 0; index < lines.length && index < 100_000; index++) {
    const line = lines[index] as string;
    if (define !== undefined) {
      if (/^\s*endef\b/.test(line)) {
        vars.set(define.name, define.lines.join("\n"));
        define = undefined;
      } else define.lines.push(line);
      continue;
    }
    if (line.startsWith(prefix)) {
      const recipe = line.slice(prefix.length).replace(/^[@+-]+/, "");
      for (const rule of current) rule.recipe.push(recipe);
      continue;
    }
    const defining = /^\s*(?:override\s+|export\s+)?define\s+([A-Za-z_][\w.-]*)/.exec(line);
    if (defining) {
      define = { name: defining[1] as string, lines: [] };
      continue;
    }
    const include = /^\s*-?(?:include|sinclude)\s+(.+)$/.exec(line);
    if (include) {
      for (const file of expand(include[1] as string).trim().split(/\s+/)) {
        const included = includes++ < MAX_INCLUDES ? read(file) : undefined;
        if (included !== undefined) lines.splice(index + 1, 0, ...included.replace(/\\\r?\n/g, " ").split(/\r?\n/));
      }
      continue;
    }
    const assignment = /^\s*(?:override\s+|export\s+)?(\.?[A-Za-z_][\w.-]*)\s*(::?=|:::=|\?=|\+=|!=|=)\s*(.*)$/.exec(line);
    if (assignment) {
      const [, name, op, value] = assignment as unknown as [string, string, string, string];
      current = [];
      // `.RECIPEPREFIX = >`: recipe lines start with that character instead of a tab.
      if (name === ".RECIPEPREFIX") {
        prefix = value.trim().slice(0, 1) || "\t";
        continue;
      }
      if (overrides.has(name)) continue;
      if (op === "!=") {
        // `VAR != cmd`: make runs cmd in a shell for the value.
        commands.push(expand(value));
        vars.set(name, `$(${value})`);
      } else if (op === "?=") {
        if (!vars.has(name) || MAKE_DEFAULTS[name] === vars.get(name)) vars.set(name, value);
      } else if (op === "+=") vars.set(name, `${vars.get(name) ?? ""} ${value}`.trim());
      else vars.set(name, op.startsWith(":") ? expand(value) : value);
      continue;
    }
    // `target … : prerequisites ; recipe`.
    const rule = /^([^:#=\t][^:#=]*?)\s*::?(?!=)\s*([^;#]*)(?:;(.*))?$/.exec(line);
    if (!rule) {
      if (line.trim().length > 0 && !line.startsWith(" ")) current = [];
      continue;
    }
    const targets = expand(rule[1] as string).trim().split(/\s+/).filter(Boolean);
    const prerequisites = expand(rule[2] as string).replace(/\|/g, " ").trim().split(/\s+/).filter(Boolean);
    current = targets.map((target) => {
      const entry: MakeRule = target.includes("%") ? { prerequisites: [], recipe: [] } : (rules.get(target) ?? { prerequisites: [], recipe: [] });
      entry.prerequisites.push(...prerequisites);
      if (target.includes("%")) patterns.push({ target: patternOf(target), rule: entry });
      else rules.set(target, entry);
      if (first === undefined && !target.startsWith(".") && !target.includes("%")) first = target;
      return entry;
    });
    const inline = rule[3]?.trim();
    if (inline) for (const entry of current) entry.recipe.push(inline);
  }
  for (const [name, value] of overrides) vars.set(name, value);
  // `$(shell …)` runs where make expands it, in a variable's value too (`X := $(shell cmd)`).
  for (let at = text.indexOf("$(shell "); at !== -1 && commands.length < 256; at = text.indexOf("$(shell ", at + 1)) {
    commands.push(expand(text.slice(at + "$(shell ".length, closing(text, at + 1))));
  }
  const recipes: string[] = [...commands];
  // SHELL names the program make hands each recipe line to.
  const shell = expand("$(SHELL)").trim();
  if (shell.length > 0 && !/^(?:\/(?:usr\/)?bin\/)?(?:sh|bash|dash|zsh)$/.test(shell)) recipes.push(`${shell} -c :`);
  const seen = new Set<string>();
  const queue = goals.length > 0 ? [...goals] : first === undefined ? [] : [first];
  while (queue.length > 0 && seen.size < 4096) {
    const target = queue.shift() as string;
    if (seen.has(target)) continue;
    seen.add(target);
    let entry = rules.get(target);
    let stem = "";
    if (entry === undefined || entry.recipe.length === 0) {
      // A pattern rule makes a target no rule of its own has a recipe for.
      for (const pattern of patterns) {
        const match = pattern.target.exec(target);
        if (match) {
          stem = match[1] ?? "";
          entry = { prerequisites: [...(entry?.prerequisites ?? []), ...pattern.rule.prerequisites.map((p) => p.replace("%", stem))], recipe: pattern.rule.recipe };
          break;
        }
      }
    }
    // A goal no rule makes: `.DEFAULT`'s recipe makes it.
    if (entry === undefined && goals.includes(target)) entry = rules.get(".DEFAULT");
    if (entry === undefined) continue;
    const automatic = new Map([["@", target], ["<", entry.prerequisites[0] ?? ""], ["^", [...new Set(entry.prerequisites)].join(" ")], ["+", entry.prerequisites.join(" ")], ["?", entry.prerequisites.join(" ")], ["*", stem], ["@D", dirOf(target)], ["@F", target.slice(target.lastIndexOf("/") + 1)]]);
    recipes.push(...entry.recipe.map((recipe) => expand(recipe, automatic)));
    queue.push(...entry.prerequisites);
  }
  return recipes;

  /** make's expansion of `text`: variables, automatic variables, `$(shell …)` as a shell substitution, `$$` as `$`. */
  function expand(source: string, automatic: ReadonlyMap<string, string> = new Map(), depth = 0): string {
    // One budget for the whole makefile: `A = $(B)$(B)`, `B = $(C)$(C)`, … doubles at each level.
    if (depth > 16 || !source.includes("$") || expansionLeft <= 0) return source;
    expansionLeft -= source.length;
    let out = "";
    for (let i = 0; i < source.length && out.length < MAX_EXPANSION; i++) {
      const ch = source[i] as string;
      if (ch !== "$") {
        out += ch;
        continue;
      }
      const next = source[i + 1];
      if (next === "$") {
        out += "$";
        i++;
      } else if (next === "(" || next === "{") {
        const close = closing(source, i + 1);
        const inner = source.slice(i + 2, close);
        i = close;
        out += reference(inner, automatic, depth);
      } else if (next !== undefined) {
        out += automatic.get(next) ?? (vars.has(next) ? expand(vars.get(next) as string, automatic, depth + 1) : `\${${next}}`);
        i++;
      }
    }
    return out;
  }

  /** One `$(…)`: a variable, an automatic one (`$(@D)`), or a function (`$(shell …)`, `$(wildcard …)`). */
  function reference(inner: string, automatic: ReadonlyMap<string, string>, depth: number): string {
    const space = inner.search(/\s/);
    if (space === -1) {
      const name = expand(inner, automatic, depth + 1);
      if (automatic.has(name)) return automatic.get(name) as string;
      const value = vars.get(name);
      // A variable the makefile does not set comes from the environment: a shell variable of the same name.
      return value === undefined ? `\${${name}}` : expand(value, automatic, depth + 1);
    }
    const fn = inner.slice(0, space);
    const args = expand(inner.slice(space + 1), automatic, depth + 1);
    if (fn === "shell") return `$(${args})`;
    // Other functions (wildcard, patsubst, addprefix, …) leave their words much as given: read as such.
    return args.replace(/,/g, " ");
  }
}

/** A pattern target as a regular expression (`build/%.o` → `^build/(.*)\.o$`). */
function patternOf(target: string): RegExp {
  const [before, after] = [target.slice(0, target.indexOf("%")), target.slice(target.indexOf("%") + 1)];
  const quote = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`^${quote(before)}(.+)${quote(after)}$`);
}

function dirOf(target: string): string {
  const slash = target.lastIndexOf("/");
  return slash === -1 ? "." : target.slice(0, slash);
}

/** The index of the bracket closing the one at `open` (`(` or `{`), nested ones included. */
function closing(source: string, open: number): number {
  const opener = source[open] as string;
  const closer = opener === "(" ? ")" : "}";
  let depth = 0;
  for (let j = open; j < source.length; j++) {
    if (source[j] === opener) depth++;
    else if (source[j] === closer && --depth === 0) return j;
  }
  return source.length;
}

// ---------------------------------------------------------------------------
// package.json scripts: `npm run x`, `npm test`, `pnpm x`, `yarn x`, `bun run x` run
// the script (and npm its `pre`/`post` scripts) in the nearest folder holding one.

/** The scripts of the package.json nearest `dir` (it or a folder above). */
export function packageScripts(dir: string): Record<string, string> | undefined {
  for (let at = dir, depth = 0; depth < 32; depth++) {
    const text = scriptText("package.json", at);
    if (text !== undefined) {
      try {
        // npm reads a package.json that starts with a byte order mark.
        const parsed: unknown = JSON.parse(text.replace(/^\uFEFF/, ""));
        const scripts = typeof parsed === "object" && parsed !== null ? (parsed as { scripts?: unknown }).scripts : undefined;
        if (typeof scripts !== "object" || scripts === null) return {};
        return Object.fromEntries(Object.entries(scripts).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
      } catch {
        return undefined;
      }
    }
    const parent = path.dirname(at);
    if (parent === at) return undefined;
    at = parent;
  }
  return undefined;
}
