// Script files a command runs, read from disk: `bash x.sh`, `source x.sh`, `./x.sh`,
// `python3 x.py`, `node x.js`, `make` (its makefile), `npm run x` (package.json's
// scripts), `gdb -x f`, `awk -f f`. An agent can write a file with its write tool and
// run it with the next call; the gates read what the file holds as they read a command
// line. Only a regular file is read (opened without blocking, so a FIFO put there never
// holds the gate), at most MAX_SCRIPT bytes, and text only.
import { closeSync, type Stats } from "node:fs";
import path from "node:path";
import { statOf } from "../system/disk-moment.ts";
import { readKey } from "../system/stat-key.ts";
import { openRegularFile, readOpened } from "../system/regular-file.ts";
import { escapeRegExp } from "../system/regexp.ts";

/** Larger script files are not read (a shell script that large is refused; see shell-walk.ts). */
export const MAX_SCRIPT = 1024 * 1024;

/** What reading a script file gave: its text, or why there is none. */
export type ScriptFile = { text: string } | { missing: true } | { tooLarge: true; head: string } | { binary: true };

interface Cached {
  key: string;
  file: ScriptFile;
}

/** Files read lately, by path, kept while their identity, size and times are unchanged and were settled when read (package.json on every `npm test`). */
const cache = new Map<string, Cached>();
const CACHE_SIZE = 64;

/** Read `file` as a script: a regular file, without blocking, up to MAX_SCRIPT bytes, text (as bash tells it). */
export function readScriptFile(file: string): ScriptFile {
  // Most files asked for are not there (package.json above the project, a makefile): told without an exception.
  const seen = statOf(file);
  if (seen === undefined || !seen.isFile()) return { missing: true };
  let opened: { fd: number; stats: Stats };
  try {
    opened = openRegularFile(file);
  } catch {
    return { missing: true };
  }
  const { fd, stats } = opened;
  try {
    if (stats.size > MAX_SCRIPT) {
      // A program (`/usr/bin/git`) is binary from its first bytes; a script that large is text.
      const head = readOpened(fd, 4096);
      return binaryStart(head) ? { binary: true } : { tooLarge: true, head: head.toString("utf8").replace(/\0/g, "") };
    }
    // A file changed within the file clock's last tick may change again under the same key: never kept then.
    const key = readKey(stats);
    const cached = cache.get(file);
    if (cached?.key === key) return cached.file;
    const bytes = readOpened(fd, stats.size);
    // NULs after the first line are dropped, as bash drops them.
    const result: ScriptFile = binaryStart(bytes) ? { binary: true } : { text: bytes.toString("utf8").replace(/\0/g, "") };
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    cache.set(file, { key, file: result });
    return result;
  } catch {
    return { missing: true };
  } finally {
    closeSync(fd);
  }
}

/** A program is binary the way bash tells it: a NUL on its first line, within its first 80 bytes. */
function binaryStart(bytes: Buffer): boolean {
  const start = bytes.subarray(0, 80);
  const newline = start.indexOf(10);
  return (newline === -1 ? start : start.subarray(0, newline)).includes(0);
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
    // env's options (`-S`, `-u NAME`) and assignments (`LC_ALL=C`) come before the program.
    while (at < words.length && ((words[at] as string).startsWith("-") || /^[A-Za-z_]\w*=/.test(words[at] as string))) at += words[at] === "-u" || words[at] === "--unset" || words[at] === "-C" || words[at] === "--chdir" ? 2 : 1;
  }
  const program = words[at];
  return program === undefined ? undefined : { program: path.basename(program), args: words.slice(at + 1) };
}

// ---------------------------------------------------------------------------
// Makefiles: the recipes of the targets a `make` builds (those named, else the first)
// and their prerequisites, a pattern rule's where one makes a target, with make's
// variables expanded as make expands them (`$(BUILD)`, `$@`, `$<`, `$(MAKE)`), so that
// the shell lines read are the ones make runs.

interface MakeRule {
  prerequisites: string[];
  recipe: string[];
}

