// Tama installed into an isolated OMP: `tama install --omp` with the test env's
// TAMA_HOME and agent dir, so OMP discovers the shell like a user's would.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { TAMA_BIN } from "../support/engine-client.ts";
import type { OmpEnv } from "../omp/omp-env.ts";

export interface TamaInstall {
  home: string;
  registry: string;
  adapter: string;
  /** Run the tama CLI against this install. */
  cli(args: string[], input?: string): { code: number | null; stdout: string; stderr: string };
  /**
   * Install another adapter as `tama install` of a build carrying it would: the file
   * and the digest the installed release records for it.
   */
  installAdapter(source: string | Buffer): void;
  /** Replace the registry (atomically). */
  writeRegistry(registry: unknown): void;
  readRegistry(): { hooks: Record<string, unknown>[] } & Record<string, unknown>;
  /** Append hooks to the installed registry (its checksum dropped, so the edit loads). */
  addHooks(...hooks: Record<string, unknown>[]): void;
}

export function installTama(env: OmpEnv, extraEnv: Record<string, string> = {}): TamaInstall {
  const home = path.join(env.root, "tama");
  env.env.TAMA_HOME = home;
  Object.assign(env.env, extraEnv);
  const cli = (args: string[], input?: string) => {
    const r = spawnSync(process.execPath, [TAMA_BIN, ...args], {
      env: { ...process.env, ...env.env, TAMA_HOME: home },
      input: input ?? "",
      encoding: "utf8",
    });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const installed = cli(["install", "--omp", "--json"]);
  if (installed.code !== 0) throw new Error(`tama install failed: ${installed.stderr}`);
  const report = JSON.parse(installed.stdout) as { registry: { path: string }; adapterPath: string };
  const install: TamaInstall = {
    home,
    registry: report.registry.path,
    adapter: report.adapterPath,
    cli,
    installAdapter(source) {
      const record = path.join(home, "hooks-runtime", "current", "release.json");
      const bytes = Buffer.from(source);
      const current = JSON.parse(readFileSync(record, "utf8")) as Record<string, unknown>;
      writeFileSync(record, `${JSON.stringify({ ...current, adapterDigest: createHash("sha256").update(bytes).digest("hex") }, null, 2)}\n`);
      writeFileSync(report.adapterPath, bytes);
    },
    writeRegistry(registry) {
      const temp = `${report.registry.path}.tmp`;
      writeFileSync(temp, typeof registry === "string" ? registry : JSON.stringify(registry, null, 2));
      spawnSync("mv", [temp, report.registry.path]);
    },
    readRegistry() {
      return JSON.parse(readFileSync(report.registry.path, "utf8")) as ReturnType<TamaInstall["readRegistry"]>;
    },
    addHooks(...hooks) {
      const registry = install.readRegistry();
      install.writeRegistry({ ...registry, checksum: undefined, hooks: [...registry.hooks, ...hooks] });
    },
  };
  return install;
}
