// `tama install --omp` and `tama uninstall --omp`: lay down a release, the adapter,
// the default registry and the shell; take away exactly what install wrote.
import { createHash } from "node:crypto";
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, renameSync, rmSync, symlinkSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defaultRegistry } from "../registry/default.ts";
import { ompAgentDir, tamaPaths, type TamaPaths } from "../system/paths.ts";
import { writeFileAtomic } from "../system/atomic-write.ts";
import { catalogChecksum, catalogOf, parseRegistry } from "../registry/registry.ts";
import { trustProblem } from "../system/strict-modes.ts";
import { RELEASE_RECORD_FILE, type ReleaseRecord } from "./release-record.ts";

/** The nearest directory of `dir` (itself or an ancestor) that exists. */
function nearestExisting(dir: string): string {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    if (existsSync(at) || path.dirname(at) === at) return at;
  }
}

/**
 * Why `home` cannot hold Tama's policy, or undefined: it (or, when it does not exist
 * yet, the directory it will be made in) and its parents must be writable by nobody
 * but this user or root.
 */
export function tamaHomeProblem(home: string): string | undefined {
  return trustProblem(nearestExisting(home));
}

export const SHELL_FILE = "omp-shared-hooks.js";

export { ompAgentDir };

/** The built artifacts this CLI was bundled with (dist/). */
export function distDir(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
}

function writeAtomic(file: string, data: string | Buffer, mode = 0o644): void {
  // Explicit modes: Tama trusts as policy only what its owner alone can write (StrictModes).
  writeFileAtomic(file, data, { mode, createDir: 0o755 });
}

export interface InstallReport {
  releaseId: string;
  releaseDir: string;
  adapterDigest: string;
  adapterPath: string;
  registry: { path: string; action: "created" | "release-updated" | "kept" | "invalid-kept"; note?: string };
  /** null when no shell was written: the OMP plugin is the shell. */
  shellPath: string | null;
  agentDir: string;
  current: string;
}

/** The release a build installs as: its version and the SHA-256 of its CLI and adapter. */
export function buildRelease(dist: string = distDir()): { releaseId: string; cli: Buffer; adapter: Buffer; manifest: { version: string; vendor?: string } } {
  const cli = readFileSync(path.join(dist, "bin", "tama.js"));
  const adapter = readFileSync(path.join(dist, "shared-hooks", "omp", "adapter.js"));
  const manifest = JSON.parse(readFileSync(path.join(dist, "build.json"), "utf8")) as { version: string; vendor?: string };
  const releaseId = `${manifest.version}-${createHash("sha256").update(cli).update(adapter).digest("hex").slice(0, 12)}`;
  return { releaseId, cli, adapter, manifest };
}

export function install(options: { agentDir?: string; profile?: string; dist?: string; paths?: TamaPaths; shell?: boolean }): InstallReport {
  const runtime = installRuntime(options);
  const agentDir = ompAgentDir(options);
  let shellPath: string | null = null;
  // The OMP plugin is the shell itself: it installs with shell:false.
  if (options.shell !== false) {
    shellPath = path.join(agentDir, "extensions", SHELL_FILE);
    const shell = readFileSync(path.join(options.dist ?? distDir(), "shell", SHELL_FILE), "utf8");
    writeAtomic(shellPath, shell.replace("__TAMA_HOME_AT_INSTALL__", runtime.paths.home));
  }
  const { paths: _paths, ...report } = runtime;
  return { ...report, shellPath, agentDir };
}

export type RuntimeReport = Omit<InstallReport, "shellPath" | "agentDir"> & { paths: TamaPaths };

