// Tama's shell and adapter inside a real OMP, driven by the scripted model server.
import { describe, expect, it } from "vitest";
import { useOmpFixture } from "../omp/fixture.ts";
import { slashCommand } from "../session-control/support.ts";
import { installTama } from "./tama-omp.ts";
import { defaultRegistry } from "../../modules/registry/default.ts";

/** The gates a new install turns on. */
const GATES = defaultRegistry(null).hooks.length;

const omp = useOmpFixture();

function toolMessages(body: Record<string, unknown>): string[] {
  const messages = (body.messages ?? []) as { role: string; content: unknown }[];
  return messages.filter((m) => m.role === "tool").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
}

describe("gates in real OMP", () => {
  it("refuses git commit --no-verify with the reason in the next model request, and lets a harmless call run", async () => {
    const { server, env } = await omp.setup();
    installTama(env);
    const session = omp.rpc();
    await session.ready();
    const refused = await session.prompt('CALL bash {"command":"git commit --no-verify -m x"}');
    expect(refused.agentInvoked).toBe(true);
    const second = server.requests[1];
    expect(second).toBeDefined();
    const tool = toolMessages(second!.body as Record<string, unknown>);
    expect(tool.join("\n")).toMatch(/--no-verify/);
    // OMP's footer shows the gates, the engine and the last refusal, live
    const status = session.events.filter((f) => f.type === "extension_ui_request" && f.method === "setStatus" && f.statusKey === "tama").at(-1);
    expect(String(status?.statusText)).toMatch(new RegExp(`^Tama: ${GATES} gates · engine \\d+ · refused: git commit --no-verify skips`));
    const before = server.requests.length;
    await session.prompt('CALL bash {"command":"echo harmless-ran"}');
    const after = toolMessages(server.requests[before + 1]!.body as Record<string, unknown>);
    expect(after.join("\n")).toMatch(/harmless-ran/);
    // the footer keeps the refusal only until a call passes
    const later = session.events.filter((f) => f.type === "extension_ui_request" && f.method === "setStatus" && f.statusKey === "tama").at(-1);
    expect(String(later?.statusText)).toMatch(new RegExp(`^Tama: ${GATES} gates · engine \\d+$`));

    // /tama_status: a short summary for a person; --json for the whole object
    const summary = await slashCommand(session, "/tama_status");
    expect(summary).toMatch(/^Tama · adapter [0-9a-f]{12} · OMP pid \d+/);
    expect(summary).toMatch(new RegExp(`engine \\d+ · ${GATES} gates · release .* · registry ok`));
    expect(summary).toMatch(/last refusal: none since the last passing call/);
    expect(summary.split("\n").length).toBeLessThan(12);
    const full = JSON.parse(await slashCommand(session, "/tama_status --json")) as { adapterDigest: string; engine: { state: { registeredHookCount: number } } };
    expect(full.engine.state.registeredHookCount).toBe(GATES);
  });
});

describe("an install's TAMA_HOME", () => {
  it("is followed by the shell, the adapter and the engine when OMP's environment does not name it", async () => {
    const { server, env } = await omp.setup();
    const tama = installTama(env);
    delete env.env.TAMA_HOME;
    const session = omp.rpc();
    await session.ready();
    await session.prompt('CALL bash {"command":"git commit --no-verify -m y"}');
    expect(toolMessages(server.requests[1]!.body as Record<string, unknown>).join("\n")).toMatch(/--no-verify/);
    const { readdirSync } = await import("node:fs");
    // the engine wrote its log under the installed TAMA_HOME, not ~/.tama
    expect(readdirSync(`${tama.home}/logs`)).toContain("engine.log");
  });
});
