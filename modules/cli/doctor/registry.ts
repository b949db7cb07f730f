// The registry as the engine reads it, and whether each enabled hook's command can start.
import { readFileSync } from "node:fs";
import { programsOf, resolveProgram } from "../../system/command-path.ts";
import { parseRegistry, type RegistryFile } from "../../registry/registry.ts";
import { error, ok, short, warning, type Check } from "./check.ts";

export function checkRegistry(file: string): { check: Check; registry?: RegistryFile } {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    const missing = (e as NodeJS.ErrnoException).code === "ENOENT";
    return {
      check: error("registry", `reading hook registry ${file}: ${(e as Error).message}`, missing ? "run `tama install --omp` (it writes the built-in gates), or `tama hooks add`" : `make ${file} readable by you`),
    };
  }
  const parsed = parseRegistry(text, file);
  if (!parsed.ok) {
    // Every dispatch meets this: tool calls are refused (or let through with TAMA_FAIL_MODE=open).
    return {
      check: error(
        "registry",
        parsed.error,
        `until it loads, every dispatch answers ok:false and runs no hook. Fix the file where the message says (\`tama hooks checksum ${file}\` prints the checksum to declare), or restore it`,
      ),
    };
  }
  const enabled = parsed.file.hooks.filter((h) => h.enabled).length;
  return {
    check: ok("registry", `${file}: ${parsed.file.hooks.length} hooks (${enabled} enabled), release ${parsed.file.release?.id ?? "none"}, checksum ${short(parsed.checksum)}`),
    registry: parsed.file,
  };
}

/** Each enabled command hook: argv[0] absolute and executable, or found on PATH. */
export function checkCommands(registry: RegistryFile, env: NodeJS.ProcessEnv): Check[] {
  const checks: Check[] = [];
  const commands = registry.hooks.filter((h) => h.enabled && h.command !== undefined);
  for (const hook of commands) {
    for (const program of programsOf(hook.command ?? [])) {
      const found = resolveProgram(program, env);
      if (found.ok) continue;
      const id = `command:${hook.id}`;
      if (found.relative) {
        checks.push(warning(id, `${hook.id}: ${found.why}`, `use an absolute path in its command (tama hooks remove ${hook.id}, then tama hooks add … -- /abs/path)`));
      } else if (hook.failMode === "closed") {
        checks.push(error(id, `${hook.id}: ${found.why}; its failMode is closed, so every call it matches is refused`, `install ${program}, fix the path, or tama hooks disable ${hook.id}`));
      } else {
        checks.push(warning(id, `${hook.id}: ${found.why}; it fails open, so it never gives a verdict`, `install ${program}, fix the path, or tama hooks disable ${hook.id}`));
      }
    }
  }
  if (checks.length === 0) checks.push(ok("commands", commands.length === 0 ? "no command hooks enabled" : `${commands.length} hook commands can start`));
  return checks;
}
