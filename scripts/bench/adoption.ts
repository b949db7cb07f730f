// Benchmark rows for adoption in place: the built shell in Bun adopts a new adapter
// build 100 times (scripts/bench/adoption-in-bun.ts, run by Bun); p50 time and RSS growth.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fmtMs, median, scratch, type Row } from "./support.ts";

export function adoptionRows(root: string, tamaBin: string, count = 100): Row[] {
  const dir = scratch("tama-bench-adopt-");
  const env = { ...process.env, HOME: dir, TAMA_HOME: path.join(dir, "tama"), PI_CODING_AGENT_DIR: path.join(dir, "agent") };
  const install = spawnSync(process.execPath, [tamaBin, "install", "--omp", "--json"], { env, encoding: "utf8" });
  if (install.status !== 0) throw new Error(`install failed: ${install.stderr}`);
  const report = JSON.parse(install.stdout) as { shellPath: string; adapterPath: string };
  const run = spawnSync(path.join(root, "node_modules/.bin/bun"), [path.join(root, "scripts/bench/adoption-in-bun.ts"), report.shellPath, report.adapterPath, String(count)], {
    env,
    encoding: "utf8",
  });
  if (run.status !== 0) throw new Error(`adoption bench failed: ${run.stderr}`);
  const result = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}") as { times: number[]; rssStartMb: number; rssEndMb: number };
  const p50 = median(result.times);
  const growth = result.rssEndMb - result.rssStartMb;
  return [
    { name: "adapter adoption in place (p50) ÷ 50 ms", measured: `${fmtMs(p50)} (n=${count}, Bun)`, ratio: p50 / 50, goal: "≤ 50 ms", met: p50 <= 50 },
    {
      name: `RSS growth over ${count} adoptions ÷ 30 MB`,
      measured: `${growth.toFixed(1)} MB (${result.rssStartMb.toFixed(0)} → ${result.rssEndMb.toFixed(0)} MB)`,
      ratio: growth / 30,
      goal: "≤ 30 MB",
      met: growth <= 30,
    },
  ];
}
