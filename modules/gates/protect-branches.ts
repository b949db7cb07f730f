// protect-branches: refuses history rewrites and direct pushes on the branches a team
// protects (`options.branches`, default main and master): `git push --force`,
// `--force-with-lease`, a `+ref` refspec, a push to a protected branch (named, or the
// current branch by a bare `git push`), `git branch -D` of one, `git reset --hard`
// while on one. `git -C`, `-c` and the wrappers the git gate reads are read too.
import path from "node:path";
import * as z from "../protocol/schema.ts";
import type { HookInput } from "../protocol/hook-input.ts";
import { asGit } from "./git-commands.ts";
import { gitConfigEntries } from "./git-config.ts";
import { commandTargets, isDynamic, walkCall, type RunCommand } from "./shell-walk.ts";
import { isWriter } from "./shell-writers.ts";
import { commonDir, repositoryAt } from "./git-index.ts";
import { gateWithOptions, type GateVerdict } from "./types.ts";
import { readRegularFile } from "../system/regular-file.ts";
import { foldName } from "../system/name-case.ts";
import { escapeRegExp } from "../system/regexp.ts";

const Options = z.strictObject({ branches: z._default(z.array(z.string().check(z.minLength(1))), ["main", "master"]) });
type Options = z.infer<typeof Options>;

export const protectBranches = gateWithOptions<Options>({
  id: "protect-branches",
  description: "Refuses force pushes, direct pushes to protected branches (main, master), deleting them, and reset --hard on them.",
  events: ["pre_tool_use"],
  memoryless: true,
  tools: "any",
  onByDefault: true,
  options: { help: "branches: the protected branch names", example: { branches: ["main", "release"] } },
  schema: Options,
  evaluate(input: HookInput, _context, options): GateVerdict {
    // The branch a `git checkout`/`switch` earlier on the line leaves checked out (`git checkout main && git reset --hard`).
    const line: LineState = {};
    if (input.omp?.tool_name === "github") {
      const problem = githubToolProblem(input.omp.tool_input, input.cwd, options);
      return problem === undefined ? { decision: "pass" } : { decision: "block", reason: problem };
    }
    const reason = walkCall(input, (run) => {
      if (run.program === "gh") return ghApiProblem(run.argv.slice(1), options, run.scope.cwd ?? input.cwd);
      if (run.program !== undefined && HTTP_CLIENTS.has(run.program)) return httpProblem(run.program, run.argv.slice(1), options);
      const written = refWrites(run, options);
      if (written !== undefined) return written;
      const git = asGit(run);
      return git === undefined ? undefined : gitProblem(git, input.cwd, options, line);
    });
    return reason === undefined ? { decision: "pass" } : { decision: "block", reason };
  },
});

/**
 * `gh api -X DELETE repos/o/r/git/refs/heads/main`, `-X PATCH … -F force=true`: GitHub's
 * API moves or deletes the remote branch with no push; `…/branches/main/protection`
 * takes its protection off. A request that writes (any method but GET, or fields, which
 * make gh send POST) to one of a protected branch's refs is refused.
 */
