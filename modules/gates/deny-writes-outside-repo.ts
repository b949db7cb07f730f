// deny-writes-outside-repo: refuses changing files outside the session's project —
// the write/edit/patch tools' targets (one hook input per file a patch touches, as the
// engine shapes them), files code execution writes through a literal path, and the
// targets of shell writers (`>`, `tee`, `cp`, `mv`, `rm`, `sed -i`, `ln`, …) read
// through every wrapper. Symlinks are resolved, so a link inside the project that
// points out of it is outside. `options.allow` names other places that are fine;
// the system's temporary directory is allowed unless `options.allowTemp` is false, and
// so is the session's own `local://` space.
import os from "node:os";
import { tempDir } from "../system/paths.ts";
import * as z from "../protocol/schema.ts";
import type { HookInput } from "../protocol/hook-input.ts";
import { callKind } from "../tools/declaration.ts";
import { localRootOf } from "../tools/tool-paths.ts";
import path from "node:path";
import { isAllowed, isInside, ompAddress, projectRoot, realPath, sessionCwdOf, throughLinks, wordPath } from "./paths.ts";
import { globalInstall } from "./global-installs.ts";
import { codeWriteTargets, commandTargets, isDynamic, walkCall } from "./shell-walk.ts";
import { gateWithOptions, type GateVerdict } from "./types.ts";

const Options = z.strictObject({
  allow: z._default(z.array(z.string().check(z.minLength(1))), []),
  allowTemp: z._default(z.boolean(), true),
});
type Options = z.infer<typeof Options>;

/** Device files every program writes to; writing them changes no file. */
const DEVICES = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"]);

/** macOS's `/tmp` beside the per-user TMPDIR it sets (`/var/folders/…`), as real paths; elsewhere TMPDIR is the temporary directory. */
const SYSTEM_TEMP = (): string[] => (process.platform === "darwin" ? ["/tmp", "/var/tmp"].map((dir) => realPath(dir)) : []);

/** OMP's `local://` files: the session's own scratch space, never the person's files. */
function sessionLocal(input: HookInput): string | undefined {
  const root = localRootOf(typeof input.transcript_path === "string" ? input.transcript_path : undefined, input.session_id);
  return root === undefined ? undefined : realPath(root);
}

function outside(word: string, cwd: string, env: ReadonlyMap<string, string>, options: Options, local: () => string | undefined, links?: ReadonlyMap<string, string>, sessionCwd = cwd): string | undefined {
  if (DEVICES.has(word) || /^\/dev\/fd\/\d+$/.test(word) || word.startsWith("&")) return undefined;
  const address = ompAddress(word);
  if (address !== undefined) return `${word}, an OMP ${address}:// address that is not a place in the project`;
  // The session's own scratch space (what the write tools resolve it to is checked as a path).
  if (/^local:\/\//i.test(word)) return undefined;
  // The project is the session's, wherever a `cd` took the command.
  const root = realPath(projectRoot(sessionCwd));
  const target = realPath(throughLinks(wordPath(word, cwd, env, links), links));
  if (isInside(root, target)) return undefined;
  const scratch = local();
  if (scratch !== undefined && isInside(scratch, target)) return undefined;
  // The temporary directory: TMPDIR's, and on macOS the system's own beside it (though not a home that lies in it).
  if (options.allowTemp && isInside(realPath(tempDir()), target)) return undefined;
  if (options.allowTemp && SYSTEM_TEMP().some((dir) => isInside(dir, target)) && !isInside(realPath(env.get("HOME") ?? os.homedir()), target)) return undefined;
  if (isAllowed(target, options.allow, cwd)) return undefined;
  return `${target} is outside the project ${root}`;
}

export const denyWritesOutsideRepo = gateWithOptions<Options>({
  id: "deny-writes-outside-repo",
  description: "Refuses writes, edits, patches, code and shell writers that change files outside the session's project.",
  events: ["pre_tool_use"],
  memoryless: true,
  tools: "any",
  onByDefault: true,
  options: { help: "allow: other paths writes may change; allowTemp: allow the temporary directory (default true)", example: { allow: ["~/notes"], allowTemp: false } },
  schema: Options,
  evaluate(input: HookInput, _context, options): GateVerdict {
    const instead = "change files inside the project, or add the place to this gate's options.allow from your own terminal";
    const toolName = input.tool_name ?? input.omp?.tool_name ?? "";
    const kind = input.omp?.kind ?? callKind(toolName, input.tool_input);
    const file = (input.tool_input as Record<string, unknown> | undefined)?.file_path;
    let scratch: { root: string | undefined } | undefined;
    // Resolved on first need (a realpath): most calls write nothing.
    const local = (): string | undefined => (scratch ??= { root: sessionLocal(input) }).root;
    if (kind === "write" || (typeof file === "string" && /^(Write|Edit|MultiEdit|NotebookEdit)$/.test(toolName))) {
      if (typeof file === "string") {
        const problem = outside(file, input.cwd, new Map(), options, local, undefined, sessionCwdOf(input));
        if (problem !== undefined) return { decision: "block", reason: `${toolName} would change ${problem}; ${instead}` };
      }
      return { decision: "pass" };
    }
    const reason = walkCall(input, (run) => {
      const cwd = run.scope.cwd ?? input.cwd;
      // `npm i -g`, `pip install --user`, `go install`: programs put on PATH, outside the project.
      const install = globalInstall(run.argv, run.env);
      if (install !== undefined) {
        const into = install.into === undefined ? undefined : outside(install.into, cwd, run.env, options, local, run.scope.links, sessionCwdOf(input));
        if (install.into === undefined || into !== undefined) {
          return `${install.how} installs outside the project, into ${into ?? install.place}, where a program it puts on PATH runs in later calls in place of the one Tama reads by that name; install into the project (a local dependency, a virtualenv, a --prefix or --root inside it), or ask the person to install it`;
        }
      }
      for (const target of commandTargets(run, codeWriteTargets(run))) {
        // A place built at run time (`> "$OUT"` with OUT unknown, `cd $(…)` then a relative name) is not guessed at.
        const unknown = isDynamic(target.word) ? target.word : run.scope.unknownCwd !== undefined && !path.isAbsolute(target.word) && !/^~/.test(target.word) && !DEVICES.has(target.word) && !target.word.startsWith("&") ? `${target.word} after \`cd ${run.scope.unknownCwd}\`` : undefined;
        if (unknown !== undefined) return `${run.program ?? "the command"} ${target.effect} ${unknown}, a path built at run time that may be outside the project; write the path out, or ${instead}`;
        const problem = outside(target.word, cwd, run.env, options, local, run.scope.links, sessionCwdOf(input));
        if (problem !== undefined) return `${run.program ?? "the command"} ${target.effect} ${problem}; ${instead}`;
      }
      return undefined;
    });
    return reason === undefined ? { decision: "pass" } : { decision: "block", reason };
  },
});
