// Claude Code and Codex: when their hook file holds Tama's entries, every gated event has
// one and the launcher they call is there (a missing launcher exits 127, which the
// harness reads as a hook error and lets the call through); Codex's entries also need
// the person's trust, without which Codex skips them.
import { accessSync, constants } from "node:fs";
import { codexUntrusted, hookEntriesState, hookLauncher, HookFileError, type HookHarness } from "../../install/harness-hooks.ts";
import type { TamaPaths } from "../../system/paths.ts";
import { error, ok, warning, type Check } from "./check.ts";

/** No check when the hook file holds no Tama entry: the harness is then not one here. */
export function checkHarness(paths: TamaPaths, harness: HookHarness, configDir: string): Check[] {
  const fix = `run \`tama install --${harness.id}\` (it adds only the entries that are missing)`;
  let state;
  try {
    state = hookEntriesState(paths, harness, configDir);
  } catch (cause) {
    if (cause instanceof HookFileError) return [warning(harness.id, cause.message, fix)];
    throw cause;
  }
  if (state.present.length === 0) return [];
  try {
    accessSync(hookLauncher(paths), constants.X_OK);
  } catch {
    return [
      error(
        harness.id,
        `${state.settingsFile} calls ${hookLauncher(paths)}, which is not there: ${harness.title} reads that as a hook error and runs every call unchecked`,
        `run \`tama install --${harness.id}\` (or \`tama install --omp\`) to lay the release down again`,
      ),
    ];
  }
  if (state.missing.length > 0) {
    return [warning(harness.id, `${state.settingsFile} has Tama's entries for ${state.present.join(", ")} but not ${state.missing.join(", ")}`, fix)];
  }
  if (harness.id === "codex") {
    const untrusted = codexUntrusted(state, configDir);
    if (untrusted.length > 0) {
      return [
        warning(
          harness.id,
          `Codex has no trust record for Tama's entries for ${untrusted.join(", ")} in ${state.settingsFile}: Codex skips them, so those events run unchecked`,
          "open /hooks in Codex and trust Tama's entries",
        ),
      ];
    }
  }
  return [ok(harness.id, `${state.settingsFile} runs Tama for ${harness.events.length} events (${harness.events.join(", ")})`)];
}
