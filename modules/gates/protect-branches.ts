// protect-branches: refuses history rewrites and direct pushes on the branches a team
// protects (`options.branches`, default main and master): `git push --force`,
// `--force-with-lease`, a `+ref` refspec, a push to a protected branch (named, or the
// current branch by a bare `git push`), `git branch -D` of one, `git reset --hard`
// while on one. `git -C`, `-c` and the wrappers the git gate reads are read too.
import path from "node:path";
import * as z from "../protocol/schema.ts";
import type { HookInput } from "../protocol/hook-input.ts";
import { projectRoot } from "./paths.ts";
import { isDynamic, walkCall, type RunCommand } from "./shell-walk.ts";
import { gateWithOptions, type GateVerdict } from "./types.ts";
import { readRegularFile } from "../system/regular-file.ts";

const Options = z.strictObject({ branches: z._default(z.array(z.string().check(z.minLength(1))), ["main", "master"]) });
type Options = z.infer<typeof Options>;

export const protectBranches = gateWithOptions<Options>({
  id: "protect-branches",
  description: "Refuses force pushes, direct pushes to protected branches (main, master), deleting them, and reset --hard on them.",
  events: ["pre_tool_use"],
  memoryless: true,
  tools: "shell",
  onByDefault: true,
  options: { help: "branches: the protected branch names", example: { branches: ["main", "release"] } },
  schema: Options,
  evaluate(input: HookInput, _context, options): GateVerdict {
    // A program named at run time (`$(echo git)`) is read as git.
    const reason = walkCall(input, (run) => (run.program === "git" || run.dynamic ? gitProblem(run, input.cwd, options) : undefined));
    return reason === undefined ? { decision: "pass" } : { decision: "block", reason };
  },
});

/** Global options that take the next word. */
const GLOBAL_WITH_VALUE = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--exec-path"]);

/** The branch HEAD names in the repository at `dir`, when it can be read. */
function currentBranch(dir: string): string | undefined {
  const root = projectRoot(dir);
  try {
    let gitDir = path.join(root, ".git");
    const pointer = readRegularFile(gitDir).match(/^gitdir: (.+)$/m);
    if (pointer?.[1]) gitDir = path.resolve(root, pointer[1].trim());
    return readRegularFile(path.join(gitDir, "HEAD")).match(/^ref: refs\/heads\/(.+)$/m)?.[1]?.trim();
  } catch (error) {
    // `.git` is a directory (EISDIR above): read HEAD inside it.
    if ((error as NodeJS.ErrnoException).code !== "EISDIR") return undefined;
    try {
      return readRegularFile(path.join(root, ".git", "HEAD")).match(/^ref: refs\/heads\/(.+)$/m)?.[1]?.trim();
    } catch {
      return undefined;
    }
  }
}

