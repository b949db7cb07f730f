// protect-secret-files: refuses reading or writing files that hold secrets — `.env`
// files (not their `.example`/`.sample`/`.template` siblings), private keys,
// credential stores — through read, write and edit tools, shell commands that name
// them (`cat .env`, `cp id_rsa …`, `source .env`, `< .env`), and code whose string
// literals name them. `options.patterns` replaces the list of names (globs on the
// file name, or on the path when the pattern holds a `/`); `options.allow` names
// files that are fine (a test fixture).
import { type Dirent, readdirSync } from "node:fs";
import path from "node:path";
import * as z from "../protocol/schema.ts";
import type { HookInput } from "../protocol/hook-input.ts";
import { codeOf, callKind } from "../tools/declaration.ts";
import { resolveTargetPath } from "../tools/tool-paths.ts";
import { pathList, pathReadings, searchGlobMayMatch, searchScope } from "../tools/path-lists.ts";
import { readCode } from "../tools/code-reading.ts";
import { lstatOf, namesIn, statOf } from "../system/disk-moment.ts";
import { foldName } from "../system/name-case.ts";
import { gitCommandAt } from "./git-commands.ts";
import { gitConfigEntries } from "./git-config.ts";
import { isIgnored } from "./git-ignore.ts";
import { repositoryAround, repositoryAt } from "./git-index.ts";
import { trackedAsIs, trackState } from "./tracked-files.ts";
import { globMatches, nameGlob, realPath, textPattern, wordPath } from "./paths.ts";
import { LISTED_IN_WORD, LISTED_TRACKED, LISTED_VISIBLE, nameGlobMarks } from "./listed-token.ts";
import { commandTargets, walkCall } from "./shell-walk.ts";
import { parseShell } from "./shell-words.ts";
import { gateWithOptions, type GateVerdict } from "./types.ts";

export const DEFAULT_SECRET_PATTERNS = [
  ".env",
  ".env.*",
  "*.pem",
  "*.key",
  "*.p12",
  "*.pfx",
  "id_rsa*",
  "id_dsa*",
  "id_ecdsa*",
  "id_ed25519*",
  ".netrc",
  ".git-credentials",
  ".npmrc",
  ".pypirc",
  "credentials",
  "credentials.*",
  ".aws/credentials",
  ".docker/config.json",
  "*.keystore",
  ".envrc",
  ".pgpass",
  ".vault-token",
  ".kube/config",
  "gh/hosts.yml",
];
/** Siblings that document a secret file's shape and hold none, and source code named like one (`src/auth/credentials.ts`). */
const HARMLESS = /\.(example|sample|template|dist|defaults?)(\.(bak|orig|old|copy))?$|\.pub$|\.(?:[cm]?[jt]sx?|py|rb|go|rs|java|kts?|cs|php|swift|scala|c|cc|cpp|h|hpp|vue|svelte|d\.ts)$/;

const Options = z.strictObject({
  patterns: z._default(z.array(z.string().check(z.minLength(1))), DEFAULT_SECRET_PATTERNS),
  allow: z._default(z.array(z.string().check(z.minLength(1))), []),
});
type Options = z.infer<typeof Options>;

/** A glob (`*`, `?`) as a regular expression over a whole name. */
function globRegex(glob: string): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*").replace(/\?/g, "[^/]");
  return new RegExp(`^${body}$`);
}

const compiled = new WeakMap<readonly string[], RegExp[]>();
function patternsOf(options: Options): RegExp[] {
  let regexes = compiled.get(options.patterns);
  if (!regexes) {
    regexes = options.patterns.map((pattern) => globRegex(foldName(pattern)));
    compiled.set(options.patterns, regexes);
  }
  return regexes;
}

/**
 * Which names a tree read reads, by its include and exclude globs: grep's `--include`/
 * `--exclude`, ripgrep's `-g`/`--glob` (`!` excludes), zip's `-i`/`-x`. A name no include
 * admits, or one an exclude names, is not read (`grep -r TODO --include='*.ts' .`).
 */
