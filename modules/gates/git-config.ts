// Just enough of git's configuration for the git gate: the aliases a command can
// use (`git ci` may mean `commit --no-verify`) and the settings a config file named
// by the environment would give git. Sources, lowest precedence first: the global
// files, the repository's own config and its worktree's, GIT_CONFIG_* in the
// environment, then `-c`; the files each includes are read where it includes them.
// A file that cannot be read contributes nothing: the gate reads what is readable.
import { homedir } from "node:os";
import path from "node:path";
import { readRegularFile } from "../system/regular-file.ts";
import { commonDir, repositoryAt } from "./git-index.ts";

export interface GitConfigEntry {
  /** `section.key` or `section.subsection.key`; section and key lower-cased, as git compares them. */
  key: string;
  value: string;
}

/** A git config file's entries, in file order (includes are not followed here: see readEntries). */
export function parseGitConfig(text: string): GitConfigEntry[] {
  const entries: GitConfigEntry[] = [];
  let section = "";
  const lines = text.split("\n");
  for (let n = 0; n < lines.length; n++) {
    let line = (lines[n] as string).replace(/\r$/, "");
    // git takes several headers on one line (`[foo][core]hooksPath = …`): the last one holds what follows.
    let header = /^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/.exec(line);
    const headed = header !== null;
    while (header) {
      const name = (header[1] as string).toLowerCase();
      section = header[2] !== undefined ? `${name}.${header[2].replace(/\\(.)/g, "$1")}` : name;
      line = line.slice(header[0].length);
      header = /^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/.exec(line);
    }
    if (headed && (line.trim().length === 0 || /^\s*[#;]/.test(line))) continue;
    const match = /^\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=(.*))?$/.exec(line);
    if (!match || section.length === 0) continue;
    let raw = match[2];
    if (raw === undefined) {
      entries.push({ key: `${section}.${(match[1] as string).toLowerCase()}`, value: "true" });
      continue;
    }
    // A value continues on the next line after a trailing backslash outside quotes.
    while (/(^|[^\\])(\\\\)*\\$/.test(raw) && n + 1 < lines.length) raw = raw.slice(0, -1) + (lines[++n] as string).replace(/\r$/, "");
    entries.push({ key: `${section}.${(match[1] as string).toLowerCase()}`, value: configValue(raw) });
  }
  return entries;
}

/** A raw value as git reads it: quotes removed, escapes applied, comments and outer blanks dropped. */
function configValue(raw: string): string {
  let value = "";
  let quoted = false;
  let pendingSpace = "";
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i] as string;
    if (ch === "\\" && i + 1 < raw.length) {
      const next = raw[++i] as string;
      value += pendingSpace + (({ n: "\n", t: "\t", b: "\b" } as Record<string, string>)[next] ?? next);
      pendingSpace = "";
    } else if (ch === '"') {
      quoted = !quoted;
      value += pendingSpace;
      pendingSpace = "";
    } else if (!quoted && (ch === "#" || ch === ";")) {
      break;
    } else if (!quoted && (ch === " " || ch === "\t")) {
      if (value.length > 0) pendingSpace += ch;
    } else {
      value += pendingSpace + ch;
      pendingSpace = "";
    }
  }
  return value;
}

/** How deep git follows includes before it gives up (deeper, git fails the command). */
const MAX_INCLUDE_DEPTH = 10;
/** Config files read for one git invocation at most: an include tree wider than this is not read on. */
const MAX_CONFIG_FILES = 64;

/** `include.path` or an `includeIf.<condition>.path`. */
export const isInclude = (key: string): boolean => key === "include.path" || /^includeif\..*\.path$/.test(key);

/** One invocation's reading of its config: the entries in git's order, and the files still to be read. */
interface Reading {
  home: string;
  entries: GitConfigEntry[];
  filesLeft: number;
}

