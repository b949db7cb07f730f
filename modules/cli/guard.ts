// The CLI refuses to change policy or consent from inside an agent's session. A
// `tama` started by a process that descends from an OMP session Tama serves (the
// session records name OMP's pid and start time; the parent chain is read from /proc)
// does not run `hooks add|remove|enable|disable|import`, `sessions
// grant|revoke|reload`, `install` or `uninstall`, however the command reached it —
// through a wrapper, a script, or text the self-protection gate could not read.
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { policyVerb } from "../gates/self-protection.ts";
import { listRecords, type SessionRecord } from "../session-control/records.ts";
import { tamaHome } from "../system/paths.ts";
import { ancestry } from "../system/process-groups.ts";

/** Exit code of a policy or consent verb refused from inside an agent's session. */
export const INSIDE_SESSION_EXIT_CODE = 9;

/** TAMA_HOME as a process was started with (its environment at exec, which nothing after can change). */
function startedWithTamaHome(pid: number): string | undefined {
  try {
    const entry = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").find((e) => e.startsWith("TAMA_HOME="));
    const value = entry?.slice("TAMA_HOME=".length);
    return value ? path.resolve(value) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The TAMA_HOMEs whose sessions count. An agent may point TAMA_HOME (or --registry)
 * elsewhere, so not only the one in this environment: the one this CLI is installed
 * in, the ones the registry named on the command line or in TAMA_REGISTRY lies in,
 * the ones this process's ancestors were started with, and the default.
 */
function candidateHomes(argv: readonly string[], env: NodeJS.ProcessEnv, chain: readonly { pid: number }[]): string[] {
  const homes = new Set<string>();
  try {
    homes.add(tamaHome(env));
  } catch {
    // an unreadable TAMA_HOME: the other candidates still count
  }
  const self = (() => {
    try {
      return fileURLToPath(import.meta.url);
    } catch {
      return undefined;
    }
  })();
  const at = self?.lastIndexOf(`${path.sep}hooks-runtime${path.sep}`) ?? -1;
  if (self !== undefined && at > 0) homes.add(self.slice(0, at));
  const registries = [env.TAMA_REGISTRY, ...argv.flatMap((arg, i) => (arg === "--registry" ? [argv[i + 1]] : arg.startsWith("--registry=") ? [arg.slice(11)] : []))];
  // A registry at <home>/hooks/registry.json: its home's sessions count.
  for (const registry of registries) if (registry) homes.add(path.dirname(path.dirname(path.resolve(registry))));
  for (const ancestor of chain) {
    const home = startedWithTamaHome(ancestor.pid);
    if (home !== undefined) homes.add(home);
  }
  homes.add(path.join(os.homedir(), ".tama"));
  return [...homes];
}

/** The live OMP session this process descends from, if any. */
export function sessionAncestor(argv: readonly string[] = [], env: NodeJS.ProcessEnv = process.env): SessionRecord | undefined {
  const chain = ancestry();
  const records = candidateHomes(argv, env, chain).flatMap((home) => listRecords(path.join(home, "sessions")).live);
  if (records.length === 0) return undefined;
  for (const ancestor of chain) {
    const record = records.find((r) => r.ompPid === ancestor.pid && (r.ompStartTicks === undefined || r.ompStartTicks === ancestor.startTicks));
    if (record) return record;
  }
  return undefined;
}

/** The refusal for `argv` when it changes policy or consent from inside a session; else undefined. */
export function insideSessionRefusal(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): string | undefined {
  const verb = policyVerb(argv);
  if (verb === undefined) return undefined;
  const record = sessionAncestor(argv, env);
  if (record === undefined) return undefined;
  return `tama ${verb}: refused: this tama was started from inside the OMP session ${record.session} (OMP pid ${record.ompPid}), and Tama's policy and consent cannot be changed from inside an agent's session. Run it from your own terminal.`;
}
