// Claude Code: when its settings hold Tama's entries, every gated event has one and the
// launcher they call is there (a missing launcher exits 127, which Claude reads as a
// hook error and lets the call through).
import { accessSync, constants } from "node:fs";
import { CLAUDE_HOOK_EVENTS, claudeLauncher, claudeState, ClaudeSettingsError } from "../../install/claude.ts";
import type { TamaPaths } from "../../system/paths.ts";
import { error, ok, warning, type Check } from "./check.ts";

const FIX = "run `tama install --claude` (it adds only the entries that are missing)";

/** No check when Claude Code's settings hold no Tama entry: Claude Code is then not a harness here. */
export function checkClaude(paths: TamaPaths, configDir: string): Check[] {
  let state;
  try {
    state = claudeState(paths, configDir);
  } catch (cause) {
    if (cause instanceof ClaudeSettingsError) return [warning("claude", cause.message, FIX)];
    throw cause;
  }
  if (state.present.length === 0) return [];
  try {
    accessSync(claudeLauncher(paths), constants.X_OK);
  } catch {
    return [
      error(
        "claude",
        `${state.settingsFile} calls ${claudeLauncher(paths)}, which is not there: Claude Code reads that as a hook error and runs every call unchecked`,
        "run `tama install --claude` (or `tama install --omp`) to lay the release down again",
      ),
    ];
  }
  if (state.missing.length > 0) {
    return [warning("claude", `${state.settingsFile} has Tama's entries for ${state.present.join(", ")} but not ${state.missing.join(", ")}`, FIX)];
  }
  return [ok("claude", `${state.settingsFile} runs Tama for ${CLAUDE_HOOK_EVENTS.length} events (${CLAUDE_HOOK_EVENTS.join(", ")})`)];
}
