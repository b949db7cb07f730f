// The session record's life in a real OMP: published at start (0600 socket and record
// in a 0700 directory), moved by a session switch, removed on shutdown, left stale by a
// killed OMP and cleaned by the CLI; no session control from a directory others can write.
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { SESSIONS_EXIT } from "../../modules/cli/sessions.ts";
import { installTama } from "../e2e/tama-omp.ts";
import { useOmpFixture } from "../omp/fixture.ts";
import type { Frame } from "../omp/rpc-session.ts";
import { listSessions, runTama, startTamaSession, waitForSession } from "./support.ts";

const omp = useOmpFixture();

describe("session records in a real OMP", () => {
  it("publishes the record and socket privately, follows a session switch, and removes both on shutdown", async () => {
    const { env, tama, session, cliEnv, listed: first } = await startTamaSession(omp);
    const sessionsDir = path.join(tama.home, "sessions");
    const recordFile = path.join(sessionsDir, `session.${first.session}.json`);
    expect(statSync(sessionsDir).mode & 0o777).toBe(0o700);
    expect(statSync(first.socket).mode & 0o777).toBe(0o600);
    expect(statSync(recordFile).mode & 0o777).toBe(0o600);
    const record = JSON.parse(readFileSync(recordFile, "utf8")) as Record<string, unknown>;
    expect(record).toMatchObject({ schema: 1, protocolVersion: 1, session: first.session, ompPid: session.pid, cwd: env.cwd, adapterReloadSupported: true });
    expect(typeof record.enginePid === "number" || record.enginePid === null).toBe(true);

    const status = await runTama(cliEnv, ["sessions", "status", "--session", first.session, "--json"]);
    expect(status.code, status.stderr).toBe(0);
    const shown = JSON.parse(status.stdout) as { adapter: { engine: { processId: number } }; ompPid: number };
    expect(shown.ompPid).toBe(session.pid);
    expect(shown.adapter.engine.processId).toBeGreaterThan(0);
    // The engine's pid reaches the record once the engine answered.
    await expect.poll(() => (JSON.parse(readFileSync(recordFile, "utf8")) as { enginePid: number | null }).enginePid).toBe(shown.adapter.engine.processId);

    // /new: the socket and record move to the new session id.
    expect((await session.send({ type: "new_session" })).success).toBe(true);
    await expect.poll(async () => (await listSessions(cliEnv)).sessions.map((s) => s.session), { timeout: 15_000 }).not.toContain(first.session);
    const second = await waitForSession(cliEnv, session.pid);
    expect(second.session).not.toBe(first.session);
    expect(existsSync(recordFile)).toBe(false);

    await session.close();
    expect((await listSessions(cliEnv)).sessions).toEqual([]);
    expect(existsSync(second.socket)).toBe(false);
    expect(existsSync(path.join(sessionsDir, `session.${second.session}.json`))).toBe(false);
  });

  it("inside OMP (Bun), bad messages and an oversized frame get their errors; the session and the next connection carry on", async () => {
    const { server, tama, session, cliEnv, listed } = await startTamaSession(omp);
    const { key } = JSON.parse(readFileSync(path.join(tama.home, "sessions", `session.${listed.session}.json`), "utf8")) as { key: string };
    const ws = new WebSocket("ws://session/", { createConnection: () => net.connect(listed.socket) });
    const answers: { id: unknown; ok: boolean; error?: { code: string } }[] = [];
    ws.on("message", (data) => answers.push(JSON.parse(String(data)) as (typeof answers)[number]));
    await new Promise((resolve) => ws.once("open", resolve));
    ws.send("{oops");
    ws.send(JSON.stringify({ id: "u", op: "restart", key }));
    ws.send(JSON.stringify({ id: "t", op: "status", key: [] }));
    ws.send(JSON.stringify({ id: "big", op: "status", key, pad: "x".repeat(100_000) }));
    ws.send(JSON.stringify({ id: "s", op: "status", key }));
    await expect.poll(() => answers.length).toBe(5);
    expect(answers.map((a) => (a.ok ? "ok" : a.error?.code))).toEqual(["malformed-json", "unknown-op", "invalid-message", "too-large", "ok"]);
    const closed = new Promise<number>((resolve) => ws.once("close", resolve));
    ws.send("x".repeat(2 * 1024 * 1024));
    expect(await closed).toBe(1009);

    const status = await runTama(cliEnv, ["sessions", "status", "--session", listed.session, "--json"]);
    expect(status.code, status.stderr).toBe(0);
    const before = server.requests.length;
    await session.prompt('CALL bash {"command":"echo still-here"}');
    expect(server.requests.length).toBeGreaterThan(before);
  });

  it("a killed OMP leaves a stale record: reported, cleaned by the CLI, never used", async () => {
    const { tama, session, cliEnv, listed } = await startTamaSession(omp);
    process.kill(-session.pid, "SIGKILL");
    await expect.poll(() => {
      try {
        process.kill(session.pid, 0);
        return true;
      } catch {
        return false;
      }
    }).toBe(false);
    const reload = await runTama(cliEnv, ["sessions", "reload", "--session", listed.session]);
    expect(reload.code).toBe(SESSIONS_EXIT.staleSession);
    expect(reload.stderr).toMatch(`session ${listed.session} is stale: its OMP process ${session.pid} is gone, so its record was removed`);
    expect(existsSync(path.join(tama.home, "sessions", `session.${listed.session}.json`))).toBe(false);
    expect(existsSync(listed.socket)).toBe(false);
  });

  it("refuses to serve from a sessions directory others can write, and says so", async () => {
    const { env } = await omp.setup();
    const tama = installTama(env);
    const sessionsDir = path.join(tama.home, "sessions");
    mkdirSync(sessionsDir, { recursive: true });
    chmodSync(sessionsDir, 0o777);
    const session = omp.rpc();
    await session.ready();
    const warning = await session.waitFor((f: Frame) => f.type === "extension_ui_request" && f.method === "notify" && String(f.message).includes("session control is off"));
    expect(String(warning.message)).toBe(
      `Tama session control is off for this session: ${sessionsDir} is writable by its group or by others (mode 0777); Tama serves and trusts session control only in a directory its owner alone can write: run chmod go-w ${sessionsDir}`,
    );
    expect(statSync(sessionsDir).mode & 0o777).toBe(0o777);
    const list = await runTama({ ...env.env, TAMA_HOME: tama.home }, ["sessions", "list"]);
    expect(list.code).toBe(SESSIONS_EXIT.unsafeDirectory);
  });
});
