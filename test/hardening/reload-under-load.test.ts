// 1000 tool events while the adapter is adopted in place 20 times, in real Bun with
// the built shell and adapter and a real engine.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { ROOT, settleProcesses, TAMA_BIN } from "../support/engine-client.ts";

it("answers every event exactly once, by the old or the new adapter, through 20 adoptions", async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "tama-load-"));
  try {
    const env = { ...process.env, TAMA_HOME: path.join(dir, "tama"), PI_CODING_AGENT_DIR: path.join(dir, "agent"), HOME: dir };
    const install = spawnSync(process.execPath, [TAMA_BIN, "install", "--omp", "--json"], { env, encoding: "utf8" });
    expect(install.status, install.stderr).toBe(0);
    const report = JSON.parse(install.stdout) as { shellPath: string; adapterPath: string };
    const run = spawnSync(path.join(ROOT, "node_modules/.bin/bun"), [path.join(ROOT, "scripts/stress/reload-under-load.ts"), report.shellPath, report.adapterPath, "1000", "20"], {
      env,
      encoding: "utf8",
      timeout: 240_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const summary = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}") as Record<string, number>;
    expect(summary).toMatchObject({ events: 1000, answered: 1000, answeredTwice: 0, wrongDecisions: 0, adoptions: 20 });
    expect(summary.adopted).toBeGreaterThan(0);
    expect(summary.refused).toBeGreaterThan(0);
    expect((summary.adopted ?? 0) + (summary.refused ?? 0)).toBe(20);
    expect(await settleProcesses(path.join(dir, "tama"))).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
