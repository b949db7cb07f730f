// An OMP process that dies without shutting down (SIGKILL) leaves no hook running:
// the engine's input closes and it ends every hook process group it holds, those
// that ignore SIGTERM included.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useOmpFixture } from "../omp/fixture.ts";
import { ROOT } from "../support/engine-client.ts";
import { installTama } from "./tama-omp.ts";

const omp = useOmpFixture();
const FIX = path.join(ROOT, "test/fixtures/hooks");

/** Live processes whose environment carries `needle` (hooks inherit the engine's TAMA_HOME). */
function processesWith(needle: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`, "latin1");
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // a zombie is already dead; only its parent has not read its status yet
      if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) continue;
      if (environ.split("\0").includes(needle)) found.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours
    }
  }
  return found;
}

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("OMP killed without shutting down", () => {
  it("SIGKILL of OMP while a TERM-ignoring hook (and its TERM-ignoring child) runs: no process of the hook is left", async () => {
    const { env } = await omp.setup();
    const tama = installTama(env);
    tama.addHooks({ id: "stubborn", events: ["pre_tool_use"], tools: "shell", timeoutMs: 600_000, command: [path.join(FIX, "ignore-term-tree.sh")] });
    const session = omp.rpc();
    await session.ready();
    void session.send({ type: "prompt", message: 'CALL bash {"command":"echo never"}' });
    const marker = `STUBBORN_HOOK_OF=${tama.home}`;
    // the hook and its child both run (the child marks itself too)
    const hookPids = await until("the stubborn hook and its child", () => {
      const pids = processesWith(marker);
      return pids.length >= 2 ? pids : undefined;
    });
    expect(hookPids.length).toBeGreaterThanOrEqual(2);
    process.kill(session.pid, "SIGKILL");
    // nothing of the hook survives its OMP
    await until("every process of the hook to end", () => (processesWith(marker).length === 0 ? true : undefined));
    expect(processesWith(marker)).toEqual([]);
  });
});
