// An offer made just after its dispatch answered: a model request that came in between
// (the session's model asked) releases it, as one after it does; one from before does not.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PrestartPool, type PrestartIdentity } from "../../modules/engine/prestart.ts";
import { fileLogger } from "../../modules/system/log.ts";

const dirs: string[] = [];
const pools: PrestartPool[] = [];
afterEach(() => {
  for (const pool of pools.splice(0)) pool.closeAll();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function setUp(): { pool: PrestartPool; identity: (hook: string) => PrestartIdentity } {
  const dir = mkdtempSync(path.join(tmpdir(), "tama-release-"));
  dirs.push(dir);
  const hook = path.join(dir, "pass.sh");
  writeFileSync(hook, "#!/bin/sh\ncat >/dev/null\n", { mode: 0o755 });
  const pool = new PrestartPool({ mode: "all", perSession: 4, total: 8, idleMs: 60_000 }, () => {}, fileLogger(dir, "engine"));
  pools.push(pool);
  pool.adopt(1);
  const identity = (id: string): PrestartIdentity => ({ session: "s1", event: "pre_tool_use:bash", hook: id, generation: 1, cwd: dir, argv: [hook], env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } });
  return { pool, identity };
}

const until = async (done: () => boolean): Promise<void> => {
  for (let i = 0; i < 400 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
};

describe("pre-start offers made once the answer is written", () => {
  it("start when the session's model was asked after the answer, and wait when it was asked only before", async () => {
    const { pool, identity } = setUp();
    // Asked before this dispatch answered: its offer waits for the next request.
    pool.release("s1");
    const atAnswer = pool.releasesOf("s1");
    pool.offer(identity("waits"), { argv: identity("waits").argv, cwd: identity("waits").cwd, env: identity("waits").env }, atAnswer);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(pool.bounds()).toMatchObject({ held: 0, queued: 1 });
    // Asked between the answer and the offer: the offer is released at once.
    const atSecondAnswer = pool.releasesOf("s1");
    pool.release("s1");
    pool.offer(identity("starts"), { argv: identity("starts").argv, cwd: identity("starts").cwd, env: identity("starts").env }, atSecondAnswer);
    // That release also released the first offer, which was queued then.
    await until(() => pool.bounds().held === 2);
    expect(pool.list().map((held) => held.hook).sort()).toEqual(["starts", "waits"]);
  });
});