/**
 * A config file's entries with the files it includes read in place, as git reads them:
 * `include.path` and every `includeIf.<condition>.path` (its condition is not weighed:
 * what such a file may set is read as set), relative to the including file, `~/` the home.
 * A project file a repository's config includes is one an agent can write.
 */
function readInto(reading: Reading, file: string, depth = 0): GitConfigEntry[] {
  if (reading.filesLeft <= 0) return [];
  reading.filesLeft -= 1;
  let entries: GitConfigEntry[];
  try {
    entries = parseGitConfig(readRegularFile(file));
  } catch {
    return [];
  }
  for (const entry of entries) {
    reading.entries.push(entry);
    if (isInclude(entry.key)) includeInto(reading, entry.value, path.dirname(file), depth + 1);
  }
  return entries;
}

/** The file an include names, read where the include stands (a relative one from `dir`). */
function includeInto(reading: Reading, named: string, dir: string, depth: number): void {
  if (named.length === 0 || depth > MAX_INCLUDE_DEPTH) return;
  readInto(reading, path.resolve(dir, named.replace(/^~(?=\/|$)/, reading.home)), depth);
}

/** Whether a config value is git's true. */
function isTrue(value: string | undefined): boolean {
  return value !== undefined && /^(?:true|yes|on|1)$/i.test(value.trim());
}

/** The git directory for `cwd`: GIT_DIR, else the one git finds from it (a `.git` directory or `gitdir:` file). */
function gitDirOf(cwd: string, env: ReadonlyMap<string, string>, gitDir: string | undefined): string | undefined {
  const named = gitDir ?? env.get("GIT_DIR");
  if (named !== undefined) return path.resolve(cwd, named);
  return repositoryAt(cwd)?.gitDir;
}

/** The repository's config file; a linked worktree's lives in the common directory. */
function repoConfigFile(gitDir: string): string {
  return path.join(commonDir(gitDir), "config");
}

/** GIT_CONFIG_COUNT/KEY_n/VALUE_n and GIT_CONFIG_PARAMETERS, as git reads them from the environment. */
export function envConfigEntries(env: ReadonlyMap<string, string>): GitConfigEntry[] {
  const entries: GitConfigEntry[] = [];
  const parameters = env.get("GIT_CONFIG_PARAMETERS");
  if (parameters !== undefined) {
    for (const match of parameters.matchAll(/'((?:[^']|'\\'')*)'(?:='((?:[^']|'\\'')*)')?/g)) {
      const unq = (text: string) => text.replace(/'\\''/g, "'");
      const whole = unq(match[1] as string);
      const [key, value] = match[2] !== undefined ? [whole, unq(match[2])] : [whole.split("=")[0] as string, whole.slice(whole.indexOf("=") + 1)];
      entries.push({ key: normalizeKey(key), value });
    }
  }
  const count = Number.parseInt(env.get("GIT_CONFIG_COUNT") ?? "", 10);
  for (let i = 0; i < (Number.isFinite(count) ? Math.min(count, 1000) : 0); i++) {
    const key = env.get(`GIT_CONFIG_KEY_${i}`);
    if (key !== undefined) entries.push({ key: normalizeKey(key), value: env.get(`GIT_CONFIG_VALUE_${i}`) ?? "" });
  }
  return entries;
}

/** `Section.Sub.Key` → section and key lower-cased, the subsection kept. */
export function normalizeKey(key: string): string {
  const first = key.indexOf(".");
  const last = key.lastIndexOf(".");
  if (first === -1) return key.toLowerCase();
  if (first === last) return key.toLowerCase();
  return `${key.slice(0, first).toLowerCase()}.${key.slice(first + 1, last)}.${key.slice(last + 1).toLowerCase()}`;
}

export interface GitConfigScope {
  cwd: string | undefined;
  env: ReadonlyMap<string, string>;
  /** `--git-dir` of the invocation. */
  gitDir?: string;
  /** `-c` settings of the invocation, in order. */
  inline: readonly GitConfigEntry[];
}

