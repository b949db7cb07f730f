// The install: the `current` release, the adapter it was installed with, this build's
// adapter, and the shell in OMP's extensions dir.
import { createHash } from "node:crypto";
import { accessSync, constants, readFileSync, readlinkSync } from "node:fs";
import path from "node:path";
import * as z from "../../protocol/schema.ts";
import { SHELL_FILE } from "../../install/install.ts";
import type { TamaPaths } from "../../system/paths.ts";
import { error, INSTALL_FIX, ok, short, warning, type Check } from "./check.ts";

const SHELL_MARKER = "Tama's OMP adapter";
const BuildManifest = z.object({ version: z.string(), adapterDigest: z.nullable(z.string()) });

function readOrUndefined(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

export function sha256(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** The installed adapter's digest, or undefined when there is none. */
export function installedAdapterDigest(paths: TamaPaths): string | undefined {
  const bytes = readOrUndefined(paths.adapter);
  return bytes === undefined ? undefined : sha256(bytes);
}

/** `current` and the release it names: the launcher the harness starts the engine with. */
export function checkRelease(paths: TamaPaths): { check: Check; releaseId?: string; bin?: string } {
  let target: string;
  try {
    target = readlinkSync(paths.current);
  } catch {
    return { check: error("release", `no release is installed (${paths.current} is missing or not a symlink)`, INSTALL_FIX) };
  }
  const releaseId = path.basename(target);
  const bin = path.join(paths.current, "bin", "tama");
  try {
    accessSync(bin, constants.X_OK);
    accessSync(path.join(paths.current, "bin", "tama.js"), constants.R_OK);
  } catch {
    return { check: error("release", `current → ${target}, but ${bin} is missing or not executable`, INSTALL_FIX), releaseId };
  }
  return { check: ok("release", `${releaseId} (current → ${target})`), releaseId, bin };
}

/**
 * The installed adapter: present, the one its release was installed with (a release
 * id ends in the SHA-256 of its CLI and adapter), and the one this build carries.
 */
export function checkAdapter(paths: TamaPaths, releaseId: string | undefined, dist: string): Check {
  const adapter = readOrUndefined(paths.adapter);
  if (adapter === undefined) return error("adapter", `no adapter at ${paths.adapter}`, INSTALL_FIX);
  const digest = sha256(adapter);
  const cli = releaseId === undefined ? undefined : readOrUndefined(path.join(paths.releasesDir, releaseId, "bin", "tama.js"));
  if (releaseId !== undefined && cli !== undefined) {
    const expected = releaseId.slice(releaseId.lastIndexOf("-") + 1);
    const actual = createHash("sha256").update(cli).update(adapter).digest("hex").slice(0, expected.length);
    if (actual !== expected) {
      return warning("adapter", `the adapter ${short(digest)} is not the one release ${releaseId} was installed with`, `${INSTALL_FIX}, then /tama_reload_hook_runtime in running OMP sessions`);
    }
  }
  const manifest = BuildManifest.safeParse(JSON.parse(readOrUndefined(path.join(dist, "build.json"))?.toString("utf8") ?? "null"));
  if (!manifest.success || manifest.data.adapterDigest === null) return ok("adapter", `${short(digest)} (not compared with a build: this CLI is not running from one)`);
  if (manifest.data.adapterDigest !== digest) {
    return warning(
      "adapter",
      `the installed adapter ${short(digest)} differs from this build's ${short(manifest.data.adapterDigest)} (${dist})`,
      "to run this build: tama install --omp from it, then /tama_reload_hook_runtime in running OMP sessions",
    );
  }
  return ok("adapter", `${short(digest)}, the same as this build's`);
}

/**
 * The shared chunk the adapter imports (`./vendor-<sha256>.js`): present where the
 * shell imports the adapter from, and holding the bytes its name promises.
 */
export function checkAdapterChunk(paths: TamaPaths): Check {
  const adapter = readOrUndefined(paths.adapter)?.toString("utf8");
  if (adapter === undefined) return ok("adapter-chunk", "no adapter installed (see adapter)");
  const name = /\.\/(vendor-([0-9a-f]{64})\.js)/.exec(adapter);
  if (!name?.[1] || !name[2]) return ok("adapter-chunk", "the adapter imports no shared chunk");
  const file = path.join(path.dirname(paths.adapter), "loaded", name[1]);
  const bytes = readOrUndefined(file);
  if (bytes === undefined) return error("adapter-chunk", `the adapter imports ${file}, which is missing: the shell cannot load it`, INSTALL_FIX);
  if (sha256(bytes) !== name[2]) return error("adapter-chunk", `${file} does not hold the bytes its name promises`, `remove it and ${INSTALL_FIX}`);
  return ok("adapter-chunk", `${short(name[2])} in ${path.dirname(file)}`);
}

/** The shell OMP imports once: present, Tama's, pointing at this TAMA_HOME, and this build's. */
export function checkShell(paths: TamaPaths, agentDir: string, dist: string): Check {
  const file = path.join(agentDir, "extensions", SHELL_FILE);
  const text = readOrUndefined(file)?.toString("utf8");
  if (text === undefined) {
    return error("shell", `OMP will not load Tama: no ${file}`, `${INSTALL_FIX} (--agent-dir DIR or --profile NAME if OMP uses another agent dir), then restart OMP`);
  }
  if (!text.includes(SHELL_MARKER)) {
    return error("shell", `${file} is not Tama's shell`, `move it away and ${INSTALL_FIX}, then restart OMP`);
  }
  // install writes its TAMA_HOME into the shell's text as it is.
  const home = /TAMA_HOME_AT_INSTALL\s*=\s*"([^"]*)"/.exec(text)?.[1];
  if (home !== undefined && !home.startsWith("__") && home !== paths.home) {
    return warning("shell", `${file} loads Tama from ${home}, not ${paths.home}`, `install with this TAMA_HOME (TAMA_HOME=${paths.home} tama install --omp), or set TAMA_HOME in OMP's environment`);
  }
  const built = readOrUndefined(path.join(dist, "shell", SHELL_FILE))?.toString("utf8");
  if (built !== undefined && built.replace("__TAMA_HOME_AT_INSTALL__", paths.home) !== text) {
    return warning("shell", `${file} is from another build than ${dist}`, "OMP imports the shell once: tama install --omp, then restart OMP (a reload does not replace the shell)");
  }
  return ok("shell", file);
}
