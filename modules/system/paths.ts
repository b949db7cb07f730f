// Where Tama's files live. One module owns the layout (DESIGN.md "Install layout").
import os from "node:os";
import path from "node:path";

/** An environment value, refused by name when it is not text (it held bytes that are not UTF-8). */
export function readEnvText(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const value = env[name];
  if (value === undefined) return undefined;
  // Node decodes the environment as UTF-8 and puts U+FFFD where bytes were not text.
  if (value.includes("\uFFFD")) {
    throw new EnvError(name, "the value is not valid UTF-8 text");
  }
  return value;
}

export class EnvError extends Error {
  constructor(
    readonly variable: string,
    why: string,
  ) {
    super(`${variable} cannot be read: ${why}`);
  }
}

/** os.tmpdir(), kept while TMPDIR, TMP and TEMP stay as they were: in Node it costs ~18 µs a call, and a shell walk asks for it per script. */
let tempKept: { key: string; dir: string } | undefined;
export function tempDir(): string {
  const env = process.env;
  const key = `${env.TMPDIR}\u0000${env.TMP}\u0000${env.TEMP}`;
  if (tempKept?.key !== key) tempKept = { key, dir: os.tmpdir() };
  return tempKept.dir;
}

export function tamaHome(env: NodeJS.ProcessEnv = process.env): string {
  const configured = readEnvText("TAMA_HOME", env);
  return path.resolve(configured && configured.length > 0 ? configured : path.join(os.homedir(), ".tama"));
}

export interface TamaPaths {
  home: string;
  registry: string;
  runtimeDir: string;
  releasesDir: string;
  current: string;
  sharedHooks: string;
  adapter: string;
  sessions: string;
  logs: string;
  /** Records of hooks each engine process is running, read after the engine is gone. */
  running: string;
  /** What each engine answered, one line per dispatch (`tama ui` reads it). */
  activity: string;
}

export function tamaPaths(env: NodeJS.ProcessEnv = process.env): TamaPaths {
  const home = tamaHome(env);
  const runtimeDir = path.join(home, "hooks-runtime");
  const registryOverride = readEnvText("TAMA_REGISTRY", env);
  return {
    home,
    registry: registryOverride ? path.resolve(registryOverride) : path.join(home, "hooks", "registry.json"),
    runtimeDir,
    releasesDir: path.join(runtimeDir, "releases"),
    current: path.join(runtimeDir, "current"),
    sharedHooks: path.join(home, "shared-hooks", "omp"),
    adapter: path.join(home, "shared-hooks", "omp", "adapter.js"),
    sessions: path.join(home, "sessions"),
    logs: path.join(home, "logs"),
    running: path.join(home, "sessions", "running"),
    activity: path.join(home, "activity"),
  };
}

/** A file name made of any text: what cannot be in one is `_`. */
function fileComponent(value: string): string {
  const name = value.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 200);
  return /^[A-Za-z0-9]/.test(name) ? name : `_${name}`;
}

/**
 * Where a session's SessionStart hooks write variables for its later bash calls
 * (Claude Code's CLAUDE_ENV_FILE), one file per hook, under Tama's own (protected) home.
 */
export function claudeEnvDir(home: string, session: string): string {
  return path.join(home, "sessions", "env", fileComponent(session));
}

export function claudeEnvFile(home: string, session: string, hookId: string): string {
  return path.join(claudeEnvDir(home, session), `sessionstart-${fileComponent(hookId)}.sh`);
}

/** Whether a string can be a file name on its own (no separators, no dot names, bounded). */
export function isSafeFileComponent(value: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$/.test(value) && value !== "." && value !== "..";
}

/**
 * OMP's agent dir, as OMP resolves it: `agentDir`, else PI_CODING_AGENT_DIR, else the
 * profile's (`profile`, OMP_PROFILE, PI_PROFILE), else ~/.omp/agent.
 */
export function ompAgentDir(options: { agentDir?: string; profile?: string } = {}, env: NodeJS.ProcessEnv = process.env): string {
  if (options.agentDir) return path.resolve(options.agentDir);
  if (env.PI_CODING_AGENT_DIR) return path.resolve(env.PI_CODING_AGENT_DIR);
  const home = env.HOME || os.homedir();
  const root = path.join(home, env.PI_CONFIG_DIR || ".omp");
  const profile = options.profile ?? env.OMP_PROFILE ?? env.PI_PROFILE;
  return profile ? path.join(root, "profiles", profile, "agent") : path.join(root, "agent");
}
