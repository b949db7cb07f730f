// block-destructive-deletes: refuses deletions no undo brings back — `rm -r` of `/`,
// the home directory, the session's project root or anything outside the project;
// `find … -delete` (or `-exec rm`) searching from `/`, home or outside the project;
// `git clean` that also removes ignored files (`-x`/`-X`: `.env`, local config,
// caches). Read through every wrapper the git gate reads. `options.allow` names
// places where such deletes are fine (a scratch directory, a build output).
import os from "node:os";
import { tempDir } from "../system/paths.ts";
import path from "node:path";
import * as z from "../protocol/schema.ts";
import type { HookInput } from "../protocol/hook-input.ts";
import { foldName } from "../system/name-case.ts";
import { globBase, isAllowed, isInside, ompAddress, projectRoot, realPath, sessionCwdOf, throughLinks, wordPath } from "./paths.ts";
import { isDynamic, MKTEMP_NAME, walkCall, type RunCommand } from "./shell-walk.ts";
import { withGlobMatches } from "./shell-writers.ts";
import { gateWithOptions, type GateVerdict } from "./types.ts";
import { callKind, codeOf, type CodeLanguage } from "../tools/declaration.ts";
import { readCode } from "../tools/code-reading.ts";

const Options = z.strictObject({ allow: z._default(z.array(z.string().check(z.minLength(1))), []) });
type Options = z.infer<typeof Options>;

const INSTEAD = "delete the specific files or directories inside the project instead, or ask the person to run it";
const UNREAD = "write the paths out (inside the project), or ask the person to run it";

export const blockDestructiveDeletes = gateWithOptions<Options>({
  id: "block-destructive-deletes",
  description: "Refuses rm -r of /, ~, the project root or anything outside the project, find -delete over them, and git clean -x.",
  events: ["pre_tool_use"],
  memoryless: true,
  tools: "shell",
  onByDefault: true,
  options: { help: "allow: paths where recursive deletes are fine", example: { allow: ["/tmp/scratch"] } },
  schema: Options,
  evaluate(input: HookInput, _context, options): GateVerdict {
    // Code run by the code tool (OMP's eval): the trees it removes.
    const toolName = input.tool_name ?? input.omp?.tool_name ?? "";
    const code = (input.omp?.kind ?? callKind(toolName, input.tool_input)) === "code" ? codeOf(toolName, input.tool_input) : undefined;
    if (code !== undefined) {
      const where: Where = { cwd: input.cwd, root: realPath(projectRoot(sessionCwdOf(input))) };
      const problem = codeRemovals(code.code, code.language, where, new Map(), options);
      if (problem !== undefined) return { decision: "block", reason: problem };
    }
    const reason = walkCall(input, (run) => destructive(run, input.cwd, sessionCwdOf(input), options));
    return reason === undefined ? { decision: "pass" } : { decision: "block", reason };
  },
});

/** `shutil.rmtree(".")`, `rmSync(os.homedir(), { recursive: true })`: a tree code removes, judged as `rm -r` of it. */
function codeRemovals(code: string, language: CodeLanguage, where: Where, env: ReadonlyMap<string, string>, options: Options): string | undefined {
  for (const write of readCode(code, language).writes) {
    if (write.tree !== true) continue;
    const problem = placeProblem(write.path, where, env, options);
    if (problem !== undefined) return `code removing the tree ${write.path} would delete ${problem}; ${INSTEAD}`;
  }
  return undefined;
}

