// Each enabled command hook's programs, checked the way the engine will run them:
// `env NAME=value` words join the hook's environment; for `sh -c SCRIPT` every
// command of the script is read (quotes, `&&`, pipes, `$( )`), its first word
// expanded with that environment (`$HOME`, `${VAR}`, `~`, `$CLAUDE_PROJECT_DIR`);
// relative paths resolve against the project (a hook's cwd is the event's cwd);
// bare names are looked up on PATH; an interpreter (`python3 x.py`, `uv run x.py`,
// `node x.js`) is looked up and so is the script it is given.
import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";
import { parseShell } from "../../gates/shell-words.ts";
import type { HookEntry, RegistryFile } from "../../registry/registry.ts";
import { resolveProgram } from "../../system/command-path.ts";
import { error, ok, warning, type Check } from "./check.ts";

const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh"]);
/** Words a shell runs itself: nothing to find on disk. */
const BUILTINS = new Set([
  ".", ":", "[", "[[", "alias", "break", "cd", "command", "continue", "echo", "eval", "exec", "exit", "export", "false", "printf", "pwd",
  "read", "return", "set", "shift", "source", "test", "trap", "true", "type", "ulimit", "umask", "unset", "wait", "local", "declare",
]);
/** Interpreters whose first non-option argument is a script file. */
const INTERPRETERS = new Set(["python", "python2", "python3", "node", "ruby", "perl", "php", "bun", "deno", "tsx", "ts-node"]);
/** Runners whose script follows a `run` subcommand: `uv run x.py`, `deno run x.ts`, `bun run x.ts`. */
const RUNNERS = new Set(["uv", "deno", "bun"]);

interface Problem {
  program: string;
  why: string;
  /** Could not be checked (an unset variable, a substitution): said, not counted as missing. */
  unchecked?: boolean;
}

export interface HookProgramOptions {
  env: NodeJS.ProcessEnv;
  /** Where a hook's relative paths resolve: the project a session runs in. */
  project: string;
}

export function checkHookPrograms(registry: RegistryFile, options: HookProgramOptions): Check[] {
  const hooks = registry.hooks.filter((h) => h.enabled && h.command !== undefined);
  const checks: Check[] = [];
  for (const hook of hooks) {
    const problems = hookProblems(hook, options);
    const missing = problems.filter((p) => !p.unchecked);
    const id = `command:${hook.id}`;
    if (missing.length > 0) {
      const why = missing.map((p) => p.why).join("; ");
      const fix = `install ${missing.map((p) => p.program).join(", ")} (on OMP's PATH, which may differ from this shell's), fix the command, or tama hooks disable ${hook.id}`;
      if (hook.failMode === "closed") checks.push(error(id, `${hook.id}: ${why}; its failMode is closed, so every call it matches is refused`, fix));
      else checks.push(warning(id, `${hook.id}: ${why}; it fails open, so it never gives a verdict`, fix));
    } else if (problems.length > 0) {
      checks.push(
        warning(id, `${hook.id}: ${problems.map((p) => p.why).join("; ")}`, `make sure it is set in OMP's environment, or write the path out in the hook's command`),
      );
    }
  }
  if (checks.length === 0) checks.push(ok("commands", hooks.length === 0 ? "no command hooks enabled" : `${hooks.length} hook commands can start`));
  return checks;
}

function hookProblems(hook: HookEntry, options: HookProgramOptions): Problem[] {
  let argv = [...(hook.command ?? [])];
  // What the engine gives every hook, so a script may name them.
  const env: NodeJS.ProcessEnv = { TAMA_HOOK_ID: hook.id, ...options.env };
  if (argv[0] !== undefined && path.basename(argv[0]) === "env") {
    const envProgram = findProgram(argv[0], env, options.project);
    if (envProgram) return [envProgram];
    argv = argv.slice(1);
    while (argv[0] !== undefined && /^[A-Za-z_][A-Za-z0-9_]*=/.test(argv[0])) {
      const [name, ...value] = argv[0].split("=");
      env[name!] = value.join("=");
      argv = argv.slice(1);
    }
  }
  // The engine sets CLAUDE_PROJECT_DIR to the session's cwd when OMP's environment has none.
  env.CLAUDE_PROJECT_DIR ??= options.project;
  const program = argv[0];
  if (program === undefined) return [];
  const c = argv.indexOf("-c");
  if (SHELLS.has(path.basename(program)) && c > 0 && argv[c + 1] !== undefined) {
    const shell = findProgram(program, env, options.project);
    return shell ? [shell] : scriptProblems(argv[c + 1]!, env, options.project);
  }
  return commandProblems(argv, env, options.project);
}

