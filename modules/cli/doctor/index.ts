// `tama doctor`: every check in order. The install first, then the engine and the
// registry it loads, the hooks' commands, session control, and live sessions.
import { ompAgentDir, distDir } from "../../install/install.ts";
import type { TamaPaths } from "../../system/paths.ts";
import type { Check } from "./check.ts";
import { checkEngine } from "./engine.ts";
import { checkClaude } from "./claude.ts";
import { checkOmpLimits } from "./omp-limits.ts";
import { claudeConfigDir } from "../../install/claude.ts";
import { checkAdapter, checkAdapterChunk, checkRelease, checkShell, installedAdapterDigest } from "./install.ts";
import { checkCommands, checkRegistry } from "./registry.ts";
import { checkAdapterRecord, checkLogs, checkSelfProtection, checkTrust } from "./protection.ts";
import { checkLiveSessions, checkSessionsDir } from "./sessions.ts";

export interface DoctorOptions {
  paths: TamaPaths;
  agentDir?: string;
  /** Claude Code's config dir; CLAUDE_CONFIG_DIR or ~/.claude when absent. */
  claudeDir?: string;
  profile?: string;
  env: NodeJS.ProcessEnv;
  engineTimeoutMs: number;
  dist?: string;
}

export async function runDoctor(options: DoctorOptions): Promise<Check[]> {
  const { paths, env } = options;
  const dist = options.dist ?? distDir();
  const release = checkRelease(paths);
  const agentDir = ompAgentDir({ ...(options.agentDir ? { agentDir: options.agentDir } : {}), ...(options.profile ? { profile: options.profile } : {}) }, env);
  const engine = await checkEngine(release.bin, env, options.engineTimeoutMs);
  const registry = checkRegistry(paths.registry);
  return [
    release.check,
    checkAdapter(paths, release.releaseId, dist),
    checkAdapterRecord(paths),
    checkAdapterChunk(paths),
    checkShell(paths, agentDir, dist),
    engine,
    registry.check,
    checkSelfProtection(registry.registry),
    ...checkTrust(paths),
    checkLogs(paths),
    ...(registry.registry ? checkCommands(registry.registry, env) : []),
    ...(registry.registry ? checkOmpLimits(registry.registry) : []),
    checkSessionsDir(paths.sessions),
    ...checkLiveSessions(paths.sessions, installedAdapterDigest(paths)),
    ...checkClaude(paths, claudeConfigDir(options.claudeDir ? { claudeDir: options.claudeDir } : {}, env)),
  ];
}