const short = (ref: string): string => ref.replace(/^refs\/heads\//, "");

/** git takes any unambiguous start of a long option (`--har` is `--hard`); `min` is the shortest start that is unambiguous. */
const longOption = (arg: string, name: string, min: number): boolean => {
  const word = arg.includes("=") ? arg.slice(0, arg.indexOf("=")) : arg;
  return word.length >= min && name.startsWith(word);
};

/** Short letters in `-abc` clusters (`-df` is `-d -f`). */
const shortLetters = (args: readonly string[]): string => args.filter((a) => /^-[A-Za-z]+$/.test(a)).join("");

function gitProblem(run: RunCommand, sessionCwd: string, options: Options): string | undefined {
  const args = run.argv.slice(1);
  let dir = run.scope.cwd ?? sessionCwd;
  let i = 0;
  for (; i < args.length && (args[i] as string).startsWith("-"); i++) {
    const arg = args[i] as string;
    if (arg === "-C" && args[i + 1] !== undefined) dir = path.resolve(dir, args[i + 1] as string);
    if (GLOBAL_WITH_VALUE.has(arg)) i++;
  }
  const sub = args[i];
  const rest = args.slice(i + 1);
  const protectedNames = new Set(options.branches);
  const isProtected = (ref: string | undefined): boolean => ref !== undefined && protectedNames.has(short(ref));
  const list = options.branches.join(", ");
  if (sub === "push") {
    const flags = rest.filter((a) => a.startsWith("-"));
    if (flags.some((f) => f === "--force" || longOption(f, "--force-with-lease", 9) || shortLetters([f]).includes("f"))) {
      return `git push --force rewrites history others have pulled; push a new commit instead (protected: ${list})`;
    }
    // --mirror force-updates and deletes every remote ref to match the local ones.
    if (flags.some((f) => longOption(f, "--mirror", 4))) return `git push --mirror overwrites and deletes the remote's branches; push a branch instead (protected: ${list})`;
    const operands = rest.filter((a) => !a.startsWith("-"));
    const refspecs = operands.slice(1);
    if (refspecs.some((r) => r.startsWith("+"))) return `git push ${refspecs.find((r) => r.startsWith("+"))} force-pushes; push a new commit instead`;
    // `"$(git branch --show-current)"` is the current branch; another refspec built at run time may be a protected one.
    const current = /^\$\(\s*git (branch --show-current|rev-parse --abbrev-ref HEAD|symbolic-ref --short HEAD)\s*\)$/;
    const dynamicRef = refspecs.find((r) => isDynamic(r) && !current.test(r));
    if (dynamicRef !== undefined) return `git push ${dynamicRef} pushes to a branch named at run time, which may be protected (${list}); name the branch`;
    const targets = refspecs.map((r) => (current.test(r) ? (currentBranch(dir) ?? "") : r.includes(":") ? r.slice(r.indexOf(":") + 1) : r));
    if (refspecs.length === 0 && !flags.some((f) => f === "--tags" || f === "--delete" || f === "-d")) targets.push(currentBranch(dir) ?? "");
    const hit = targets.find((t) => isProtected(t) || (t === "HEAD" && isProtected(currentBranch(dir))));
    if (hit !== undefined) return `a direct push to ${hit === "HEAD" ? currentBranch(dir) : short(hit)} is refused (protected: ${list}); push a branch and open a pull request`;
    return undefined;
  }
  if (sub === "branch") {
    const letters = shortLetters(rest);
    const deletes = /[dD]/.test(letters) || rest.some((a) => longOption(a, "--delete", 5));
    const named = rest.filter((a) => !a.startsWith("-")).find((b) => isProtected(b));
    if (deletes && named !== undefined) return `deleting the protected branch ${named} is refused (protected: ${list})`;
    const moves = /[fMmCc]/.test(letters) || rest.some((a) => longOption(a, "--force", 5) || longOption(a, "--move", 4) || longOption(a, "--copy", 5));
    if (moves && named !== undefined) return `moving or overwriting the protected branch ${named} is refused (protected: ${list})`;
    return undefined;
  }
  // `git update-ref [-d] refs/heads/main …` moves or deletes the branch without a commit.
  if (sub === "update-ref") {
    const named = rest.filter((a) => !a.startsWith("-")).find((ref) => ref.startsWith("refs/heads/") && isProtected(ref));
    if (named !== undefined) return `git update-ref on the protected branch ${short(named)} moves or deletes it (protected: ${list}); commit on a branch of your own`;
    return undefined;
  }
  // `git checkout -B main` / `git switch -C main` reset the branch to another commit.
  if ((sub === "checkout" || sub === "switch") && rest.some((a) => a === "-B" || a === "-C" || longOption(a, "--force-create", 9))) {
    const at = rest.findIndex((a) => a === "-B" || a === "-C" || longOption(a, "--force-create", 9));
    const option = rest[at] ?? "";
    const named = option.includes("=") ? option.slice(option.indexOf("=") + 1) : rest[at + 1];
    if (isProtected(named)) return `git ${sub} ${option} ${named} resets the protected branch ${named} (protected: ${list}); make a branch of your own`;
  }
  if (sub === "reset" && rest.some((a) => longOption(a, "--hard", 4))) {
    const branch = currentBranch(dir);
    if (isProtected(branch)) return `git reset --hard on the protected branch ${branch} throws commits and work away; reset a branch of your own instead`;
  }
  return undefined;
}