/** make's own variables, as GNU make sets them. */
const MAKE_DEFAULTS: Readonly<Record<string, string>> = { MAKE: "make", CC: "cc", CXX: "g++", CPP: "$(CC) -E", AR: "ar", AS: "as", RM: "rm -f", LD: "ld", SHELL: "/bin/sh", LEX: "lex", YACC: "yacc" };
const MAX_INCLUDES = 16;
const MAX_EXPANSION = 16 * 1024;
/** Characters one makefile's expansions may read in all (each expansion stops at MAX_EXPANSION). */
const MAX_EXPANSION_WORK = 512 * 1024;

/** What makeRecipes reads a makefile with, beside its text and goals. */
export interface MakeContext {
  /** The command line's `VAR=value`. */
  overrides?: ReadonlyMap<string, string>;
  /** The environment make runs with: a variable the makefile does not set is read from it (with `-e`, before the makefile's). */
  environment?: ReadonlyMap<string, string>;
  environmentFirst?: boolean;
  /** An included makefile's text. */
  read?: (file: string) => string | undefined;
  /** The folder make runs in, as the shell names it (`$PWD`, `$PWD/sub`). */
  curdir?: string;
}

/** Recipe text one makefile may yield in all. */
const MAX_RECIPES_TEXT = 512 * 1024;
/** Values a variable set in several branches of conditionals keeps, and the variants of one recipe line. */
const MAX_ALTERNATIVES = 8;

/**
 * The recipe lines `make` may run for `goals` (none: `.DEFAULT_GOAL`, else the first
 * target). Conditionals are not evaluated: a variable set in several branches has each
 * value, and a recipe line using it is read once with each. `$(shell …)` and `VAR != …`
 * are included (make runs them); `$(call …)`, `$(foreach …)`, `$(if …)` and the other
 * functions are expanded as make expands them, roughly, and `$(eval …)`'s assignments
 * are taken. A SHELL of the makefile's own is a program the recipes are given to.
 */