function treeFilter(program: string | undefined, args: readonly string[]): (name: string) => boolean {
  // In the order given: the last glob that matches a name decides (grep's and ripgrep's rule; zip's -x are read after its -i).
  const globs: { regex: RegExp; include: boolean }[] = [];
  const glob = (text: string, flags = ""): RegExp => new RegExp(globRegex(text.replace(/^\*\*\//, "")).source, flags);
  const grep = program === "grep" || program === "egrep" || program === "fgrep" || program === "rgrep";
  let caseless = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const [option, glued] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    const value = (): string => glued ?? (args[++i] as string | undefined) ?? "";
    if (option === "--glob-case-insensitive") caseless = true;
    if (grep && (option === "--include" || option === "--exclude")) {
      globs.push({ regex: glob(value()), include: option === "--include" });
    } else if ((program === "rg" || program === "ag") && (option === "-g" || option === "--glob" || option === "--iglob")) {
      const given = value();
      const flags = option === "--iglob" || caseless ? "i" : "";
      globs.push({ regex: glob(given.replace(/^!/, ""), flags), include: !given.startsWith("!") });
    } else if (program === "zip" && (option === "-x" || option === "-i")) {
      // zip's lists run to the next option.
      for (; i + 1 < args.length && !(args[i + 1] as string).startsWith("-"); i++) globs.push({ regex: glob(args[i + 1] as string), include: option === "-i" });
    }
  }
  // `git grep --no-index x -- '*.ts'`: pathspecs of names alone (`*.ext`) take in only those names.
  if (program === "git" && args.includes("--")) {
    const specs = args.slice(args.indexOf("--") + 1);
    if (specs.length > 0 && specs.every((spec) => /^\*[^*?[\]\/\\:]+$/.test(spec))) for (const spec of specs) globs.push({ regex: glob(spec), include: true });
  }
  if (program === "zip") globs.sort((a, b) => Number(b.include) - Number(a.include));
  const includes = globs.some((g) => g.include);
  return (name) => {
    const last = globs.filter((g) => g.regex.test(name)).at(-1);
    return last !== undefined ? last.include : !includes;
  };
}

/** Options of grep that take the next word. */
const GREP_VALUED = new Set(["-e", "-f", "-m", "-A", "-B", "-C", "--regexp", "--file", "--max-count", "--include", "--exclude", "--exclude-dir", "--label", "-d", "-D"]);

/**
 * The directories a command reads whole, down the tree: grep's -r/-R (and rgrep; no path is
 * `.`), tar's create, zip's -r, ripgrep and ag told to read hidden files. Their files are
 * each read, a secret one too, where no word names it.
 */
function treeReads(run: { program: string | undefined; argv: string[] }): string[] {
  const program = run.program;
  const args = run.argv.slice(1);
  const operands = (valued: ReadonlySet<string>): string[] => {
    const words: string[] = [];
    for (let i = 0; i < args.length; i++) {
      const arg = args[i] as string;
      if (valued.has(arg)) i++;
      else if (!arg.startsWith("-")) words.push(arg);
    }
    return words;
  };
  const letters = args.filter((a) => /^-[A-Za-z]+$/.test(a)).join("");
  if (program === "grep" || program === "egrep" || program === "fgrep" || program === "rgrep") {
    // `-d recurse` (`-drecurse`) is --directories=recurse.
    const recurses = args.some((a, i) => a === "--recursive" || a === "--dereference-recursive" || a.startsWith("--directories=recurse") || a === "-drecurse" || (a === "-d" && args[i + 1] === "recurse"));
    if (program !== "rgrep" && !/[rR]/.test(letters) && !recurses) return [];
    const words = operands(GREP_VALUED);
    // The pattern is the first operand unless -e or -f gave it.
    const paths = args.some((a) => a === "-e" || a === "-f" || a.startsWith("--regexp") || a.startsWith("--file")) ? words : words.slice(1);
    return paths.length > 0 ? paths : ["."];
  }
  if (program === "tar") {
    const modes = args.filter((a, i) => (i === 0 && /^[A-Za-z]+$/.test(a)) || /^-[A-Za-z]+$/.test(a)).join("");
    if (!/c/.test(modes) && !args.includes("--create")) return [];
    return operands(new Set(["-f", "--file", "-C", "--directory", "-T", "--files-from", "-X", "--exclude-from"])).filter((w, i) => !(i === 0 && /^[A-Za-z]+$/.test(w) && w === args[0]));
  }
  // `git grep --untracked`, `--no-index`: files git does not track are searched too (a tracked file is the project's).
  if (program === "git" && args[gitCommandAt(args)] === "grep" && args.some((a) => a === "--untracked" || a === "--no-index")) {
    const words = operands(new Set([...GREP_VALUED, "--max-depth", "-O", "--open-files-in-pager"])).slice(gitCommandAt(args) + 1);
    const paths = (args.some((a) => a === "-e" || a === "-f") ? words : words.slice(1)).filter((w) => w !== "--");
    // A pathspec glob or magic (`'*env'`, `:(glob)**`) is matched across the tree below: that tree is read.
    return paths.length > 0 ? paths.map((w) => (/[*?[]/.test(w) || w.startsWith(":") ? "." : w)) : ["."];
  }
  // `cp -r . /tmp/x`, `rsync -a ./ host:x`: a folder copied whole copies the secret files in it (read again from the copy).
  if ((program === "cp" && (/[rRa]/.test(letters) || args.includes("--recursive") || args.includes("--archive"))) || (program === "rsync" && (/[ra]/.test(letters) || args.includes("--recursive") || args.includes("--archive")))) {
    const words = operands(new Set(["-t", "--target-directory", "-S", "--suffix", "-e", "--rsh", "--exclude", "--include", "--filter", "-f", "--exclude-from", "--include-from"]));
    const target = args.find((a, i) => a === "-t" || a === "--target-directory" ? args[i + 1] !== undefined : a.startsWith("--target-directory="));
    return target !== undefined ? words : words.slice(0, -1);
  }
  // `zip -r ARCHIVE DIR`; `zip -R ARCHIVE PATTERN` takes every file under the current directory that matches.
  if (program === "zip" && /R/.test(letters)) return ["."];
  if (program === "zip" && /r/.test(letters)) return operands(new Set(["-x", "-i", "-b", "-n", "-t", "-O"])).slice(1);
  // `diff -r A B` prints every file of both trees that differs (with -N, whole files one side lacks).
  if ((program === "diff" || program === "colordiff") && (/r/.test(letters) || args.includes("--recursive"))) return operands(new Set(["-x", "--exclude", "-X", "--exclude-from", "-I", "--ignore-matching-lines", "-F", "--show-function-line", "-L", "--label", "-C", "-U", "-W", "--width", "--to-file", "--from-file"]));
  if ((program === "rg" || program === "ag") && (args.some((a) => a === "--hidden" || a === "-." || /^-u{2,}$/.test(a) || a === "--unrestricted" || a === "-a" || a === "--all-types") || /uu/.test(letters))) {
    const words = operands(new Set(["-e", "-f", "-g", "--glob", "--iglob", "-t", "--type", "-T", "--type-not", "-m", "--max-count", "-A", "-B", "-C"]));
    const paths = args.some((a) => a === "-e" || a === "-f") ? words : words.slice(1);
    return paths.length > 0 ? paths : ["."];
  }
  return [];
}

/** Code that expands glob patterns (Python's glob and Path.glob, Node's globSync, Ruby's Dir.glob): its pattern literals name files. */
const GLOBS_IN_CODE = /\bglob\b|\bglobSync\b|\bDir\[/;

/** Programs that read the files their operands name (a name printed at run time among them may be a secret file's). */
const READS_NAMED = new Set([
  "cat", "tac", "head", "tail", "less", "more", "bat", "batcat", "nl", "od", "xxd", "hexdump", "strings", "base64", "base32", "sed", "awk", "gawk", "grep",
  "egrep", "fgrep", "rg", "cut", "sort", "uniq", "paste", "diff", "cmp", "comm", "jq", "yq", "source", ".", "cp", "scp", "rsync", "curl", "zip", "tar", "python3", "python", "node", "perl", "ruby",
]);
/** Programs a pipe of names goes through that only pick among them. */
const PICKERS = new Set(["head", "tail", "sort", "grep", "egrep", "uniq", "tr", "cut", "sed", "awk"]);
/** Printers whose output is no file name of the folder (a date, a count, a version, a user). */
const NAMES_NO_SECRET = new Set(["date", "wc", "jq", "whoami", "hostname", "uname", "id", "basename", "dirname", "realpath", "pwd", "echo", "printf", "seq", "expr", "npm", "node", "python3"]);
/**
 * git's commands that stage no path by name alone: they read, or what they put in the
 * index they write to the work tree too (`checkout`, `merge`, `stash`: the file then holds
 * those bytes, not a secret), or they take the work tree's bytes (`commit -a`). The
 * others (`update-index --cacheinfo`, `read-tree`, `apply --cached`, `reset`, `restore
 * --staged`, an alias) may stage a path whose file holds other bytes.
 */
const INDEX_KEEPERS = new Set([
  "status", "log", "show", "diff", "ls-files", "ls-tree", "grep", "cat-file", "rev-parse", "describe", "blame", "annotate", "shortlog", "rev-list",
  "show-ref", "for-each-ref", "check-ignore", "check-attr", "whatchanged", "name-rev", "branch", "tag", "remote", "fetch", "config", "help", "version", "var",
  "commit", "checkout", "switch", "merge", "stash", "pull", "rebase", "cherry-pick", "revert", "worktree", "submodule", "push", "clone", "init", "gc",
  "prune", "notes", "reflog", "merge-base", "ls-remote", "bisect", "clean", "archive", "bundle", "fsck", "count-objects", "format-patch", "range-diff", "cherry",
]);
/** `git ls-files` options that list no path the index does not hold. */
const INDEX_LISTING = new Set(["--cached", "--stage", "--full-name", "--deduplicate", "--error-unmatch", "--modified", "--deleted", "--eol", "--", "-z"]);
/** Whether a git command (its arguments after `git`) may change which files its index holds, or their bytes. */
function changesIndex(args: readonly string[]): boolean {
  const sub = args[gitCommandAt(args)];
  return sub !== undefined && !INDEX_KEEPERS.has(sub);
}

/**
 * Which names of the folder git's output may be: none (refs, ids, messages, a listing
 * narrowed by a pathspec), only those it tracks (`git ls-files`), or any.
 */
function gitMayListSecret(args: readonly string[]): "none" | "tracked" | "any" {
  // git's own options come before its command (`git -C . ls-files -o`).
  const rest = args.slice(gitCommandAt(args));
  const sub = rest[0];
  // `git clean -n`, `git add -n .`, `git rm -n`, `git check-ignore *` print the names they would act on.
  if (sub === "clean" || sub === "check-ignore" || ((sub === "add" || sub === "rm" || sub === "mv") && rest.some((a) => a === "--dry-run" || /^-[A-Za-z]*n[A-Za-z]*$/.test(a)))) return "any";
  if (sub !== "ls-files" && sub !== "status" && sub !== "ls-tree" && !(sub === "diff" && rest.includes("--name-only"))) return "none";
  const operands = rest.filter((arg) => !arg.startsWith("-"));
  // A magic pathspec (`:/`, `:(top)`, `:(glob)**`) may take in the whole work tree.
  const magic = operands.slice(1).some((spec) => spec.startsWith(":") && !/^:(?:!|\^|\(exclude\))/.test(spec));
  const listed = magic || operands.length <= (sub === "ls-tree" ? 2 : 1);
  // `git ls-files` with options that list only what the index holds lists what git tracks (a file staged with other
  // bytes than its own too); others list more (`--others`, `--killed`, `--with-tree=T`: a tree's paths).
  if (sub === "ls-files" && rest.slice(1).every((arg) => !arg.startsWith("-") || INDEX_LISTING.has(arg) || /^-[zcstvmd]+$/.test(arg))) return listed ? "tracked" : "none";
  return listed ? "any" : "none";
}

/**
 * A secret file a read operand may name when its name (or its first part) is printed at
 * run time: any in the folder the word is read from, unless the printer is a find or an
 * ls that selects none (`cat $(find . -name '*.log')`).
 */
function printedNameRead(words: readonly string[], cwd: string, options: Options, indexChanged: boolean): { file: string; word: string } | undefined {
  for (const word of words) {
    const sub = /^((?:[^$`]*\/)?)[^$`/]*(?:\$\(([^()]*)\)|`([^`]*)`)/.exec(word);
    if (sub === null) continue;
    const inner = parseShell(sub[2] ?? sub[3] ?? "");
    // What prints the names: the first command, when the rest only pick among its lines (`ls -t logs/*.log | head -1`).
    const first = inner[0]?.argv;
    const picks = inner.slice(1).every((command) => command.piped && PICKERS.has(command.argv[0] ?? ""));
    const lists = first?.[0] === "git" ? gitMayListSecret(first.slice(1)) : undefined;
    if (first === undefined || !picks) {
      // An unknown printer: any name in the folder.
    } else if (first[0] === "find" || first[0] === "ls") {
      if ((first[0] === "find" ? findSelects(first.slice(1), cwd, options) : lsLists(first.slice(1), cwd, options)) === undefined) continue;
    } else if (NAMES_NO_SECRET.has(first[0] ?? "") || lists === "none") {
      continue;
    } else if (lists !== undefined) {
      // git lists the whole tree below the folder (`cat $(git ls-files -o)` prints `conf/key.pem`), the work tree's top with `:/`:
      // what it holds as it is is no secret; a tracked file with other bytes is (`git update-index --cacheinfo` staged its name alone).
      const top = first.some((word) => /^:(?:\/|\([^)]*top)/.test(word)) ? repositoryAt(path.resolve(cwd, sub[1] || "."))?.root : undefined;
      const trackedOnly = lists === "tracked" && !indexChanged;
      const file = treeFiles(top ?? (sub[1] === "" ? "." : (sub[1] as string)), cwd, options).files.find((candidate) => {
        const state = trackState(candidate);
        // An index Tama cannot read (a split one) may hold any name.
        return state !== "as-is" && !(trackedOnly && state === "untracked");
      });
      if (file !== undefined) return { file, word };
      continue;
    }
    const { at, names } = listed(sub[1] === "" ? "." : (sub[1] as string), cwd);
    const name = names.find((candidate) => secretPattern(path.join(at, candidate), options) !== undefined);
    if (name !== undefined) return { file: path.join(at, name), word };
  }
  return undefined;
}

/** The pattern a path matches, or undefined. */
export function secretPattern(file: string, options: Options): string | undefined {
  // Folded: `.ENV` is `.env` where the file system folds case (name-case.ts).
  const folded = foldName(file);
  const name = path.basename(folded);
  if (HARMLESS.test(name)) return undefined;
  const regexes = patternsOf(options);
  for (const [i, regex] of regexes.entries()) {
    const pattern = options.patterns[i] as string;
    const subject = pattern.includes("/") ? folded.split(path.sep).slice(-pattern.split("/").length).join("/") : name;
    if (regex.test(subject)) return pattern;
  }
  return undefined;
}

/** Linux's PATH_MAX: no longer path can be opened. */
const PATH_MAX = 4096;

/** Programs that only print their words: `echo .env` names no file. */
const PRINTERS = new Set(["echo", "printf", "true", ":"]);
/** Programs that look at a file's name, type, size or mode, never its bytes (`ls -la .env`, `[ -f .env ]`). */
const METADATA = new Set(["ls", "stat", "test", "[", "[[", "du", "realpath", "readlink", "basename", "dirname", "chmod", "chown", "chgrp", "touch", "file", "mkdir", "wc"]);
/** git log's options that show commits and file names, never a file's lines. */
const LOG_NAMES_ONLY = /^(?:-\d+|-n\d*|--max-count(?:=.*)?|--skip=.*|--oneline|--stat(?:=.*)?|--shortstat|--numstat|--name-only|--name-status|--summary|--format=.*|--pretty(?:=.*)?|--abbrev-commit|--no-abbrev-commit|--decorate(?:=.*)?|--no-decorate|--graph|--all|--branches(?:=.*)?|--follow|--reverse|--first-parent|--no-merges|--merges|--since=.*|--until=.*|--after=.*|--before=.*|--author=.*|--committer=.*|--grep=.*|--date=.*|--relative-date|--color(?:=.*)?|--no-color|--topo-order|--date-order)$/;
/** git subcommands that name files without showing their bytes. */
const GIT_METADATA = new Set(["check-ignore", "ls-files", "status", "check-attr"]);
/** Searches whose first operand is the pattern, not a file (`grep -rn ".env" src/`); and the options giving it. */
const SEARCHES = new Set(["grep", "egrep", "fgrep", "rgrep", "rg", "ag", "ack", "git-grep"]);
const PATTERN_OPTIONS = new Set(["-e", "-f", "--regexp", "--file"]);
/** find's options whose value is a name pattern, not a file (`find . -name "*.pem"`). */
const FIND_PATTERNS = new Set(["-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-lname", "-ilname"]);

/** Programs a list of names goes through as names (`find … | sort | xargs cat`): what comes after them is fed the names. */
const NAME_PIPES = new Set(["sort", "uniq", "head", "tail", "grep", "egrep", "fgrep", "sed", "awk", "tr", "cut", "tee", "cat"]);
/** Programs that read the files a list of names names (`| xargs cat`, `| tar -T -`, `| while read f`). */
const NAME_CONSUMERS = new Set(["xargs", "parallel", "tar", "bsdtar", "zip", "cpio", "pax", "rsync", "7z", "read", "mapfile", "readarray"]);

/** A secret pattern as a file name it matches (`*.pem` → `x.pem`), for testing what a find selects. */
const example = (pattern: string): string => path.basename(pattern).replace(/\*/g, "x").replace(/\?/g, "x");

/** Entries of a tree read whole that are looked at, breadth first (a secret file sits near the top; a tree's far corners past this are not looked in). */
const MAX_TREE_ENTRIES = 4_000;
const MAX_TREE_DEPTH = 8;

/** The files of the tree at `dir` (resolved from `cwd`) that may be secret, as paths, breadth first and bounded; `.git` and `node_modules` are not entered. */
function treeFiles(dir: string, cwd: string, options: Options): { at: string; files: string[] } {
  const at = path.resolve(cwd, dir);
  // Only what may be secret is handed on: a name or path a pattern matches (here, or where the tree really lies, the
  // folders below being real), or a link. Resolving every file of the tree cost a search of this project 5 ms.
  const real = realPath(at);
  const mayBeSecret = (full: string, link: boolean): boolean => link || secretPattern(full, options) !== undefined || (real !== at && secretPattern(real + full.slice(at.length), options) !== undefined);
  const files: string[] = [];
  let seen = 0;
  let level = [at];
  for (let depth = 0; depth < MAX_TREE_DEPTH && level.length > 0 && seen < MAX_TREE_ENTRIES; depth++) {
    const next: string[] = [];
    for (const folder of level) {
      let entries: Dirent[];
      try {
        entries = readdirSync(folder, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) {
        if (++seen > MAX_TREE_ENTRIES) break;
        const full = path.join(folder, entry.name);
        // A dependency folder is the packages', not the project's: a test key a package ships is no secret of the project.
        if (entry.isDirectory()) {
          if (entry.name !== ".git" && entry.name !== "node_modules") next.push(full);
        } else if (mayBeSecret(full, entry.isSymbolicLink())) files.push(full);
      }
    }
    level = next;
  }
  return { at, files };
}

/** A directory's place (resolved from `cwd`) and the names directly in it; none when it cannot be read. */
function listed(dir: string, cwd: string): { at: string; names: readonly string[] } {
  const at = path.resolve(cwd, dir);
  try {
    return { at, names: namesIn(at) };
  } catch {
    return { at, names: [] };
  }
}

/** The first secret file directly in one of `dirs` (dotfiles only when `dotfiles`), as `dir (name)` and the pattern it matches. */
function secretIn(dirs: readonly string[], cwd: string, options: Options, dotfiles: boolean): { pattern: string; secret: string } | undefined {
  for (const dir of dirs.length > 0 ? dirs : ["."]) {
    const { at, names } = listed(dir, cwd);
    for (const name of names) {
      if (name.startsWith(".") && !dotfiles) continue;
      const secret = secretPattern(path.join(at, name), options);
      if (secret !== undefined) return { pattern: `${dir} (${name})`, secret };
    }
  }
  return undefined;
}

/** A secret file among the names `ls ARGS` prints (a dotfile with `-a`/`-A` only), as findSelects says it. */
function lsLists(args: readonly string[], cwd: string, options: Options): { pattern: string; secret: string } | undefined {
  const all = args.some((arg) => /^-[A-Za-z]*[aA]/.test(arg) || arg === "--all" || arg === "--almost-all");
  return secretIn(args.filter((arg) => !arg.startsWith("-")), cwd, options, all);
}

/**
 * Whether a find may select a secret file: a name test (`-name`, `-iname`, `-path`, `-regex`, …)
 * some secret name passes, or no name test over a start directory that holds one.
 */
function findSelects(args: readonly string[], cwd: string, options: Options): { pattern: string; secret: string } | undefined {
  // Secret files are files (or links to them): `-type d` selects none.
  const types = args.flatMap((arg, i) => (arg === "-type" || arg === "-xtype" ? [args[i + 1] ?? ""] : []));
  if (types.length > 0 && types.every((t) => !/[fl]/.test(t))) return undefined;
  const tests = args.flatMap((arg, i) => (FIND_PATTERNS.has(arg) && args[i + 1] !== undefined ? [{ test: arg, value: args[i + 1] as string }] : []));
  if (tests.length === 0) {
    const starts = args.slice(0, Math.max(0, args.findIndex((a) => a.startsWith("-") || a === "!" || a === "("))).filter((a) => !a.startsWith("-"));
    return secretIn(starts, cwd, options, true);
  }
  for (const { test, value } of tests) {
    const flags = test.startsWith("-i") ? "i" : "";
    for (const pattern of options.patterns) {
      const name = example(pattern);
      const matches = /regex$/.test(test)
        ? (() => {
            try {
              return new RegExp(`^(?:${value})$`, flags).test(`./${name}`);
            } catch {
              return true;
            }
          })()
        : /path$/.test(test)
          ? [`./${name}`, `./x/${name}`].some((at) => textPattern(value, { caseless: flags === "i" }).test(at))
          : nameGlob(value, { leadingDot: true, caseless: flags === "i" }).test(name);
      if (matches && secretPattern(name, options) !== undefined) return { pattern: value, secret: pattern };
    }
  }
  return undefined;
}

/** Words of a command that name no file it reads: a search's pattern, find's name patterns. */
function patternWords(program: string | undefined, args: readonly string[]): Set<number> {
  const skip = new Set<number>();
  if (program === "find") {
    args.forEach((arg, i) => {
      if (FIND_PATTERNS.has(arg)) skip.add(i + 1);
    });
    return skip;
  }
  const search = program !== undefined && (SEARCHES.has(program) || (program === "git" && args[0] === "grep"));
  // Include and exclude globs name files a tree read leaves or takes (treeFilter reads them), not files it reads.
  if (search) {
    args.forEach((arg, i) => {
      if (/^--(?:include|exclude|exclude-dir|glob|iglob)=/.test(arg)) skip.add(i);
      else if (["--include", "--exclude", "--exclude-dir", "-g", "--glob", "--iglob"].includes(arg)) skip.add(i + 1);
    });
  }
  if (program === "zip") {
    for (let i = 0; i < args.length; i++) {
      if (args[i] !== "-x" && args[i] !== "-i") continue;
      for (; i + 1 < args.length && !(args[i + 1] as string).startsWith("-"); i++) skip.add(i + 1);
    }
    return skip;
  }
  if (!search) return skip;
  let patternGiven = false;
  let first = true;
  for (let i = program === "git" ? 1 : 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (PATTERN_OPTIONS.has(arg) || (arg.length > 4 && "--regexp".startsWith(arg))) {
      patternGiven = true;
      skip.add(++i);
    } else if (/^--re[a-z]*=|^--file=|^-[A-Za-z]*e./.test(arg)) patternGiven = true;
    else if (GREP_VALUED.has(arg) || ["-g", "--glob", "--iglob", "-t", "--type", "-T", "--type-not"].includes(arg)) i++;
    else if (!arg.startsWith("-") && first && !patternGiven) {
      skip.add(i);
      first = false;
    }
  }
  return skip;
}

/** A command that reads no file's bytes by its words (its redirections still count). */
function onlyMetadata(program: string | undefined, args: readonly string[]): boolean {
  if (program !== undefined && METADATA.has(program)) return true;
  if (program !== "git") return false;
  const sub = args[0];
  if (sub === undefined) return false;
  if (GIT_METADATA.has(sub)) return true;
  // `git rm --cached .env` stops tracking it; `git log -- .env` lists commits (a patch, `-p`, shows bytes).
  if (sub === "rm") return args.includes("--cached");
  if (sub === "log") return args.slice(1).every((a) => !a.startsWith("-") || a === "--" || LOG_NAMES_ONLY.test(a));
  return false;
}

export const protectSecretFiles = gateWithOptions<Options>({
  id: "protect-secret-files",
  description: "Refuses reading or writing .env files, private keys and credential stores, by tool, shell or code.",
  events: ["pre_tool_use"],
  memoryless: true,
  tools: "any",
  onByDefault: true,
  options: { help: "patterns: file-name globs that hold secrets; allow: files that are fine", example: { patterns: [".env", "*.pem"], allow: ["test/fixtures/.env"] } },
  schema: Options,
  evaluate(input: HookInput, _context, options): GateVerdict {
    const hit = findSecret(input, options);
    if (hit === undefined) return { decision: "pass" };
    if ("unread" in hit) return { decision: "block", reason: hit.unread };
    return {
      decision: "block",
      reason: `${hit.file} holds secrets (it matches ${hit.pattern}), so ${hit.how} is refused; ask the person for the value you need, or use its .example file`,
    };
  },
});

type Found = { file: string; pattern: string; how: string } | { unread: string };

/** A path selector's tail (`:10-20`, `:L5+3`, `:raw`): the file is what comes before it. */
const SELECTOR = /(:(L?\d+([-+]|\.\.)?L?\d*(,L?\d+([-+]|\.\.)?L?\d*)*|raw|conflicts|img))+$/i;

/**
 * The files a tool's path input may name, as OMP reads it: each path OMP may take it as
 * (a JSON-encoded list, quoted, split on `;`, `,` or whitespace: tools/path-lists.ts),
 * the home as OMP expands `~` there, a `file:10-20` selector peeled, a member at an
 * archive's root (`backup.tar:.env`), an address's percent escapes
 * (`ssh://host/x/%2Eenv`). Undefined when the input is too tangled to list.
 */
function pathEntries(value: unknown, cwd: string): string[] | undefined {
  const readings = pathReadings(value);
  if (!readings.ok) return undefined;
  const entries = new Set<string>();
  const add = (entry: string): void => {
    const bare = entry.trim().replace(SELECTOR, "");
    if (bare === "") return;
    entries.add(bare);
    // OMP's `~x` is the home's x (path-utils' expandTilde), where a shell's is user x's home.
    if (bare.startsWith("~")) entries.add(resolveTargetPath(bare, cwd, { brackets: false }));
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(bare) && bare.includes("%")) {
      try {
        entries.add(decodeURIComponent(bare));
      } catch {
        // an escape that is no character names nothing more
      }
    }
    const member = bare.lastIndexOf(":");
    if (member > 0 && !bare.slice(member).startsWith("://")) entries.add(bare.slice(member + 1));
  };
  for (const reading of readings.paths) add(reading);
  return [...entries];
}

/** OMP's tools that read every file of the folders (and globs) they are given, and the field naming them. */
const TREE_READERS: Readonly<Record<string, string>> = { grep: "path", search: "path", ast_grep: "path", ast_edit: "paths" };

/** A folder a search reads, and the glob that picks its files (none: every file). */
interface Searched {
  dir: string;
  glob?: string;
  shown: string;
}

/**
 * The folders a search tool reads whole (OMP's `grep`, `ast_grep` and `ast_edit`, whose
 * output shows the lines they match or rewrite; Claude's `Grep`): each folder its paths
 * name, and each glob's folder with that glob (OMP's globs take in hidden names), the
 * project when it names none; and whether it leaves out what git ignores (`grep`'s
 * `gitignore`, on unless set false; the AST tools always do). Undefined for other tools;
 * `unread` when its paths are too tangled to list.
 */
function searchedWhole(input: HookInput): { searched: Searched[]; gitignore: boolean } | { unread: string } | undefined {
  const omp = input.omp?.tool_name?.toLowerCase();
  const field = omp !== undefined ? TREE_READERS[omp] : input.tool_name === "Grep" ? "path" : undefined;
  if (field === undefined) return undefined;
  const raw = (omp !== undefined ? input.omp?.tool_input : input.tool_input) as Record<string, unknown> | undefined;
  const given = pathList(raw?.[field]).some((entry) => entry.trim() !== "") ? pathReadings(raw?.[field]) : { ok: true as const, paths: ["."] };
  if (!given.ok) return { unread: `${omp ?? input.tool_name}'s ${field} ${given.error}, and it reads every file they name (a secret file too); name fewer files or folders` };
  const searched: Searched[] = [];
  for (const entry of given.paths) {
    const { base, glob } = searchScope(entry.trim());
    const dir = resolveTargetPath(base, input.cwd, { brackets: false });
    if (statOf(dir)?.isDirectory() !== true) continue;
    searched.push(glob === undefined ? { dir, shown: entry } : { dir, glob, shown: entry });
  }
  // OMP's AST tools always leave out what git ignores; its grep (and Claude's) unless told not to.
  const astTool = omp === "ast_grep" || omp === "ast_edit";
  return { searched, gitignore: astTool || raw?.gitignore !== false };
}

/**
 * git commands that copy a secret file's bytes into git's objects, or print them as a
 * change: `git add` (`.`, `-A`, a folder, a pathspec glob or magic; `-f` for what git
 * ignores; `-u`, `-p` for what it tracks), `git commit -a`, `git stash` (`-u`, `-a`), and
 * `git diff`/`difftool` of the work tree. From git's objects `git diff --cached`, `git
 * show` and a search of the index print the file, and a file git tracks as it is reads as
 * what the repository holds. A file git tracks with other bytes than the work tree's (a
 * committed placeholder `.env` holding the person's values) is changed by all of them.
 * The first such file not yet held as it is, and how.
 */
function gitReachedSecret(args: readonly string[], cwd: string, options: Options): { file: string; pattern: string; how: string } | undefined {
  const i = gitCommandAt(args);
  // `git -C a -C b`: each is taken from the one before.
  const here = args.slice(0, i).reduce((dir, arg, k) => (arg === "-C" && args[k + 1] !== undefined && k + 1 < i ? path.resolve(dir, args[k + 1] as string) : dir), cwd);
  const sub = args[i];
  let rest = args.slice(i + 1);
  if (sub === "stash" && (rest[0] === "push" || rest[0] === "save")) rest = rest.slice(1);
  else if (sub === "stash" && rest[0] !== undefined && !rest[0].startsWith("-")) return undefined;
  const has = (longs: readonly string[], short: string): boolean => rest.some((a) => longs.includes(a) || (short !== "" && /^-[A-Za-z]+$/.test(a) && a.includes(short)));
  const top = (): string => repositoryAt(here)?.root ?? here;
  const dashes = rest.indexOf("--");
  // A pathspec (`*`, `:/`, `:(glob)**`) is matched by git over the tree: the work tree's top is read for it.
  const specs = (operands: readonly string[]): string[] => operands.map((spec) => (/[*?[]/.test(spec) || spec.startsWith(":") ? top() : path.resolve(here, spec)));
  const fromFile = rest.some((a) => a.startsWith("--pathspec-from-file"));
  let untracked = false;
  let ignored = false;
  let changed = false;
  let paths: string[] = [];
  let how: string;
  switch (sub) {
    case "add": {
      if (has(["--dry-run"], "n")) return undefined;
      const operands = specs(dashes === -1 ? rest.filter((a) => !a.startsWith("-")) : rest.slice(dashes + 1));
      const all = has(["--all", "--no-ignore-removal"], "A");
      // `-u` and `-p` take in what git tracks (`-p` shows each change first).
      const trackedOnly = has(["--update", "--patch", "--interactive"], "u") || has([], "p") || has([], "i");
      changed = true;
      untracked = !trackedOnly;
      ignored = !trackedOnly && has(["--force"], "f");
      paths = fromFile ? [top()] : operands.length > 0 ? operands : all || trackedOnly ? [top()] : [];
      how = ignored ? "git add -f, which stages a file git ignores (git diff --cached would then print it)," : "git add, which stages it (git diff --cached would then print it),";
      break;
    }
    case "commit": {
      const operands = rest.filter((a, k) => !a.startsWith("-") && !/^-[A-Za-z]*[mFcCt]$|^--(?:message|file|reuse-message|reedit-message|template|author|date|fixup|squash|trailer|cleanup)$/.test(rest[k - 1] ?? ""));
      if (!has(["--all", "--patch", "--include", "--only", "--interactive"], "a") && !has([], "p") && !has([], "i") && !has([], "o") && operands.length === 0 && !fromFile) return undefined;
      changed = true;
      paths = fromFile || operands.length === 0 ? [top()] : specs(operands);
      how = "git commit of the work tree's files, which copies it into a commit (git show would then print it),";
      break;
    }
    case "stash": {
      changed = true;
      ignored = has(["--all"], "a");
      untracked = ignored || has(["--include-untracked"], "u");
      paths = fromFile || dashes === -1 ? [top()] : specs(rest.slice(dashes + 1));
      how = "git stash, which copies it into a stash commit (git show would then print it),";
      break;
    }
    case "diff":
    case "difftool": {
      // The work tree against the index or a commit, as a patch: what a file holds beside git's bytes is printed.
      // `--cached` compares git's own bytes; a summary prints no bytes, unless a patch is asked for beside it (`--stat -p`).
      if (rest.some((a) => a === "--cached" || a === "--staged" || a === "--no-index")) return undefined;
      const summary = ["--name-only", "--name-status", "--stat", "--numstat", "--shortstat", "--dirstat", "--summary", "--quiet", "--exit-code", "--raw"];
      const patch = rest.some((a) => a === "--patch" || a.startsWith("--patch-with") || /^-[A-Za-z]*[pu]$/.test(a) || /^-U\d*$/.test(a) || a.startsWith("--unified"));
      if (!patch && rest.some((a) => summary.includes(a) || a.startsWith("--stat=") || a.startsWith("--dirstat"))) return undefined;
      changed = true;
      paths = dashes === -1 ? [top()] : specs(rest.slice(dashes + 1));
      how = `git ${sub}, which prints the file's bytes beside git's,`;
      break;
    }
    case "grep": {
      // What git tracks, as the work tree holds it (`--untracked` and `--no-index` are tree reads, `--cached` git's bytes).
      if (rest.some((a) => a === "--cached" || a === "--untracked" || a === "--no-index")) return undefined;
      changed = true;
      paths = dashes === -1 ? [top()] : specs(rest.slice(dashes + 1));
      how = "git grep, which searches the work tree's bytes of the files git tracks,";
      break;
    }
    default:
      return undefined;
  }
  for (const at of paths) {
    const files = statOf(at)?.isDirectory() === true ? treeFiles(at, here, options).files : [at];
    for (const file of files) {
      const pattern = secretPattern(file, options);
      if (pattern === undefined) continue;
      const state = trackState(file);
      const taken =
        (changed && (state === "tracked" || state === "unknown")) || (state === "untracked" && lstatOf(file) !== undefined && (ignored || (untracked && !ignoredByGit(file, false))));
      if (taken) return { file: path.relative(here, file) || file, pattern, how };
    }
  }
  return undefined;
}

/**
 * Whether OMP's search leaves `file` out as git-ignored: git ignores it in the repository
 * around it, and no `.ignore` or `.rgignore` (which OMP's search also reads, and which
 * may take it back in) lies on the way to it.
 */
function ignoredByGit(file: string, searchIgnores = true, searchedFrom?: string): boolean {
  const repo = repositoryAround(file);
  if (repo === undefined) return false;
  for (let dir = path.dirname(file); searchIgnores; dir = path.dirname(dir)) {
    if (lstatOf(path.join(dir, ".ignore")) !== undefined || lstatOf(path.join(dir, ".rgignore")) !== undefined) return false;
    if (dir === repo.root || path.dirname(dir) === dir) break;
  }
  const env = new Map<string, string>();
  for (const name of ["HOME", "XDG_CONFIG_HOME"]) if (process.env[name] !== undefined) env.set(name, process.env[name] as string);
  // git's own excludes file, where its config names one (it then replaces XDG's git/ignore).
  const excludes = gitConfigEntries({ cwd: repo.root, env, inline: [] }).filter((entry) => entry.key === "core.excludesfile").at(-1)?.value;
  // A search started inside an ignored folder reads it: the folders it starts in are not weighed.
  const from = searchedFrom === undefined ? 0 : path.relative(repo.root, searchedFrom).split(path.sep).filter((part) => part !== "" && part !== ".").length;
  return isIgnored(repo.root, repo.gitDir, path.relative(repo.root, file).split(path.sep).join("/"), excludes, env, from);
}

function findSecret(input: HookInput, options: Options): Found | undefined {
  const cwd = input.cwd;
  // This reading's resolved directories: a call's words share their parents.
  const known = new Map<string, string | undefined>();
  const check = (word: string, how: string, shown = word): { file: string; pattern: string; how: string } | undefined => {
    const file = wordPath(word, cwd);
    if (options.allow.some((allowed) => foldName(wordPath(allowed, cwd)) === foldName(file))) return undefined;
    // A link to a secret file reads it too.
    const direct = secretPattern(file, options);
    if (direct !== undefined) return { file: shown, pattern: direct, how };
    const real = realPath(file, known);
    const pattern = real === file ? undefined : secretPattern(real, options);
    return pattern === undefined ? undefined : { file: shown, pattern, how };
  };
  const fields = (input.tool_input ?? {}) as Record<string, unknown>;
  for (const key of ["file_path", "path", "notebook_path", "paths"]) {
    const value = fields[key];
    if (typeof value !== "string" && !Array.isArray(value)) continue;
    const entries = pathEntries(value, cwd);
    const shown = typeof value === "string" ? value : pathList(value).join(", ");
    if (entries === undefined) return { unread: `${input.tool_name ?? "this tool"}'s ${key} (${shown.slice(0, 200)}) is refused: it may name a secret file, and it names too many paths to read them all; name fewer` };
    for (const entry of entries) {
      for (const file of globMatches(entry, cwd)) {
        const hit = check(file, `${input.tool_name ?? "this tool"} on it`, shown);
        if (hit) return hit;
      }
    }
  }
  const searched = searchedWhole(input);
  if (searched !== undefined && "unread" in searched) return searched;
  for (const { dir, glob, shown } of searched?.searched ?? []) {
    for (const file of treeFiles(dir, cwd, options).files) {
      // A glob reads only what it takes in (OMP's glob is matched loosely here, hidden names too).
      if (glob !== undefined && !searchGlobMayMatch(glob, path.relative(dir, file))) continue;
      const hit = check(file, `${input.tool_name ?? "a search"} reading ${glob === undefined ? `${shown} whole` : `what ${shown} takes in`}`, shown);
      // What the repository holds is no secret to a search of it (a committed `credentials.ts`, a test key).
      if (hit === undefined || trackedAsIs(file)) continue;
      // OMP's search leaves out what git ignores unless told not to.
      if (searched?.gitignore === true && ignoredByGit(file, true, path.resolve(cwd, dir))) continue;
      return hit;
    }
  }
  const toolName = input.tool_name ?? input.omp?.tool_name ?? "";
  const kind = input.omp?.kind ?? callKind(toolName, input.tool_input);
  if (kind === "code") {
    const code = codeOf(toolName, input.tool_input);
    if (code) {
      for (const literal of readCode(code.code, code.language).literals) {
        if (/\s/.test(literal)) continue;
        const hit = check(literal, "code that names it");
        if (hit) return hit;
      }
    }
  }
  let found: { file: string; pattern: string; how: string } | undefined;
  const writtenHere = new Set<string>();
  // `shopt -s dotglob` or a GLOBIGNORE (on the line, or kept in OMP's shell from an earlier call): `*` matches dotfiles.
  // Asked only where a word is a glob: most calls have none, and the call's input is not serialised for them.
  let dotglobKnown: boolean | undefined;
  const dotglob = (): boolean => (dotglobKnown ??= /\bdotglob\b|\bGLOBIGNORE\b/.test(JSON.stringify(input.tool_input ?? {})) || input.omp?.shell_kept?.vars.GLOBIGNORE !== undefined);
  // A find that may select secret files (`find . -name .env`, or no name test over a directory holding one): what it runs on them, or what its output feeds, reads them.
  let selecting: { pattern: string; secret: string; by: string } | undefined;
  // An earlier command on the line may have changed git's index (`git update-index --add … .env && git ls-files | xargs cat`).
  let indexChanged = false;
  const walked = walkCall(input, (run) => {
    const fedBy = run.command.piped ? selecting : undefined;
    // Down the pipe (`| sort | xargs cat`) the names go on.
    selecting = fedBy;
    if (fedBy !== undefined && (run.unreadArgs || (run.program !== undefined && NAME_CONSUMERS.has(run.program)))) {
      found = { file: fedBy.pattern, pattern: fedBy.secret, how: `${run.program ?? "a command"} on the files ${fedBy.by} names` };
      return "found";
    }
    if (!run.command.piped || run.program === undefined || !NAME_PIPES.has(run.program)) selecting = undefined;
    // `git add -f .`, `git add -A`, `git stash -u`: a secret file copied into git's objects is then printed by `git diff --cached`, `git show`, a search of the index.
    const staged = run.program === "git" ? gitReachedSecret(run.argv.slice(1), run.scope.cwd ?? cwd, options) : undefined;
    if (staged !== undefined) {
      found = { file: staged.file, pattern: staged.pattern, how: staged.how };
      return "found";
    }
    // `ls -a | while read f; do cat "$f"; done`: the names ls prints of a folder holding a secret file go down the pipe as find's do.
    if (run.program === "ls") {
      const listed = lsLists(run.argv.slice(1), run.scope.cwd ?? cwd, options);
      if (listed !== undefined) selecting = { ...listed, by: "ls" };
    }
    if (run.program === "find") {
      const selected = findSelects(run.argv.slice(1), run.scope.cwd ?? cwd, options);
      if (selected !== undefined) {
        if (run.argv.some((a) => /^-(?:exec|execdir|ok|okdir|delete)$/.test(a))) {
          found = { file: selected.pattern, pattern: selected.secret, how: "find running a command on (or deleting) the files it selects" };
          return "found";
        }
        selecting = { ...selected, by: "find" };
      }
    }
    const cwdHere = run.scope.cwd ?? cwd;
    const how = `${run.program ?? "a redirection"} on it`;
    const printer = run.program === undefined || PRINTERS.has(run.program);
    // `dd if=.env`, `git show HEAD:.env`, `--file=.env`: the file is the part after `=` or `:`.
    const given = run.argv.slice(1);
    const patterns = patternWords(run.program, given);
    // A program that looks at names only still reads the files its options name (`du --files0-from=.env`, `file -f .env`).
    const metadata = onlyMetadata(run.program, given);
    const listFile = (i: number): boolean => run.program === "file" && /^-[A-Za-z]*f$/.test(given[i - 1] ?? "");
    const operands = printer ? [] : given.filter((w, i) => !patterns.has(i) && !(metadata && !w.startsWith("-") && !listFile(i)));
    // What follows `=` or `:` names a file however the disk stands (`HEAD:.env` may be in history only): judged by name.
    const derived = operands.flatMap((w) => w.split(/[=:]/).slice(1));
    const args = [...operands, ...derived].filter((w) => !(w.startsWith("-") && !w.includes("/")));
    const byName = new Set(derived);
    // `cat "$(echo .env)"`: what a substitution prints may be the file's name.
    const printed = run.argv.slice(1).flatMap((w) => [...w.matchAll(/\$\(([^()]*)\)|`([^`]*)`/g)].flatMap((m) => parseShell(m[1] ?? m[2] ?? "").flatMap((c) => c.argv.slice(1))));
    const words = [...args, ...printed, ...run.command.redirects.map((r) => r.target)];
    // `cat "$(echo LmVudg== | base64 -d)"`, `cat $(ls -A)`: a name printed at run time may be any in the folder it is read from.
    const runTime = printer || run.program === undefined || !READS_NAMED.has(run.program) ? undefined : printedNameRead(args, cwdHere, options, indexChanged);
    if (runTime !== undefined) {
      found = check(runTime.file, `${run.program ?? "a command"} on a name printed at run time (${runTime.word}), in a folder that holds it`, runTime.word);
      if (found) return "found";
    }
    // `grep -r . .`, `tar c .`, `zip -r x.zip .`, `rg --hidden x`: a directory read whole reads the secret files in it.
    const admits = treeFilter(run.program, run.argv.slice(1));
    for (const dir of treeReads(run)) {
      for (const file of treeFiles(dir, cwdHere, options).files) {
        if (!admits(path.basename(file))) continue;
        found = check(file, `${run.program ?? "a command"} reading ${dir} whole`, dir);
        // What the repository holds is no secret to a read of it whole.
        if (found !== undefined && trackedAsIs(file)) found = undefined;
        if (found) return "found";
      }
    }
    // `fd -H '^.env$' -x cat`: a name a listing prints may be any file under the place it lists, narrowed by its marks (listed-token.ts).
    for (const word of words) {
      const listing = LISTED_IN_WORD.exec(word);
      if (listing === null) continue;
      const marks = (listing[1] ?? "").split(":").slice(1);
      // A listing of what git tracks names no untracked file; a tracked one is judged as any other.
      const trackedOnly = marks.includes(LISTED_TRACKED);
      const globs = nameGlobMarks(marks).map((glob) => nameGlob(glob, { leadingDot: true }));
      const dir = word.slice(0, listing.index).replace(/\/+$/, "") || ".";
      for (const file of treeFiles(dir, cwdHere, options).files) {
        const parts = path.relative(path.resolve(cwdHere, dir), file).split(path.sep);
        if (marks.includes(LISTED_VISIBLE) && parts.some((part) => part.startsWith("."))) continue;
        if (globs.length > 0 && !globs.some((glob) => glob.test(path.basename(file)))) continue;
        if (trackedOnly && !indexChanged && trackState(file) === "untracked") continue;
        found = check(file, `${run.program ?? "a command"} on the names a listing prints under ${dir}`, dir);
        // What the repository holds is no secret; a file tracked with other bytes than git's is not what it holds.
        if (found !== undefined && trackedAsIs(file)) found = undefined;
        if (found) return "found";
      }
    }
    // What the command writes is judged whatever is there (`echo K=v > .env`, `cp x .env`); a word it only reads must name a file that is there, or one written earlier on the line.
    const writes = new Set(run.program === "mkdir" ? [] : commandTargets(run).map((t) => path.resolve(cwdHere, t.word)));
    for (const word of words) {
      // Longer than PATH_MAX, a word names no file the kernel opens (a sed script, a payload).
      if (word.length > PATH_MAX) continue;
      // `~/.ssh/id_*`: the home expanded before the glob is matched, as the shell does.
      for (const file of globMatches(/^(?:~|\$\{?HOME\}?)(?=\/|$)/.test(word) ? wordPath(word, cwdHere) : word, cwdHere, undefined, /[*?[]/.test(word) && dotglob())) {
        const at = path.resolve(cwdHere, file);
        // Where the directory is unknown (`cd "$(…)" && cat id_rsa`), a name is judged as it reads.
        // A glob left as written matched nothing where it was looked for (`~/.ssh/id_*`): judged by name too.
        const there = byName.has(word) || run.scope.unknownCwd !== undefined || /[*?[]/.test(file) || writes.has(at) || writtenHere.has(at) || lstatOf(wordPath(file, cwdHere)) !== undefined;
        if (!there) continue;
        found = check(at, how, word);
        if (found) return "found";
      }
    }
    for (const at of writes) writtenHere.add(at);
    // What git tracks may differ for the commands after this one: a git command other than its readers, a write into a `.git` folder.
    if (!indexChanged) indexChanged = (run.program === "git" && changesIndex(run.argv.slice(1))) || [...writes].some((at) => at.split(path.sep).some((part) => foldName(part) === ".git"));
    // A script file's strings are its messages and data; inline code the agent wrote names what it reads.
    for (const { code: text, language } of run.code.filter((code) => code.fromFile !== true)) {
      for (const literal of readCode(text, language).literals) {
        if (/\s/.test(literal)) continue;
        // `glob.glob(".e*")`: a pattern names what it matches (a leading `*` skips dotfiles there too).
        for (const file of /[*?[]/.test(literal) && GLOBS_IN_CODE.test(text) ? globMatches(literal, cwdHere) : [literal]) {
          found = check(path.resolve(cwdHere, file), "code that names it", literal);
          if (found) return "found";
        }
      }
    }
    return undefined;
  });
  // A command line too deep to read is refused as unread.
  if (found === undefined && walked !== undefined) return { unread: walked };
  return found;
}