function ghApiProblem(args: readonly string[], options: Options, cwd: string): string | undefined {
  const list = options.branches.join(", ");
  // `gh repo sync --force` resets the branch (the default branch when none is named) to the upstream's.
  if (args[0] === "repo" && args[1] === "sync" && args.some((a) => a === "--force")) {
    const at = args.findIndex((a) => a === "--branch" || a === "-b" || a.startsWith("--branch="));
    const branch = at === -1 ? undefined : (args[at] as string).includes("=") ? (args[at] as string).slice((args[at] as string).indexOf("=") + 1) : args[at + 1];
    if (branch === undefined || options.branches.includes(branch)) return `gh repo sync --force resets ${branch ?? "the default branch"}, which may be protected (${list}); sync without --force, or a branch of your own`;
  }
  if (args[0] !== "api") return undefined;
  let method: string | undefined;
  let fields = false;
  const values: string[] = [];
  for (let i = 1; i < args.length; i++) {
    const arg = args[i] as string;
    const glued = /^(?:-X|--method=?)(.+)$/.exec(arg);
    if (glued) method = glued[1];
    else if (arg === "-X" || arg === "--method") method = args[++i];
    else if (/^(?:-[fF]|--field|--raw-field|--input)$/.test(arg)) {
      fields = true;
      values.push(args[++i] ?? "");
    } else if (/^(?:-[fF].|--(?:raw-)?field=|--input=)/.test(arg)) {
      fields = true;
      values.push(arg.replace(/^(?:-[fF]|--(?:raw-)?field=|--input=)/, ""));
    }
  }
  // A field's value, or the input, read from a file (`-F query=@q.graphql`, `--input body.json`): its text is what is sent.
  let unread: string | undefined;
  const sent = values.map((v) => {
    const file = /^(?:[\w.-]+=)?@(.+)$/.exec(v)?.[1] ?? (args.includes("--input") || args.some((a) => a.startsWith("--input=")) ? v : undefined);
    if (file === undefined) return v;
    try {
      if (file === "-") throw new Error("stdin");
      return `${v} ${readRegularFile(path.resolve(cwd, file))}`;
    } catch {
      unread = file;
      return v;
    }
  });
  const text = [...args.slice(1), ...sent].join(" ");
  // A query in a file not there yet (written on the same line) or read from stdin is not known here: it may be any mutation.
  if (args.slice(1).includes("graphql") && unread !== undefined) return `gh api graphql with a query read from ${unread}, which Tama cannot read before it runs, may move or delete a protected branch (${list}); write the query out`;
  const graphql = args.slice(1).includes("graphql") ? graphqlProblem(text, options) : undefined;
  if (graphql !== undefined) return `gh api graphql ${graphql}`;
  const writes = method !== undefined ? method.toUpperCase() !== "GET" : fields;
  if (!writes) return undefined;
  const endpoint = args.slice(1).find((a) => branchEndpoint(a, options));
  if (endpoint !== undefined) return `gh api ${method?.toUpperCase() ?? "POST"} ${endpoint} moves, deletes or unprotects a protected branch (protected: ${list}); push a branch and open a pull request`;
  // A file written through the contents API, or a merge through the merges API, is a commit on the branch it names (the default branch when none).
  const commits = args.slice(1).find((a) => /(?:^|\/)repos\/[^/]+\/[^/]+\/(?:contents(?:\/|$)|merges$)/.test(a));
  if (commits !== undefined) {
    const named = /(?:^|\s)(?:branch|base)=([^\s"']+)/.exec(text)?.[1];
    if (named === undefined || options.branches.includes(named)) return `gh api ${method?.toUpperCase() ?? "PUT"} ${commits} commits to ${named ?? "the default branch"}, which may be protected (${list}); commit on a branch of your own and open a pull request`;
  }
  return undefined;
}

/** A GitHub API path to one of a protected branch's refs or its protection, its escapes (`ma%69n`, `heads%2Fmain`) decoded. */
function branchEndpoint(word: string, options: Options): boolean {
  let decoded = word;
  try {
    decoded = decodeURIComponent(word);
  } catch {
    // A malformed escape is read as written.
  }
  const names = options.branches.map(escapeRegExp).join("|");
  return new RegExp(`(?:git/refs/heads|branches)/(?:${names})(?:/|$|\\?|#)`).test(decoded);
}

/**
 * GraphQL mutations that move, delete or unprotect a branch with no push: `deleteRef`
 * and `updateRef(s)` name the ref by an opaque id, so any is refused; `createCommitOnBranch`
 * commits to the branch it names; the branch protection rules' mutations take protection off.
 */
function graphqlProblem(text: string, options: Options): string | undefined {
  const mutation = /\b(deleteRef|updateRefs?|deleteBranchProtectionRule|updateBranchProtectionRule|createCommitOnBranch)\b/.exec(text)?.[1];
  if (mutation === undefined) return undefined;
  if (mutation === "createCommitOnBranch" && !options.branches.some((branch) => new RegExp(`\\b${escapeRegExp(branch)}\\b`).test(text)) && !/\$/.test(text)) return undefined;
  return `mutation ${mutation} may move, delete or unprotect a protected branch (protected: ${options.branches.join(", ")}) with no push; push a branch and open a pull request`;
}

/** Programs that send HTTP requests, whose methods the GitHub API takes as gh's do. */
const HTTP_CLIENTS = new Set(["curl", "wget", "http", "https", "xh", "xhs", "curlie"]);

/**
 * `curl -X DELETE https://api.github.com/repos/o/r/git/refs/heads/main`, `curl -d … …/branches/main/protection`,
 * `http PATCH …`: the API request gh api would make, made by an HTTP client. A request
 * that writes (a method but GET or HEAD, or a body, which makes it a POST) to a protected
 * branch's ref or protection, or a GraphQL mutation that may, is refused.
 */
function httpProblem(program: string, args: readonly string[], options: Options): string | undefined {
  let method: string | undefined;
  let body = false;
  const httpie = program !== "curl" && program !== "wget" && program !== "curlie";
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const glued = /^(?:-X|--request=|--method=)(.+)$/.exec(arg);
    if (glued) method = glued[1];
    else if (arg === "-X" || arg === "--request" || arg === "--method") method = args[++i];
    else if (/^(?:-d|--data(?:-raw|-binary|-urlencode|-ascii)?|--json|-F|--form|-T|--upload-file|--post-data|--post-file|--body-data|--body-file)(?:=|$)/.test(arg) || /^-[dFT]./.test(arg)) body = true;
    // httpie and xh: `http DELETE url`, `http url key=value` (a body).
    else if (httpie && /^(?:GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS)$/.test(arg)) method = arg;
    else if (httpie && /^[\w.-]+:?=/.test(arg)) body = true;
  }
  const writes = method !== undefined ? !/^(?:GET|HEAD)$/i.test(method) : body;
  if (!writes) return undefined;
  const url = args.find((arg) => branchEndpoint(arg, options));
  if (url !== undefined) return `${program} ${method?.toUpperCase() ?? "POST"} ${url} moves, deletes or unprotects a protected branch (protected: ${options.branches.join(", ")}) through the GitHub API; push a branch and open a pull request`;
  const graphql = args.some((arg) => /\/graphql\b/.test(arg)) ? graphqlProblem(args.join(" "), options) : undefined;
  return graphql === undefined ? undefined : `${program} to GitHub's GraphQL API: ${graphql}`;
}

/** Where each part of a refspec built at run time stands once its text is taken out (RUN_TIME). */
const RUN_TIME = "\u0001";

/** A refspec's text with each expansion (`${B:-main}`, `$( (git branch) )`, `` `…` ``, `$b`) replaced by RUN_TIME, brackets balanced. */
function withoutExpansions(text: string): { text: string; parts: string[] } {
  let out = "";
  const parts: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === "$" && (text[i + 1] === "(" || text[i + 1] === "{")) {
      const open = text[i + 1] as string;
      const close = open === "(" ? ")" : "}";
      let depth = 0;
      let j = i + 1;
      for (; j < text.length; j++) {
        if (text[j] === open) depth++;
        else if (text[j] === close && --depth === 0) break;
      }
      parts.push(text.slice(i, j + 1));
      out += RUN_TIME;
      i = j;
    } else if (ch === "`") {
      const end = text.indexOf("`", i + 1);
      const j = end === -1 ? text.length : end;
      parts.push(text.slice(i, j + 1));
      out += RUN_TIME;
      i = j;
    } else if (ch === "$" && /[A-Za-z_0-9@*#?$!-]/.test(text[i + 1] ?? "")) {
      const name = /^\$(?:[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])/.exec(text.slice(i))?.[0] ?? "$";
      parts.push(name);
      out += RUN_TIME;
      i += name.length - 1;
    } else out += ch;
  }
  return { text: out, parts };
}

