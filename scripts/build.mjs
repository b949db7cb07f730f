// Builds the artifacts with esbuild:
//   dist/bin/tama.js                     the CLI and engine, one file with its dependencies
//   dist/shell/omp-shared-hooks.js       the shell OMP imports once
//   dist/plugin/omp-plugin.js            the OMP plugin's extension: installs from the package, then the shell
//   dist/shared-hooks/omp/adapter.js     the adapter: all of Tama's own code it runs, one file
//   dist/shared-hooks/omp/vendor-<sha256>.js
//                                        the third-party code the adapter imports, named by its
//                                        SHA-256; the adapter's bytes name it, so the adapter's
//                                        digest is the identity of everything it runs
//   dist/scripts/*.js                    bench, demo, stress
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "dist");
const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

// Bundled CommonJS dependencies (pino, ws) call require(); ESM output needs one made for them.
const requireShim = "import { createRequire as __tamaCreateRequire } from 'node:module'; const require = __tamaCreateRequire(import.meta.url);";

/**
 * The code every bundle of one build is made from: a digest of the sources. A
 * decision taken in OMP's process is one the engine would take only when both run
 * the same code (modules/system/build-id.ts).
 */
function sourcesDigest() {
  const hash = createHash("sha256");
  const walk = (dir) => {
    for (const name of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const file = path.join(dir, name.name);
      if (name.isDirectory()) walk(file);
      else if (name.name.endsWith(".ts")) hash.update(`${path.relative(root, file)}\0`).update(readFileSync(file)).update("\0");
    }
  };
  for (const dir of ["modules", "adapter", "shell"]) walk(path.join(root, dir));
  hash.update(readFileSync(path.join(root, "package-lock.json")));
  return hash.digest("hex");
}

/**
 * ws's optional native add-ons, left out of every bundle: ws requires them in a try and
 * goes on with its own code when they are missing. Left as run-time requires, Bun (which
 * runs the adapter in OMP, and the engine there) installs a package a file outside any
 * node_modules asks for from the registry and loads it: a native add-on nobody pinned,
 * fetched as each session and engine started, and about 0.3-0.5 s each time.
 */
const withoutOptionalAddons = {
  name: "without-optional-addons",
  setup(b) {
    b.onResolve({ filter: /^(bufferutil|utf-8-validate)$/ }, (args) => ({ path: args.path, namespace: "absent-addon" }));
    b.onLoad({ filter: /.*/, namespace: "absent-addon" }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`${args.path} is not part of Tama's build`)});`,
      loader: "js",
    }));
  },
};

const common = {
  bundle: true,
  plugins: [withoutOptionalAddons],
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: false,
  // Whitespace and syntax only: identifiers stay, so stack traces stay readable.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: "none",
  logLevel: "warning",
  banner: { js: requireShim },
  // `tama --version`.
  define: { __TAMA_VERSION__: JSON.stringify(pkg.version), __TAMA_BUILD__: JSON.stringify(sourcesDigest()) },
};

const single = [
  { entry: "modules/cli/tama.ts", out: "bin/tama.js" },
  { entry: "shell/omp-shared-hooks.ts", out: "shell/omp-shared-hooks.js", banner: { js: "" } },
  { entry: "shell/omp-plugin.ts", out: "plugin/omp-plugin.js" },
  { entry: "scripts/bench/main.ts", out: "scripts/bench.js" },
  { entry: "scripts/demo.ts", out: "scripts/demo.js" },
  { entry: "scripts/stress/main.ts", out: "scripts/stress.js" },
];

mkdirSync(dist, { recursive: true });
for (const target of single) {
  const outfile = path.join(dist, target.out);
  await build({ ...common, ...(target.banner ? { banner: target.banner } : {}), entryPoints: [path.join(root, target.entry)], outfile });
}
chmodSync(path.join(dist, "bin/tama.js"), 0o755);

// The adapter and its vendor chunk: split, then the chunk renamed to its SHA-256.
const omp = path.join(dist, "shared-hooks/omp");
rmSync(omp, { recursive: true, force: true });
await build({
  ...common,
  entryPoints: { adapter: path.join(root, "adapter/index.ts"), vendor: path.join(root, "adapter/vendor.ts") },
  splitting: true,
  outdir: omp,
  entryNames: "[name]",
  chunkNames: "chunk-[hash]",
});
rmSync(path.join(omp, "vendor.js"));
const chunks = readdirSync(omp).filter((name) => name.startsWith("chunk-"));
if (chunks.length !== 1) throw new Error(`expected one vendor chunk, found: ${chunks.join(", ") || "none"}`);
const chunk = chunks[0];
const chunkBytes = readFileSync(path.join(omp, chunk));
const vendorFile = `vendor-${sha256(chunkBytes)}.js`;
renameSync(path.join(omp, chunk), path.join(omp, vendorFile));
const adapterPath = path.join(omp, "adapter.js");
const adapterText = readFileSync(adapterPath, "utf8");
if (!adapterText.includes(`./${chunk}`)) throw new Error("the adapter does not import its vendor chunk");
writeFileSync(adapterPath, adapterText.split(`./${chunk}`).join(`./${vendorFile}`));

const manifest = {
  version: pkg.version,
  adapterDigest: existsSync(adapterPath) ? sha256(readFileSync(adapterPath)) : null,
  vendor: vendorFile,
};
writeFileSync(path.join(dist, "build.json"), `${JSON.stringify(manifest, null, 2)}\n`);
process.stdout.write(`built dist/ (adapter ${manifest.adapterDigest}, ${vendorFile})\n`);
