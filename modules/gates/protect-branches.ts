// protect-branches: refuses history rewrites and direct pushes on the branches a team
// protects (`options.branches`, default main and master): `git push --force`,
// `--force-with-lease`, a `+ref` refspec, a push to a protected branch (named, or the
// current branch by a bare `git push`), `git branch -D` of one, `git reset --hard`
// while on one. `git -C`, `-c` and the wrappers the git gate reads are read too.
import { readFileSync } from "node:fs";
import path from "node:path";
import * as z from "../protocol/schema.ts";
import type { HookInput } from "../protocol/hook-input.ts";
import { projectRoot } from "./paths.ts";
import { walkCall, type RunCommand } from "./shell-walk.ts";
import { gateWithOptions, type GateVerdict } from "./types.ts";

const Options = z.strictObject({ branches: z._default(z.array(z.string().check(z.minLength(1))), ["main", "master"]) });
type Options = z.infer<typeof Options>;

export const protectBranches = gateWithOptions<Options>({
  id: "protect-branches",
  description: "Refuses force pushes, direct pushes to protected branches (main, master), deleting them, and reset --hard on them.",
  events: ["pre_tool_use"],
  tools: "shell",
  onByDefault: true,
  options: { help: "branches: the protected branch names", example: { branches: ["main", "release"] } },
  schema: Options,
  evaluate(input: HookInput, _context, options): GateVerdict {
    const reason = walkCall(input, (run) => (run.program === "git" ? gitProblem(run, input.cwd, options) : undefined));
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
    const pointer = readFileSync(gitDir, "utf8").match(/^gitdir: (.+)$/m);
    if (pointer?.[1]) gitDir = path.resolve(root, pointer[1].trim());
    return readFileSync(path.join(gitDir, "HEAD"), "utf8").match(/^ref: refs\/heads\/(.+)$/m)?.[1]?.trim();
  } catch (error) {
    // `.git` is a directory (EISDIR above): read HEAD inside it.
    if ((error as NodeJS.ErrnoException).code !== "EISDIR") return undefined;
    try {
      return readFileSync(path.join(root, ".git", "HEAD"), "utf8").match(/^ref: refs\/heads\/(.+)$/m)?.[1]?.trim();
    } catch {
      return undefined;
    }
  }
}

const short = (ref: string): string => ref.replace(/^refs\/heads\//, "");

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
    if (flags.some((f) => f === "--force" || f === "-f" || f.startsWith("--force-with-lease") || (/^-[a-z]+$/.test(f) && f.includes("f")))) {
      return `git push --force rewrites history others have pulled; push a new commit instead (protected: ${list})`;
    }
    const operands = rest.filter((a) => !a.startsWith("-"));
    const refspecs = operands.slice(1);
    if (refspecs.some((r) => r.startsWith("+"))) return `git push ${refspecs.find((r) => r.startsWith("+"))} force-pushes; push a new commit instead`;
    const targets = refspecs.map((r) => (r.includes(":") ? r.slice(r.indexOf(":") + 1) : r));
    if (refspecs.length === 0 && !flags.some((f) => f === "--tags" || f === "--delete" || f === "-d")) targets.push(currentBranch(dir) ?? "");
    const hit = targets.find((t) => isProtected(t) || (t === "HEAD" && isProtected(currentBranch(dir))));
    if (hit !== undefined) return `a direct push to ${hit === "HEAD" ? currentBranch(dir) : short(hit)} is refused (protected: ${list}); push a branch and open a pull request`;
    return undefined;
  }
  if (sub === "branch") {
    const force = rest.some((a) => a === "-D" || (a === "--force" && rest.some((b) => b === "-d" || b === "--delete")) || /^-[a-zA-Z]*D/.test(a));
    const deletes = force || rest.some((a) => a === "-d" || a === "--delete");
    const named = rest.filter((a) => !a.startsWith("-")).find((b) => isProtected(b));
    if (deletes && named !== undefined) return `deleting the protected branch ${named} is refused (protected: ${list})`;
    const moves = rest.some((a) => a === "-f" || a === "--force" || a === "-M" || a === "-m" || a === "-C");
    if (moves && named !== undefined) return `moving or overwriting the protected branch ${named} is refused (protected: ${list})`;
    return undefined;
  }
  if (sub === "reset" && rest.includes("--hard")) {
    const branch = currentBranch(dir);
    if (isProtected(branch)) return `git reset --hard on the protected branch ${branch} throws commits and work away; reset a branch of your own instead`;
  }
  return undefined;
}
