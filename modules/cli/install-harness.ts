// `tama install --claude|--codex` / `tama uninstall --claude|--codex`: the release the
// entries call, then the entries in the harness's own hook file.
import { installRuntime } from "../install/install.ts";
import { claudeConfigDir, CLAUDE, codexHomeDir, HookFileError, installHookEntries, uninstallHookEntries, type HookHarness } from "../install/harness-hooks.ts";
import { tamaPaths } from "../system/paths.ts";
import { CliError, printJson, table } from "./io.ts";

export interface HarnessValues {
  json?: boolean;
  "claude-dir"?: string;
  "codex-dir"?: string;
}

/** The harness's config dir: the flag, else the harness's own variable, else its home default. */
export function harnessDir(harness: HookHarness, values: HarnessValues, env: NodeJS.ProcessEnv = process.env): string {
  if (harness === CLAUDE) return claudeConfigDir(values["claude-dir"] ? { claudeDir: values["claude-dir"] } : {}, env);
  return codexHomeDir(values["codex-dir"] ? { codexDir: values["codex-dir"] } : {}, env);
}

/** What the person still does once the entries are written. */
const AFTER: Record<HookHarness["id"], string> = {
  claude: "New Claude Code sessions run Tama's hooks (tama run-hook <Event>) for every event Tama gates.",
  // Codex skips a hook nobody reviewed (silently, in `codex exec`): its trust is the person's, by hash.
  codex:
    "Codex runs a new hook only once you trust it: open /hooks in Codex and trust Tama's entries (tama run-hook <Event> --provider codex). Until then Codex runs none of them.",
};

export function installHarnessCommand(harness: HookHarness, values: HarnessValues, withRuntime: boolean): number {
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
    report = installHookEntries(paths, harness, harnessDir(harness, values));
  } catch (error) {
    if (error instanceof HookFileError) throw new CliError(error.message);
    throw error;
  }
  if (values.json) {
    printJson({ ...(runtime ? { releaseId: runtime.releaseId, registry: runtime.registry } : {}), [harness.id]: report });
    return 0;
  }
  const rows: string[][] = runtime ? [["release", `${runtime.releaseId}  (${runtime.current} → releases/${runtime.releaseId})`]] : [];
  rows.push([harness.id, `${report.settingsFile}: ${report.added.length ? `added ${report.added.join(", ")}` : "every entry already there"}`]);
  process.stdout.write(`${table(rows)}\n\n${AFTER[harness.id]}\n`);
  return runtime?.registry.action === "invalid-kept" ? 1 : 0;
}

export function uninstallHarnessCommand(harness: HookHarness, values: HarnessValues): number {
  let report;
  try {
    report = uninstallHookEntries(tamaPaths(), harness, harnessDir(harness, values));
  } catch (error) {
    if (error instanceof HookFileError) throw new CliError(error.message);
    throw error;
  }
  if (values.json) printJson({ [harness.id]: report });
  else
    process.stdout.write(
      report.removed.length
        ? `Removed Tama's ${harness.title} entries (${report.removed.join(", ")}) from ${report.settingsFile}\n`
        : `No Tama entry in ${report.settingsFile}\n`,
    );
  return 0;
}
