// The session control capability in a real OMP session: a hook gets the socket and
// key only under a grant for the loaded release and catalog, can then use session
// control on its own session, and keeps it across /tama_reload_hook_runtime to a new
// release (the adapter rebinds the grant); a stale grant gives it nothing.
import { spawnSync } from "node:child_process";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { newerAdapter } from "../e2e/adapter-variants.ts";
import { installTama } from "../e2e/tama-omp.ts";
import { useOmpFixture } from "../omp/fixture.ts";
import { ROOT } from "../support/engine-client.ts";
import { runTama, slashCommand, waitForSession } from "./support.ts";

const omp = useOmpFixture();
const WS = path.join(ROOT, "node_modules/ws/wrapper.mjs");

interface Probe {
  socket: string | null;
  key: string | null;
  /** What session control answered the hook's own status request. */
  status?: { ok: boolean; session?: string; error?: unknown };
}

/** A hook that records the capability it was handed and uses it for a status request. */
function probeScript(log: string): string {
  return `
import { appendFileSync } from "node:fs";
import net from "node:net";
import { WebSocket } from ${JSON.stringify(WS)};
const socket = process.env.TAMA_SESSION_CONTROL ?? null;
const key = process.env.TAMA_SESSION_CONTROL_KEY ?? null;
const line = { socket, key };
if (socket && key) {
  line.status = await new Promise((resolve) => {
    const ws = new WebSocket("ws://session/", { createConnection: () => net.connect(socket) });
    ws.on("open", () => ws.send(JSON.stringify({ id: "probe", op: "status", key })));
    ws.on("message", (data) => { const a = JSON.parse(String(data)); resolve({ ok: a.ok, session: a.result?.session, error: a.error }); ws.close(); });
    ws.on("error", (e) => resolve({ ok: false, error: e.message }));
  });
}
appendFileSync(${JSON.stringify(log)}, JSON.stringify(line) + "\\n");
`;
}

describe("the session control capability for hooks", () => {
  it("is handed over only under a matching grant, works on the hook's own session, and survives a reload to a new release", async () => {
    const { env } = await omp.setup();
    // Whatever OMP's own environment holds is never passed on as the capability.
    env.env.TAMA_SESSION_CONTROL = "/inherited/not/granted.sock";
    const tama = installTama(env);
    const log = path.join(env.scratch, "probe.jsonl");
    const script = path.join(env.scratch, "probe.mjs");
    writeFileSync(script, probeScript(log));
    const probeHook = { id: "capability-probe", events: ["pre_tool_use"], tools: "shell", command: [process.execPath, script], timeoutMs: 15_000 };
    tama.addHooks(probeHook);
    const cliEnv = { ...env.env, TAMA_HOME: tama.home };

    const session = omp.rpc();
    await session.ready();
    const listed = await waitForSession(cliEnv, session.pid);
    const record = JSON.parse(readFileSync(path.join(tama.home, "sessions", `session.${listed.session}.json`), "utf8")) as { key: string; socket: string };
    const probes = (): Probe[] => readFileSync(log, "utf8").split("\n").filter((l) => l.length > 0).map((l) => JSON.parse(l) as Probe);
    const call = async (): Promise<Probe> => {
      const before = probes().length;
      await session.prompt('CALL bash {"command":"echo probe"}');
      const all = probes();
      expect(all.length).toBeGreaterThan(before);
      return all.at(-1)!;
    };
    writeFileSync(log, "");

    // No grant: nothing, not even the inherited variable.
    expect(await call()).toEqual({ socket: null, key: null });

    // The operator's grant: the hook gets the socket and key and can use its own session's control.
    const granted = await runTama(cliEnv, ["sessions", "grant", "--session", listed.session, "--json"]);
    expect(granted.code, granted.stderr).toBe(0);
    const grant = JSON.parse(granted.stdout) as { file: string; releaseId: string; catalogChecksum: string };
    expect(await call()).toEqual({ socket: record.socket, key: record.key, status: { ok: true, session: listed.session } });

    // A grant for another catalog (stale) gives nothing.
    const grantFile = JSON.parse(readFileSync(grant.file, "utf8")) as Record<string, unknown>;
    writeFileSync(grant.file, JSON.stringify({ ...grantFile, catalogChecksum: "0".repeat(64) }));
    expect(await call()).toEqual({ socket: null, key: null });
    // A grant under another key gives nothing either.
    writeFileSync(grant.file, JSON.stringify({ ...grantFile, key: "f".repeat(64) }));
    expect(await call()).toEqual({ socket: null, key: null });

    // A hand edit of the catalog within the release is not carried: the consent was for other hooks.
    writeFileSync(grant.file, JSON.stringify(grantFile));
    expect((await call()).key).toBe(record.key);
    const edited = tama.readRegistry();
    tama.writeRegistry({ ...edited, hooks: [...edited.hooks, { id: "noop", events: ["session_end"], command: ["true"] }] });
    expect(await call()).toEqual({ socket: null, key: null });
    expect(JSON.parse(readFileSync(grant.file, "utf8"))).toMatchObject({ catalogChecksum: grant.catalogChecksum, grantedBy: "operator" });

    // Granted again, then a new release is installed and adopted with /tama_reload_hook_runtime.
    expect((await runTama(cliEnv, ["sessions", "grant", "--session", listed.session])).code).toBe(0);
    expect((await call()).key).toBe(record.key);
    const dist = path.join(env.scratch, "dist-v2");
    cpSync(path.join(ROOT, "dist"), dist, { recursive: true });
    writeFileSync(path.join(dist, "shared-hooks/omp/adapter.js"), newerAdapter("v2", path.join(env.scratch, "events.log")));
    const installed = spawnSync(process.execPath, [path.join(dist, "bin/tama.js"), "install", "--omp", "--json"], { env: { ...process.env, ...cliEnv }, encoding: "utf8" });
    expect(installed.status, installed.stderr).toBe(0);
    const newRelease = (JSON.parse(installed.stdout) as { releaseId: string }).releaseId;
    expect(newRelease).not.toBe(grant.releaseId);
    const answer = await slashCommand(session, "/tama_reload_hook_runtime");
    expect(answer).toMatch(/^Loaded the installed OMP adapter/);

    const after = await call();
    expect(after).toEqual({ socket: record.socket, key: record.key, status: { ok: true, session: listed.session } });
    expect(JSON.parse(readFileSync(grant.file, "utf8"))).toMatchObject({ releaseId: newRelease, grantedBy: "rebind", reboundFrom: { releaseId: grant.releaseId } });

    // Revoked: gone from the next event on.
    expect((await runTama(cliEnv, ["sessions", "revoke", "--session", listed.session])).code).toBe(0);
    expect(await call()).toEqual({ socket: null, key: null });
  });
});
