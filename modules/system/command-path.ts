// Whether a hook's command can start: its program absolute and executable, or found
// on PATH. The engine spawns argv[0] without a shell, so this is the same lookup.
import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";

export type Resolution =
  | { ok: true; program: string; path: string }
  /** `relative`: the program is a relative path, resolved against each event's cwd. */
  | { ok: false; program: string; why: string; relative?: boolean };

function executable(file: string): string | undefined {
  try {
    if (!statSync(file).isFile()) return `${file} is not a file`;
    accessSync(file, constants.X_OK);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return `${file} does not exist`;
    if (code === "EACCES") return `${file} is not executable (chmod +x ${file})`;
    return `${file}: ${(error as Error).message}`;
  }
}

export function resolveProgram(program: string, env: NodeJS.ProcessEnv = process.env): Resolution {
  if (program.includes("/")) {
    if (!path.isAbsolute(program)) {
      return { ok: false, program, relative: true, why: `${program} is a relative path: it is looked up from each event's cwd` };
    }
    const why = executable(program);
    return why === undefined ? { ok: true, program, path: program } : { ok: false, program, why };
  }
  for (const dir of (env.PATH ?? "").split(path.delimiter)) {
    // An empty PATH entry means the cwd, which differs per event: not counted.
    if (dir === "") continue;
    const candidate = path.join(dir, program);
    if (executable(candidate) === undefined) return { ok: true, program, path: candidate };
  }
  return { ok: false, program, why: env.PATH ? `${program} is not on PATH` : `${program} cannot be found: PATH is not set` };
}

const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh"]);

/**
 * The programs a command needs: argv[0], past `env` and its VAR=value words, and
 * for `sh -c SCRIPT` the script's first word when it is a literal absolute path
 * (an imported Claude Code hook is usually `sh -c "/path/to/hook.sh"`).
 */
export function programsOf(argv: readonly string[]): string[] {
  let rest = [...argv];
  if (rest[0] !== undefined && path.basename(rest[0]) === "env") {
    rest = rest.slice(1);
    while (rest[0] !== undefined && /^[A-Za-z_][A-Za-z0-9_]*=/.test(rest[0])) rest = rest.slice(1);
  }
  const program = rest[0];
  if (program === undefined) return [];
  const programs = [program];
  const c = rest.indexOf("-c");
  const script = c > 0 ? rest[c + 1] : undefined;
  if (SHELLS.has(path.basename(program)) && script !== undefined) {
    const first = /^\s*(\/[^\s;&|<>()$`'"\\]+)(\s|$)/.exec(script);
    if (first?.[1] !== undefined) programs.push(first[1]);
  }
  return programs;
}