/** The destination of a push refspec (after its `:` outside any expansion), expansions as RUN_TIME. */
function destinationOf(ref: string): string {
  const { text } = withoutExpansions(ref);
  return text.includes(":") ? text.slice(text.indexOf(":") + 1) : text;
}

/** A destination with its RUN_TIME marks put back as written (`$(git branch --show-current)` is read as the current branch). */
function expansionsAsWritten(ref: string, destination: string): string {
  const { text, parts } = withoutExpansions(ref);
  const before = (text.includes(":") ? text.slice(0, text.indexOf(":") + 1) : "").split(RUN_TIME).length - 1;
  let k = before;
  return destination.replace(new RegExp(RUN_TIME, "g"), () => parts[k++] ?? "");
}

interface LineState {
  branch?: string;
}

/** Global options that take the next word. */
const GLOBAL_WITH_VALUE = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--exec-path"]);

/** The branch HEAD names in the repository at `dir`, when it can be read. */
function currentBranch(dir: string): string | undefined {
  const repo = repositoryAt(dir);
  if (repo === undefined) return undefined;
  try {
    return readRegularFile(path.join(repo.gitDir, "HEAD")).match(/^ref: refs\/heads\/(.+)$/m)?.[1]?.trim();
  } catch {
    return undefined;
  }
}

