// The environment values Tama reads, validated as the parts that read them would:
// a value they would refuse or quietly replace is an error here, with what to set.
// Also OMP's agent dir: a directory that does not exist is never the one OMP loads.
import { statSync } from "node:fs";
import path from "node:path";
import type { RegistryFile } from "../../registry/registry.ts";
import { error, ok, warning, type Check } from "./check.ts";

/** Variables with a fixed set of values. */
const CHOICES: Record<string, { values: string[]; effect: string }> = {
  TAMA_FAIL_MODE: { values: ["open", "closed"], effect: "the adapter treats it as closed (tool calls it cannot check are refused) and warns in every session" },
  TAMA_PROVIDER: { values: ["claude", "codex"], effect: "`tama run-hook` refuses to run (exit 1)" },
};

function kindOf(file: string): "directory" | "file" | "missing" | string {
  try {
    return statSync(file).isDirectory() ? "directory" : "file";
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR" ? "missing" : (e as Error).message;
  }
}

/** TAMA_HOME: a directory (or not there yet). A file or an unreadable path breaks every part of Tama. */
export function checkTamaHome(env: NodeJS.ProcessEnv, home: string): Check | undefined {
  const configured = env.TAMA_HOME;
  if (configured === undefined || configured === "") return undefined;
  if (configured.includes("\uFFFD")) return error("env:TAMA_HOME", "TAMA_HOME is not valid UTF-8 text", "set TAMA_HOME to a directory path, or unset it (the default is ~/.tama)");
  const kind = kindOf(home);
  if (kind === "file") {
    return error("env:TAMA_HOME", `TAMA_HOME=${configured} is a file, not a directory: nothing can be installed or read there`, `point TAMA_HOME at a directory (or unset it for ~/.tama), then tama install --omp`);
  }
  if (kind !== "directory" && kind !== "missing") return error("env:TAMA_HOME", `TAMA_HOME=${configured} cannot be read: ${kind}`, "point TAMA_HOME at a directory of yours");
  if (!path.isAbsolute(configured)) {
    return warning("env:TAMA_HOME", `TAMA_HOME=${configured} is relative: each process resolves it against its own cwd (here ${home})`, `set an absolute path: TAMA_HOME=${home}`);
  }
  return undefined;
}

export function checkEnvironment(env: NodeJS.ProcessEnv, registry: RegistryFile | undefined): Check[] {
  const checks: Check[] = [];
  for (const [name, { values, effect }] of Object.entries(CHOICES)) {
    const value = env[name];
    if (value === undefined || value === "" || values.includes(value)) continue;
    checks.push(error(`env:${name}`, `${name}=${JSON.stringify(value)} is not ${values.join(" or ")}: ${effect}`, `set ${name} to ${values.join(" or ")}, or unset it`));
  }
  const engineCommand = env.TAMA_ENGINE_COMMAND;
  if (engineCommand !== undefined && engineCommand !== "") {
    let argv: unknown;
    try {
      argv = JSON.parse(engineCommand);
    } catch {
      argv = undefined;
    }
    if (!Array.isArray(argv) || argv.length === 0 || !argv.every((a) => typeof a === "string")) {
      checks.push(error("env:TAMA_ENGINE_COMMAND", "TAMA_ENGINE_COMMAND is not a JSON array of strings: no OMP session can start its engine", "unset it (the installed release is used), or set it to e.g. [\"/path/to/tama\",\"run-hook\",\"--serve\",\"omp\"]"));
    }
  }
  const registryFile = env.TAMA_REGISTRY;
  if (registryFile !== undefined && registryFile !== "" && !path.isAbsolute(registryFile)) {
    checks.push(warning("env:TAMA_REGISTRY", `TAMA_REGISTRY=${registryFile} is relative: each engine resolves it against its own cwd`, `set an absolute path: TAMA_REGISTRY=${path.resolve(registryFile)}`));
  }
  if (registry) {
    const ids = new Set(registry.hooks.map((h) => h.id));
    for (const name of ["TAMA_ONLY_HOOK_ID", "TAMA_ENABLED_HOOKS", "TAMA_DISABLED_HOOKS"]) {
      const value = env[name];
      if (value === undefined || value.trim() === "") continue;
      const named = name === "TAMA_ONLY_HOOK_ID" ? [value.trim()] : value.split(",").map((v) => v.trim()).filter(Boolean);
      const unknown = named.filter((id) => !ids.has(id));
      if (unknown.length > 0) {
        const effect = name === "TAMA_ONLY_HOOK_ID" ? "so no hook runs at all" : "so it changes nothing for them";
        checks.push(
          (name === "TAMA_ONLY_HOOK_ID" ? error : warning)(`env:${name}`, `${name} names ${unknown.map((u) => JSON.stringify(u)).join(", ")}, which the registry does not hold, ${effect}`, `use ids from \`tama hooks list\`, or unset ${name}`),
        );
      }
    }
  }
  if (checks.length === 0) checks.push(ok("environment", "the TAMA_* values set here are valid"));
  return checks;
}

/** OMP's agent dir must exist: a path OMP does not use means the shell and contracts checked are not OMP's. */
export function checkAgentDir(agentDir: string, env: NodeJS.ProcessEnv, named: boolean): Check {
  const kind = kindOf(agentDir);
  const source = named ? "--agent-dir/--profile" : env.PI_CODING_AGENT_DIR ? "PI_CODING_AGENT_DIR" : "the default";
  if (kind === "directory") return ok("agent-dir", `${agentDir} (${source})`);
  if (kind === "missing") {
    return error("agent-dir", `OMP's agent dir ${agentDir} (${source}) does not exist: OMP has never run with it`, "name the one OMP uses with --agent-dir DIR or --profile NAME (OMP's default is ~/.omp/agent), or run OMP once");
  }
  return error("agent-dir", kind === "file" ? `OMP's agent dir ${agentDir} (${source}) is a file` : `OMP's agent dir ${agentDir} cannot be read: ${kind}`, "name the directory OMP uses with --agent-dir DIR or --profile NAME");
}
