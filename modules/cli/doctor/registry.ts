// The registry as the engine reads it (hook commands: hook-programs.ts).
import { readFileSync } from "node:fs";
import { parseRegistry, type RegistryFile } from "../../registry/registry.ts";
import { error, ok, short, type Check } from "./check.ts";

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
