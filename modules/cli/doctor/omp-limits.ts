// Hooks OMP stops waiting for before their own timeout: one warning each, naming
// what OMP does then. Only the OMP harness has these limits (Claude Code waits).
import { ompCutsShort, OMP_TOOL_CALL_SETTING } from "../../registry/omp-limits.ts";
import type { RegistryFile } from "../../registry/registry.ts";
import { warning, type Check } from "./check.ts";

export function checkOmpLimits(registry: RegistryFile): Check[] {
  return registry.hooks
    .filter((hook) => hook.enabled && hook.command !== undefined)
    .flatMap((hook) =>
      ompCutsShort(hook.events, hook.timeoutMs).map((cut) =>
        warning(
          `omp-limit:${hook.id}`,
          `${hook.id}: ${cut.text}`,
          cut.event === "pre_tool_use"
            ? `set ${OMP_TOOL_CALL_SETTING} to at least ${hook.timeoutMs} in OMP's config.yml, or give ${hook.id} a timeoutMs of at most ${cut.limitMs}`
            : `make ${hook.id} answer within ${cut.limitMs / 1000} s (timeoutMs ≤ ${cut.limitMs}); OMP's limit for ${cut.event} cannot be raised`,
        ),
      ),
    );
}
