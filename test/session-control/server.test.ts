// The session control server over a real Unix socket: answers, refusals that keep the
// connection, the size bounds, the key, the socket's permissions, and the handover of
// the socket to a replacement while the old server finishes what it accepted.
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { ControlTimeout, ControlUnreachable, controlRequest } from "../../modules/session-control/client.ts";
import { MAX_MESSAGE_BYTES, type ControlStatus, type ReloadReceipt } from "../../modules/protocol/session-control.ts";
import { ControlFailure, ControlServer, type ControlHandlers } from "../../modules/session-control/server.ts";

const KEY = "b".repeat(64);
let dir: string;
const servers: ControlServer[] = [];

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "tama-sc-"));
  mkdirSync(path.join(dir, "sessions"), { mode: 0o700 });
});
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
  rmSync(dir, { recursive: true, force: true });
});

const STATUS: ControlStatus = {
  protocolVersion: 1,
  session: "s1",
  ompPid: process.pid,
  adapterDigest: "c".repeat(64),
  adapterReloadSupported: true,
  startedAtMs: 1,
  cwd: "/work",
  serving: "serving",
  adapter: { failMode: "closed" },
};
const RECEIPT: ReloadReceipt = {
  ok: true,
  changed: true,
  ompPid: process.pid,
  session: "s1",
  adapterDigest: "d".repeat(64),
  previousDigest: "c".repeat(64),
  adapterReloadSupported: true,
  message: "Loaded",
};

function handlers(overrides: Partial<ControlHandlers> = {}): ControlHandlers {
  return { key: KEY, status: async () => STATUS, reloadAdapter: async () => RECEIPT, ...overrides };
}

async function serve(overrides: Partial<ControlHandlers> = {}): Promise<ControlServer> {
  const server = await ControlServer.listen(path.join(dir, "sessions", "s1.sock"), handlers(overrides));
  servers.push(server);
  return server;
}

/** One connection that sends raw frames and collects every answer and the close. */
class Conn {
  readonly answers: Record<string, unknown>[] = [];
  closed: { code: number; reason: string } | undefined;
  private readonly ws: WebSocket;
  readonly open: Promise<void>;
  constructor(socket: string) {
    this.ws = new WebSocket("ws://x/", { createConnection: () => net.connect(socket) });
    this.ws.on("message", (data) => this.answers.push(JSON.parse(String(data)) as Record<string, unknown>));
    this.ws.on("close", (code, reason) => (this.closed = { code, reason: reason.toString() }));
    this.ws.on("error", () => {});
    this.open = new Promise((resolve, reject) => {
      this.ws.once("open", () => resolve());
      this.ws.once("error", reject);
    });
  }
  send(data: string | Buffer, binary = false): void {
    this.ws.send(data, { binary });
  }
  async next(count: number, timeoutMs = 5_000): Promise<Record<string, unknown>[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.answers.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    return this.answers.slice(0, count);
  }
  async waitClosed(timeoutMs = 5_000): Promise<{ code: number; reason: string } | undefined> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    return this.closed;
  }
  end(): void {
    this.ws.terminate();
  }
}

