// The extension of Tama's OMP plugin (`omp plugin install`, the `omp` field of
// package.json). The plugin is the shell: on load it lays down from its own package
// what `tama install --omp` would (release, adapter, registry) when the installed
// release is not this package's, then starts the shell. No shell file is written into
// OMP's extensions dir, so `omp plugin uninstall` leaves nothing that OMP loads.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { buildRelease, currentRelease, install, ompAgentDir, SHELL_FILE } from "../modules/install/install.ts";
import type { OmpApi } from "../modules/omp/api.ts";
import { tamaPaths } from "../modules/system/paths.ts";
import tamaShell from "./omp-shared-hooks.ts";

/** Whether `tama install --omp` put its shell in OMP's extensions dir: then that shell serves, not the plugin. */
function extensionShell(): string | undefined {
  const file = path.join(ompAgentDir(), "extensions", SHELL_FILE);
  try {
    return existsSync(file) && readFileSync(file, "utf8").includes("Tama's OMP adapter") ? file : undefined;
  } catch {
    return undefined;
  }
}

export default async function tamaPlugin(pi: OmpApi): Promise<void> {
  const shell = extensionShell();
  if (shell) {
    // Two shells would start two engines and run every hook twice.
    process.stderr.write(`Tama's OMP plugin is not starting: ${shell} (from tama install --omp) serves Tama in this OMP; remove one of the two\n`);
    return;
  }
  try {
    const paths = tamaPaths();
    const { releaseId } = buildRelease();
    if (currentRelease(paths) !== releaseId || !existsSync(paths.adapter)) install({ paths, shell: false });
  } catch (error) {
    // The shell still starts: with no adapter it refuses tool calls and says why.
    process.stderr.write(`Tama's OMP plugin could not install its release: ${(error as Error).message}\n`);
  }
  await tamaShell(pi);
}
