// `tama doctor`: every check in order. The install first, then the engine and the
// registry it loads, the hooks' commands, session control, and live sessions.
import { existsSync } from "node:fs";
import path from "node:path";
import { ompAgentDir, distDir, SHELL_FILE } from "../../install/install.ts";
import type { TamaPaths } from "../../system/paths.ts";
import type { Check } from "./check.ts";
import { checkEngine } from "./engine.ts";
import { checkHarness } from "./harness.ts";
import { checkOmpLimits } from "./omp-limits.ts";
import { CLAUDE, claudeConfigDir, CODEX, codexHomeDir } from "../../install/harness-hooks.ts";
import { checkAdapter, checkAdapterChunk, checkRelease, checkShell, installedAdapterDigest } from "./install.ts";
import { checkRegistry } from "./registry.ts";
import { checkAdapterRecord, checkLogs, checkSelfProtection, checkTrust } from "./protection.ts";
import { checkAgentDir, checkEnvironment, checkTamaHome } from "./environment.ts";
import { checkHookPrograms } from "./hook-programs.ts";
import { checkPluginShell, installedPlugin } from "./plugin.ts";
import { checkLiveSessions, checkSessionsDir } from "./sessions.ts";
import { checkSources } from "./sources.ts";

export interface DoctorOptions {
  paths: TamaPaths;
  agentDir?: string;
  /** Claude Code's config dir; CLAUDE_CONFIG_DIR or ~/.claude when absent. */
  claudeDir?: string;
  /** Codex's home; CODEX_HOME or ~/.codex when absent. */
  codexDir?: string;
  profile?: string;
  env: NodeJS.ProcessEnv;
  engineTimeoutMs: number;
  dist?: string;
  /** Where hooks' relative paths resolve (a hook's cwd is the session's); default the cwd. */
  project?: string;
}

export async function runDoctor(options: DoctorOptions): Promise<Check[]> {
  const { paths, env } = options;
  const dist = options.dist ?? distDir();
  const named = options.agentDir !== undefined || options.profile !== undefined;
  const agentDir = ompAgentDir({ ...(options.agentDir ? { agentDir: options.agentDir } : {}), ...(options.profile ? { profile: options.profile } : {}) }, env);
  const agent = checkAgentDir(agentDir, env, named);
  // Every other check reads TAMA_HOME: when it is no directory, their hints would mislead.
  const home = checkTamaHome(env, paths.home);
  if (home?.status === "error") return [home, agent, ...checkEnvironment(env, undefined)];
  const release = checkRelease(paths);
  const engine = await checkEngine(release.bin, env, options.engineTimeoutMs);
  const registry = checkRegistry(paths.registry);
  const plugin = installedPlugin(env);
  const shellFile = path.join(agentDir, "extensions", SHELL_FILE);
  return [
    ...(home ? [home] : []),
    ...checkEnvironment(env, registry.registry),
    agent,
    release.check,
    checkAdapter(paths, release.releaseId, dist),
    checkAdapterRecord(paths),
    checkAdapterChunk(paths),
    plugin ? checkPluginShell(plugin, existsSync(shellFile) ? shellFile : undefined) : checkShell(paths, agentDir, dist),
    engine,
    registry.check,
    checkSelfProtection(registry.registry),
    ...checkTrust(paths),
    checkLogs(paths),
    ...(registry.registry ? checkHookPrograms(registry.registry, { env, project: options.project ?? process.cwd() }) : []),
    ...(registry.registry ? checkOmpLimits(registry.registry) : []),
    ...checkSources(registry.registry, options.project ?? process.cwd()),
    checkSessionsDir(paths.sessions),
    ...checkLiveSessions(paths.sessions, installedAdapterDigest(paths)),
    ...checkHarness(paths, CLAUDE, claudeConfigDir(options.claudeDir ? { claudeDir: options.claudeDir } : {}, env)),
    ...checkHarness(paths, CODEX, codexHomeDir(options.codexDir ? { codexDir: options.codexDir } : {}, env)),
  ];
}
