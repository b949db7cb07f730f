// Programs that run what a project file says: direnv's `.envrc`, mise's tasks, hooks and
// environment scripts. The walker (through command-runners.ts) reads the file's commands
// as the ones the program runs, as it reads a package script for `npm run`. Where the
// file leaves something to run time (a template, a value it computes), the line reads
// as a value built at run time, which the gates judge as they judge one in a command.
import type { FileText } from "./command-runners.ts";
import { shellLine } from "../tools/code-reading.ts";
import { escapeRegExp } from "../system/regexp.ts";

/** Directories above a start a runner looks in for its file, at most. */
const MAX_UP = 16;

/** The directory `up` levels above `dir` (relative to the cwd unless absolute). */
function above(dir: string, up: number): string {
  const parts = dir.split("/").filter((part) => part.length > 0 && part !== ".");
  const at = (dir.startsWith("/") ? "/" : "") + [...parts, ...Array<string>(up).fill("..")].join("/");
  return at === "" ? "." : at;
}

// ---------------------------------------------------------------------------
// direnv

/**
 * direnv's library, as the commands it runs: `source_env` and `source_up` read another
 * `.envrc` (or file), `PATH_add` puts a directory first on PATH, `dotenv` reads a `.env`
 * into the environment, `use X` and `layout X` call `use_X` and `layout_X`.
 */
const DIRENV_STDLIB = [
  'source_env() { source "$1"; source "$1/.envrc"; }',
  'source_env_if_exists() { source "$1"; }',
  "source_up() { source ../.envrc; }",
  "source_up_if_exists() { source ../.envrc; }",
  'PATH_add() { export PATH="$PWD/$1:$PATH"; }',
  'path_add() { export PATH="$PWD/$2:$PATH"; }',
  'dotenv() { cat "${1:-.env}"; }',
  'dotenv_if_exists() { cat "${1:-.env}"; }',
  // A script fetched and sourced: a download run.
  'source_url() { curl -fsSL "$1" | bash; }',
  'fetchurl() { curl -fsSL "$1"; }',
].join("\n");

/**
 * `direnv exec DIR cmd`, `direnv export SHELL`: direnv first runs, in bash, the `.envrc` of
 * DIR (the cwd for export) or of the nearest directory above it, with its library (the
 * command itself is read as a wrapper's). `allow` only marks the file allowed.
 */
export function direnvScripts(args: readonly string[], fileText: FileText): string[] {
  const dir = args[0] === "exec" ? args[1] : args[0] === "export" ? "." : undefined;
  if (dir === undefined) return [];
  for (let up = 0; up <= MAX_UP; up++) {
    const at = above(dir, up);
    const text = fileText(`${at}/.envrc`);
    if (text === undefined) continue;
    // `use nix`, `layout python`: the library's use_nix, layout_python (a function the file defines is read as written).
    const called = text.replace(/^(\s*)(use|layout)\s+(\w+)/gm, "$1$2_$3");
    return [`cd ${shellLine([at])}\n${DIRENV_STDLIB}\n${called}`];
  }
  return [];
}

// ---------------------------------------------------------------------------
// mise

/** A project's mise config files, by name (the `MISE_ENV` ones are added per environment). */
const MISE_CONFIGS = ["mise.local.toml", ".mise.local.toml", "mise.toml", ".mise.toml", "mise/config.toml", ".mise/config.toml", ".config/mise.toml", ".config/mise/config.toml"];
const MISE_TASK_DIRS = ["mise-tasks", ".mise-tasks", "mise/tasks", ".mise/tasks", ".config/mise/tasks"];

