// The packed tarball installed the three ways a user installs it — `npm i -g` then
// `tama install --omp`, `npx <tarball> install --omp`, and `omp plugin install` — each
// in a fresh HOME, then a real OMP session (scripted model) where the built-in gate
// refuses `git commit --no-verify`.
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useOmpFixture } from "../omp/fixture.ts";
import type { OmpEnv } from "../omp/omp-env.ts";
import { PROJECT_ROOT } from "../omp/omp-env.ts";
import type { RpcSession } from "../omp/rpc-session.ts";
import { processesMentioning } from "../support/engine-client.ts";

const omp = useOmpFixture();
let packDir = "";
let tarball = "";

beforeAll(() => {
  packDir = mkdtempSync(path.join(tmpdir(), "tama-pack-"));
  // --ignore-scripts: the suite already built dist/; prepack would rebuild it under running tests.
  const packed = spawnSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", packDir], { cwd: PROJECT_ROOT, encoding: "utf8" });
  if (packed.status !== 0) throw new Error(`npm pack failed: ${packed.stderr}`);
  const [info] = JSON.parse(packed.stdout) as { filename: string }[];
  tarball = path.join(packDir, info!.filename);
}, 120_000);

afterAll(() => {
  if (packDir) rmSync(packDir, { recursive: true, force: true });
});

/** npm with its cache, prefix and config inside the test's sandbox, never the user's. */
function npmEnv(env: OmpEnv): Record<string, string> {
  return {
    ...env.env,
    npm_config_cache: path.join(env.root, "npm-cache"),
    npm_config_prefix: path.join(env.root, "npm-global"),
    npm_config_userconfig: path.join(env.root, "npmrc"),
    npm_config_update_notifier: "false",
    npm_config_fund: "false",
    npm_config_audit: "false",
  };
}

function run(command: string, args: string[], env: Record<string, string>, cwd: string): SpawnSyncReturns<string> {
  const result = spawnSync(command, args, { env, cwd, encoding: "utf8", timeout: 180_000 });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} exited ${result.status}: ${result.stderr}\n${result.stdout}`);
  return result;
}

function toolMessages(body: Record<string, unknown>): string {
  const messages = (body.messages ?? []) as { role: string; content: unknown }[];
  return messages
    .filter((m) => m.role === "tool")
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
    .join("\n");
}

/** A session in which `git commit --no-verify` is refused by Tama's built-in gate. */
async function expectWorkingGate(session: RpcSession, requests: { body: unknown }[]): Promise<void> {
  await session.ready();
  const before = requests.length;
  await session.prompt('CALL bash {"command":"git commit --no-verify -m x"}');
  const next = requests[before + 1];
  expect(next, `no second model request; OMP stderr:\n${session.stderr}`).toBeDefined();
  expect(toolMessages(next!.body as Record<string, unknown>)).toMatch(/git commit --no-verify skips the repository's/);
}

describe("the packed tarball", () => {
  it("npm i -g, then tama install --omp: tama is on PATH and gates OMP", async () => {
    const { server, env } = await omp.setup();
    const npm = npmEnv(env);
    run("npm", ["install", "--global", "--prefer-offline", tarball], npm, env.cwd);
    const bin = path.join(npm.npm_config_prefix!, "bin");
    env.env.PATH = `${bin}${path.delimiter}${env.env.PATH}`;
    expect(run("tama", ["--version"], env.env, env.cwd).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    run("tama", ["install", "--omp"], env.env, env.cwd);
    // The default TAMA_HOME under the fresh HOME, and the shell where OMP loads user extensions.
    expect(existsSync(path.join(env.home, ".tama", "hooks", "registry.json"))).toBe(true);
    expect(existsSync(path.join(env.agentDir, "extensions", "omp-shared-hooks.js"))).toBe(true);
    await expectWorkingGate(omp.rpc(), server.requests);
  });

  it("npx <tarball> install --omp gates OMP", async () => {
    const { server, env } = await omp.setup();
    // npx runs a spec that looks like a path to a file (`./…`) as a package; an absolute path it would run as a program.
    run("npx", ["--yes", `./${path.basename(tarball)}`, "install", "--omp"], npmEnv(env), packDir);
    expect(existsSync(path.join(env.agentDir, "extensions", "omp-shared-hooks.js"))).toBe(true);
    await expectWorkingGate(omp.rpc(), server.requests);
  });

  it("omp plugin install <unpacked tarball> gates OMP with no further step; omp plugin uninstall leaves nothing running", async () => {
    const { server, env } = await omp.setup();
    const unpacked = path.join(env.root, "unpacked");
    mkdirSync(unpacked);
    run("tar", ["-xzf", tarball, "-C", unpacked], env.env, env.cwd);
    run("omp", ["plugin", "install", path.join(unpacked, "package")], env.env, env.cwd);
    // Nothing is in OMP's extensions dir: the plugin is the shell.
    expect(existsSync(path.join(env.agentDir, "extensions", "omp-shared-hooks.js"))).toBe(false);
    const session = omp.rpc();
    await expectWorkingGate(session, server.requests);
    // The first load laid down what tama install does, under the default TAMA_HOME.
    expect(existsSync(path.join(env.home, ".tama", "hooks-runtime", "current", "bin", "tama"))).toBe(true);
    await session.close();
    run("omp", ["plugin", "uninstall", "tama-hooks"], env.env, env.cwd);
    expect(processesMentioning(env.root)).toEqual([]);
    // A new session loads no Tama: the same call is not refused.
    const after = omp.rpc();
    await after.ready();
    const before = server.requests.length;
    await after.prompt('CALL bash {"command":"git commit --no-verify -m x"}');
    expect(toolMessages(server.requests[before + 1]!.body as Record<string, unknown>)).not.toMatch(/skips the repository's/);
  });
});