/** The git directory of the repository at `dir` (a linked worktree's own, and its common one), when there is one. */
function gitDirsOf(dir: string): string[] {
  const repo = repositoryAt(dir);
  return repo === undefined ? [] : [...new Set([repo.gitDir, commonDir(repo.gitDir)])];
}

/** `echo $id > .git/refs/heads/main`, `cp x .git/packed-refs`: a branch moved by writing git's own files. */
function refWrites(run: RunCommand, options: Options): string | undefined {
  // Most commands write nothing; of those that do, only a target in a git directory is read further.
  if (run.command.redirects.length === 0 && run.otherWrites.length === 0 && (run.program === undefined || !isWriter(run.program))) return undefined;
  const cwd = run.scope.cwd ?? process.cwd();
  // Folded: `.GIT/refs/heads/MAIN` is main's ref file where the file system folds case (name-case.ts).
  const files = commandTargets(run).map((target) => ({ target, file: foldName(path.resolve(cwd, target.word)) })).filter(({ file }) => file.includes("/.git"));
  if (files.length === 0) return undefined;
  const dirs = gitDirsOf(cwd).map(foldName);
  for (const { target, file } of files) {
    for (const gitDir of dirs) {
      if (!file.startsWith(`${gitDir}/`)) continue;
      const inside = file.slice(gitDir.length + 1);
      const branch = /^refs\/heads\/(.+)$/.exec(inside)?.[1];
      if ((branch !== undefined && options.branches.some((name) => foldName(name) === branch)) || inside === "packed-refs" || inside === "refs" || inside === "refs/heads" || (target.reachesBelow && "refs/heads/".startsWith(`${inside}/`))) {
        return `writing ${inside} in git's own directory moves or deletes branches, the protected ones too (${options.branches.join(", ")}); use git's commands on a branch of your own`;
      }
    }
  }
  return undefined;
}

/**
 * OMP's `github` tool: `pr_push` pushes a local branch to the remote branch its PR
 * metadata names (`branch.<b>.ompPrHeadRef`, which any `git config` sets), with
 * `forceWithLease` a force push.
 */
function githubToolProblem(raw: unknown, cwd: string, options: Options): string | undefined {
  const input = (raw ?? {}) as { op?: unknown; branch?: unknown; forceWithLease?: unknown };
  if (input.op !== "pr_push") return undefined;
  const list = options.branches.join(", ");
  if (input.forceWithLease === true) return `github pr_push with forceWithLease rewrites history others have pulled; push a new commit instead (protected: ${list})`;
  const local = typeof input.branch === "string" && input.branch !== "" ? input.branch : currentBranch(cwd);
  if (local === undefined) return `github pr_push of a branch Tama cannot tell may push to a protected one (${list}); name the branch`;
  const entries = gitConfigEntries({ cwd, env: new Map(), inline: [] });
  const head = entries.filter((e) => e.key.toLowerCase() === `branch.${local}.ompprheadref`.toLowerCase()).at(-1)?.value;
  if (head !== undefined && options.branches.includes(short(head))) return `github pr_push of ${local} pushes to ${head}, a protected branch (${list}); push a branch of your own and open a pull request`;
  return undefined;
}

