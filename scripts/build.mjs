// Builds the three artifacts with esbuild:
//   dist/bin/tama.js                     the CLI and engine, one file with its dependencies
//   dist/shell/omp-shared-hooks.js       the shell OMP imports once
//   dist/shared-hooks/omp/adapter.js     the adapter and every module it imports, ONE file:
//                                        its SHA-256 is the adapter's identity
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "dist");
const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));

// Bundled CommonJS dependencies (pino) call require(); ESM output needs one made for them.
const requireShim = "import { createRequire as __tamaCreateRequire } from 'node:module'; const require = __tamaCreateRequire(import.meta.url);";

const common = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: false,
  legalComments: "none",
  logLevel: "warning",
  define: { __TAMA_VERSION__: JSON.stringify(pkg.version) },
};

const targets = [
  { entry: "modules/cli/tama.ts", out: "bin/tama.js", banner: requireShim },
  { entry: "shell/omp-shared-hooks.ts", out: "shell/omp-shared-hooks.js", banner: "" },
  { entry: "adapter/index.ts", out: "shared-hooks/omp/adapter.js", banner: requireShim },
  { entry: "scripts/bench.ts", out: "scripts/bench.js", banner: requireShim },
  { entry: "scripts/demo.ts", out: "scripts/demo.js", banner: requireShim },
  { entry: "scripts/stress.ts", out: "scripts/stress.js", banner: requireShim },
];

mkdirSync(dist, { recursive: true });
for (const target of targets) {
  if (!existsSync(path.join(root, target.entry))) continue;
  const outfile = path.join(dist, target.out);
  await build({ ...common, entryPoints: [path.join(root, target.entry)], outfile, banner: { js: target.banner } });
  if (target.out === "bin/tama.js") chmodSync(outfile, 0o755);
}

const adapter = path.join(dist, "shared-hooks/omp/adapter.js");
const manifest = {
  version: pkg.version,
  adapterDigest: existsSync(adapter) ? createHash("sha256").update(readFileSync(adapter)).digest("hex") : null,
};
writeFileSync(path.join(dist, "build.json"), `${JSON.stringify(manifest, null, 2)}\n`);
process.stdout.write(`built dist/ (adapter ${manifest.adapterDigest ?? "not built"})\n`);