function destructive(run: RunCommand, callCwd: string, sessionCwd: string, options: Options): string | undefined {
  for (const { code, language } of run.code) {
    const problem = codeRemovals(code, language, { cwd: run.scope.cwd ?? callCwd, root: realPath(projectRoot(sessionCwd)) }, run.env, options);
    if (problem !== undefined) return problem;
  }
  if (run.program !== "rm" && !run.dynamic && run.program !== "find" && run.program !== "git") return undefined;
  // Paths are read from where the command runs (its cwd, after `cd`); the project is the session's.
  const where: Where = { cwd: run.scope.cwd ?? callCwd, root: realPath(projectRoot(sessionCwd)) };
  // After a cd that may not have run, the command may run in either folder: each is read.
  for (const place of run.scope.alsoCwd === undefined ? [where] : [where, { ...where, cwd: run.scope.alsoCwd }]) {
    // A program named at run time (`$(echo rm)`, `$RM`) is read as rm.
    const problem = run.program === "rm" || run.dynamic ? rmProblem(run, place, options) : run.program === "find" ? findProblem(run, place, options) : run.program === "git" ? gitCleanProblem(run.argv.slice(1), place.cwd, options) : undefined;
    if (problem !== undefined) return problem;
  }
  return undefined;
}

interface Where {
  cwd: string;
  root: string;
}

