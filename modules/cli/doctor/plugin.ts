// Tama installed as an OMP plugin (`omp plugin install`): then the plugin's extension
// is the shell, and no shell file is in OMP's extensions dir.
import { existsSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ok, warning, type Check } from "./check.ts";

export const PLUGIN_PACKAGE = "tama-hooks";

/** Where OMP keeps plugins: `~/.omp/plugins` (PI_CONFIG_DIR), or `$XDG_DATA_HOME/omp/plugins` once migrated. */
function pluginDirs(env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME || os.homedir();
  const dirs = [path.join(home, env.PI_CONFIG_DIR || ".omp", "plugins")];
  if (env.XDG_DATA_HOME) dirs.push(path.join(env.XDG_DATA_HOME, "omp", "plugins"));
  return dirs;
}

/** The installed, enabled plugin's package dir, if any. */
export function installedPlugin(env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of pluginDirs(env)) {
    const pkg = path.join(dir, "node_modules", PLUGIN_PACKAGE);
    if (!existsSync(path.join(pkg, "package.json"))) continue;
    try {
      const lock = JSON.parse(readFileSync(path.join(dir, "omp-plugins.lock.json"), "utf8")) as { plugins?: Record<string, { enabled?: boolean }> };
      if (lock.plugins?.[PLUGIN_PACKAGE]?.enabled === false) continue;
    } catch {
      // no lock file: OMP treats the package as enabled
    }
    return pkg;
  }
  return undefined;
}

/** The shell check when the plugin is installed: it serves, unless an extensions-dir shell is there too. */
export function checkPluginShell(plugin: string, shellFile: string | undefined): Check {
  if (shellFile) {
    return warning(
      "shell",
      `both the OMP plugin ${plugin} and ${shellFile} are installed: the plugin stands aside for the extensions-dir shell`,
      `keep one: \`omp plugin uninstall ${PLUGIN_PACKAGE}\`, or \`tama uninstall --omp\` and restart OMP`,
    );
  }
  return ok("shell", `the OMP plugin ${plugin} (it installs its release on load)`);
}
