// What keeps Tama's policy Tama's: files nobody else can change (StrictModes), the
// self-protection gate on, the adapter the one its release installed, and logs Tama
// can write (a log that cannot be written is given up with one warning; here it is
// named before a session meets it).
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readdirSync, statfsSync, statSync } from "node:fs";
import path from "node:path";
import { SELF_PROTECTION_ID } from "../../gates/self-protection.ts";
import { readReleaseRecord } from "../../install/release-record.ts";
import type { RegistryFile } from "../../registry/registry.ts";
import type { TamaPaths } from "../../system/paths.ts";
import { trustProblem } from "../../system/strict-modes.ts";
import { error, INSTALL_FIX, ok, short, warning, type Check } from "./check.ts";
import { installedAdapterDigest } from "./install.ts";

/** Every file Tama loads or executes as policy, and TAMA_HOME itself. */
function policyFiles(paths: TamaPaths): string[] {
  const files = [paths.home, paths.registry, path.join(paths.current, "bin", "tama.js"), path.join(paths.current, "bin", "tama"), path.join(paths.current, "release.json"), paths.adapter, paths.sessions];
  const record = readReleaseRecord(paths.current);
  if (record.ok && record.record.vendor !== null) files.push(path.join(path.dirname(paths.adapter), "loaded", record.record.vendor));
  try {
    for (const name of readdirSync(paths.sessions)) if (/^grant\..+\.json$/.test(name)) files.push(path.join(paths.sessions, name));
  } catch {
    // no sessions yet
  }
  return files.filter((file) => existsSync(file));
}

/** StrictModes: each policy file, and every directory above it up to the home, writable by its owner alone. */
export function checkTrust(paths: TamaPaths): Check[] {
  const problems = [...new Set(policyFiles(paths).map((file) => trustProblem(file)).filter((p): p is string => p !== undefined))];
  if (problems.length === 0) return [ok("trust", `TAMA_HOME, the registry, the release, the adapter and the grants can be changed by their owner alone`)];
  return problems.map((problem, i) =>
    error(
      problems.length === 1 ? "trust" : `trust:${i + 1}`,
      problem,
      "Tama refuses what others can change (a refused registry runs no hook; a refused adapter is not adopted): fix the mode or owner as the message says",
    ),
  );
}

/** The self-protection gate is in the registry, enabled, for every tool call. */
export function checkSelfProtection(registry: RegistryFile | undefined): Check {
  const fix = `from your own terminal: tama hooks add --builtin ${SELF_PROTECTION_ID} (or tama hooks enable ${SELF_PROTECTION_ID})`;
  if (registry === undefined) return warning("self-protection", "the registry does not load (see registry), so the gate is not known to run", fix);
  const hook = registry.hooks.find((h) => h.builtin === SELF_PROTECTION_ID);
  if (hook === undefined) return error("self-protection", "the registry has no self-protection gate: an agent's tool calls can change Tama's policy", fix);
  if (!hook.enabled) return error("self-protection", `the self-protection gate (${hook.id}) is disabled: an agent's tool calls can change Tama's policy`, fix);
  if (!hook.events.includes("pre_tool_use") || hook.tools !== "any") {
    return error("self-protection", `the self-protection gate (${hook.id}) does not read every tool call (events ${hook.events.join(",")}, tools ${JSON.stringify(hook.tools)})`, `give it --event pre_tool_use --tools any, ${fix}`);
  }
  return ok("self-protection", `${hook.id} is enabled for every tool call (${hook.failMode === "closed" ? "fails closed" : "fails open"})`);
}

/** The installed adapter is the one the installed release records: the shell adopts nothing else. */
export function checkAdapterRecord(paths: TamaPaths): Check {
  const digest = installedAdapterDigest(paths);
  if (digest === undefined) return ok("adapter-release", "no adapter installed (see adapter)");
  const record = readReleaseRecord(paths.current);
  if (!record.ok) return error("adapter-release", `the installed release cannot vouch for an adapter: ${record.error}`, `the shell adopts no adapter until then: ${INSTALL_FIX}`);
  if (record.record.adapterDigest !== digest) {
    return error(
      "adapter-release",
      `${paths.adapter} (${short(digest)}) is not the adapter release ${record.record.releaseId} installed (${short(record.record.adapterDigest)}): the shell refuses to adopt it`,
      `something other than tama install wrote it; ${INSTALL_FIX}`,
    );
  }
  return ok("adapter-release", `${short(digest)}, the adapter release ${record.record.releaseId} installed`);
}

/** Each log can be opened for appending, is a file, and its disk has room. */
export function checkLogs(paths: TamaPaths): Check {
  const problems: string[] = [];
  let dirOk = false;
  try {
    const stats = statSync(paths.logs);
    if (!stats.isDirectory()) problems.push(`${paths.logs} is not a directory`);
    else dirOk = true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") problems.push(`${paths.logs}: ${(e as Error).message}`);
    else {
      // Missing: Tama makes it when it first logs, unless something is in the way.
      try {
        mkdirSync(paths.logs, { recursive: true, mode: 0o700 });
        dirOk = true;
      } catch (made) {
        problems.push(`${paths.logs} is missing and cannot be made: ${(made as Error).message}`);
      }
    }
  }
  if (dirOk) {
    for (const name of ["engine.log", "adapter.log"]) {
      const file = path.join(paths.logs, name);
      let fd: number | undefined;
      try {
        fd = openSync(file, "a", 0o600);
        if (!fstatSync(fd).isFile()) problems.push(`${file} is not a regular file`);
      } catch (e) {
        problems.push(`cannot write ${file}: ${(e as Error).message}`);
      } finally {
        if (fd !== undefined) closeSync(fd);
      }
    }
    try {
      const fs = statfsSync(paths.logs);
      if (fs.bavail === 0) problems.push(`the disk holding ${paths.logs} is full`);
    } catch {
      // statfs unsupported here: the open above is the check
    }
  }
  if (problems.length === 0) return ok("logs", `${paths.logs} is writable`);
  return warning("logs", `${problems.join("; ")}: Tama runs on without those logs, with one warning per session`, `make ${paths.logs} a directory you can write, with free space (it holds engine.log and adapter.log)`);
}
