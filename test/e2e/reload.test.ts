// Adoption in place inside a real OMP (Bun): a changed adapter really runs its new
// code after /tama_reload_hook_runtime; a broken one is refused and the old one keeps gating.
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useOmpFixture } from "../omp/fixture.ts";
import type { Frame, RpcSession } from "../omp/rpc-session.ts";
import { BUILT_ADAPTER, newerAdapter, throwingAdapter } from "./adapter-variants.ts";
import { installTama } from "./tama-omp.ts";

const omp = useOmpFixture();
const sha = (text: string | Buffer) => createHash("sha256").update(text).digest("hex");

function lastToolText(body: unknown): string {
  const messages = ((body as { messages?: { role: string; content: unknown }[] }).messages ?? []).filter((m) => m.role === "tool");
  const last = messages.at(-1);
  return typeof last?.content === "string" ? last.content : JSON.stringify(last?.content ?? "");
}

async function command(session: RpcSession, text: string): Promise<string> {
  const from = session.events.length;
  await session.prompt(text);
  const notify = await session.waitFor((f: Frame) => f.type === "extension_ui_request" && f.method === "notify", { from });
  return String(notify.message);
}

describe("/tama_reload_hook_runtime in a running session", () => {
  it("adopts a newer adapter in place: both digests named before the engine's answer, its new tool and event work", async () => {
    const { server, env } = await omp.setup();
    const tama = installTama(env);
    const session = omp.rpc();
    await session.ready();
    const oldDigest = sha(readFileSync(BUILT_ADAPTER));
    const enginePid = (JSON.parse(await command(session, "/tama_status --json")) as { engine: { processId: number } }).engine.processId;
    const eventLog = path.join(env.scratch, "events.log");
    const newer = newerAdapter("v2", eventLog);
    tama.installAdapter(newer);
    const answer = await command(session, "/tama_reload_hook_runtime");
    const lines = answer.split("\n");
    expect(lines[0]).toBe(`Loaded the installed OMP adapter ${sha(newer)} in place of ${oldDigest}`);
    // the new adapter took the engine over: same process, no restart
    expect(lines[1]).toMatch(new RegExp(`^Engine ${enginePid} reloaded its registry`));
    // the new code runs: its tool answers, its event handler fires, its gates still hold
    const before = server.requests.length;
    await session.prompt("CALL tama_probe_v2 {}");
    expect(lastToolText(server.requests[before + 1]?.body)).toBe("v2-ran");
    expect(readFileSync(eventLog, "utf8")).toMatch(/v2 turn_end/);
    const gated = server.requests.length;
    await session.prompt('CALL bash {"command":"git commit -n -m x"}');
    expect(lastToolText(server.requests[gated + 1]?.body)).toMatch(/git commit -n/);
    // the same digest again is already loaded
    expect(await command(session, "/tama_reload_hook_runtime")).toMatch(`The installed OMP adapter ${sha(newer)} is already loaded`);
  });

  it("refuses an adapter that throws on import; the old one keeps running with its digest", async () => {
    const { server, env } = await omp.setup();
    const tama = installTama(env);
    const session = omp.rpc();
    await session.ready();
    tama.installAdapter(throwingAdapter());
    const answer = await command(session, "/tama_reload_hook_runtime");
    expect(answer.split("\n")[0]).toMatch(/^Tama could not reload its OMP adapter: .*this adapter is broken on purpose/);
    const before = server.requests.length;
    await session.prompt('CALL bash {"command":"git commit --no-verify -m y"}');
    expect(lastToolText(server.requests[before + 1]?.body)).toMatch(/--no-verify/);
    const status = await command(session, "/tama_status --json");
    expect(JSON.parse(status)).toMatchObject({ adapterDigest: sha(readFileSync(BUILT_ADAPTER)) });
    expect(existsSync(tama.adapter)).toBe(true);
  });
});