/** A branch as git names it from a ref (`refs/heads/main`, and `heads/main`, which git expands the same way). */
const short = (ref: string): string => ref.replace(/^(?:refs\/)?heads\//i, "");

/** git takes any unambiguous start of a long option (`--har` is `--hard`); `min` is the shortest start that is unambiguous. */
const longOption = (arg: string, name: string, min: number): boolean => {
  const word = arg.includes("=") ? arg.slice(0, arg.indexOf("=")) : arg;
  return word.length >= min && name.startsWith(word);
};

/** Short letters in `-abc` clusters (`-df` is `-d -f`). */
const shortLetters = (args: readonly string[]): string => args.filter((a) => /^-[A-Za-z]+$/.test(a)).join("");

function gitProblem(run: RunCommand, sessionCwd: string, options: Options, line: LineState): string | undefined {
  const args = run.argv.slice(1);
  let dir = run.scope.cwd ?? sessionCwd;
  let i = 0;
  const inline: string[] = [];
  for (; i < args.length && (args[i] as string).startsWith("-"); i++) {
    const arg = args[i] as string;
    if (arg === "-C" && args[i + 1] !== undefined) dir = path.resolve(dir, args[i + 1] as string);
    if (arg === "-c" && args[i + 1] !== undefined) inline.push(args[i + 1] as string);
    if (GLOBAL_WITH_VALUE.has(arg)) i++;
  }
  const sub = args[i];
  const rest = args.slice(i + 1);
  // Folded: a branch is a file under .git/refs/heads, and `git branch -f MAIN` moves main where the file system folds case.
  const protectedNames = new Set(options.branches.map(foldName));
  const isProtected = (ref: string | undefined): boolean => ref !== undefined && protectedNames.has(foldName(short(ref)));
  const list = options.branches.join(", ");
  const checkedOut = (): string | undefined => line.branch ?? currentBranch(dir);
  // Config that makes a plain push force or reach a protected branch: `-c remote.origin.push=+HEAD:main`, `git config remote.origin.push …`, `push.default=matching`.
  const pushConfig = (key: string, value: string): string | undefined => {
    const lower = key.toLowerCase();
    if (/^remote\..+\.mirror$/.test(lower) && value !== "false") return `${key}=${value} makes every push a mirror, which overwrites and deletes the remote's branches`;
    if (/^remote\..+\.push$/.test(lower) && (value.startsWith("+") || value.includes("*") || value === ":" || isProtected(value.includes(":") ? value.slice(value.indexOf(":") + 1) : value))) {
      return `${key}=${value} makes a plain push force or reach a protected branch`;
    }
    if (lower === "push.default" && value === "matching") return `${key}=${value} pushes every branch whose name the remote has, the protected ones too`;
    return undefined;
  };
  for (const setting of inline) {
    const eq = setting.indexOf("=");
    const problem = eq === -1 ? undefined : pushConfig(setting.slice(0, eq), setting.slice(eq + 1));
    if (problem !== undefined) return `git -c ${problem} (protected: ${list}); push a branch of your own`;
  }
  if (sub === "config") {
    const words = rest.filter((a) => !a.startsWith("-"));
    const key = words[0] === "set" ? words[1] : words[0];
    const value = words[0] === "set" ? words[2] : words[1];
    const problem = key === undefined || value === undefined ? undefined : pushConfig(key, value);
    if (problem !== undefined) return `git config ${problem} (protected: ${list}); push a branch of your own`;
  }
  if (sub === "checkout" || sub === "switch") {
    // `git checkout main --` switches too; after `--` come paths.
    const words = rest.at(-1) === "--" ? rest.slice(0, -1) : rest;
    const named = words.filter((a) => !a.startsWith("-") || a === "-");
    if (named.length === 1 && !words.some((a) => /^-[A-Za-z]*[bBcC]/.test(a) || a === "--" || a.startsWith("--orphan"))) {
      const to = named[0] as string;
      // `git checkout -` and `@{-1}` go back to a branch the line does not name.
      line.branch = to === "-" || to.startsWith("@{-") ? RUN_TIME : short(to);
    }
  }
  // `git symbolic-ref HEAD refs/heads/main` puts HEAD on main without a checkout.
  if (sub === "symbolic-ref") {
    const words = rest.filter((a) => !a.startsWith("-"));
    if (words[0] === "HEAD" && words[1] !== undefined) line.branch = short(words[1]);
  }
  // A mirror remote's fetch writes `+refs/*:refs/*`: every local branch, the protected ones too.
  if (sub === "remote" && rest[0] === "add" && rest.some((a) => a === "--mirror" || a === "--mirror=fetch")) {
    return `git remote add --mirror=fetch makes every fetch from it overwrite the local branches, the protected ones too (${list}); add the remote without --mirror`;
  }
  const config = (): { key: string; value: string }[] => gitConfigEntries({ cwd: dir, env: run.env, inline: inline.map((c) => ({ key: c.slice(0, c.indexOf("=") === -1 ? c.length : c.indexOf("=")).toLowerCase(), value: c.includes("=") ? c.slice(c.indexOf("=") + 1) : "true" })) });
  if (sub === "push" || sub === "send-pack") {
    const flags = rest.filter((a) => a.startsWith("-"));
    if (flags.some((f) => f === "--force" || longOption(f, "--force-with-lease", 9) || shortLetters([f]).includes("f"))) {
      return `git push --force rewrites history others have pulled; push a new commit instead (protected: ${list})`;
    }
    // --mirror force-updates and deletes every remote ref to match the local ones.
    if (flags.some((f) => longOption(f, "--mirror", 4))) return `git push --mirror overwrites and deletes the remote's branches; push a branch instead (protected: ${list})`;
    // Every branch at once: the protected ones go too (and `--prune` deletes the remote's that are gone here).
    const all = flags.find((f) => longOption(f, "--all", 4) || longOption(f, "--branches", 4) || longOption(f, "--prune", 4));
    if (all !== undefined) return `git push ${all} pushes or deletes every branch, the protected ones too (${list}); push one branch of your own`;
    const operands = rest.filter((a) => !a.startsWith("-"));
    const refspecs = operands.slice(1);
    if (refspecs.some((r) => r.startsWith("+"))) return `git push ${refspecs.find((r) => r.startsWith("+"))} force-pushes; push a new commit instead`;
    // `:` pushes every branch both sides have; a pattern (`refs/heads/*:refs/heads/*`) every branch it matches.
    const many = refspecs.find((r) => r === ":" || r.includes("*"));
    if (many !== undefined) return `git push ${many} pushes every matching branch, the protected ones too (${list}); name one branch of your own`;
    // `"$(git branch --show-current)"` is the current branch; another refspec built at run time may be a protected one.
    const current = /^\$\(\s*git (branch --show-current|rev-parse --abbrev-ref HEAD|symbolic-ref --short HEAD)\s*\)$/;
    // The destination with each part built at run time as "anything": `"v$VERSION"` or `refs/tags/$T` cannot be main.
    const mayBeProtected = (ref: string): boolean => {
      const destination = destinationOf(ref).replace(/^\+/, "");
      const text = destination.replace(/^refs\/heads\//, "").replace(/^heads\//, "");
      if (/^refs\/(?:tags|remotes|notes)\//.test(destination)) return false;
      const pattern = new RegExp(`^${text.split(RUN_TIME).map(escapeRegExp).join(".*")}$`);
      return options.branches.some((branch) => pattern.test(branch));
    };

    const dynamicRef = refspecs.find((r) => destinationOf(r).includes(RUN_TIME) && !current.test(expansionsAsWritten(r, destinationOf(r))) && mayBeProtected(r));
    if (dynamicRef !== undefined) return `git push ${dynamicRef} pushes to a branch named at run time, which may be protected (${list}); name the branch`;
    const targets = refspecs.map((r) => (current.test(expansionsAsWritten(r, destinationOf(r))) ? (checkedOut() ?? "") : expansionsAsWritten(r, destinationOf(r)))).map((t) => (t === "@" ? "HEAD" : t));
    const deleting = flags.some((f) => f === "--delete" || f === "-d");
    // A plain push, and a refspec with no destination, go where the config sends them
    // (`remote.<name>.push` maps a named branch too; `push.default=upstream` sends the branch to its upstream).
    if (!deleting && (refspecs.length === 0 || refspecs.some((r) => !r.includes(":")))) {
      const entries = config();
      for (const { key, value } of entries) {
        const problem = pushConfig(key, value);
        if (problem !== undefined) return `git push with ${problem} (protected: ${list}); push a branch of your own by name`;
      }
      const pushDefault = entries.filter((e) => e.key === "push.default").at(-1)?.value.toLowerCase();
      const branch = checkedOut();
      if (refspecs.length === 0 && (pushDefault === "upstream" || pushDefault === "tracking") && branch !== undefined) {
        const upstream = entries.filter((e) => e.key.toLowerCase() === `branch.${branch}.merge`.toLowerCase()).at(-1)?.value;
        if (upstream !== undefined) targets.push(upstream);
      }
    }
    if (refspecs.length === 0 && !flags.some((f) => f === "--tags") && !deleting) targets.push(checkedOut() ?? "");
    const onHead = (t: string): boolean => (t === "HEAD" || t === "@") && isProtected(checkedOut());
    const hit = targets.find((t) => isProtected(t) || onHead(t));
    if (hit !== undefined) return `a direct push to ${hit === "HEAD" || hit === "@" ? checkedOut() : short(hit)} is refused (protected: ${list}); push a branch and open a pull request`;
    return undefined;
  }
  if (sub === "branch") {
    const letters = shortLetters(rest);
    const deletes = /[dD]/.test(letters) || rest.some((a) => longOption(a, "--delete", 5));
    const named = rest.filter((a) => !a.startsWith("-")).find((b) => isProtected(b));
    if (deletes && named !== undefined) return `deleting the protected branch ${named} is refused (protected: ${list})`;
    // `git branch -D "$b"`: a name built at run time (or kept by OMP's bash from an earlier call) may be a protected one.
    const built = rest.filter((a) => !a.startsWith("-")).find(isDynamic);
    if (deletes && built !== undefined) return `git branch deleting ${built}, a branch named at run time, may delete a protected one (${list}); name the branch`;
    const moves = /[fMmCc]/.test(letters) || rest.some((a) => longOption(a, "--force", 5) || longOption(a, "--move", 4) || longOption(a, "--copy", 5));
    if (moves && named !== undefined) return `moving or overwriting the protected branch ${named} is refused (protected: ${list})`;
    return undefined;
  }
  // `git fetch . +topic:main`, `git fetch -f origin x:main`: a forced refspec writes the local branch whatever it held.
  if (sub === "fetch" || sub === "pull") {
    const forced = rest.some((a) => a === "-f" || longOption(a, "--force", 5));
    // The destination, a pattern too (`+refs/heads/*:refs/heads/*` writes every branch the remote has).
    const writes = (dst: string): boolean => {
      const name = dst.replace(/^refs\/heads\//i, "");
      if (!name.includes("*")) return isProtected(name);
      const pattern = new RegExp(`^${foldName(name).replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")}$`);
      return options.branches.some((branch) => pattern.test(foldName(branch)));
    };
    const target = rest
      .filter((a) => !a.startsWith("-") && a.includes(":"))
      .find((spec) => (forced || spec.startsWith("+")) && writes(spec.slice(spec.lastIndexOf(":") + 1)));
    if (target !== undefined) return `git ${sub} ${target} overwrites a protected branch (protected: ${list}); fetch into a branch of your own`;
    // `--refmap=+…:refs/heads/main`, and the remote's configured fetch refspecs (`-c remote.origin.fetch=…`, GIT_CONFIG_*, the repository's).
    const maps = [
      ...rest.flatMap((a, k) => (a.startsWith("--refmap=") ? [a.slice("--refmap=".length)] : a === "--refmap" ? [rest[k + 1] ?? ""] : [])),
      ...config().filter((e) => /^remote\..+\.fetch$/i.test(e.key)).map((e) => e.value),
    ];
    const mapped = maps.find((spec) => spec.includes(":") && (forced || spec.startsWith("+")) && writes(spec.slice(spec.lastIndexOf(":") + 1)));
    if (mapped !== undefined) return `git ${sub} with the refspec ${mapped} overwrites a protected branch (protected: ${list}); fetch into a branch of your own`;
    return undefined;
  }
  // `git update-ref [-d] refs/heads/main …` moves or deletes the branch without a commit.
  if (sub === "update-ref") {
    // `--stdin` reads its updates from input: a protected branch among them, or input not read here, is refused.
    if (rest.includes("--stdin")) {
      const stdin = run.command.stdin.join("\n");
      if (stdin === "" || options.branches.some((b) => new RegExp(`(^|[\\s/])${escapeRegExp(b)}(\\s|$)`).test(stdin))) {
        return `git update-ref --stdin may move or delete a protected branch (${list}); commit on a branch of your own`;
      }
    }
    // The ref it updates is its first operand (the others are values: `git update-ref refs/heads/topic HEAD`).
    const updated = rest.filter((a) => !a.startsWith("-"))[0];
    const named = updated !== undefined && ((foldName(updated).startsWith("refs/heads/") && isProtected(updated)) || (updated === "HEAD" && isProtected(checkedOut()))) ? updated : undefined;
    if (named !== undefined) return `git update-ref on the protected branch ${named === "HEAD" ? checkedOut() : short(named)} moves or deletes it (protected: ${list}); commit on a branch of your own`;
    return undefined;
  }
  // `git checkout -B main` / `git switch -C main` reset the branch to another commit.
  // In a short cluster (`-fB`, `-qB`) the letter may come after others; what follows it in the word, or the next word, is the name.
  const forceCreate = (a: string): boolean => /^-[A-Za-z]*[BC]/.test(a) || longOption(a, "--force-create", 9);
  // `git worktree add -B main DIR REV` resets the branch as checkout -B does.
  const creating = sub === "worktree" && rest[0] === "add" ? rest.slice(1) : sub === "checkout" || sub === "switch" ? rest : undefined;
  if (creating !== undefined && creating.some(forceCreate)) {
    const at = creating.findIndex(forceCreate);
    const option = creating[at] ?? "";
    // `-Bmain` carries its name; `--force-create=main` too.
    const glued = /^-[A-Za-z]*?[BC](.+)$/.exec(option)?.[1];
    const named = option.startsWith("--") ? (option.includes("=") ? option.slice(option.indexOf("=") + 1) : creating[at + 1]) : (glued ?? creating[at + 1]);
    if (isProtected(named)) return `git ${sub} ${option} ${named} resets the protected branch ${named} (protected: ${list}); make a branch of your own`;
  }
  // --keep and --merge move the branch and the tree as --hard does (keeping only what they can).
  const hard = rest.find((a) => longOption(a, "--hard", 4) || longOption(a, "--keep", 4) || longOption(a, "--merge", 4));
  if (sub === "reset" && hard !== undefined) {
    const branch = checkedOut();
    if (branch === RUN_TIME) return `git reset ${hard} after a switch to a branch the line does not name may reset a protected one (${list}); name the branch you switch to`;
    if (isProtected(branch)) return `git reset ${hard} on the protected branch ${branch} throws commits and work away; reset a branch of your own instead`;
  }
  return undefined;
}
