// The session control server: a WebSocket (`ws`) on a Unix socket, never TCP. It
// binds a private temporary path and renames it over the session's socket, so a
// replacement adapter takes over the path in one step while the adapter it replaces
// still answers the connections it already accepted.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, renameSync, rmSync, statSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import type { Duplex } from "node:stream";
import { WebSocketServer, type RawData, type WebSocket } from "ws";
import type { Logger } from "../system/log.ts";
import {
  MAX_FRAME_BYTES,
  parseControlMessage,
  type ControlError,
  type ControlErrorCode,
  type ControlResponse,
  type ControlStatus,
  type MessageId,
  type ReloadReceipt,
} from "../protocol/session-control.ts";

/** A failure a handler reports to the client by code. */
export class ControlFailure extends Error {
  constructor(
    readonly code: ControlErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface ControlHandlers {
  /** The key every request must carry. */
  key: string;
  status(): Promise<ControlStatus>;
  reloadAdapter(): Promise<ReloadReceipt>;
}

const MAX_CONNECTIONS = 64;
const MAX_PENDING_PER_CONNECTION = 16;
const GOING_AWAY = 1001;

interface Connection {
  ws: WebSocket;
  pending: number;
  idle?: NodeJS.Timeout;
}

/**
 * A connection that owes and is owed nothing for this long is closed, so silent
 * peers cannot hold every one of the MAX_CONNECTIONS slots. A resource bound, not a
 * decision about any request: a request in flight keeps its connection open.
 */
export const IDLE_CLOSE_MS = 60_000;
/** WebSocket close code 1000 would read as a normal end; 4000 is "idle", an application code. */
const IDLE_CLOSE_CODE = 4000;

function keyMatches(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

export class ControlServer {
  private readonly connections = new Set<Connection>();
  private retired = false;
  private closed = false;

  private idleMs = IDLE_CLOSE_MS;

  private constructor(
    readonly socketPath: string,
    private readonly http: http.Server,
    private readonly wss: WebSocketServer,
    /** The inode of the socket this server listens on: the path is ours while it names it. */
    readonly inode: number,
    private readonly handlers: ControlHandlers,
    private readonly logger: Logger | undefined,
  ) {}

  /** Listen on a fresh private path, then rename it over `socketPath` (0600 from the start). */
  static async listen(socketPath: string, handlers: ControlHandlers, logger?: Logger, options: { idleMs?: number } = {}): Promise<ControlServer> {
    const temp = path.join(path.dirname(socketPath), `.${randomBytes(6).toString("hex")}.sock.tmp`);
    const server = http.createServer((_req, res) => {
      res.writeHead(426, { "content-type": "text/plain", connection: "close" });
      res.end("Tama session control speaks WebSocket only\n");
    });
    // UTF-8 is checked by parseControlMessage, which answers malformed-json and keeps the connection.
    const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES, perMessageDeflate: false, skipUTF8Validation: true });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(temp, () => {
        server.off("error", reject);
        resolve();
      });
    });
    let inode: number;
    try {
      chmodSync(temp, 0o600);
      inode = statSync(temp).ino;
      // rename(2) replaces a predecessor's socket atomically: a client reaches the old or the new server.
      renameSync(temp, socketPath);
    } catch (error) {
      server.close();
      rmSync(temp, { force: true });
      throw error;
    }
    // A forgotten listener must never keep OMP from exiting.
    server.unref?.();
    const control = new ControlServer(socketPath, server, wss, inode, handlers, logger);
    if (options.idleMs !== undefined) control.idleMs = options.idleMs;
    server.on("upgrade", (req, socket, head) => control.upgrade(req, socket, head));
    server.on("error", (error) => logger?.error({ note: "session control listener" }, error.message));
    return control;
  }

  /** Whether the session's socket path still names this server's socket. */
  ownsPath(): boolean {
    if (this.retired) return false;
    try {
      return statSync(this.socketPath).ino === this.inode;
    } catch {
      return false;
    }
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  private upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on("error", () => socket.destroy());
    if (this.retired || this.connections.size >= MAX_CONNECTIONS) {
      const why = this.retired ? "this adapter was replaced: connect again" : "too many session control connections";
      socket.end(`HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\ncontent-type: text/plain\r\n\r\n${why}\n`);
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
  }

  private accept(ws: WebSocket): void {
    const connection: Connection = { ws, pending: 0 };
    this.connections.add(connection);
    this.armIdle(connection);
    // An oversized frame or a broken peer: ws closes the connection; nothing else goes down.
    ws.on("error", (error) => this.logger?.warn({ note: "session control connection" }, error.message));
    ws.on("close", () => {
      clearTimeout(connection.idle);
      this.connections.delete(connection);
    });
    ws.on("message", (data, isBinary) => {
      this.armIdle(connection);
      void this.onMessage(connection, data, isBinary);
    });
  }

  private armIdle(connection: Connection): void {
    clearTimeout(connection.idle);
    connection.idle = setTimeout(() => {
      if (connection.pending > 0) return this.armIdle(connection);
      connection.ws.close(IDLE_CLOSE_CODE, `idle for ${this.idleMs} ms: connect again to send a request`);
    }, this.idleMs);
    connection.idle.unref?.();
  }

  private send(connection: Connection, response: ControlResponse): void {
    if (connection.ws.readyState === connection.ws.OPEN) connection.ws.send(JSON.stringify(response));
  }

  private sendError(connection: Connection, id: MessageId | null, error: ControlError): void {
    this.send(connection, { id, ok: false, error });
  }

  private async onMessage(connection: Connection, data: RawData, isBinary: boolean): Promise<void> {
    const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
    const parsed = parseControlMessage(bytes, isBinary);
    if (!parsed.ok) {
      this.logger?.warn({ note: `session control refused a message: ${parsed.error.code}` }, "session control message refused");
      this.sendError(connection, parsed.id, parsed.error);
      return;
    }
    const request = parsed.request;
    if (!keyMatches(this.handlers.key, request.key)) {
      this.sendError(connection, request.id, { code: "unauthorized", message: "the key does not open this session's control" });
      return;
    }
    if (connection.pending >= MAX_PENDING_PER_CONNECTION) {
      this.sendError(connection, request.id, { code: "busy", message: `at most ${MAX_PENDING_PER_CONNECTION} requests may be in flight on one connection` });
      return;
    }
    connection.pending += 1;
    const started = performance.now();
    try {
      if (request.op === "status") {
        this.send(connection, { id: request.id, ok: true, op: "status", result: await this.handlers.status() });
      } else {
        this.send(connection, { id: request.id, ok: true, op: "reload-adapter", result: await this.handlers.reloadAdapter() });
      }
      this.logger?.info({ note: `session control ${request.op}`, ms: Math.round(performance.now() - started) }, "session control answered");
    } catch (error) {
      const code = error instanceof ControlFailure ? error.code : "internal";
      this.sendError(connection, request.id, { code, message: (error as Error).message });
    } finally {
      connection.pending -= 1;
      if (this.retired && connection.pending === 0) connection.ws.close(GOING_AWAY, "this adapter was replaced: connect again");
    }
  }

  /**
   * A successor took the path over: accept nothing more, close idle connections and
   * the others once their answers are sent.
   */
  retire(): void {
    if (this.retired) return;
    this.retired = true;
    this.http.close();
    for (const connection of this.connections) {
      if (connection.pending === 0) connection.ws.close(GOING_AWAY, "this adapter was replaced: connect again");
    }
    // Existing connections stay open until answered (ws's close() leaves clients alone).
    this.wss.close();
  }

  /**
   * The session ended: stop accepting and remove the socket when it is still ours.
   * A request already taken is still answered (an older shell's adoption looks like
   * an end), then its connection closes like the idle ones.
   */
  close(): void {
    if (this.closed) return;
    const ours = this.ownsPath();
    this.closed = true;
    this.retire();
    if (ours) rmSync(this.socketPath, { force: true });
    this.wss.close();
  }
}
