// Profiling a real OMP turn with Tama's built-in gates (or a no-op extension):
// `bun scripts/bench/profile-omp.ts DIR [tama|noop] [turns]` (after `npm run build`)
// writes Bun CPU profiles of OMP and of its engine to DIR.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startModelServer } from "../../test/omp/model-server.ts";
import { makeOmpEnv } from "../../test/omp/omp-env.ts";
import { noopExtension, oneCallATurn, timedSession } from "./omp-session.ts";
import { fmtMs, median } from "./support.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const [dir, mode = "tama", turnsArg = "200"] = process.argv.slice(2);
if (!dir) throw new Error("usage: profile-omp.ts DIR [tama|noop] [turns]");
const server = await startModelServer(oneCallATurn());
const env = makeOmpEnv({ modelServerUrl: server.url });
const extensions: string[] = [];
if (mode === "tama") {
  env.env.TAMA_HOME = path.join(env.root, "tama");
  const installed = spawnSync(process.execPath, [path.join(root, "dist/bin/tama.js"), "install", "--omp"], { env: { ...process.env, ...env.env }, encoding: "utf8" });
  if (installed.status !== 0) throw new Error(installed.stderr);
} else extensions.push(noopExtension(env.scratch));
if (process.env.TAMA_PROFILE_OFF !== "1") env.env.BUN_OPTIONS = `--cpu-prof --cpu-prof-md --cpu-prof-dir=${path.resolve(dir)} --cpu-prof-interval=${process.env.TAMA_PROFILE_INTERVAL_US ?? 200}`;
const session = await timedSession(server, env, extensions);
const times: number[] = [];
for (let i = 0; i < Number(turnsArg); i++) times.push(await session.prompt(i));
await session.close();
process.stdout.write(`${mode}: turn p50 ${fmtMs(median(times.slice(5)))}\n`);