/** mise's own commands: a first word that is none of these is a task name (`mise build`). */
const MISE_COMMANDS = new Set([
  "activate", "alias", "backends", "bin-paths", "cache", "completion", "config", "deactivate", "doctor", "en", "env", "exec", "x", "fmt",
  "generate", "implode", "install", "i", "install-into", "latest", "link", "ls", "list", "ls-remote", "outdated", "plugins", "p", "prune",
  "registry", "reshim", "run", "r", "search", "self-update", "set", "settings", "shell", "sh", "sync", "tasks", "t", "test-tool", "tool",
  "trust", "uninstall", "unset", "unuse", "upgrade", "up", "use", "u", "version", "watch", "w", "where", "which", "help",
]);

/** mise's options that take a value (global and `run`'s): the value is no task name. */
const MISE_VALUED = new Set(["-C", "--cd", "-E", "--env", "-j", "--jobs", "-t", "--tool", "--timeout", "-o", "--output", "--shell", "-s", "-c", "--command", "-p", "--prefix"]);

/** mise commands that run the hooks of installing tools. */
const MISE_INSTALLS = new Set(["install", "i", "use", "u", "upgrade", "up", "install-into", "sync"]);

/** Tasks one run reads, with the ones they depend on: a bound against a chain that names itself. */
const MAX_TASKS = 32;

interface MiseTask {
  run: string[];
  /** Tasks run before and after it, and the tasks its `run` list names. */
  depends: string[];
  /** Its `env`, as assignments before each command. */
  env: string;
}

/**
 * `mise run TASK`, `mise r`, `mise tasks run`, `mise watch`, `mise TASK`, `mise run` (the
 * `default` task): the task's commands (its `run` lines or `file`, its `depends` before and
 * `depends_post` after, the words given after its name), from every mise config file in the
 * directory (`-C`) and above, or a file task (read by its `#!` line). `mise exec -c CMD`, and
 * every command that loads the environment, also run `[env]`'s `_.source` scripts; installs
 * run the `[hooks]`. Templates (`{{…}}`) are values built at run time; `exec(command=…)`
 * in one is a command it runs.
 */
