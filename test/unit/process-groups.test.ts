// Ending a hook's process group: TERM first, KILL after a grace the engine may not live
// to see (it exits at once when its input closes). A stopped process takes no TERM
// until it is continued, so a group ended by TERM alone could outlive the engine.
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { endGroup, groupAlive } from "../../modules/system/process-groups.ts";

async function until(condition: () => boolean, boundMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + boundMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

describe("endGroup", () => {
  it("ends a stopped group by its TERM, without waiting for the KILL after the grace", async () => {
    const child = spawn("sh", ["-c", "sleep 60 & wait"], { detached: true, stdio: "ignore" });
    const pgid = child.pid as number;
    try {
      process.kill(-pgid, "SIGSTOP");
      // A grace longer than the test: only the TERM can end it here.
      endGroup(pgid, 60_000);
      expect(await until(() => !groupAlive(pgid))).toBe(true);
    } finally {
      if (groupAlive(pgid)) process.kill(-pgid, "SIGKILL");
    }
  });
});