/** The release, the adapter and the registry: what every harness's hooks run on. */
export function installRuntime(options: { dist?: string; paths?: TamaPaths }): RuntimeReport {
  const dist = options.dist ?? distDir();
  const paths = options.paths ?? tamaPaths();
  const { releaseId, cli, adapter, manifest } = buildRelease(dist);
  const adapterDigest = createHash("sha256").update(adapter).digest("hex");
  const untrusted = tamaHomeProblem(paths.home);
  if (untrusted !== undefined) throw new Error(`TAMA_HOME ${paths.home} cannot hold Tama's policy: ${untrusted}`);

  // The release: the engine and CLI, and a launcher naming the Node that installed it.
  const releaseDir = path.join(paths.releasesDir, releaseId);
  writeAtomic(path.join(releaseDir, "bin", "tama.js"), cli, 0o755);
  writeAtomic(
    path.join(releaseDir, "bin", "tama"),
    // Resolved, so a link to the launcher (on PATH, say) finds tama.js beside the launcher itself.
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} "$(dirname "$(readlink -f "$0")")/tama.js" "$@"\n`,
    0o755,
  );
  // What the shell checks an adapter against before it adopts one.
  const record: ReleaseRecord = { schema: 1, releaseId, adapterDigest, vendor: manifest.vendor ?? null };
  writeAtomic(path.join(releaseDir, RELEASE_RECORD_FILE), `${JSON.stringify(record, null, 2)}\n`);
  // `current` is switched atomically: a new link renamed over the old one.
  const link = `${paths.current}.${process.pid}.tmp`;
  rmSync(link, { force: true });
  symlinkSync(path.join("releases", releaseId), link);
  renameSync(link, paths.current);

  // The vendor chunk the adapter imports goes where the shell imports the adapter
  // from (loaded/), under its immutable SHA-256 name, before the adapter itself.
  if (manifest.vendor) {
    const vendor = path.join(path.dirname(paths.adapter), "loaded", manifest.vendor);
    const named = /^vendor-([0-9a-f]{64})\.js$/.exec(manifest.vendor)?.[1];
    const present = existsSync(vendor) ? createHash("sha256").update(readFileSync(vendor)).digest("hex") : undefined;
    if (present === undefined || present !== named) writeAtomic(vendor, readFileSync(path.join(dist, "shared-hooks", "omp", manifest.vendor)));
  }
  writeAtomic(paths.adapter, adapter);

  const registry = writeRegistry(paths, releaseId);

  for (const dir of [paths.sessions, paths.logs, paths.running]) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
  }

  return { releaseId, releaseDir, adapterDigest, adapterPath: paths.adapter, registry, current: paths.current, paths };
}

/** A new registry holds the built-in gates; an existing one keeps its hooks and names the new release. */
function writeRegistry(paths: TamaPaths, releaseId: string): InstallReport["registry"] {
  if (!existsSync(paths.registry)) {
    const registry = defaultRegistry(releaseId);
    writeAtomic(paths.registry, `${JSON.stringify({ ...registry, checksum: catalogChecksum(catalogOf(registry)) }, null, 2)}\n`);
    return { path: paths.registry, action: "created" };
  }
  const text = readFileSync(paths.registry, "utf8");
  const parsed = parseRegistry(text, paths.registry);
  if (!parsed.ok) return { path: paths.registry, action: "invalid-kept", note: parsed.error };
  if (parsed.file.release?.id === releaseId) return { path: paths.registry, action: "kept" };
  const raw = JSON.parse(text) as Record<string, unknown>;
  raw.release = { id: releaseId };
  const widened = widenEarlierDefaults(raw.hooks);
  if (raw.checksum !== undefined) {
    // Read again as edited: the checksum covers what the file will say.
    const edited = widened ? parseRegistry(JSON.stringify({ ...raw, checksum: undefined }), paths.registry) : parsed;
    if (edited.ok) raw.checksum = catalogChecksum({ ...catalogOf(edited.file), release: { id: releaseId } });
  }
  writeAtomic(paths.registry, `${JSON.stringify(raw, null, 2)}\n`);
  return { path: paths.registry, action: "release-updated" };
}

/**
 * The tools a built-in gate's entry matched by default in earlier releases, where this
 * one reads more: block-git-hook-bypass read shell and code calls only until it read a
 * write tool's change to .git/config and .git/hooks, protect-branches until it read OMP's
 * github tool (its `pr_push`). An entry still holding that default
 * is given this release's (an entry set otherwise is the person's choice, and kept).
 */
const EARLIER_TOOLS_DEFAULTS: Readonly<Record<string, string>> = { "block-git-hook-bypass": "shell", "protect-branches": "shell" };

/** Widen, in place, the raw registry's entries that hold an earlier default; whether any did. */
function widenEarlierDefaults(hooks: unknown): boolean {
  let widened = false;
  if (!Array.isArray(hooks)) return widened;
  for (const hook of hooks as unknown[]) {
    if (hook === null || typeof hook !== "object") continue;
    const entry = hook as Record<string, unknown>;
    const builtin = typeof entry.builtin === "string" ? entry.builtin : undefined;
    if (builtin === undefined || EARLIER_TOOLS_DEFAULTS[builtin] === undefined || entry.tools !== EARLIER_TOOLS_DEFAULTS[builtin]) continue;
    entry.tools = "any";
    widened = true;
  }
  return widened;
}

export interface UninstallReport {
  removed: string[];
  kept: string[];
}

/** Remove what install wrote: releases, current, the adapter and its copies, the shell. The registry and logs stay unless asked. */
export function uninstall(options: { agentDir?: string; profile?: string; purge?: boolean; paths?: TamaPaths }): UninstallReport {
  const paths = options.paths ?? tamaPaths();
  const removed: string[] = [];
  const kept: string[] = [];
  const remove = (target: string): void => {
    let exists = false;
    try {
      lstatSync(target);
      exists = true;
    } catch {
      exists = false;
    }
    if (!exists) return;
    rmSync(target, { recursive: true, force: true });
    removed.push(target);
  };
  const shellPath = path.join(ompAgentDir(options), "extensions", SHELL_FILE);
  if (existsSync(shellPath) && readFileSync(shellPath, "utf8").includes("Tama's OMP adapter")) remove(shellPath);
  else if (existsSync(shellPath)) kept.push(`${shellPath} (not Tama's shell)`);
  remove(paths.runtimeDir);
  remove(path.dirname(paths.adapter));
  if (options.purge) {
    remove(path.dirname(paths.registry));
    remove(paths.sessions);
    remove(paths.logs);
    remove(paths.activity);
  } else {
    for (const keep of [paths.registry, paths.logs, paths.activity]) if (existsSync(keep)) kept.push(keep);
  }
  return { removed, kept };
}

/** The release `current` points at, if any. */
export function currentRelease(paths: TamaPaths): string | undefined {
  try {
    return path.basename(readlinkSync(paths.current));
  } catch {
    return undefined;
  }
}
