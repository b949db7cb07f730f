// What the built bundles may ask for at run time: Node's own modules only. A package
// left as a run-time require is one Bun installs from the registry when a file outside
// any node_modules asks for it, as an installed release and the adapter OMP loads are:
// code nobody pinned, fetched as a session or an engine starts.
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../omp/omp-env.ts";

const DIST = path.join(PROJECT_ROOT, "dist");
const BUN = path.join(PROJECT_ROOT, "node_modules/.bin/bun");
const builtins = new Set(builtinModules);
/** A bare specifier (`ws`, `@scope/pkg/sub`), not a relative or absolute path. */
const PACKAGE_NAME = /^(?:@[\w.-]+\/)?[\w-][\w.-]*(?:\/[\w.-]+)*$/;

function bundles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return dir === DIST && entry.name === "scripts" ? [] : bundles(file);
    return entry.name.endsWith(".js") ? [file] : [];
  });
}

const scratch: string[] = [];
afterEach(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("built bundles", () => {
  it("require nothing at run time but Node's own modules", () => {
    const files = bundles(DIST);
    expect(files.length).toBeGreaterThan(3);
    const asked: string[] = [];
    for (const file of files) {
      // require() and __require() of a bundled CommonJS module, and an import the bundle kept.
      const text = readFileSync(file, "utf8");
      const names = [...text.matchAll(/\b(?:__require|require|import)\(\s*"([^"]+)"\s*\)|(?:^|;)\s*import\s*(?:[\w$*{},\s]+?from\s*)?"([^"]+)"/gm)].map((m) => (m[1] ?? m[2]) as string);
      for (const name of names) {
        if (!PACKAGE_NAME.test(name) || name.startsWith("node:") || builtins.has(name)) continue;
        asked.push(`${path.relative(DIST, file)}: ${name}`);
      }
    }
    expect(asked).toEqual([]);
  });

  it("an engine started by Bun outside any node_modules installs nothing", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "tama-bundle-"));
    scratch.push(dir);
    const release = path.join(dir, "release");
    const home = path.join(dir, "home");
    spawnSync("mkdir", ["-p", release, home, path.join(dir, "tama")]);
    copyFileSync(path.join(DIST, "bin/tama.js"), path.join(release, "tama.js"));
    const run = spawnSync(BUN, [path.join(release, "tama.js"), "run-hook", "--serve", "omp"], {
      cwd: release,
      input: `${JSON.stringify({ op: "status", id: "s1" })}\n`,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, TAMA_HOME: path.join(dir, "tama") },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('"id":"s1"');
    // Bun keeps what it installs under the home's cache (its own scratch folder is `@t@…`).
    const cache = path.join(home, ".bun/install/cache");
    const installed = existsSync(cache) ? readdirSync(cache).filter((name) => !name.startsWith("@t@")) : [];
    expect(installed).toEqual([]);
  });
});
