// Running the built CLI (dist/bin/tama.js) as a real process, with a test's TAMA_HOME.
import { spawn, spawnSync } from "node:child_process";
import { TAMA_BIN, type TestHome } from "../support/engine-client.ts";

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: NodeJS.ProcessEnv;
  input?: string;
  cwd?: string;
}

/** The environment of a CLI run: the test's TAMA_HOME, no overrides leaking in from the runner. */
export function cliEnv(home: TestHome, env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env, TAMA_HOME: home.home };
  for (const name of ["TAMA_REGISTRY", "TAMA_ONLY_HOOK_ID", "TAMA_DISABLED_HOOKS", "TAMA_ENABLED_HOOKS", "PI_CODING_AGENT_DIR", "OMP_PROFILE", "PI_PROFILE"]) {
    delete base[name];
  }
  return { ...base, ...env };
}

export function tama(home: TestHome, args: string[], options: CliOptions = {}): CliRun {
  const r = spawnSync(process.execPath, [TAMA_BIN, ...args], {
    env: cliEnv(home, options.env),
    input: options.input ?? "",
    cwd: options.cwd ?? home.dir,
    encoding: "utf8",
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The same, without blocking: for runs side by side. */
export function tamaAsync(home: TestHome, args: string[], options: CliOptions = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [TAMA_BIN, ...args], { env: cliEnv(home, options.env), cwd: options.cwd ?? home.dir });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.stdin.end(options.input ?? "");
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Parse a run's stdout as JSON, failing the test with its stderr when it is not. */
export function json<T = Record<string, unknown>>(run: CliRun): T {
  try {
    return JSON.parse(run.stdout) as T;
  } catch {
    throw new Error(`not JSON (exit ${run.code}): ${run.stdout}\nstderr: ${run.stderr}`);
  }
}