export function miseScripts(args: readonly string[], fileText: FileText, env: ReadonlyMap<string, string> = new Map()): string[] {
  const operands: string[] = [];
  const options = new Map<string, string>();
  const afterDashes: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--") {
      afterDashes.push(...args.slice(i + 1));
      break;
    }
    const eq = arg.indexOf("=");
    if (arg.startsWith("--") && eq > 0 && MISE_VALUED.has(arg.slice(0, eq))) options.set(arg.slice(0, eq), arg.slice(eq + 1));
    else if (MISE_VALUED.has(arg)) options.set(arg, args[++i] ?? "");
    else if (!arg.startsWith("-")) operands.push(arg);
  }
  const option = (...names: string[]): string | undefined => names.map((name) => options.get(name)).find((value) => value !== undefined);
  const dir = option("-C", "--cd") ?? ".";
  const environment = option("-E", "--env") ?? env.get("MISE_ENV");
  const names = [...MISE_CONFIGS, ...(environment ? environment.split(",").flatMap((e) => [`mise.${e}.toml`, `.mise.${e}.toml`, `mise.${e}.local.toml`, `.config/mise.${e}.toml`]) : [])];
  const configs: { text: string; root: string }[] = [];
  for (let up = 0; up <= MAX_UP; up++) {
    const at = above(dir, up);
    for (const name of names) {
      const text = fileText(`${at}/${name}`);
      if (text !== undefined) configs.push({ text, root: at });
    }
  }
  // `[task_config] includes`: more task files (TOML) and directories of file tasks.
  const taskDirs = MISE_TASK_DIRS.map((taskDir) => `${dir}/${taskDir}`);
  for (const { text, root } of [...configs]) {
    for (const include of stringsOf(tableKey(text, "task_config", "includes"))) {
      const at = include.startsWith("/") ? include : `${root}/${include}`;
      const included = /\.toml$/.test(include) ? fileText(at) : undefined;
      if (included !== undefined) configs.push({ text: /^\s*\[/.test(included) ? included : `[tasks]\n${included}`, root });
      else taskDirs.push(at);
    }
  }
  const scripts: string[] = [];
  const sub = operands[0];
  // The environment's scripts run before whatever loads it: a task, `exec`, `env`, a shell.
  const sourced = (value: string | undefined): string[] => (value?.trimStart().startsWith("{") ? stringsOf(keyValue(value.trimStart().slice(1), "path")) : stringsOf(value));
  const sources = configs.flatMap(({ text, root }) => [...sourced(tableKey(text, "env", "_.source")), ...sourced(tableKey(text, "env._", "source"))].map((file) => shellLine(["source", file.startsWith("/") ? file : `${root}/${file}`])));
  const envPrefix = configs.map(({ text, root }) => envAssignments(text, root)).join("");
  if (sub !== undefined && sub !== "trust" && sub !== "help" && sub !== "version") scripts.push(...sources);
  if (sub !== undefined && MISE_INSTALLS.has(sub)) scripts.push(...configs.flatMap(({ text }) => ["preinstall", "postinstall"].flatMap((hook) => stringsOf(tableKey(text, "hooks", hook)))).map((line) => templated(line)));
  // `mise exec -c CMD`, `mise exec -- cmd`: in the project's environment.
  if (sub === "exec" || sub === "x") {
    const command = option("-c", "--command");
    if (command !== undefined) scripts.push(`${envPrefix}${templated(command)}`);
    if (afterDashes.length > 0) scripts.push(`${envPrefix}${shellLine(afterDashes)}`);
    return scripts;
  }
  const runs = sub === "run" || sub === "r" || sub === "watch" || sub === "w";
  const named = runs ? operands.slice(1) : (sub === "tasks" || sub === "t") && (operands[1] === "run" || operands[1] === "r") ? operands.slice(2) : sub !== undefined && !MISE_COMMANDS.has(sub) ? operands : undefined;
  if (named === undefined) return scripts;
  // `mise run a ::: b` runs several; the words after a task name are its arguments, appended to its commands.
  const given = [...named, ...(afterDashes.length > 0 ? afterDashes : [])];
  const groups: { task: string; words: string[] }[] = [];
  for (const word of given) {
    if (word === ":::" || groups.length === 0) groups.push({ task: word === ":::" ? "" : word, words: [] });
    else if ((groups.at(-1) as { task: string }).task === "") (groups.at(-1) as { task: string }).task = word;
    else groups.at(-1)?.words.push(word);
  }
  if (groups.length === 0) groups.push({ task: "default", words: [] });
  const seen = new Set<string>();
  const read = (task: string, words: readonly string[]): void => {
    if (task === "" || seen.has(task) || seen.size >= MAX_TASKS) return;
    seen.add(task);
    const found = configs.flatMap(({ text, root }) => {
      const defined = tomlTask(text, task);
      return defined === undefined ? [] : [{ defined, root }];
    });
    for (const { defined, root } of found) {
      const prefix = `MISE_PROJECT_ROOT=${shellLine([root])}; MISE_CONFIG_ROOT=${shellLine([root])}; cd ${shellLine([root])}; ${envPrefix}${defined.env}`;
      defined.depends.forEach((name) => read(name, []));
      const vars = new Map(configs.flatMap(({ text }) => [...varsOf(text)]));
      scripts.push(...defined.run.map((line) => `${prefix}${shebangRun(templated(line, vars))}${words.length > 0 ? ` ${shellLine(words)}` : ""}`));
    }
    if (found.length > 0) return;
    // A file task: run as the file its `#!` line names.
    for (const taskDir of taskDirs) {
      const file = `${taskDir}/${task.replaceAll(":", "/")}`;
      if (fileText(file) !== undefined) {
        scripts.push(`${envPrefix}${shellLine([file.startsWith("/") || file.startsWith(".") ? file : `./${file}`, ...words])}`);
        return;
      }
    }
  };
  for (const { task, words } of groups) read(task, words);
  return scripts;
}