/** Every command of a shell script, with `cd DIR` moving where later relative paths resolve. */
function scriptProblems(script: string, env: NodeJS.ProcessEnv, project: string): Problem[] {
  let commands;
  try {
    commands = parseShell(script);
  } catch (e) {
    return [{ program: script, why: `its script cannot be read as shell: ${(e as Error).message}`, unchecked: true }];
  }
  const problems: Problem[] = [];
  let cwd = project;
  for (const command of commands) {
    const local = { ...env };
    for (const assignment of command.assignments) {
      const value = expand(assignment.value, local);
      if (value.ok) local[assignment.name] = value.text;
    }
    const [first, ...args] = command.argv;
    if (first === undefined) continue;
    if (first === "cd") {
      const target = args[0] === undefined ? expand("~", local) : expand(args[0], local);
      cwd = target.ok ? path.resolve(cwd, target.text) : cwd;
      continue;
    }
    const words: string[] = [];
    let unexpanded: string | undefined;
    for (const word of command.argv) {
      const value = expand(word, local);
      if (!value.ok) {
        unexpanded = value.why;
        break;
      }
      words.push(value.text);
    }
    if (unexpanded !== undefined) {
      // Only the program itself matters: a later word may be a substitution.
      if (words.length === 0) problems.push({ program: first, why: `${first} cannot be checked: ${unexpanded}`, unchecked: true });
      else problems.push(...commandProblems(words, local, cwd));
      continue;
    }
    problems.push(...commandProblems(words, local, cwd));
  }
  return problems;
}

/** A program and, for an interpreter, the script it runs. */
function commandProblems(argv: string[], env: NodeJS.ProcessEnv, cwd: string): Problem[] {
  const [program, ...args] = argv;
  if (program === undefined || BUILTINS.has(program)) return [];
  const missing = findProgram(program, env, cwd);
  if (missing) return [missing];
  const name = path.basename(program);
  let rest = args;
  if (RUNNERS.has(name) && rest[0] === "run") rest = rest.slice(1);
  else if (!INTERPRETERS.has(name) && !SHELLS.has(name)) return [];
  // Options of the runner or interpreter come first (`uv run --with x`, `python3 -u`); a -c/-e takes code, not a file.
  let index = 0;
  while (index < rest.length && rest[index]!.startsWith("-")) {
    if (["-c", "-e", "-m", "--eval", "-p"].includes(rest[index]!)) return [];
    // Options with a value: `uv run --with pkg`, `--project DIR`.
    index += /^--(with|project|python|directory|from|env-file)$/.test(rest[index]!) ? 2 : 1;
  }
  const script = rest[index];
  if (script === undefined) return [];
  // `uv run pytest` runs a tool from the project's environment; only a file name can be checked.
  if (RUNNERS.has(name) && !/\.(py|ts|js|mjs|cjs|tsx|jsx)$/.test(script) && !script.includes("/")) return [];
  const file = path.resolve(cwd, script);
  try {
    if (!statSync(file).isFile()) return [{ program: script, why: `${file} (the script ${name} runs) is not a file` }];
    accessSync(file, constants.R_OK);
    return [];
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return [{ program: file, why: code === "ENOENT" ? `${file} (the script ${name} runs) does not exist` : `${file}: ${(e as Error).message}` }];
  }
}

/** undefined when the program can start from `cwd` with `env`'s PATH. */
function findProgram(program: string, env: NodeJS.ProcessEnv, cwd: string): Problem | undefined {
  const absolute = program.includes("/") && !path.isAbsolute(program) ? path.resolve(cwd, program) : program;
  const found = resolveProgram(absolute, env);
  if (found.ok) return undefined;
  const relative = absolute !== program ? ` (${program} from ${cwd})` : "";
  return { program: absolute, why: `${found.why}${relative}` };
}

type Expanded = { ok: true; text: string } | { ok: false; why: string };

/** `~`, `$NAME`, `${NAME}` and `${NAME:-default}` with `env`; anything else is not guessed at. */
export function expand(word: string, env: NodeJS.ProcessEnv): Expanded {
  if (/\$\(|`/.test(word)) return { ok: false, why: "it is a command substitution" };
  let text = word;
  if (text === "~" || text.startsWith("~/")) {
    if (!env.HOME) return { ok: false, why: "~ needs HOME, which is not set" };
    text = `${env.HOME}${text.slice(1)}`;
  }
  let missing: string | undefined;
  text = text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(:?-([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_all, braced: string | undefined, hasDefault: string | undefined, fallback: string | undefined, bare: string | undefined) => {
    const name = (braced ?? bare)!;
    const value = env[name];
    if (value !== undefined && value !== "") return value;
    if (hasDefault !== undefined) return fallback ?? "";
    missing ??= name;
    return "";
  });
  if (missing !== undefined) return { ok: false, why: `$${missing} is not set in this environment` };
  if (/\$[{A-Za-z_]/.test(text)) return { ok: false, why: "it uses a shell expansion the doctor does not evaluate" };
  return { ok: true, text };
}
