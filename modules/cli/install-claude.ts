// `tama install --claude` / `tama uninstall --claude`: the release the entries call,
// then the entries in Claude Code's user settings.
import { installRuntime } from "../install/install.ts";
import { claudeConfigDir, ClaudeSettingsError, installClaude, uninstallClaude } from "../install/claude.ts";
import { tamaPaths } from "../system/paths.ts";
import { CliError, printJson, table } from "./io.ts";

function configDir(claudeDir: string | undefined): string {
  return claudeConfigDir(claudeDir ? { claudeDir } : {});
}

export function installClaudeCommand(values: { json?: boolean; "claude-dir"?: string }, withRuntime: boolean): number {
  const paths = tamaPaths();
  let runtime;
  if (withRuntime) {
    try {
      runtime = installRuntime({ paths });
    } catch (error) {
      throw new CliError(`install failed: ${(error as Error).message}. Run it from the built package (npm run build), not from an installed release.`);
    }
  }
  let report;
  try {
    report = installClaude(paths, configDir(values["claude-dir"]));
  } catch (error) {
    if (error instanceof ClaudeSettingsError) throw new CliError(error.message);
    throw error;
  }
  if (values.json) {
    printJson({ ...(runtime ? { releaseId: runtime.releaseId, registry: runtime.registry } : {}), claude: report });
    return 0;
  }
  const rows: string[][] = runtime ? [["release", `${runtime.releaseId}  (${runtime.current} → releases/${runtime.releaseId})`]] : [];
  rows.push(["claude", `${report.settingsFile}: ${report.added.length ? `added ${report.added.join(", ")}` : "every entry already there"}`]);
  process.stdout.write(`${table(rows)}\n\nNew Claude Code sessions run Tama's hooks (tama run-hook <Event>) for every event Tama gates.\n`);
  return runtime?.registry.action === "invalid-kept" ? 1 : 0;
}

export function uninstallClaudeCommand(values: { json?: boolean; "claude-dir"?: string }): number {
  let report;
  try {
    report = uninstallClaude(tamaPaths(), configDir(values["claude-dir"]));
  } catch (error) {
    if (error instanceof ClaudeSettingsError) throw new CliError(error.message);
    throw error;
  }
  if (values.json) printJson({ claude: report });
  else
    process.stdout.write(
      report.removed.length
        ? `Removed Tama's Claude Code entries (${report.removed.join(", ")}) from ${report.settingsFile}\n`
        : `No Tama entry in ${report.settingsFile}\n`,
    );
  return 0;
}
