// Programs that run what a project file says: direnv's `.envrc`, mise's tasks. The
// walker (through command-runners.ts) reads the file's commands as the ones the program
// runs, as it reads a package script for `npm run`.
import type { FileText } from "./command-runners.ts";

/** Directories above a start a runner looks in for its file, at most. */
const MAX_UP = 16;

/** `DIR/NAME`, `DIR/../NAME`, … as the runner looks for NAME from DIR upward, relative to the cwd unless DIR is absolute. */
function upward(dir: string, name: string): string[] {
  const parts = dir.split("/").filter((part) => part.length > 0 && part !== ".");
  const start = dir.startsWith("/") ? "/" : "";
  return Array.from({ length: MAX_UP + 1 }, (_, up) => {
    const at = start + [...parts, ...Array<string>(up).fill("..")].join("/");
    return `${at === "" ? "." : at}/${name}`;
  });
}

/**
 * `direnv exec DIR cmd`: direnv first runs, in bash, the `.envrc` of DIR or of the nearest
 * directory above it (the command itself is read as a wrapper's). Only `exec` runs it here:
 * `direnv export` prints what it sets (its output run through eval is refused unread), and
 * `allow` only marks the file allowed.
 */
export function direnvScripts(args: readonly string[], fileText: FileText): string[] {
  if (args[0] !== "exec" || args[1] === undefined) return [];
  for (const file of upward(args[1], ".envrc")) {
    const text = fileText(file);
    if (text !== undefined) return [text];
  }
  return [];
}

/** Where mise reads a project's tasks: its config files (nearest directory first, as mise merges them) and its task directories. */
const MISE_CONFIGS = ["mise.toml", ".mise.toml", "mise.local.toml", ".mise.local.toml", "mise/config.toml", ".mise/config.toml", ".config/mise.toml", ".config/mise/config.toml"];
const MISE_TASK_DIRS = ["mise-tasks", ".mise-tasks", "mise/tasks", ".mise/tasks", ".config/mise/tasks"];

/** mise's own commands: a first word that is none of these is a task name (`mise build`). */
const MISE_COMMANDS = new Set([
  "activate", "alias", "backends", "bin-paths", "cache", "completion", "config", "deactivate", "doctor", "en", "env", "exec", "x", "fmt",
  "generate", "implode", "install", "i", "install-into", "latest", "link", "ls", "list", "ls-remote", "outdated", "plugins", "p", "prune",
  "registry", "reshim", "run", "r", "search", "self-update", "set", "settings", "shell", "sh", "sync", "tasks", "t", "test-tool", "tool",
  "trust", "uninstall", "unset", "unuse", "upgrade", "up", "use", "u", "version", "watch", "w", "where", "which", "help",
]);

/** mise commands that load the project's environment (and so run its `_.source` scripts) besides running a task. */
const SOURCES_ENV = new Set(["exec", "x", "env", "en", "shell", "sh", "activate", "hook-env"]);

/** The files a mise config's `[env]` sources: `_.source = "f"` (or a list, or `{ path = "f" }`), or `source = …` under `[env._]`. */
function envSources(text: string): string[] {
  const files: string[] = [];
  let table = "";
  for (const [i, raw] of text.split("\n").entries()) {
    const line = raw.trim();
    const header = /^\[\s*([^\]]+?)\s*\]$/.exec(line);
    if (header !== null) {
      table = tableName(header[1] as string);
      continue;
    }
    const key = table === "env" ? /^_\.source\s*=\s*/.exec(line) : table === "env._" ? /^source\s*=\s*/.exec(line) : null;
    if (key === null) continue;
    const rest = [line.slice(key[0].length), ...text.split("\n").slice(i + 1)].join("\n");
    files.push(...(rest.startsWith("{") ? stringsOf(keyValue(rest, "path")) : stringsOf(rest)));
  }
  return files;
}

