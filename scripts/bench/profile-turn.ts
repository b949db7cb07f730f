// A turn's engine round trips with the built-in gates only (what OMP's adapter sends
// per tool-call turn), for profiling: TAMA_BENCH_ENGINE_PROFILE=DIR writes a CPU profile.
import { appendFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defaultRegistry } from "../../modules/registry/default.ts";
import { BenchEngine, fmtMs, median, scratch, writeExecutable } from "./support.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const home = scratch("tama-profile-");
writeExecutable(path.join(home, "hooks/registry.json"), JSON.stringify(defaultRegistry(null)));
const file = path.join(home, "session.jsonl");
writeFileSync(file, "");
const engine = new BenchEngine(path.join(root, "dist/bin/tama.js"), { ...process.env, TAMA_HOME: home }, process.env.TAMA_PROFILE_RUNTIME ?? process.execPath);
await engine.ready;
const base = { session_id: "p", cwd: home, transcript_path: file };
const turns: number[] = [];
for (let i = 0; i < Number(process.env.TAMA_PROFILE_TURNS ?? 500); i++) {
  appendFileSync(file, `${JSON.stringify({ type: "message", id: `m${i}`, parentId: i ? `m${i - 1}` : null, message: { role: "user", content: "x" } })}\n`);
  const t = performance.now();
  void engine.request({ op: "dispatch", event: "before_provider_request", payload: base });
  await engine.request({ op: "dispatch", event: "pre_tool_use:bash", payload: { ...base, tool_name: "bash", tool_input: { command: `echo ${i}` } } });
  await engine.request({ op: "dispatch", event: "post_tool_use:bash", payload: { ...base, tool_name: "bash", tool_input: { command: `echo ${i}` }, tool_response: { content: [] } } });
  void engine.request({ op: "dispatch", event: "before_provider_request", payload: base });
  await engine.request({ op: "dispatch", event: "stop", payload: base });
  turns.push(performance.now() - t);
}
await engine.close();
process.stdout.write(`engine time per turn (3 awaited round trips, 2 background): p50 ${fmtMs(median(turns))}\n`);