/** What deleting `word` recursively would take, or undefined when it stays inside the project. */
function placeProblem(word: string, { cwd, root }: Where, env: ReadonlyMap<string, string>, options: Options, links?: ReadonlyMap<string, string>): string | undefined {
  const address = ompAddress(word);
  if (address !== undefined) return `${word}, an OMP ${address}:// address that is not a place in the project`;
  const target = realPath(throughLinks(wordPath(globBase(word), cwd, env, links), links));
  if (isAllowed(target, options.allow, cwd)) return undefined;
  // `d=$(mktemp -d); …; rm -rf "$d"`: the command removes what it made.
  if (isInside(realPath(tempDir()), target) && target.split(path.sep).includes(MKTEMP_NAME)) return undefined;
  const home = realPath(env.get("HOME") ?? os.homedir());
  if (target === path.parse(target).root) return "the whole file system";
  if (target === home || isInside(target, home)) return `your home directory (${home})`;
  // `rm -rf *.egg-info` deletes some names in the project, `rm -rf *` (or `./*`) all of it.
  const someNames = /[*?[]/.test(word) && !/(?:^|\/)[*?]+\/?$/.test(word);
  if (target === root && !someNames) return `the project itself (${root})`;
  if (!isInside(root, target)) return `${target}, outside the project ${root}`;
  return undefined;
}

function rmProblem(run: RunCommand, where: Where, options: Options): string | undefined {
  const args = run.argv.slice(1);
  let recursive = false;
  const operands: string[] = [];
  let options_ = true;
  for (const arg of args) {
    if (options_ && arg === "--") options_ = false;
    // GNU rm takes any start of a long option that is no other's (`--rec`, `--r`).
    else if (options_ && arg.startsWith("--")) recursive ||= arg.length >= 3 && "--recursive".startsWith(arg);
    else if (options_ && arg.startsWith("-") && arg !== "-") recursive ||= /[rR]/.test(arg);
    else operands.push(arg);
  }
  if (!recursive) return undefined;
  if (run.unreadArgs) return `rm -r of paths xargs reads from its input: Tama cannot tell what that deletes; ${UNREAD}`;
  for (const { word: operand } of withGlobMatches(operands.map((word) => ({ word })), run.scope.unknownCwd === undefined ? where.cwd : undefined, run.scope.links)) {
    // `rm -rf "$DIR/"` with DIR unset is `rm -rf /`: a path built at run time is not guessed at.
    if (isDynamic(operand)) return `rm -r ${operand} deletes a path built at run time, which Tama cannot tell; ${UNREAD}`;
    if (run.scope.unknownCwd !== undefined && !path.isAbsolute(operand) && !operand.startsWith("~")) {
      return `rm -r ${operand} runs after \`cd ${run.scope.unknownCwd}\`, a directory Tama cannot tell; ${UNREAD}`;
    }
    const problem = placeProblem(operand, where, run.env, options, run.scope.links);
    if (problem !== undefined) return `rm -r ${operand} would delete ${problem}; ${INSTEAD}`;
  }
  return undefined;
}

function findProblem(run: RunCommand, where: Where, options: Options): string | undefined {
  const args = run.argv.slice(1);
  const deletes = args.includes("-delete") || execRemoves(args);
  if (!deletes) return undefined;
  const selects = args.some((arg) => FIND_TESTS.test(arg));
  // find's start points come before its first expression word.
  const roots: string[] = [];
  for (const arg of args) {
    if (/^-[HLP]$/.test(arg)) continue;
    if (arg.startsWith("-") || arg === "(" || arg === "!") break;
    roots.push(arg);
  }
  for (const { word: start } of withGlobMatches((roots.length > 0 ? roots : ["."]).map((word) => ({ word })), run.scope.unknownCwd === undefined ? where.cwd : undefined, run.scope.links)) {
    if (isDynamic(start)) return `find ${start} … -delete searches from a path built at run time, which Tama cannot tell; ${UNREAD}`;
    const problem = placeProblem(start, where, run.env, options, run.scope.links);
    // Deleting selected files under the project root is ordinary; only the places above it are refused,
    // and the root itself when nothing selects (`find . -delete` is `rm -rf .`).
    if (problem !== undefined && (!problem.startsWith("the project itself") || !selects)) return `find ${start} … -delete would delete in ${problem}; ${INSTEAD}`;
  }
  return undefined;
}

/** Programs that delete the files they are handed (matched folded: `RM` runs rm where the file system folds case). */
const REMOVERS = /(?:^|\/)(?:rm|unlink|rmdir|shred)$/;

/**
 * Whether a command find runs on what it selects deletes it: `-exec rm`, and through a
 * wrapper or a shell (`-exec env rm -rf {} +`, `-exec busybox rm`, `-exec sh -c 'rm -rf "$@"' _ {} +`).
 */
function execRemoves(args: readonly string[]): boolean {
  for (let i = 0; i < args.length; i++) {
    if (!["-exec", "-execdir", "-ok", "-okdir"].includes(args[i] as string)) continue;
    for (let j = i + 1; j < args.length && args[j] !== ";" && args[j] !== "+"; j++) {
      const word = foldName(args[j] as string);
      if (REMOVERS.test(word) || /(?:^|[\s;&|(`'"])(?:\S*\/)?(?:rm|unlink|shred)\s/.test(word)) return true;
    }
  }
  return false;
}

/** find's tests: with one of them find deletes what it selects, without any everything it walks. */
const FIND_TESTS = /^-(i?name|i?path|i?wholename|i?regex|i?lname|type|xtype|newer\w*|[acm]time|[acm]min|size|empty|user|group|nouser|nogroup|uid|gid|perm|links|inum|samefile|prune|maxdepth|mindepth|used|fstype|readable|writable|executable)$/;

function gitCleanProblem(args: string[], cwd: string, options: Options): string | undefined {
  let dir = cwd;
  let i = 0;
  for (; i < args.length && (args[i] as string).startsWith("-"); i++) {
    if (args[i] === "-C" && args[i + 1] !== undefined) dir = path.resolve(dir, args[++i] as string);
    else if (args[i] === "-c") i++;
  }
  if (args[i] !== "clean") return undefined;
  // `-e PATTERN` (`-ePATTERN`, a cluster ending in e) takes a value: an `n` there is no dry run.
  const flags: string[] = [];
  const rest = args.slice(i + 1);
  for (let k = 0; k < rest.length; k++) {
    const arg = rest[k] as string;
    if (!arg.startsWith("-") || arg.startsWith("--") || arg === "-") continue;
    const e = arg.indexOf("e");
    flags.push(e === -1 ? arg : arg.slice(0, e));
    if (e === arg.length - 1) k++;
  }
  const long = rest.filter((arg) => arg.startsWith("--"));
  const dryRun = flags.some((f) => f.includes("n")) || long.includes("--dry-run");
  const ignored = flags.some((f) => /[xX]/.test(f));
  if (dryRun || !ignored) return undefined;
  if (isAllowed(realPath(dir), options.allow, cwd)) return undefined;
  return `git clean -x would also delete ignored files (.env, local settings, caches) in ${projectRoot(dir)}; run git clean -n -x to see them, and delete what you mean to delete`;
}
