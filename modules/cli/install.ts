// `tama install --omp` / `tama uninstall --omp`.
import { parseArgs } from "node:util";
import { distDir, install, tamaHomeProblem, uninstall } from "../install/install.ts";
import { defaultGateIds } from "../registry/default.ts";
import { tamaPaths } from "../system/paths.ts";
import { installClaudeSources } from "./claude-sources.ts";
import { CliError, printJson, table } from "./io.ts";
import { CLAUDE, CODEX, type HookHarness } from "../install/harness-hooks.ts";
import { installHarnessCommand, uninstallHarnessCommand } from "./install-harness.ts";

const OPTIONS = {
  omp: { type: "boolean" },
  claude: { type: "boolean" },
  "claude-dir": { type: "string" },
  codex: { type: "boolean" },
  "codex-dir": { type: "string" },
  json: { type: "boolean" },
  "agent-dir": { type: "string" },
  profile: { type: "string" },
  purge: { type: "boolean" },
  "claude-sources": { type: "string" },
} as const;

function target(values: { "agent-dir"?: string; profile?: string }) {
  return { ...(values["agent-dir"] ? { agentDir: values["agent-dir"] } : {}), ...(values.profile ? { profile: values.profile } : {}) };
}

/** The hook-file harnesses the flags name, in a fixed order. */
function harnessesOf(values: { claude?: boolean; codex?: boolean }): HookHarness[] {
  return [...(values.claude ? [CLAUDE] : []), ...(values.codex ? [CODEX] : [])];
}

export function installCommand(argv: string[]): number {
  const { values } = parseArgs({ args: argv, options: OPTIONS });
  const harnesses = harnessesOf(values);
  if (!values.omp && harnesses.length === 0) {
    throw new CliError(
      "name the harness to install into: tama install --omp [--agent-dir DIR | --profile NAME] | --claude [--claude-dir DIR] | --codex [--codex-dir DIR]",
      2,
    );
  }
  const home = tamaPaths().home;
  const untrusted = tamaHomeProblem(home);
  if (untrusted !== undefined) throw new CliError(`refusing to install into TAMA_HOME ${home}: ${untrusted}`);
  // The OMP install lays the release down; else the first harness's does. The entries call it.
  let code = values.omp ? installOmp(values) : 0;
  harnesses.forEach((harness, i) => {
    code = Math.max(code, installHarnessCommand(harness, values, !values.omp && i === 0));
  });
  return code;
}

function installOmp(values: { json?: boolean; "agent-dir"?: string; profile?: string; "claude-sources"?: string }): number {
  let report;
  try {
    report = install(target(values));
  } catch (error) {
    throw new CliError(`install failed: ${(error as Error).message}. ${installHint(error as NodeJS.ErrnoException)}`);
  }
  const claude = report.registry.action === "invalid-kept" ? [] : installClaudeSources(values["claude-sources"]);
  if (values.json) {
    printJson({ ...report, claudeSources: claude });
    return 0;
  }
  process.stdout.write(
    `${table([
      ["release", `${report.releaseId}  (${report.current} → releases/${report.releaseId})`],
      ["adapter", `${report.adapterDigest}  ${report.adapterPath}`],
      ["registry", `${report.registry.action}  ${report.registry.path}${report.registry.note ? `: ${report.registry.note}` : ""}`],
      ["shell", report.shellPath ?? "none (the OMP plugin is the shell)"],
    ])}\n${report.registry.action === "created" ? `\nGates on: ${defaultGateIds().join(", ")} (tama hooks builtins lists every gate and its options).\n` : ""}${claude.length > 0 ? `\n${claude.join("\n")}\n` : ""}\nRunning OMP sessions adopt this release with /tama_reload_hook_runtime (or tama sessions reload --session ID).\n`,
  );
  return report.registry.action === "invalid-kept" ? 1 : 0;
}

/** What to do about an install that failed, from where it failed. */
function installHint(error: NodeJS.ErrnoException): string {
  const file = error.path ?? "";
  const paths = tamaPaths();
  if (error.code === "ENOENT" && file.startsWith(distDir())) {
    return "This tama has no build beside it: run the tama of an installed package (npm i -g tama-hooks), or npm run build in a checkout first";
  }
  if (file.startsWith(paths.home) || error.code === "ENOTDIR" || error.code === "EEXIST") {
    return `TAMA_HOME is ${paths.home}: it must be a directory you can write (or unset TAMA_HOME for ~/.tama); tama doctor checks it`;
  }
  return "tama doctor names what is wrong";
}

export function uninstallCommand(argv: string[]): number {
  const { values } = parseArgs({ args: argv, options: OPTIONS });
  const harnesses = harnessesOf(values);
  if (!values.omp && harnesses.length === 0) {
    throw new CliError("name the harness: tama uninstall --omp [--purge] | --claude [--claude-dir DIR] | --codex [--codex-dir DIR]", 2);
  }
  for (const harness of harnesses) uninstallHarnessCommand(harness, values);
  if (!values.omp) return 0;
  const report = uninstall({ ...target(values), purge: values.purge === true });
  if (values.json) printJson(report);
  else {
    process.stdout.write(report.removed.length ? `Removed:\n${report.removed.map((r) => `  ${r}`).join("\n")}\n` : "Nothing of Tama's was installed.\n");
    if (report.kept.length) process.stdout.write(`Kept (use --purge to remove):\n${report.kept.map((k) => `  ${k}`).join("\n")}\n`);
  }
  return 0;
}