/** A word as the shell reads it back: single-quoted unless plain. */
const shellWord = (word: string): string => (/^[\w@%+=:,./~-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`);

/** Tasks one run reads, with the ones they depend on: a bound against a chain that names itself. */
const MAX_TASKS = 32;

/**
 * `mise run TASK`, `mise r`, `mise tasks run`, `mise watch`, `mise TASK`: the commands of the
 * task (its `run`, and first its `depends`), from the project's mise config files in the cwd
 * and above, or a file task (`mise-tasks/TASK`, read by its `#!` line). A task found in no
 * file here (a global one, or none) is not read.
 */
export function miseScripts(args: readonly string[], fileText: FileText): string[] {
  const operands = args.filter((arg) => !arg.startsWith("-"));
  const sub = operands[0];
  const named =
    sub === "run" || sub === "r" || sub === "watch" || sub === "w" ? operands.slice(1) : (sub === "tasks" || sub === "t") && (operands[1] === "run" || operands[1] === "r") ? operands.slice(2) : sub !== undefined && !MISE_COMMANDS.has(sub) ? operands : [];
  // `mise run a ::: b` runs several; the words after a task name are its arguments.
  const configs = MISE_CONFIGS.flatMap((config) => upward(".", config)).map(fileText).filter((text): text is string => text !== undefined);
  // The env's `_.source` scripts run, in bash, before what mise runs or prints the environment of.
  const sourced = sub !== undefined && (named.length > 0 || SOURCES_ENV.has(sub)) ? configs.flatMap(envSources).map((file) => `source ${shellWord(file)}`) : [];
  const first = named[0];
  if (first === undefined) return sourced;
  const tasks = [first, ...named.flatMap((word, i) => (word === ":::" && named[i + 1] !== undefined ? [named[i + 1] as string] : []))];
  const scripts: string[] = [...sourced];
  const seen = new Set<string>();
  const read = (task: string): void => {
    if (seen.has(task) || seen.size >= MAX_TASKS) return;
    seen.add(task);
    const defined = configs.map((text) => tomlTask(text, task)).find((found) => found !== undefined);
    if (defined !== undefined) {
      defined.depends.forEach(read);
      scripts.push(...defined.run);
      return;
    }
    // A file task: run as the file its `#!` line names.
    for (const dir of MISE_TASK_DIRS) {
      const file = `${dir}/${task.replaceAll(":", "/")}`;
      if (fileText(file) !== undefined) {
        scripts.push(`./${file}`);
        return;
      }
    }
  };
  tasks.forEach(read);
  return scripts;
}

/** A task of a mise TOML config: `[tasks.NAME]` with `run` and `depends`, or `NAME = "…"` / `NAME = { run = … }` under `[tasks]`. */
function tomlTask(text: string, task: string): { run: string[]; depends: string[] } | undefined {
  const lines = text.split("\n");
  let table = "";
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).trim();
    const header = /^\[\s*([^\]]+?)\s*\]$/.exec(line);
    if (header !== null) {
      table = tableName(header[1] as string);
      continue;
    }
    if (table === `tasks.${task}`) {
      // The table's keys, until the next header.
      const body: string[] = [];
      for (let j = i; j < lines.length && !/^\s*\[[^\]]/.test(lines[j] as string); j++) body.push(lines[j] as string);
      const keys = body.join("\n");
      return { run: stringsOf(keyValue(keys, "run")), depends: stringsOf(keyValue(keys, "depends")) };
    }
    if (table === "tasks") {
      const key = new RegExp(`^(?:${escapeRegExp(task)}|"${escapeRegExp(task)}"|'${escapeRegExp(task)}')\\s*=\\s*`).exec(line);
      if (key === null) continue;
      const rest = [line.slice(key[0].length), ...lines.slice(i + 1)].join("\n");
      if (rest.startsWith("{")) return { run: stringsOf(keyValue(rest, "run")), depends: stringsOf(keyValue(rest, "depends")) };
      return { run: stringsOf(rest), depends: [] };
    }
  }
  return undefined;
}

/** `tasks."a:b"` → `tasks.a:b`. */
const tableName = (raw: string): string =>
  raw
    .split(".")
    .map((part) => part.trim().replace(/^"(.*)"$|^'(.*)'$/, "$1$2"))
    .join(".");

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The text after `key =` in a TOML table body (or an inline table), undefined when the key is not there. */
function keyValue(body: string, key: string): string | undefined {
  const match = new RegExp(`(?:^|[\\n{,])\\s*${key}\\s*=\\s*`).exec(body);
  return match === null ? undefined : body.slice(match.index + match[0].length);
}

/** The strings a TOML value starting `text` holds: one string, or an array's. */
function stringsOf(text: string | undefined): string[] {
  if (text === undefined) return [];
  if (!text.startsWith("[")) {
    const one = tomlString(text, 0);
    return one === undefined ? [] : [one.value];
  }
  const values: string[] = [];
  let at = 1;
  while (at < text.length) {
    const ch = text[at] as string;
    if (ch === "]") break;
    if (ch === '"' || ch === "'") {
      const read = tomlString(text, at);
      if (read === undefined) break;
      values.push(read.value);
      at = read.end;
    } else if (ch === "#") {
      const end = text.indexOf("\n", at);
      at = end === -1 ? text.length : end;
    } else at++;
  }
  return values;
}

/** A TOML string at `at`: basic `"…"` (escapes), literal `'…'`, and their `"""`/`'''` multiline forms. */
function tomlString(text: string, at: number): { value: string; end: number } | undefined {
  const quote = text[at];
  if (quote !== '"' && quote !== "'") return undefined;
  const triple = text.startsWith(quote.repeat(3), at);
  const open = triple ? 3 : 1;
  const close = text.indexOf(quote.repeat(open), at + open);
  if (close === -1) return undefined;
  if (quote === "'") return { value: stripFirstNewline(text.slice(at + open, close), triple), end: close + open };
  // A basic string ends at an unescaped quote.
  let value = "";
  let i = at + open;
  for (; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === "\\") {
      const next = text[i + 1] ?? "";
      if (next === "\n" && triple) {
        i = text.slice(i + 1).search(/\S/) + i;
        continue;
      }
      value += next === "n" ? "\n" : next === "t" ? "\t" : next === "r" ? "\r" : next;
      i++;
      continue;
    }
    if (text.startsWith(quote.repeat(open), i)) break;
    value += ch;
  }
  return { value: stripFirstNewline(value, triple), end: i + open };
}

/** A multiline string's newline right after its opening quotes is not part of it. */
const stripFirstNewline = (value: string, triple: boolean): string => (triple && value.startsWith("\n") ? value.slice(1) : value);