/**
 * A template's text as a command line: `{{exec(command='…')}}` is a command mise runs
 * when it reads the template (put first); every other `{{…}}` is a value built at run time.
 */
function templated(line: string, vars: ReadonlyMap<string, string> = new Map()): string {
  const runs: string[] = [];
  const text = line.replace(/\{\{-?([\s\S]*?)-?\}\}/g, (_whole, inner: string) => {
    for (const match of inner.matchAll(/\bexec\s*\(\s*command\s*=\s*(["'])((?:(?!\1)[\s\S])*)\1/g)) runs.push(match[2] as string);
    // `{{vars.flag}}`: the config's `[vars]` value; `{{env.X}}`: the variable.
    const named = /^\s*vars\.(\w+)\s*$/.exec(inner);
    if (named !== null && vars.has(named[1] as string)) return vars.get(named[1] as string) as string;
    const variable = /^\s*env\.(\w+)\s*$/.exec(inner);
    if (variable !== null) return `\${${variable[1]}}`;
    return "${MISE_TEMPLATE}";
  });
  return [...runs, text].join("\n");
}

/** A config's `[vars]`: the values `{{vars.NAME}}` stands for. */
function varsOf(text: string): Map<string, string> {
  const vars = new Map<string, string>();
  for (const line of (tableBody(text, "vars") ?? "").split("\n")) {
    const match = /^\s*([A-Za-z_]\w*)\s*=\s*(.*)$/.exec(line);
    const value = match === null ? undefined : stringsOf(match[2])[0];
    if (match !== null && value !== undefined) vars.set(match[1] as string, value);
  }
  return vars;
}

/** A `run` script that starts with `#!`: run by that interpreter, as inline code (`python3 -c '…'`); others by the shell. */
function shebangRun(line: string): string {
  const bang = /^#!\s*(?:\/usr\/bin\/env\s+(?:-S\s+)?)?(\S+)[^\n]*\n([\s\S]*)$/.exec(line);
  if (bang === null) return line;
  const program = (bang[1] as string).split("/").at(-1) ?? "";
  const flag = /^python|^pypy/.test(program) ? "-c" : /^(?:node|bun|deno|perl|ruby|lua)/.test(program) ? "-e" : /^(?:ba|z|da|k)?sh$/.test(program) ? "-c" : undefined;
  return flag === undefined ? line : shellLine([program, flag, bang[2] as string]);
}

/** `[env]`'s plain values and `_.path` as assignments before a command: `K='v'; export PATH=…; `. */
function envAssignments(text: string, root: string): string {
  const body = tableBody(text, "env");
  if (body === undefined) return "";
  const parts: string[] = [];
  for (const line of body.split("\n")) {
    const match = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (match === null) continue;
    const value = stringsOf(match[2]);
    if (value[0] !== undefined) parts.push(`export ${match[1]}=${shellLine([templated(value[0])])}; `);
  }
  for (const dir of [...stringsOf(tableKey(text, "env", "_.path")), ...stringsOf(tableKey(text, "env._", "path"))]) parts.push(`export PATH=${shellLine([dir.startsWith("/") ? dir : `${root}/${dir}`])}:"$PATH"; `);
  return parts.join("");
}

/** One table's lines (`[name]` or `[[name]]`, up to the next header), with its dotted keys at the top level as `key = …` lines. */
function tableBody(text: string, table: string): string | undefined {
  const lines = text.split("\n");
  const body: string[] = [];
  let current = "";
  let found = false;
  for (const raw of lines) {
    const header = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$/.exec(raw);
    if (header !== null) {
      current = tableName(header[1] as string);
      found ||= current === table;
      continue;
    }
    if (current === table) body.push(raw);
    else {
      // `tasks.c.run = …` at the top level, or `c.run = …` in [tasks]: a dotted key into this table.
      const prefix = current === "" ? `${table}.` : table.startsWith(`${current}.`) ? `${table.slice(current.length + 1)}.` : undefined;
      const key = prefix === undefined ? undefined : new RegExp(`^\\s*${dottedKeyPattern(prefix)}(.*)$`).exec(raw);
      if (key !== null && key !== undefined) {
        body.push(key[1] as string);
        found = true;
      }
    }
  }
  return found ? body.join("\n") : undefined;
}

/** A dotted key's prefix as a pattern: each part bare or quoted. */
const dottedKeyPattern = (prefix: string): string =>
  prefix
    .split(".")
    .filter((part) => part.length > 0)
    .map((part) => `(?:${escapeRegExp(part)}|"${escapeRegExp(part)}"|'${escapeRegExp(part)}')\\s*\\.\\s*`)
    .join("");

/** The value text of `key` in `table` (a line of its body that starts with the key), undefined when it is not there. */
function tableKey(text: string, table: string, key: string): string | undefined {
  const body = tableBody(text, table);
  return body === undefined ? undefined : keyValue(body, key);
}

/** A task of a mise TOML config: `[tasks.NAME]`, `tasks.NAME.run = …`, `NAME = "…"` or `NAME = { run = … }` under `[tasks]`, or a task whose alias is NAME. */
function tomlTask(text: string, task: string): MiseTask | undefined {
  const of = (body: string): MiseTask => {
    const runs = keyValue(body, "run");
    // `run = [{ task = "x" }, "cmd"]`: a task run by name.
    const byName = runs === undefined ? [] : [...runs.slice(0, closing(runs)).matchAll(/\{\s*tasks?\s*=\s*(\[[^\]]*\]|"[^"]*"|'[^']*')/g)].flatMap((match) => stringsOf(match[1]));
    const file = stringsOf(keyValue(body, "file"))[0];
    const env = keyValue(body, "env");
    const assignments = env === undefined || !env.startsWith("{") ? "" : [...env.slice(0, closing(env)).matchAll(/([A-Za-z_][A-Za-z0-9_]*)\s*=\s*("(?:[^"\\]|\\.)*"|'[^']*')/g)].map((match) => `export ${match[1]}=${shellLine([stringsOf(match[2])[0] ?? ""])}; `).join("");
    return {
      run: [...stringsOf(runs), ...(file !== undefined ? [shellLine([file.includes("/") ? file : `./${file}`])] : [])],
      depends: [...stringsOf(keyValue(body, "depends")), ...byName, ...stringsOf(keyValue(body, "depends_post"))],
      env: assignments,
    };
  };
  const table = tableBody(text, `tasks.${task}`);
  if (table !== undefined) return of(table);
  const tasks = tableBody(text, "tasks");
  const short = tasks === undefined ? undefined : keyValue(tasks, task, true);
  if (short !== undefined) return short.startsWith("{") ? of(short.slice(1, closing(short))) : { run: stringsOf(short), depends: [], env: "" };
  // A task named by its alias.
  for (const match of text.matchAll(/^\s*\[\s*tasks\.("[^"]+"|'[^']+'|[^\]\s]+)\s*\]/gm)) {
    const name = tableName(match[1] as string);
    const body = tableBody(text, `tasks.${name}`);
    if (body !== undefined && stringsOf(keyValue(body, "alias")).includes(task)) return of(body);
  }
  return undefined;
}

/** Where the bracket or brace `text` opens with closes (its length when it does not). */
function closing(text: string): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === '"' || ch === "'") {
      i = tomlString(text, i)?.end ?? text.length;
      i -= 1;
      continue;
    }
    if (ch === "[" || ch === "{") depth++;
    else if (ch === "]" || ch === "}") {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return text.length;
}

/** `tasks."a:b"` → `tasks.a:b`. */
const tableName = (raw: string): string =>
  raw
    .split(/\.(?=(?:[^"']*["'][^"']*["'])*[^"']*$)/)
    .map((part) => part.trim().replace(/^"(.*)"$|^'(.*)'$/, "$1$2"))
    .join(".");


/**
 * The text after `key =` at the start of a line of a table body (or after `{`/`,` in an
 * inline table), undefined when the key is not there; `quoted`: the key may be quoted.
 */
function keyValue(body: string, key: string, quoted = false): string | undefined {
  const name = escapeRegExp(key).replaceAll("\\.", "\\s*\\.\\s*");
  const pattern = quoted ? `(?:${name}|"${escapeRegExp(key)}"|'${escapeRegExp(key)}')` : name;
  // A line's start, or an inline table's (`{ run = …, env = … }`), outside any string.
  const at = new RegExp(`(?:^|\\n|[{,])[ \\t]*${pattern}[ \\t]*=[ \\t]*`, "g");
  for (const match of body.matchAll(at)) {
    if (insideString(body, match.index)) continue;
    return body.slice(match.index + match[0].length);
  }
  return undefined;
}

/** Whether `at` is inside a TOML string of `text`. */
function insideString(text: string, at: number): boolean {
  for (let i = 0; i < at; i++) {
    const ch = text[i] as string;
    if (ch === "#") {
      const end = text.indexOf("\n", i);
      if (end === -1 || end > at) return true;
      i = end;
    } else if (ch === '"' || ch === "'") {
      const end = tomlString(text, i)?.end ?? text.length;
      if (end > at) return true;
      i = end - 1;
    }
  }
  return false;
}

/** The strings a TOML value starting `text` holds: one string, or an array's (inline tables in it skipped). */
function stringsOf(text: string | undefined): string[] {
  if (text === undefined) return [];
  const value = text.trimStart();
  if (!value.startsWith("[")) {
    const one = tomlString(value, 0);
    return one === undefined ? [] : [one.value];
  }
  const values: string[] = [];
  let depth = 0;
  for (let at = 0; at < value.length; at++) {
    const ch = value[at] as string;
    if (ch === "[" || ch === "{") depth++;
    else if (ch === "]" || ch === "}") {
      depth--;
      if (depth === 0) break;
    } else if (ch === '"' || ch === "'") {
      const read = tomlString(value, at);
      if (read === undefined) break;
      if (depth === 1) values.push(read.value);
      at = read.end - 1;
    } else if (ch === "#") {
      const end = value.indexOf("\n", at);
      at = end === -1 ? value.length : end;
    }
  }
  return values;
}

/** A TOML string at `at`: basic `"…"` (escapes), literal `'…'`, and their `"""`/`'''` multiline forms. */
function tomlString(text: string, at: number): { value: string; end: number } | undefined {
  const quote = text[at];
  if (quote !== '"' && quote !== "'") return undefined;
  const triple = text.startsWith(quote.repeat(3), at);
  const open = triple ? 3 : 1;
  if (quote === "'") {
    const close = text.indexOf(quote.repeat(open), at + open);
    if (close === -1) return undefined;
    return { value: stripFirstNewline(text.slice(at + open, close), triple), end: close + open };
  }
  // A basic string ends at an unescaped quote.
  let value = "";
  let i = at + open;
  for (; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === "\\") {
      const next = text[i + 1] ?? "";
      if (next === "\n" && triple) {
        const rest = text.slice(i + 1).search(/\S/);
        i += rest === -1 ? text.length : rest;
        continue;
      }
      value += next === "n" ? "\n" : next === "t" ? "\t" : next === "r" ? "\r" : next;
      i++;
      continue;
    }
    if (text.startsWith(quote.repeat(open), i)) return { value: stripFirstNewline(value, triple), end: i + open };
    if (!triple && ch === "\n") return undefined;
    value += ch;
  }
  return undefined;
}

/** A multiline string's newline right after its opening quotes is not part of it. */
const stripFirstNewline = (value: string, triple: boolean): string => (triple && value.startsWith("\n") ? value.slice(1) : value);