describe("the session control server", () => {
  it("listens on a 0600 Unix socket, never on TCP, and answers status and reload-adapter", async () => {
    const server = await serve();
    const stat = statSync(server.socketPath);
    expect(stat.isSocket()).toBe(true);
    expect(stat.mode & 0o777).toBe(0o600);
    expect(await controlRequest(server.socketPath, { id: "1", op: "status", key: KEY }, 5_000)).toEqual({ id: "1", ok: true, op: "status", result: STATUS });
    expect(await controlRequest(server.socketPath, { id: 2, op: "reload-adapter", key: KEY }, 5_000)).toEqual({ id: 2, ok: true, op: "reload-adapter", result: RECEIPT });
  });

  it("answers every malformed message with its cause and keeps the connection", async () => {
    const server = await serve();
    const conn = new Conn(server.socketPath);
    await conn.open;
    conn.send("{not json");
    conn.send(JSON.stringify({ id: "u", op: "shutdown", key: KEY }));
    conn.send(JSON.stringify({ id: "w", op: "status", key: 12 }));
    conn.send(JSON.stringify({ id: "big", op: "status", key: KEY, pad: "x".repeat(MAX_MESSAGE_BYTES) }));
    conn.send(Buffer.from("{}"), true);
    conn.send(JSON.stringify({ id: "k", op: "status", key: "e".repeat(64) }));
    conn.send(JSON.stringify({ id: "ok", op: "status", key: KEY }));
    const answers = await conn.next(7);
    expect(answers.map((a) => [a.id, a.ok, (a.error as { code?: string } | undefined)?.code ?? a.op])).toEqual([
      [null, false, "malformed-json"],
      ["u", false, "unknown-op"],
      ["w", false, "invalid-message"],
      [null, false, "too-large"],
      [null, false, "invalid-message"],
      ["k", false, "unauthorized"],
      ["ok", true, "status"],
    ]);
    expect((answers[5]?.error as { message: string }).message).toBe("the key does not open this session's control");
    expect(conn.closed).toBeUndefined();
    conn.end();
  });

  it("closes a connection whose frame is past the hard bound (1009) and keeps serving others", async () => {
    const server = await serve();
    const conn = new Conn(server.socketPath);
    await conn.open;
    conn.send("x".repeat(1024 * 1024 + 1));
    expect((await conn.waitClosed())?.code).toBe(1009);
    expect((await controlRequest(server.socketPath, { id: "after", op: "status", key: KEY }, 5_000)).ok).toBe(true);
  });

  it("reports a handler's failure by its code, and an unexpected one as internal", async () => {
    const server = await serve({
      reloadAdapter: async () => {
        throw new ControlFailure("reload-unsupported", "no host.adopt");
      },
      status: async () => {
        throw new Error("boom");
      },
    });
    expect(await controlRequest(server.socketPath, { id: "r", op: "reload-adapter", key: KEY }, 5_000)).toEqual({
      id: "r",
      ok: false,
      error: { code: "reload-unsupported", message: "no host.adopt" },
    });
    expect(await controlRequest(server.socketPath, { id: "s", op: "status", key: KEY }, 5_000)).toEqual({ id: "s", ok: false, error: { code: "internal", message: "boom" } });
  });

  it("refuses plain HTTP with 426", async () => {
    const server = await serve();
    const status = await new Promise<number | undefined>((resolve, reject) => {
      http.get({ socketPath: server.socketPath, path: "/" }, (res) => {
        res.resume();
        resolve(res.statusCode);
      }).on("error", reject);
    });
    expect(status).toBe(426);
  });

  it("hands the socket to a replacement: new connections reach it, the old one still answers what it took, then closes", async () => {
    let release: (receipt: ReloadReceipt) => void = () => {};
    const held = new Promise<ReloadReceipt>((resolve) => (release = resolve));
    const old = await serve({ reloadAdapter: () => held });
    const pending = new Conn(old.socketPath);
    await pending.open;
    pending.send(JSON.stringify({ id: "held", op: "reload-adapter", key: KEY }));
    const idle = new Conn(old.socketPath);
    await idle.open;
    await new Promise((r) => setTimeout(r, 50));

    const replacement = await ControlServer.listen(old.socketPath, handlers({ status: async () => ({ ...STATUS, adapterDigest: "d".repeat(64) }) }));
    servers.push(replacement);
    expect(old.ownsPath()).toBe(false);
    expect(replacement.ownsPath()).toBe(true);
    old.retire();
    // Idle connections are told to come again; the one in flight waits for its answer.
    expect((await idle.waitClosed())?.code).toBe(1001);
    expect(pending.closed).toBeUndefined();
    const answered = await controlRequest(old.socketPath, { id: "next", op: "status", key: KEY }, 5_000);
    expect(answered.ok && answered.op === "status" && answered.result.adapterDigest).toBe("d".repeat(64));

    release({ ...RECEIPT, message: "held receipt" });
    const [answer] = await pending.next(1);
    expect(answer).toMatchObject({ id: "held", ok: true, result: { message: "held receipt" } });
    expect((await pending.waitClosed())?.code).toBe(1001);

    // The old server's close leaves the replacement's socket in place.
    old.close();
    expect(statSync(replacement.socketPath).isSocket()).toBe(true);
    replacement.close();
    expect(() => statSync(replacement.socketPath)).toThrow(/ENOENT/);
  });

  it("the client: tries a refused socket again until its window or the deadline ends, then names it as unreachable; a silent session times out", async () => {
    const missing = path.join(dir, "sessions", "gone.sock");
    const started = Date.now();
    await expect(controlRequest(missing, { id: "1", op: "status", key: KEY }, 1_000)).rejects.toThrow(
      new ControlUnreachable(`cannot reach session control at ${missing}: connect ENOENT ${missing}`),
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    writeFileSync(path.join(dir, "sessions", "plain"), "not a socket");
    await expect(controlRequest(path.join(dir, "sessions", "plain"), { id: "1", op: "status", key: KEY }, 5_000, 200)).rejects.toThrow(
      new ControlUnreachable(`cannot reach session control at ${path.join(dir, "sessions", "plain")}: connect ECONNREFUSED ${path.join(dir, "sessions", "plain")}`),
    );
    const silent = await serve({ status: () => new Promise(() => {}) });
    await expect(controlRequest(silent.socketPath, { id: "1", op: "status", key: KEY }, 300)).rejects.toBeInstanceOf(ControlTimeout);
  });
});

describe("idle connections", () => {
  it("closes a connection that sends nothing once it has been idle, and keeps one that is used", async () => {
    const server = await ControlServer.listen(path.join(dir, "sessions", "s1.sock"), handlers(), undefined, { idleMs: 1500 });
    servers.push(server);
    const silent = new Conn(server.socketPath);
    const busy = new Conn(server.socketPath);
    await Promise.all([silent.open, busy.open]);
    // ordering: the busy connection sends well within each idle window; the silent one never does
    for (let i = 0; i < 100 && silent.closed === undefined; i++) {
      busy.send(JSON.stringify({ id: `s${i}`, op: "status", key: KEY }));
      await new Promise((r) => setTimeout(r, 100));
    }
    for (let i = 0; i < 50 && silent.closed === undefined; i++) await new Promise((r) => setTimeout(r, 50));
    expect(silent.closed).toEqual({ code: 4000, reason: "idle for 1500 ms: connect again to send a request" });
    expect(busy.closed).toBeUndefined();
    expect(server.connectionCount).toBe(1);
  });
});
