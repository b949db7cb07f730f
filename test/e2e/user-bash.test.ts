// A person's own command (OMP's user_bash: the TUI's `!cmd`, an RPC host's bash
// command) reaches the same shell gates as the agent's bash calls, in real OMP.
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useOmpFixture } from "../omp/fixture.ts";
import { installTama } from "./tama-omp.ts";

const omp = useOmpFixture();

describe("user_bash in real OMP", () => {
  it("refuses a gated command before it runs, says why, and runs a harmless one", async () => {
    const { env } = await omp.setup();
    installTama(env);
    const session = omp.rpc();
    await session.ready();
    const marker = path.join(env.root, "ran-anyway");
    const refused = await session.send({ type: "bash", command: `git commit --no-verify -m x; touch ${marker}` });
    expect(refused.success).toBe(true);
    const output = JSON.stringify(refused.data);
    expect(output).toMatch(/Tama refused this command: .*--no-verify/);
    expect(existsSync(marker)).toBe(false);
    // the person is told, not only the result
    const notices = session.events.filter((f) => f.type === "extension_ui_request" && f.method === "notify").map((f) => String(f.message));
    expect(notices.some((m) => /Tama refused this command/.test(m))).toBe(true);

    const ran = await session.send({ type: "bash", command: "echo person-ran" });
    expect(JSON.stringify(ran.data)).toMatch(/person-ran/);
  });
});
