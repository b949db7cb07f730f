// Which work-tree files a git command would overwrite or delete, and under what
// condition: `git stash`, `git checkout -- .`, `git restore`, `git reset --hard`,
// `git switch --discard-changes`, `git checkout-index -f` and `git read-tree --reset -u`
// throw away a file's changes against the index; `git checkout REV -- PATH` and
// `git restore --source=REV` write any file they cover; `git clean -f` and
// `git stash -u` delete untracked files. The self-protection gate asks this for the
// policy files in a repository, so that an agent cannot revert a person's uncommitted
// hook edit with git; what a command brings from history (a branch switched to, a
// merge) is git's ordinary work and is not judged here.
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { lstatOf } from "../system/disk-moment.ts";
import { readRegularFile } from "../system/regular-file.ts";
import { gitAliases, gitConfigEntries, type GitConfigEntry, normalizeKey, parseGitConfig } from "./git-config.ts";
import { commonDir, fileState, readGitIndex, repositoryAt, workTreeIds } from "./git-index.ts";
import { isIgnored, matchesRules } from "./git-ignore.ts";
import { isDynamic } from "./shell-words.ts";
import { escapeRegExp } from "../system/regexp.ts";

/**
 * Which files a command changes: those changed against the index, untracked ones (not
 * ignored, only ignored, or all), or (`any`) every one it covers, whatever its state.
 */
export interface Touches {
  changed: boolean;
  /** Changes staged and not committed go too (the index is put back to HEAD's: `reset --hard`, `stash`, `checkout -f`). */
  staged?: boolean;
  untracked?: "unignored" | "ignored" | "all";
  any?: boolean;
  /** A revision checked out or merged: an untracked (or ignored) file its tree also holds is overwritten by it (git does that to ignored files unasked). */
  overwritesFrom?: string;
  /** The command records the changes instead of throwing them away (`git add`, `git commit -a`): the person's to record. */
  records?: boolean;
  /** With `any`: the revision the files are written from; a file it holds as the work tree does is left as it is. */
  source?: string;
  /** `git restore --source` removes a tracked file the source lacks (checkout with paths does not). */
  removesAbsent?: boolean;
  /** `git clean -e RULE`: files a rule matches are kept. */
  kept?: string[];
}
const CHANGED: Touches = { changed: true };
const DISCARDS: Touches = { changed: true, staged: true };
const ANY: Touches = { changed: true, any: true };

export interface WorkTreeRewrite {
  /** The command as the refusal names it (`git stash`, `git checkout -- .`). */
  command: string;
  touches: Touches;
  /** The work tree's root and git directory. */
  root: string;
  gitDir: string;
  /** Whether `relative` (to the root, `/`-separated) is one the command's pathspecs cover. */
  covers(relative: string): boolean;
  /** `git clean` without `-d` leaves an untracked directory alone: only files in directories holding tracked files go. */
  entersUntrackedDirs: boolean;
  env: ReadonlyMap<string, string>;
  inline: readonly GitConfigEntry[];
  /** The files it writes, where they are known by name whatever their state (a patch's, new ones too). */
  writes?: readonly string[];
}

/** A file a rewrite would change, and how it stands against the index. */
export interface RewrittenFile {
  relative: string;
  /** Untracked, and the revision checked out holds a file there (`overwritesFrom`). */
  overwritten?: boolean;
  /** `staged`: as in the index, which holds a change not committed (or, with `any`, the index's whatever it holds). */
  state: "untracked" | "changed" | "staged" | "unknown";
}