export function makeRecipes(text: string, goals: readonly string[], context: MakeContext = {}): string[] {
  const { overrides = new Map<string, string>(), environment = new Map<string, string>(), read = () => undefined } = context;
  const vars = new Map<string, string>(Object.entries(MAKE_DEFAULTS));
  vars.set("CURDIR", context.curdir ?? "$PWD");
  vars.set("MAKEFILE_LIST", "Makefile");
  /** Variables set with `:=`: their value is not expanded again where used. */
  const simple = new Set<string>(["CURDIR", "MAKEFILE_LIST"]);
  const alternatives = new Map<string, string[]>();
  let expansionLeft = MAX_EXPANSION_WORK;
  const rules = new Map<string, MakeRule>();
  const patterns: { target: RegExp; rule: MakeRule }[] = [];
  const commands: string[] = [];
  let first: string | undefined;
  let defaultGoal: string | undefined;
  let current: MakeRule[] = [];
  let define: { name: string; lines: string[] } | undefined;
  let conditionals = 0;
  const lines: string[] = [];
  let includes = 0;
  let prefix = "\t";
  const addLines = (source: string, at = lines.length): void => {
    // A backslash at a line's end joins the next line to it.
    lines.splice(at, 0, ...source.replace(/\\\r?\n/g, " ").split(/\r?\n/));
  };
  addLines(text);
  for (const file of (environment.get("MAKEFILES") ?? "").trim().split(/\s+/).filter(Boolean)) {
    const included = includes++ < MAX_INCLUDES ? read(file) : undefined;
    if (included !== undefined) addLines(included, 0);
  }
  const assign = (name: string, op: string, value: string): void => {
    if (overrides.has(name) || (context.environmentFirst === true && environment.has(name))) return;
    let next: string;
    if (op === "!=") {
      // `VAR != cmd`: make runs cmd in a shell for the value.
      commands.push(expand(value));
      next = `$(${value})`;
    } else if (op === "?=") {
      if (vars.has(name) && MAKE_DEFAULTS[name] !== vars.get(name)) return;
      next = value;
    } else if (op === "+=") next = `${vars.get(name) ?? ""} ${value}`.trim();
    else next = op.startsWith(":") ? expand(value) : value;
    if (op.startsWith(":")) simple.add(name);
    else if (op !== "+=") simple.delete(name);
    // In a conditional, another branch may set it otherwise: each value is kept.
    if (conditionals > 0 && vars.has(name) && vars.get(name) !== next) {
      const kept = alternatives.get(name) ?? [vars.get(name) as string];
      if (kept.length < MAX_ALTERNATIVES) kept.push(next);
      alternatives.set(name, kept);
    }
    vars.set(name, next);
  };
  for (let index = 0; index < lines.length && index < 1_000_000; index++) {
    const line = lines[index] as string;
    if (define !== undefined) {
      if (/^\s*endef\b/.test(line)) {
        vars.set(define.name, define.lines.join("\n"));
        simple.delete(define.name);
        define = undefined;
      } else define.lines.push(line);
      continue;
    }
    if (line.startsWith(prefix)) {
      const recipe = line.slice(prefix.length).replace(/^[@+-]+/, "");
      for (const rule of current) rule.recipe.push(recipe);
      continue;
    }
    // Comments and conditionals do not end a rule's recipe (make runs the lines after them).
    if (/^\s*#/.test(line) || line.trim().length === 0) continue;
    if (/^\s*(?:ifeq|ifneq|ifdef|ifndef)\b/.test(line)) {
      conditionals++;
      continue;
    }
    if (/^\s*else\b/.test(line)) continue;
    if (/^\s*endif\b/.test(line)) {
      conditionals = Math.max(0, conditionals - 1);
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
        if (included !== undefined) addLines(included, index + 1);
      }
      continue;
    }
    const assignment = /^\s*(?:override\s+|export\s+|private\s+)*(\.?[A-Za-z_][\w.-]*)\s*(::?=|:::=|\?=|\+=|!=|=)\s*(.*)$/.exec(line);
    if (assignment) {
      const [, name, op, value] = assignment as unknown as [string, string, string, string];
      current = [];
      // `.RECIPEPREFIX = >`: recipe lines start with that character instead of a tab.
      if (name === ".RECIPEPREFIX") prefix = expand(value).slice(0, 1) || "\t";
      else if (name === ".DEFAULT_GOAL") defaultGoal = expand(value).trim() || undefined;
      else assign(name, op, value);
      continue;
    }
    // `$(eval …)` (or a call or loop of them) on a line of its own: expanded where it stands, for what it sets.
    if (/^\s*\$\((?:eval|call|foreach|info|warning|error)\b/.test(line)) {
      expand(line);
      current = [];
      continue;
    }
    // `target: VAR = value` sets VAR for that target (and what it builds): taken as set.
    const targetVariable = /^([^:#=\t][^:#=]*?)\s*:\s*(?:override\s+|export\s+|private\s+)*([A-Za-z_][\w.-]*)\s*(::?=|\?=|\+=|!=|=)\s*(.*)$/.exec(line);
    if (targetVariable) {
      assign(targetVariable[2] as string, targetVariable[3] as string, targetVariable[4] as string);
      continue;
    }
    // `target … : prerequisites ; recipe`, and old-fashioned suffix rules (`.c.o:`).
    const rule = /^([^:#=\t][^:#=]*?)\s*::?(?!=)\s*([^;#]*)(?:;(.*))?$/.exec(line);
    if (!rule) {
      current = [];
      continue;
    }
    const targets = expand(rule[1] as string).trim().split(/\s+/).filter(Boolean);
    const prerequisites = expand(rule[2] as string).replace(/\|/g, " ").trim().split(/\s+/).filter(Boolean);
    current = targets.map((target) => {
      const suffix = /^(\.[\w-]+)(\.[\w-]+)$/.exec(target);
      const pattern = target.includes("%") ? target : suffix ? `%${suffix[2]}` : undefined;
      const entry: MakeRule = pattern !== undefined ? { prerequisites: suffix ? [`%${suffix[1]}`] : [], recipe: [] } : (rules.get(target) ?? { prerequisites: [], recipe: [] });
      entry.prerequisites.push(...prerequisites);
      if (pattern !== undefined) patterns.push({ target: patternOf(pattern), rule: entry });
      else rules.set(target, entry);
      if (first === undefined && !target.startsWith(".") && pattern === undefined) first = target;
      return entry;
    });
    const inline = rule[3]?.trim();
    if (inline) for (const entry of current) entry.recipe.push(inline);
  }
  for (const [name, value] of overrides) {
    vars.set(name, value);
    simple.add(name);
  }
  // `$(shell …)` runs where make expands it, in a variable's value too (`X := $(shell cmd)`).
  for (let at = text.indexOf("$(shell "); at !== -1 && commands.length < 64; at = text.indexOf("$(shell ", at + 1)) {
    const close = Math.min(closing(text, at + 1), at + 4096);
    commands.push(expand(text.slice(at + "$(shell ".length, close)));
  }
  const recipes: string[] = [...commands];
  let recipesText = 0;
  const push = (recipe: string): void => {
    if (recipesText > MAX_RECIPES_TEXT) return;
    recipesText += recipe.length;
    recipes.push(recipe);
  };
  // SHELL names the program make hands each recipe line to: a shell reads them as commands, another program as its own language.
  const shell = expand("$(SHELL)").trim();
  const shellName = path.basename(shell.split(/\s+/).at(-1) ?? "");
  const asShellLine = (recipe: string): string => (/^(?:sh|bash|dash|zsh|ksh)$/.test(shellName) ? recipe : `${shell} -c ${shellQuote(recipe)}`);
  if (!/^(?:sh|bash|dash|zsh|ksh)$/.test(shellName) && shell.length > 0) push(`${shell} -c :`);
  const seen = new Set<string>();
  const start = goals.length > 0 ? [...goals] : defaultGoal !== undefined ? [defaultGoal] : first === undefined ? [] : [first];
  const queue = [...start];
  while (queue.length > 0 && seen.size < 4096 && recipesText <= MAX_RECIPES_TEXT) {
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
    if (entry === undefined && start.includes(target)) entry = rules.get(".DEFAULT");
    if (entry === undefined) continue;
    const automatic = new Map([["@", target], ["<", entry.prerequisites[0] ?? ""], ["^", [...new Set(entry.prerequisites)].join(" ")], ["+", entry.prerequisites.join(" ")], ["?", entry.prerequisites.join(" ")], ["*", stem], ["@D", dirOf(target)], ["@F", target.slice(target.lastIndexOf("/") + 1)]]);
    for (const recipe of entry.recipe) for (const variant of variants(recipe)) push(asShellLine(expand(variant, automatic)));
    queue.push(...entry.prerequisites);
  }
  return recipes;

  /** A recipe line once with each value of the variables it uses that conditionals set otherwise. */
  function variants(recipe: string): string[] {
    let out = [recipe];
    for (const [name, values] of alternatives) {
      if (!recipe.includes(`$(${name})`) && !recipe.includes(`\${${name}}`)) continue;
      out = out.flatMap((line) => values.map((value) => line.replaceAll(`$(${name})`, value).replaceAll(`\${${name}}`, value))).slice(0, MAX_ALTERNATIVES);
    }
    return out;
  }

  /** make's expansion of `text`: variables, automatic variables, functions, `$(shell …)` as a shell substitution, `$$` as `$`. */
  function expand(source: string, automatic: ReadonlyMap<string, string> = new Map(), depth = 0): string {
    // One budget for the whole makefile, for what is read and what is made: `A = $(B)$(B)`, `B = $(C)$(C)`, … doubles at each level.
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
        out += automatic.get(next) ?? valueOf(next, automatic, depth);
        i++;
      }
    }
    expansionLeft -= out.length;
    return out;
  }

  /** A variable's value: the makefile's (not expanded again when set with `:=`), the environment's, or none. */
  function valueOf(name: string, automatic: ReadonlyMap<string, string>, depth: number): string {
    const value = context.environmentFirst === true && environment.has(name) ? environment.get(name) : vars.get(name);
    if (value === undefined) return environment.get(name) ?? "";
    return simple.has(name) ? value : expand(value, automatic, depth + 1);
  }

  /** One `$(…)`: a variable, an automatic one (`$(@D)`), or a function. */
  function reference(inner: string, automatic: ReadonlyMap<string, string>, depth: number): string {
    const space = inner.search(/\s/);
    if (space === -1) {
      const name = expand(inner, automatic, depth + 1);
      return automatic.get(name) ?? valueOf(name, automatic, depth);
    }
    const fn = inner.slice(0, space);
    const raw = inner.slice(space + 1);
    const args = (): string[] => splitArgs(raw).map((arg) => expand(arg, automatic, depth + 1));
    const words = (text: string): string[] => text.trim().split(/\s+/).filter(Boolean);
    switch (fn) {
      case "shell":
        return `$(${expand(raw, automatic, depth + 1)})`;
      case "call": {
        const [name = "", ...params] = args();
        const body = vars.get(name.trim()) ?? "";
        const bound = new Map(automatic);
        params.forEach((param, at) => bound.set(String(at + 1), param));
        bound.set("0", name.trim());
        return expand(body, bound, depth + 1);
      }
      case "value":
        return vars.get(expand(raw, automatic, depth + 1).trim()) ?? "";
      case "eval": {
        const assignment = /^\s*(?:override\s+|export\s+)?([A-Za-z_][\w.-]*)\s*(::?=|\?=|\+=|!=|=)\s*(.*)$/s.exec(expand(raw, automatic, depth + 1));
        if (assignment) assign(assignment[1] as string, assignment[2] as string, assignment[3] as string);
        return "";
      }
      case "if": {
        // Both branches: the condition is not evaluated.
        const [, then = "", otherwise = ""] = args();
        return `${then} ${otherwise}`.trim();
      }
      case "foreach": {
        const [name = "", list = "", body = ""] = splitArgs(raw);
        const variable = expand(name, automatic, depth + 1).trim();
        return words(expand(list, automatic, depth + 1))
          .slice(0, 64)
          .map((item) => expand(body, new Map([...automatic, [variable, item]]), depth + 1))
          .join(" ");
      }
      case "subst": {
        const [from = "", to = "", text_ = ""] = args();
        return from.length === 0 ? text_ : text_.split(from).join(to);
      }
      case "patsubst": {
        const [from = "", to = "", text_ = ""] = args();
        const pattern = from.includes("%") ? patternOf(from) : undefined;
        return words(text_).map((word) => (pattern === undefined ? (word === from ? to : word) : word.replace(pattern, (_m, stem: string) => to.replace("%", stem)))).join(" ");
      }
      case "dir":
        return words(args().join(",")).map((word) => (word.includes("/") ? word.slice(0, word.lastIndexOf("/") + 1) : "./")).join(" ");
      case "notdir":
        return words(args().join(",")).map((word) => word.slice(word.lastIndexOf("/") + 1)).join(" ");
      case "abspath":
      case "realpath":
        return words(args().join(",")).map((word) => (word.startsWith("/") || word.startsWith("$") ? word : `${context.curdir ?? "$PWD"}/${word}`)).join(" ");
      case "firstword":
        return words(args().join(",")).at(0) ?? "";
      case "lastword":
        return words(args().join(",")).at(-1) ?? "";
      case "strip":
        return words(args().join(",")).join(" ");
      case "addprefix": {
        const [pre = "", list = ""] = args();
        return words(list).map((word) => `${pre}${word}`).join(" ");
      }
      case "addsuffix": {
        const [suf = "", list = ""] = args();
        return words(list).map((word) => `${word}${suf}`).join(" ");
      }
      case "origin":
      case "flavor":
      case "info":
      case "warning":
      case "error":
        return "";
      default:
        // Other functions (wildcard, filter, sort, …) leave their words much as given: read as such.
        return args().join(" ");
    }
  }
}

/** A make function's arguments: split at the commas outside parentheses. */
function splitArgs(raw: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of raw) {
    if (ch === "(" || ch === "{") depth++;
    else if (ch === ")" || ch === "}") depth--;
    if (ch === "," && depth === 0) {
      parts.push(current);
      current = "";
    } else current += ch;
  }
  parts.push(current);
  return parts;
}

/** A word quoted for a shell line. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, "'\\''")}'`;
}

/** A pattern target as a regular expression (`build/%.o` → `^build/(.*)\.o$`). */
function patternOf(target: string): RegExp {
  const [before, after] = [target.slice(0, target.indexOf("%")), target.slice(target.indexOf("%") + 1)];
  return new RegExp(`^${escapeRegExp(before)}(.+)${escapeRegExp(after)}$`);
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
export function packageScripts(dir: string, textOf: (file: string) => string | undefined): Record<string, string> | undefined {
  for (let at = dir, depth = 0; depth < 32; depth++) {
    const text = textOf(path.join(at, "package.json"));
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
