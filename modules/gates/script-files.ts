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
      return head.subarray(0, n).includes(0) ? { binary: true } : { tooLarge: true, head: head.subarray(0, n).toString("utf8") };
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
    const result: ScriptFile = bytes.includes(0) ? { binary: true } : { text: bytes.toString("utf8") };
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

/** The interpreter a `#!` line names (`#!/usr/bin/env -S python3 -u` → `python3`), or undefined without one. */
export function shebangProgram(text: string): string | undefined {
  if (!text.startsWith("#!")) return undefined;
  const words = text.slice(2, text.indexOf("\n") === -1 ? undefined : text.indexOf("\n")).trim().split(/\s+/);
  let at = 0;
  if (path.basename(words[0] ?? "") === "env") {
    at = 1;
    while (at < words.length && (words[at] as string).startsWith("-")) at++;
  }
  const program = words[at];
  return program === undefined ? undefined : path.basename(program);
}

// ---------------------------------------------------------------------------
// Makefiles: the recipes of the targets a `make` builds (those named, else the first),
// their prerequisites, and every pattern rule (a prerequisite may be made by one).

const MAKEFILES = ["GNUmakefile", "makefile", "Makefile"];

/** The makefile `make` reads in `dir` when no -f names one. */
export function defaultMakefile(dir: string): string | undefined {
  for (const name of MAKEFILES) {
    const text = scriptText(name, dir);
    if (text !== undefined) return text;
  }
  return undefined;
}

/** The recipe lines `make` may run for `goals` (none: the first target) from a makefile's text. */
export function makeRecipes(text: string, goals: readonly string[]): string[] {
  const rules = new Map<string, { prerequisites: string[]; recipe: string[] }>();
  const patterns: string[] = [];
  let first: string | undefined;
  let current: { prerequisites: string[]; recipe: string[] }[] = [];
  let currentIsPattern = false;
  for (const line of text.split(/\r?\n/)) {
    if (line.startsWith("\t")) {
      const recipe = line.slice(1).replace(/^[@+-]+/, "");
      for (const rule of current) rule.recipe.push(recipe);
      if (currentIsPattern) patterns.push(recipe);
      continue;
    }
    // `target … : prerequisites ; recipe` (not `:=`, `::=` assignments).
    const rule = /^([^:#=\t][^:#=]*?)\s*::?(?!=)\s*([^;#]*)(?:;(.*))?$/.exec(line);
    if (!rule) {
      if (line.trim().length > 0 && !line.startsWith(" ")) current = [];
      continue;
    }
    const targets = (rule[1] as string).trim().split(/\s+/);
    const prerequisites = (rule[2] as string).replace(/\|/g, " ").trim().split(/\s+/).filter(Boolean);
    currentIsPattern = targets.some((target) => target.includes("%"));
    current = targets.map((target) => {
      const entry = rules.get(target) ?? { prerequisites: [], recipe: [] };
      entry.prerequisites.push(...prerequisites);
      rules.set(target, entry);
      if (first === undefined && !target.startsWith(".") && !target.includes("%")) first = target;
      return entry;
    });
    const inline = rule[3]?.trim();
    if (inline) {
      for (const entry of current) entry.recipe.push(inline);
      if (currentIsPattern) patterns.push(inline);
    }
  }
  const recipes: string[] = [...patterns];
  const seen = new Set<string>();
  const queue = goals.length > 0 ? [...goals] : first === undefined ? [] : [first];
  while (queue.length > 0 && seen.size < 4096) {
    const target = queue.shift() as string;
    if (seen.has(target)) continue;
    seen.add(target);
    const entry = rules.get(target);
    if (entry === undefined) continue;
    recipes.push(...entry.recipe);
    queue.push(...entry.prerequisites);
  }
  return recipes;
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
        const parsed: unknown = JSON.parse(text);
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