/** git's own options before the subcommand that take the next word. */
const GLOBAL_ARG_OPTIONS = new Set(["-C", "-c", "--config-env", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--attr-source"]);

/** Per subcommand, its options that take the next word (so that word is no pathspec). */
const ARG_OPTIONS: Record<string, ReadonlySet<string>> = {
  stash: new Set(["-m", "--message", "--pathspec-from-file"]),
  checkout: new Set(["-b", "-B", "--orphan", "--conflict", "--pathspec-from-file"]),
  restore: new Set(["-s", "--source", "--conflict", "--pathspec-from-file"]),
  reset: new Set(["--pathspec-from-file"]),
  switch: new Set(["-c", "-C", "--create", "--force-create", "--orphan", "--conflict"]),
  clean: new Set(["-e", "--exclude"]),
  "checkout-index": new Set(["--prefix", "--stage"]),
  "read-tree": new Set(["--prefix", "--index-output", "--exclude-per-directory"]),
  merge: new Set(["-m", "-F", "--file", "-s", "--strategy", "-X", "--strategy-option", "--into-name", "--cleanup"]),
  pull: new Set(["-s", "--strategy", "-X", "--strategy-option", "--depth", "--deepen", "--shallow-since", "--shallow-exclude", "-j", "--jobs", "-o", "--server-option", "--upload-pack", "--recurse-submodules"]),
  rebase: new Set(["--onto", "-s", "--strategy", "-X", "--strategy-option", "-x", "--exec", "-C", "--whitespace", "--empty"]),
  "cherry-pick": new Set(["-m", "--mainline", "-s", "--strategy", "-X", "--strategy-option", "--cleanup"]),
  revert: new Set(["-m", "--mainline", "-s", "--strategy", "-X", "--strategy-option", "--cleanup"]),
  add: new Set(["--chmod", "--pathspec-from-file"]),
  commit: new Set(["-m", "--message", "-F", "--file", "-C", "--reuse-message", "-c", "--reedit-message", "--author", "--date", "--fixup", "--squash", "-t", "--template", "--cleanup", "--trailer", "--pathspec-from-file", "-S", "--gpg-sign"]),
  apply: new Set(["--exclude", "--include", "--directory", "--whitespace", "--build-fake-ancestor"]),
};

/** git's commands that are none of the above: a name among them is never an alias (git runs the command). */
const OTHER_BUILTINS = new Set(
  "am annotate archive bisect blame branch bundle cat-file check-ignore cherry clone config describe diff fetch format-patch fsck gc grep hash-object init log ls-files ls-remote ls-tree merge-base mv notes push range-diff reflog remote rev-list rev-parse rm shortlog show show-ref sparse-checkout status submodule symbolic-ref tag update-index update-ref worktree".split(" "),
);

const STASH_OTHER = new Set(["list", "show", "drop", "pop", "apply", "branch", "clear", "create", "store"]);

interface Parsed {
  options: string[];
  words: string[];
  /** Words after `--` (pathspecs for every command here). */
  afterDashes: string[] | undefined;
}

function parseArgs(sub: string, args: readonly string[]): Parsed {
  const takes = ARG_OPTIONS[sub] ?? new Set<string>();
  const options: string[] = [];
  const words: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--") return { options, words, afterDashes: args.slice(i + 1) };
    if (arg.startsWith("-") && arg.length > 1) {
      options.push(arg);
      // A short cluster whose last letter takes a value (`-am MSG`) takes the next word as that option's; so does a long
      // option git would take for one that does (`--cre NEW` is `--create NEW`).
      const last = /^-[A-Za-z]{2,}$/.test(arg) ? `-${arg.at(-1) as string}` : arg;
      const long = arg.startsWith("--") && !arg.includes("=") && arg.length >= 4 ? [...takes].filter((t) => t.startsWith(arg)) : [];
      const named = takes.has(arg) ? arg : takes.has(last) ? last : long.length === 1 ? (long[0] as string) : undefined;
      if (named !== undefined) options.push(`${named}=${args[++i] ?? ""}`);
      else if (long.length > 1) i++;
    } else words.push(arg);
  }
  return { options, words, afterDashes: undefined };
}

/** Whether a short option cluster or a long option is among `options` (`-fd` holds `-f`). */
function has(options: readonly string[], short: string | undefined, ...long: string[]): boolean {
  // git takes any start of a long option that is no other's (`--har`, `--discard`): two letters at least are read as it.
  const named = (o: string, l: string): boolean => {
    const word = o.includes("=") ? o.slice(0, o.indexOf("=")) : o;
    return word === l || (l.startsWith("--") && word.startsWith("--") && word.length >= 4 && l.startsWith(word));
  };
  return options.some((o) => long.some((l) => named(o, l)) || (short !== undefined && /^-[A-Za-z]+$/.test(o) && o.includes(short)));
}

/** `core.worktree` of a git directory's own config: the work tree it names, wherever the command runs. */
function configuredWorkTree(gitDir: string): string | undefined {
  try {
    const value = parseGitConfig(readRegularFile(path.join(gitDir, "config"))).filter((e) => e.key === "core.worktree").at(-1)?.value;
    return value === undefined ? undefined : path.resolve(gitDir, value);
  } catch {
    return undefined;
  }
}

/** The work tree and git directory a command in `cwd` uses; undefined outside any repository. */
function repositoryOf(cwd: string, env: ReadonlyMap<string, string>, gitDirOption: string | undefined, workTreeOption: string | undefined): { root: string; gitDir: string } | undefined {
  const found = discoveredRepository(cwd, env, gitDirOption, workTreeOption);
  if (found === undefined || workTreeOption !== undefined || env.get("GIT_WORK_TREE") !== undefined) return found;
  const configured = configuredWorkTree(found.gitDir);
  return configured === undefined ? found : { ...found, root: configured };
}

function discoveredRepository(cwd: string, env: ReadonlyMap<string, string>, gitDirOption: string | undefined, workTreeOption: string | undefined): { root: string; gitDir: string } | undefined {
  const named = gitDirOption ?? env.get("GIT_DIR");
  const workTree = workTreeOption ?? env.get("GIT_WORK_TREE");
  if (named !== undefined) {
    const gitDir = path.resolve(cwd, named);
    return { gitDir, root: workTree !== undefined ? path.resolve(cwd, workTree) : path.basename(gitDir) === ".git" ? path.dirname(gitDir) : cwd };
  }
  const found = repositoryAt(cwd);
  return found === undefined || workTree === undefined ? found : { ...found, root: path.resolve(cwd, workTree) };
}

/** A name git reads as a revision, not a path: a ref of the repository, an id, or revision syntax. */
function isRevision(word: string, gitDir: string, root: string, cwd: string): boolean {
  // `:/text` names a commit by its message, or, when none matches, the path from the top: read as the path.
  if (word.startsWith(":")) return false;
  if (/^(?:HEAD|FETCH_HEAD|ORIG_HEAD|MERGE_HEAD|@|-)$/.test(word) || /[~^]|@\{|^[^:]+:/.test(word) || /^[0-9a-f]{7,64}$/.test(word)) return true;
  // Not a name git allows for a ref (git-check-ref-format): a path.
  if (/^\.|\/\.|\.\.|\.lock$|\/$|^\/|[\s*?[\\]/.test(word)) return false;
  const common = commonDir(gitDir);
  for (const prefix of ["refs/heads/", "refs/tags/", "refs/remotes/", ""]) {
    if (lstatOf(path.join(common, prefix + word)) !== undefined && prefix !== "") return true;
  }
  try {
    const packed = readRegularFile(path.join(common, "packed-refs"));
    if (new RegExp(`\\srefs/(?:heads|tags|remotes)/${escapeRegExp(word)}$`, "m").test(packed)) return true;
  } catch {
    // no packed refs
  }
  // Neither a ref nor a path: git would try it as a branch to make from a remote's (`git checkout feature`).
  return lstatOf(path.resolve(cwd, word)) === undefined && !word.startsWith(":") && root.length > 0;
}

/** A pathspec as a test on paths relative to the root (`/`-separated), and whether it excludes. */
function pathspec(spec: string, cwd: string, root: string, caseless: boolean): { exclude: boolean; test: (relative: string) => boolean } {
  let text = spec;
  let exclude = false;
  let top = false;
  let literal = false;
  let icase = caseless;
  const long = /^:\(([^)]*)\)/.exec(text);
  if (long !== null) {
    const magic = (long[1] as string).split(",");
    exclude = magic.includes("exclude");
    top = magic.includes("top");
    literal = magic.includes("literal");
    icase ||= magic.includes("icase");
    text = text.slice(long[0].length);
  } else if (text.startsWith(":") && text.length > 1) {
    const short = /^:([!^/]*):?/.exec(text)?.[0] ?? ":";
    exclude = short.includes("!") || short.includes("^");
    top = short.includes("/");
    text = text.slice(short.length);
  }
  const base = top ? root : cwd;
  const absolute = path.resolve(base, text);
  const written = path.relative(root, absolute).split(path.sep).join("/");
  // Outside the work tree: git refuses it; it covers nothing here.
  if (written.startsWith("..")) return { exclude, test: () => false };
  if (written === "") return { exclude, test: () => true };
  // `:(icase)` and `--icase-pathspecs`: `.CLAUDE` names `.claude`.
  const relative = icase ? written.toLowerCase() : written;
  const fold = (p: string): string => (icase ? p.toLowerCase() : p);
  if (literal || !/[*?[]/.test(relative)) return { exclude, test: (p) => fold(p) === relative || fold(p).startsWith(`${relative}/`) };
  // git's pathspec globs are fnmatch without FNM_PATHNAME: `*` crosses `/`.
  const source = relative.replace(/[.+^${}()|\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".").replace(/\[!/g, "[^");
  const regex = new RegExp(`^${source}(?:/.*)?$`);
  return { exclude, test: (p) => regex.test(fold(p)) };
}

function coverage(specs: readonly string[], fromFile: boolean, cwd: string, root: string, caseless: boolean): (relative: string) => boolean {
  // Paths read from a file are not known here: every path may be one.
  if (fromFile) return () => true;
  const parsed = specs.map((s) => pathspec(s, cwd, root, caseless));
  const include = parsed.filter((p) => !p.exclude);
  const exclude = parsed.filter((p) => p.exclude);
  return (relative) => (include.length === 0 || include.some((p) => p.test(relative))) && !exclude.some((p) => p.test(relative));
}

/**
 * What a git invocation (`args`: what follows `git`) rewrites in its work tree; undefined
 * when it changes no file there in a way judged here.
 */
export function gitWorkTreeRewrite(args: readonly string[], cwd: string, env: ReadonlyMap<string, string>, aliasDepth = 0, unreadArgs = false): WorkTreeRewrite | undefined {
  let i = 0;
  let here = cwd;
  let gitDirOption: string | undefined;
  let workTreeOption: string | undefined;
  let icase = /^(?:1|true|yes|on)$/i.test(env.get("GIT_ICASE_PATHSPECS") ?? "");
  const inline: GitConfigEntry[] = [];
  for (; i < args.length && (args[i] as string).startsWith("-"); i++) {
    const arg = args[i] as string;
    const value = GLOBAL_ARG_OPTIONS.has(arg) ? args[++i] : undefined;
    if (arg === "-C" && value !== undefined) here = path.resolve(here, value);
    if (arg === "-c" && value !== undefined) inline.push({ key: normalizeKey(value.split("=")[0] as string), value: value.includes("=") ? value.slice(value.indexOf("=") + 1) : "true" });
    if (arg === "--git-dir" && value !== undefined) gitDirOption = value;
    if (arg.startsWith("--git-dir=")) gitDirOption = arg.slice("--git-dir=".length);
    if (arg === "--icase-pathspecs") icase = true;
    if (arg === "--work-tree" && value !== undefined) workTreeOption = value;
    if (arg.startsWith("--work-tree=")) workTreeOption = arg.slice("--work-tree=".length);
  }
  const sub = args[i];
  // git's own other commands (status, log, commit, …) rewrite no work-tree file here: nothing more is read for them.
  if (sub === undefined || (ARG_OPTIONS[sub] === undefined && (OTHER_BUILTINS.has(sub) || aliasDepth >= 4))) return undefined;
  const repo = repositoryOf(here, env, gitDirOption, workTreeOption);
  if (repo === undefined) return undefined;
  const rest = args.slice(i + 1);
  if (ARG_OPTIONS[sub] === undefined) {
    // An alias of one of these commands (`co = checkout`); a `!` alias is a shell line the walker reads.
    const alias = gitAliases({ cwd: here, env, inline, ...(gitDirOption !== undefined ? { gitDir: gitDirOption } : {}) }).get(sub.toLowerCase());
    if (alias === undefined || alias.startsWith("!")) return undefined;
    return gitWorkTreeRewrite([...args.slice(0, i), ...alias.trim().split(/\s+/), ...rest], cwd, env, aliasDepth + 1, unreadArgs);
  }
  const { options, words, afterDashes } = parseArgs(sub, rest);
  // Paths read from a file, built at run time (`$(git ls-files -m)`), or handed on by xargs from input no reader saw: any path.
  const fromFile = has(options, undefined, "--pathspec-from-file") || unreadArgs || [...words, ...(afterDashes ?? [])].some(isDynamic);
  const make = (command: string, touches: Touches, specs: readonly string[], entersUntrackedDirs = true): WorkTreeRewrite => ({
    command,
    touches,
    root: repo.root,
    gitDir: repo.gitDir,
    // Run from outside its work tree (`--git-dir` with core.worktree), git reads paths from the tree's top.
    covers: coverage(specs, fromFile, here === repo.root || here.startsWith(`${repo.root}/`) ? here : repo.root, repo.root, icase),
    entersUntrackedDirs,
    env,
    inline,
  });
  const dryRun = has(options, "n", "--dry-run");
  switch (sub) {
    case "stash": {
      const verb = words[0];
      if (verb !== undefined && STASH_OTHER.has(verb)) return undefined;
      // `save` takes a message, `push` (or no verb) pathspecs.
      const specs = verb === "save" ? [] : [...(verb === "push" ? words.slice(1) : words), ...(afterDashes ?? [])];
      const all = has(options, "a", "--all");
      const untracked = has(options, "u", "--include-untracked");
      // `--staged` stashes (and takes back) only what is staged.
      if (has(options, "S", "--staged")) return make("git stash --staged", { changed: false, staged: true }, specs);
      return make(`git stash`, all ? { ...DISCARDS, untracked: "all" } : untracked ? { ...DISCARDS, untracked: "unignored" } : DISCARDS, specs);
    }
    case "checkout": {
      if (has(options, undefined, "-b", "-B", "--orphan") && afterDashes === undefined) {
        // `-b NEW START`: START is what the tree becomes.
        const start = words[0];
        const from = start === undefined ? {} : { overwritesFrom: start };
        return make("git checkout -b", has(options, "f", "--force") ? { ...DISCARDS, ...from } : { changed: false, ...from }, []);
      }
      const before = words;
      const specs = [...(afterDashes ?? [])];
      let source: string | undefined;
      if (afterDashes !== undefined) source = before[0];
      else if (before.length > 0 && isRevision(before[0] as string, repo.gitDir, repo.root, here)) {
        source = before[0];
        specs.push(...before.slice(1));
      } else specs.push(...before);
      if (specs.length === 0 && !fromFile) {
        // `git checkout -p` with no paths offers every change to throw away.
        if (has(options, "p", "--patch")) return source !== undefined ? make(`git checkout -p ${source}`, ANY, []) : make("git checkout -p", CHANGED, []);
        // A branch switch keeps a changed file (or refuses to go); `-f` throws the change away. Either overwrites an ignored file the branch holds.
        const from = source === undefined ? {} : { overwritesFrom: source };
        return make(`git checkout${has(options, "f", "--force") ? " -f" : ""} ${source ?? ""}`.trim(), has(options, "f", "--force") ? { ...DISCARDS, ...from } : { changed: false, ...from }, []);
      }
      return source !== undefined ? make(`git checkout ${source} -- …`, { ...ANY, source }, specs) : make("git checkout -- …", CHANGED, specs);
    }
    case "restore": {
      const staged = has(options, "S", "--staged");
      const worktree = has(options, "W", "--worktree");
      if (staged && !worktree) return undefined;
      const option = options.find((o) => o.startsWith("-s=") || o.startsWith("--source=") || /^-s./.test(o));
      const source = option === undefined ? undefined : option.startsWith("--source=") ? option.slice("--source=".length) : option.replace(/^-s=?/, "");
      const specs = [...words, ...(afterDashes ?? [])];
      return source !== undefined ? make(`git restore --source`, { ...ANY, source, removesAbsent: !has(options, undefined, "--overlay") }, specs) : make("git restore", CHANGED, specs);
    }
    case "reset":
      if (has(options, undefined, "--hard")) return make("git reset --hard", { ...DISCARDS, overwritesFrom: words[0] ?? "HEAD" }, []);
      // --keep and --merge keep changed files (or refuse), but write the revision's files where an ignored one lies.
      return has(options, undefined, "--keep", "--merge") ? make("git reset --keep", { changed: false, overwritesFrom: words[0] ?? "HEAD" }, []) : undefined;
    case "switch": {
      // `git switch BRANCH`, `-c NEW [START]`, `--detach REV`: the revision the tree becomes.
      // With -c/-C/--orphan the new branch's name went with the option; what is left is its start point.
      const target = options.find((o) => /^--(?:create|force-create|orphan)=|^-[cC]=/.test(o)) !== undefined ? (words[0] ?? "HEAD") : (words[0] ?? undefined);
      const from = target === undefined ? {} : { overwritesFrom: target };
      return make("git switch", has(options, "f", "--force", "--discard-changes") ? { ...DISCARDS, ...from } : { changed: false, ...from }, []);
    }
    case "merge": {
      if (has(options, undefined, "--abort", "--quit", "--continue")) return undefined;
      // With no name, the branch's upstream.
      const from = words[0] ?? "@{u}";
      return make(`git merge ${from}`, { changed: false, overwritesFrom: from }, []);
    }
    case "pull": {
      // `git pull . BRANCH` merges a local branch; `git pull REMOTE BRANCH` what the remote's branch holds (its tracking ref, as last fetched); none, the upstream.
      const [remote, branch] = words;
      const from = remote === undefined ? "@{u}" : branch === undefined ? `refs/remotes/${remote}/HEAD` : remote === "." ? branch : `refs/remotes/${remote}/${branch.replace(/^.*:/, "")}`;
      return make(`git pull`, { changed: false, overwritesFrom: from }, []);
    }
    case "rebase": {
      if (has(options, undefined, "--abort", "--quit", "--continue", "--skip", "--edit-todo", "--show-current-patch")) return undefined;
      const onto = options.find((o) => o.startsWith("--onto="))?.slice("--onto=".length);
      const from = onto ?? words[0] ?? "@{u}";
      return make(`git rebase ${from}`, { changed: false, overwritesFrom: from }, []);
    }
    case "cherry-pick":
    case "revert": {
      if (has(options, undefined, "--abort", "--quit", "--continue", "--skip") || words.length === 0) return undefined;
      return make(`git ${sub} ${words[0] as string}`, { changed: false, overwritesFrom: words[0] as string }, []);
    }
    case "add": {
      if (dryRun) return undefined;
      const specs = [...words, ...(afterDashes ?? [])];
      const all = has(options, "A", "--all") || has(options, undefined, "--no-ignore-removal");
      const update = has(options, "u", "--update");
      // Hunks picked by what is typed may be any of the pathspecs' changes: `-p` offers tracked files' alone, `-i` adds
      // untracked ones too; a patch edited by hand (`-e`) may name any file.
      const patch = has(options, "p", "--patch");
      const interactive = has(options, undefined, "--interactive") || has(options, "i");
      const edited = has(options, undefined, "--edit") || has(options, "e");
      if (specs.length === 0 && !all && !update && !fromFile && !patch && !interactive && !edited) return undefined;
      const force = has(options, "f", "--force");
      const trackedOnly = update || (patch && !interactive && !edited && !all);
      return make("git add", { changed: true, records: true, ...(trackedOnly ? {} : { untracked: force ? "all" : "unignored" }) }, edited ? [] : specs);
    }
    case "commit": {
      // `-a` records every changed tracked file; paths name what it records; otherwise the index alone, as it was staged.
      const specs = [...words, ...(afterDashes ?? [])];
      const picked = has(options, "p", "--patch", "--interactive");
      if (!has(options, "a", "--all") && !picked && specs.length === 0 && !fromFile) return undefined;
      return make("git commit", { changed: true, records: true }, picked ? [] : specs);
    }
    case "clean": {
      if (dryRun) return undefined;
      // `-e RULE` keeps what it matches; `-e '!name'` takes a file out of the ignore rules, so an ignored one may go too.
      const rules = options.filter((o) => o.startsWith("-e=") || o.startsWith("--exclude=")).map((o) => o.slice(o.indexOf("=") + 1));
      const touches: Touches = { changed: false, untracked: has(options, "x") || rules.some((r) => r.startsWith("!")) ? "all" : has(options, "X") ? "ignored" : "unignored", kept: rules.filter((r) => !r.startsWith("!")) };
      const specs = [...words, ...(afterDashes ?? [])];
      // An untracked folder is entered with `-d`, or when a pathspec names it or what is in it.
      return make("git clean", touches, specs, has(options, "d") || specs.length > 0);
    }
    case "checkout-index": {
      // `--prefix=DIR/` writes the files under DIR instead; an empty or `./` prefix is the work tree itself.
      const prefix = options.find((o) => o.startsWith("--prefix="))?.slice("--prefix=".length);
      const elsewhere = prefix !== undefined && path.resolve(here, prefix) !== repo.root && !(prefix === "" || /^(?:\.\/?)+$/.test(prefix));
      if (!has(options, "f", "--force") || elsewhere || has(options, "n", "--no-create")) return undefined;
      return make("git checkout-index -f", CHANGED, has(options, "a", "--all") ? [] : [...words, ...(afterDashes ?? [])].map((w) => `:(literal)${w}`));
    }
    case "apply": {
      // Read-only forms, and `--cached` (the index alone).
      if (has(options, undefined, "--check", "--stat", "--numstat", "--summary", "--cached")) return undefined;
      const strip = Number(/^-p(\d+)$/.exec(options.find((o) => /^-p\d+$/.test(o)) ?? "")?.[1] ?? 1);
      const patches = [...words, ...(afterDashes ?? [])];
      const directory = options.find((o) => o.startsWith("--directory="))?.slice("--directory=".length) ?? "";
      const targets = patches.length === 0 || patches.includes("-") || patches.some(isDynamic) ? undefined : patchTargets(patches.map((p) => path.resolve(here, p)), strip, directory);
      // A patch Tama cannot read (from a pipe, `git diff | git apply -R`) may undo any change: what is uncommitted is at stake.
      if (targets === undefined) return make("git apply", DISCARDS, []);
      const relativeToHere = targets.map((t) => `:(top,literal)${path.relative(repo.root, path.resolve(here, t)).split(path.sep).join("/")}`);
      if (targets.length === 0) return undefined;
      const rewrite = make("git apply", ANY, relativeToHere);
      return rewrite === undefined ? undefined : { ...rewrite, writes: targets.map((t) => path.resolve(here, t)) };
    }
    case "read-tree":
      if (has(options, undefined, "--reset") && has(options, "u")) return make("git read-tree --reset -u", DISCARDS, []);
      // `-m -u A [B [C]]`: the tree the merge leaves, where an ignored file lies.
      return has(options, "u") && words.length > 0 ? make("git read-tree -m -u", { changed: false, overwritesFrom: words.at(-1) as string }, []) : undefined;
    default:
      return undefined;
  }
}

/** The files a patch changes (`diff --git a/X b/Y`, `---`/`+++`, renames), with `strip` leading parts taken off; undefined when one cannot be read. */
export function patchTargets(files: readonly string[], strip: number, directory = ""): string[] | undefined {
  const targets = new Set<string>();
  for (const file of files) {
    let text: string;
    try {
      text = readRegularFile(file);
    } catch {
      return undefined;
    }
    // A name in quotes is C-quoted (`"b/a\\tb"`); `--directory=D` puts D before every name.
    const unquoted = (name: string): string => (/^".*"$/.test(name) ? name.slice(1, -1).replace(/\\([0-7]{3}|.)/g, (_m, c: string) => (c.length === 3 ? String.fromCharCode(parseInt(c, 8)) : ({ n: "\n", t: "\t" } as Record<string, string>)[c] ?? c)) : name);
    const stripped = (name: string): string => path.posix.join(directory, unquoted(name.replace(/\t.*$/, "")).split("/").slice(strip).join("/"));
    for (const line of text.split("\n")) {
      const header = /^diff --git ("(?:[^"\\]|\\.)*"|\S+) ("(?:[^"\\]|\\.)*"|[^\s\r]+)/.exec(line);
      if (header) {
        targets.add(stripped(header[1] as string));
        targets.add(stripped(header[2] as string));
        continue;
      }
      // Unified (`---`/`+++`), context (`***`/`---`) and `Index:` names; a CRLF patch's names end before the CR.
      const side = /^(?:---|\+\+\+|\*\*\*(?!\*)|Index:) (.+?)\r?$/.exec(line)?.[1];
      if (side !== undefined && side !== "/dev/null") targets.add(stripped(side));
      const renamed = /^(?:rename|copy) (?:from|to) (.+)$/.exec(line)?.[1];
      if (renamed !== undefined) targets.add(path.posix.join(directory, unquoted(renamed)));
    }
  }
  return [...targets].filter((t) => t !== "");
}

/** The object ids HEAD's tree gives `relatives` (paths from the root); none for a path it lacks, undefined when HEAD cannot be read. */
function headIds(gitDir: string, relatives: readonly string[], revision = "HEAD"): Map<string, string> | undefined {
  try {
    // ls-tree reads objects only: no hook, filter or fsmonitor runs; bounded so a file made to block cannot hold OMP.
    const out = execFileSync("git", ["--git-dir", gitDir, "ls-tree", "-z", "--full-tree", revision, "--", ...relatives], { encoding: "utf8", timeout: 2_000, stdio: ["ignore", "pipe", "ignore"], maxBuffer: 1 << 20 });
    const ids = new Map<string, string>();
    for (const entry of out.split("\0")) {
      const match = /^\d+ \w+ ([0-9a-f]+)\t(.+)$/s.exec(entry);
      if (match) ids.set(match[2] as string, match[1] as string);
    }
    return ids;
  } catch {
    return undefined;
  }
}

/** The repository's remotes, by their refs (`refs/remotes/<name>/…`, loose or packed). */
function remoteNames(gitDir: string): string[] {
  const common = commonDir(gitDir);
  const names = new Set<string>();
  try {
    for (const name of readdirSync(path.join(common, "refs", "remotes"))) names.add(name);
  } catch {
    // none loose
  }
  try {
    for (const match of readRegularFile(path.join(common, "packed-refs")).matchAll(/ refs\/remotes\/([^/\s]+)\//g)) names.add(match[1] as string);
  } catch {
    // none packed
  }
  return [...names].slice(0, 8);
}

/** The files among `candidates` (absolute) that `rewrite` would overwrite or delete. */
export function rewrittenFiles(rewrite: WorkTreeRewrite, candidates: readonly string[]): RewrittenFile[] {
  const entries = gitConfigEntries({ cwd: rewrite.root, env: rewrite.env, inline: rewrite.inline, gitDir: rewrite.gitDir });
  const last = (key: string): string | undefined => entries.filter((e) => e.key === key).at(-1)?.value;
  const format = last("extensions.objectformat")?.toLowerCase() === "sha256" ? "sha256" : "sha1";
  const index = readGitIndex(rewrite.gitDir, format);
  const excludesFile = last("core.excludesfile");
  const found: RewrittenFile[] = [];
  const staged: string[] = [];
  const overwritable: string[] = [];
  const fromSource: RewrittenFile[] = [];
  let headOfStaged: Map<string, string> | undefined;
  for (const file of candidates) {
    const relative = path.relative(rewrite.root, file).split(path.sep).join("/");
    if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative) || relative.split("/")[0] === ".git" || !rewrite.covers(relative)) continue;
    const { touches } = rewrite;
    // `git clean -e RULE` keeps what a rule matches.
    if (touches.kept !== undefined && touches.kept.length > 0 && matchesRules(touches.kept, relative)) continue;
    const state = fileState(index, rewrite.root, relative);
    if (state === "missing") continue;
    // Written from a revision: only where the revision holds other bytes (or, for restore, lacks a tracked file).
    if (touches.any === true && touches.source !== undefined && state !== "unknown") {
      fromSource.push({ relative, state });
      continue;
    }
    if (state === "staged" && touches.any !== true) {
      // As staged: at stake only where the command puts the index back to HEAD's, and HEAD holds other bytes.
      if (touches.staged === true) staged.push(relative);
      continue;
    }
    // An index Tama could not read: the file may be anything the command changes.
    if (state === "unknown") {
      found.push({ relative, state });
      continue;
    }
    if (state === "changed" || touches.any === true) {
      if (touches.changed || touches.any === true) found.push({ relative, state });
      continue;
    }
    if (touches.overwritesFrom !== undefined && state === "untracked") overwritable.push(relative);
    if (touches.untracked === undefined) continue;
    if (touches.untracked === "all") {
      found.push({ relative, state });
      continue;
    }
    // Without `-d`, a file in a directory git tracks nothing in is left alone.
    const dir = path.posix.dirname(relative);
    if (!rewrite.entersUntrackedDirs && dir !== "." && index !== undefined && ![...index.entries.keys()].some((p) => p.startsWith(`${dir}/`))) continue;
    const ignored = isIgnored(rewrite.root, rewrite.gitDir, relative, excludesFile, rewrite.env);
    if (ignored === (touches.untracked === "ignored")) found.push({ relative, state });
  }
  if (overwritable.length > 0 && rewrite.touches.overwritesFrom !== undefined) {
    const revision = rewrite.touches.overwritesFrom;
    // A revision built at run time may be any. `-` is the branch before; a name only a remote has is the one checkout makes from it.
    const candidates = revision === "-" ? ["@{-1}"] : [revision, ...remoteNames(rewrite.gitDir).map((remote) => `refs/remotes/${remote}/${revision}`)];
    let into: Map<string, string> | undefined;
    // HEAD is read once for what is staged too (`reset --hard`): one git run, not two.
    const asked = revision === "HEAD" ? [...overwritable, ...staged] : overwritable;
    for (const candidate of isDynamic(revision) ? [] : candidates) if ((into = headIds(rewrite.gitDir, asked, candidate)) !== undefined) break;
    if (revision === "HEAD" && into !== undefined) headOfStaged = into;
    // One git cannot read either is no revision: the command fails and overwrites nothing.
    if (isDynamic(revision)) for (const relative of overwritable) found.push({ relative, state: "untracked", overwritten: true });
    else for (const relative of overwritable) if (into?.has(relative) === true) found.push({ relative, state: "untracked", overwritten: true });
  }
  const source = rewrite.touches.source;
  if (fromSource.length > 0 && source !== undefined) {
    const ids = isDynamic(source) ? undefined : headIds(rewrite.gitDir, fromSource.map((f) => f.relative), source);
    for (const file of fromSource) {
      const held = ids?.get(file.relative);
      if (ids === undefined) found.push(file);
      else if (held === undefined) {
        if (rewrite.touches.removesAbsent === true && file.state !== "untracked") found.push(file);
      } else if (!workTreeIds(path.join(rewrite.root, file.relative), index?.hash ?? "sha1").includes(held)) found.push(file);
    }
  }
  if (staged.length > 0) {
    const head = headOfStaged ?? headIds(rewrite.gitDir, staged);
    for (const relative of staged) {
      if (head === undefined || head.get(relative) !== index?.entries.get(relative)?.id) found.push({ relative, state: "staged" });
    }
  }
  return found;
}