/** Config files the environment points git at instead of the usual ones. */
export function envConfigFiles(env: ReadonlyMap<string, string>, cwd: string | undefined): { name: string; file: string }[] {
  const files: { name: string; file: string }[] = [];
  for (const name of ["GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG"]) {
    const file = env.get(name);
    if (file !== undefined && file.length > 0 && file !== "/dev/null") files.push({ name, file: path.resolve(cwd ?? process.cwd(), file) });
  }
  // Another HOME or XDG_CONFIG_HOME than the harness's is another user config (`HOME=/tmp/h git commit`, h/.gitconfig setting core.hooksPath).
  if (env.get("GIT_CONFIG_GLOBAL") === undefined) {
    const home = env.get("HOME");
    const xdg = env.get("XDG_CONFIG_HOME");
    if (home !== undefined && home !== homedir() && home !== process.env.HOME) files.push({ name: "HOME", file: path.resolve(cwd ?? process.cwd(), home, ".gitconfig") });
    if (xdg !== undefined && xdg !== process.env.XDG_CONFIG_HOME) files.push({ name: "XDG_CONFIG_HOME", file: path.resolve(cwd ?? process.cwd(), xdg, "git", "config") });
    else if (home !== undefined && home !== homedir() && home !== process.env.HOME && xdg === undefined) files.push({ name: "HOME", file: path.resolve(cwd ?? process.cwd(), home, ".config", "git", "config") });
  }
  return files;
}

/** Every config entry a git invocation sees, lowest precedence first. */
export function gitConfigEntries(scope: GitConfigScope): GitConfigEntry[] {
  const env = scope.env;
  const home = env.get("HOME") ?? homedir();
  const cwd = scope.cwd ?? process.cwd();
  const reading: Reading = { home, entries: [], filesLeft: MAX_CONFIG_FILES };
  // The system's file (GIT_CONFIG_SYSTEM names another), unless GIT_CONFIG_NOSYSTEM is set for git.
  if (!isTrue(env.get("GIT_CONFIG_NOSYSTEM") ?? process.env.GIT_CONFIG_NOSYSTEM)) readInto(reading, path.resolve(cwd, env.get("GIT_CONFIG_SYSTEM") ?? "/etc/gitconfig"));
  const globalFile = env.get("GIT_CONFIG_GLOBAL");
  const globals =
    globalFile !== undefined
      ? [globalFile]
      : [path.join(env.get("XDG_CONFIG_HOME") ?? path.join(home, ".config"), "git", "config"), path.join(home, ".gitconfig")];
  for (const file of globals) if (file.length > 0) readInto(reading, path.resolve(cwd, file));
  const gitDir = scope.cwd === undefined ? undefined : gitDirOf(scope.cwd, env, scope.gitDir);
  if (gitDir !== undefined) {
    const repo = readInto(reading, repoConfigFile(gitDir));
    // With extensions.worktreeConfig on, each worktree's own config.worktree comes after the repository's (`git config --worktree alias.ci …`).
    if (isTrue([...repo].reverse().find((entry) => entry.key === "extensions.worktreeconfig")?.value)) readInto(reading, path.join(gitDir, "config.worktree"));
  }
  // GIT_CONFIG_* and `-c`: an include among them is read where it stands (git takes only an absolute one there).
  for (const entry of [...envConfigEntries(env), ...scope.inline]) {
    reading.entries.push(entry);
    if (isInclude(entry.key)) includeInto(reading, entry.value, cwd, 1);
  }
  return reading.entries;
}

export type GitAliasSource = ReadonlyMap<string, string>;

/** The aliases a git invocation can use, by lower-cased name; later sources win. */
export function gitAliases(scope: GitConfigScope): GitAliasSource {
  const aliases = new Map<string, string>();
  for (const { key, value } of gitConfigEntries(scope)) {
    if (key.startsWith("alias.")) aliases.set(key.slice("alias.".length).toLowerCase(), value);
  }
  return aliases;
}
