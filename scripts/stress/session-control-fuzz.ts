// Protocol fuzz and abuse for session control (the WebSocket on a session's Unix
// socket): random bytes in text and binary frames, truncated JSON, strings just under
// and over the 64 KiB message bound, deep nesting, wrong types, duplicate ids, unknown
// ops, missing and extra keys, with valid `status` frames interleaved, and now and then
// a frame over the 1 MiB frame bound (which closes only that connection: reconnect).
// Pass: the server never dies, memory and fds stay bounded, every frame is answered
// exactly once (by its id, or with id null when it carried none), valid frames get
// their normal answers, and no connection closes except after an oversized frame.
//
// The server under test runs in a child process, so its death is observable: this
// very module, bundled by esbuild and started with TAMA_CONTROL_FUZZ_SERVE=<socket>,
// serves a real ControlServer there (see `serveForFuzz` at the end).
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import readline from "node:readline";
import { WebSocket } from "ws";
import { ControlResponse, MAX_FRAME_BYTES, MAX_MESSAGE_BYTES, type ControlStatus, type MessageId, type ReloadReceipt } from "../../modules/protocol/session-control.ts";
import { ControlServer } from "../../modules/session-control/server.ts";
import { Random } from "./random.ts";

export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

export function fdCount(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------
// The server child

export const FUZZ_STATUS: ControlStatus = {
  protocolVersion: 1,
  session: "fuzz",
  ompPid: 1,
  adapterDigest: "c".repeat(64),
  adapterReloadSupported: true,
  startedAtMs: 1,
  cwd: "/fuzz",
  serving: "serving",
  adapter: { failMode: "closed" },
};

const FUZZ_RECEIPT: ReloadReceipt = {
  ok: true,
  changed: false,
  ompPid: 1,
  session: "fuzz",
  adapterDigest: "c".repeat(64),
  previousDigest: "c".repeat(64),
  adapterReloadSupported: true,
  message: "already loaded",
};

export interface ServerChild {
  child: ChildProcess;
  pid: number;
  socket: string;
  key: string;
  /** Whether the child has exited (it must not, until stop). */
  exited(): boolean;
  stop(): Promise<void>;
}

/**
 * A ControlServer in a Node child process on `socket` (in a directory that exists).
 * `root` is the repository: the child is this module bundled by its esbuild.
 */
export async function startServerChild(root: string, socket: string): Promise<ServerChild> {
  const bundle = path.join(path.dirname(socket), `control-fuzz-server-${randomBytes(4).toString("hex")}.mjs`);
  const built = spawnSync(
    path.join(root, "node_modules/.bin/esbuild"),
    [
      path.join(root, "scripts/stress/session-control-fuzz.ts"),
      "--bundle",
      "--platform=node",
      "--format=esm",
      "--log-level=warning",
      // ws is CommonJS and calls require()
      "--banner:js=import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
      `--outfile=${bundle}`,
    ],
    { encoding: "utf8" },
  );
  if (built.status !== 0) throw new Error(`esbuild failed: ${built.stderr}`);
  const key = randomBytes(32).toString("hex");
  const child = spawn(process.execPath, [bundle], {
    env: { ...process.env, TAMA_CONTROL_FUZZ_SERVE: socket, TAMA_CONTROL_FUZZ_KEY: key },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  let exited = false;
  const exit = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  child.on("exit", () => (exited = true));
  await new Promise<void>((resolve, reject) => {
    if (!child.stdout) return reject(new Error("no stdout"));
    readline.createInterface({ input: child.stdout }).once("line", () => resolve());
    child.once("exit", (code) => reject(new Error(`the control server child exited (${code}): ${stderr}`)));
  });
  return {
    child,
    pid: child.pid ?? 0,
    socket,
    key,
    exited: () => exited,
    async stop() {
      if (!exited) child.kill("SIGTERM");
      await exit;
    },
  };
}

async function serveForFuzz(socket: string, key: string): Promise<void> {
  const server = await ControlServer.listen(socket, { key, status: async () => FUZZ_STATUS, reloadAdapter: async () => FUZZ_RECEIPT });
  // listen() unrefs its listener (it must never keep OMP alive); here the server is the process.
  const keepAlive = setInterval(() => {}, 60_000);
  process.on("SIGTERM", () => {
    server.close();
    clearInterval(keepAlive);
    process.exit(0);
  });
  process.stdout.write(`${JSON.stringify({ ready: true, pid: process.pid })}\n`);
}

// ---------------------------------------------------------------------------
// Clients

/** One WebSocket connection collecting answers and its close. */
export class FuzzConn {
  readonly answers: unknown[] = [];
  closed: { code: number; reason: string } | undefined;
  private readonly ws: WebSocket;
  readonly open: Promise<void>;
  /** The HTTP refusal, when the upgrade was refused (status and body). */
  refused: { status: number; body: string } | undefined;
  /** The kernel refused the connection before any byte was read (a full listen backlog): nothing was sent. */
  backlogRefused: string | undefined;
  constructor(socket: string, onAnswer?: (answer: unknown) => void) {
    this.ws = new WebSocket("ws://session-control/", { createConnection: () => net.connect(socket), maxPayload: 16 * 1024 * 1024, perMessageDeflate: false });
    this.ws.on("message", (data) => {
      let answer: unknown;
      try {
        answer = JSON.parse(String(data));
      } catch {
        answer = { notJson: String(data).slice(0, 200) };
      }
      this.answers.push(answer);
      onAnswer?.(answer);
    });
    this.ws.on("close", (code, reason) => (this.closed = { code, reason: reason.toString() }));
    this.ws.on("error", (error: NodeJS.ErrnoException) => {
      if (this.refused === undefined && (error.code === "ECONNREFUSED" || error.code === "EAGAIN")) this.backlogRefused = error.code;
    });
    this.open = new Promise((resolve, reject) => {
      this.ws.once("open", () => resolve());
      this.ws.once("unexpected-response", (_req, res) => {
        let body = "";
        res.setEncoding("utf8").on("data", (d: string) => (body += d));
        res.on("end", () => {
          this.refused = { status: res.statusCode ?? 0, body };
          reject(new Error(`refused: HTTP ${res.statusCode}: ${body}`));
        });
        res.on("error", reject);
      });
      this.ws.once("error", reject);
    });
    this.open.catch(() => {});
  }
  send(data: string | Buffer, binary: boolean): void {
    this.ws.send(data, { binary });
  }
  async waitClosed(timeoutMs = 10_000): Promise<{ code: number; reason: string } | undefined> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed && Date.now() < deadline) await sleep(5);
    return this.closed;
  }
  end(): void {
    this.ws.terminate();
  }
}

// ---------------------------------------------------------------------------
// The generator

/** What a frame's answer must be: its id (null: none) and the codes it may carry ("ok": a status result). */
interface Expect {
  id: MessageId | null;
  codes: readonly string[];
}
interface Frame {
  data: string | Buffer;
  binary: boolean;
  expect: Expect;
  valid: boolean;
}

const INVALID = ["invalid-message"] as const;

function padTo(json: string, bytes: number): string {
  return json + " ".repeat(Math.max(0, bytes - Buffer.byteLength(json)));
}

function deep(depth: number, open: string, close: string, inner: string): string {
  return open.repeat(depth) + inner + close.repeat(depth);
}

/** One generated frame of lane `lane`, number `n`; `earlier` holds this lane's ids so far. */
function frame(r: Random, key: string, lane: number, n: number, earlier: string[]): Frame {
  const id = `L${lane}f${n}`;
  const req = (extra: Record<string, unknown> = {}) => JSON.stringify({ id, op: "status", key, ...extra });
  // Whatever its content, a message over the bound is refused as too large, without an id.
  const answer = (expectId: MessageId | null, codes: readonly string[], data: string | Buffer, binary = false, valid = false): Frame =>
    (typeof data === "string" ? Buffer.byteLength(data) : data.length) > MAX_MESSAGE_BYTES
      ? { data, binary, expect: { id: null, codes: ["too-large"] }, valid: false }
      : { data, binary, expect: { id: expectId, codes }, valid };
  switch (r.int(24)) {
    case 0:
      return answer(null, INVALID, r.bytes(1 + r.int(300)), true);
    case 1: {
      // random bytes as a text frame: mostly not UTF-8, never a JSON object
      const bytes = r.bytes(1 + r.int(300));
      if (bytes[0] === 0x7b) bytes[0] = 0x20;
      return answer(null, ["malformed-json", "invalid-message"], bytes);
    }
    case 2: {
      const full = req();
      return answer(null, ["malformed-json"], full.slice(0, r.int(full.length)));
    }
    case 3:
      // a valid request padded to just under (or at) the message bound
      return answer(id, ["ok"], padTo(req(), MAX_MESSAGE_BYTES - r.int(64)), false, true);
    case 4:
      // a huge string just under the bound, in a field that does not belong
      return answer(id, INVALID, req({ pad: "x".repeat(MAX_MESSAGE_BYTES - 200 - r.int(1000)) }));
    case 5:
      // over the message bound, under the frame bound: too-large, the connection stays
      return answer(null, ["too-large"], r.int(4) === 0 ? padTo(req(), MAX_MESSAGE_BYTES + 1) : req({ pad: "y".repeat(MAX_MESSAGE_BYTES + r.int(MAX_FRAME_BYTES - MAX_MESSAGE_BYTES - 100)) }));
    case 6: {
      const depth = 100 + r.int(12_000); // mostly under the message bound (2 to 6 bytes a level)
      switch (r.int(4)) {
        case 0:
          return answer(id, INVALID, req({ x: "DEEP" }).replace('"DEEP"', deep(depth, "[", "]", "1")));
        case 1:
          return answer(null, INVALID, deep(depth, "[", "]", ""));
        case 2:
          return answer(null, INVALID, JSON.stringify({ op: "status", key }).replace("{", `{"id":${deep(depth, '{"a":', "}", "1")},`));
        default:
          return answer(null, ["malformed-json"], deep(depth, "[", "", "1"));
      }
    }
    case 7:
      return answer(null, INVALID, JSON.stringify({ id: r.pick([{}, [], true, "", 1.5, -1, "i".repeat(129), null]), op: "status", key }));
    case 8:
      return answer(id, INVALID, JSON.stringify({ id, op: "status", key: r.pick([12, "", key.toUpperCase(), key.slice(1), null, [key], { key }]) }));
    case 9:
      return answer(id, INVALID, JSON.stringify({ id, op: r.pick([3, null, true, ["status"], { op: "status" }]), key }));
    case 10:
      return answer(id, ["unknown-op"], JSON.stringify({ id, op: r.pick(["explode", "", "STATUS", "status ", "reload", "x".repeat(5000)]), key }));
    case 11: {
      const full: Record<string, unknown> = { id, op: "status", key };
      const missing = r.pick(["id", "op", "key"]);
      delete full[missing];
      return answer(missing === "id" ? null : id, INVALID, JSON.stringify(full));
    }
    case 12:
      return answer(id, INVALID, req({ [r.pick(["extra", "ID", "__proto__", "constructor", "result"])]: r.int(10) }));
    case 13: {
      // a duplicate id: an earlier frame's id on a valid status (answered again, once)
      const earlierId = earlier.length > 0 ? r.pick(earlier) : id;
      return answer(earlierId, ["ok"], JSON.stringify({ id: earlierId, op: "status", key }), false, true);
    }
    case 14:
      return answer(id, ["unauthorized"], JSON.stringify({ id, op: r.pick(["status", "reload-adapter"]), key: randomHex(r) }));
    case 15: {
      const text = r.pick(["", " ", "null", "[]", "42", '"x"', "true", "{}", "{", "}", "\u0000"]);
      return answer(null, text === "" || text === " " || text === "{" || text === "}" || text === "\u0000" ? ["malformed-json"] : INVALID, text);
    }
    case 16: {
      // a numeric id
      const numeric = n;
      return answer(numeric, ["ok"], JSON.stringify({ id: numeric, op: "status", key }), false, true);
    }
    default:
      return answer(id, ["ok"], req(), false, true);
  }
}

function randomHex(r: Random): string {
  return r.bytes(32).toString("hex");
}

// ---------------------------------------------------------------------------
// The runner

export interface ControlFuzzSummary {
  frames: number;
  /** Frames whose answer carries an id. */
  withId: number;
  answeredOnce: number;
  missing: number;
  /** Ids answered more often than they were sent. */
  duplicated: number;
  /** Frames without an id, and the id-null answers they got. */
  withoutId: number;
  answeredNull: number;
  validFrames: number;
  /** Answers with the wrong code, or not a session control response at all. */
  wrongAnswers: number;
  wrongSamples: string[];
  /** Frames over the 1 MiB bound sent, and the connections that closed with 1009 for them. */
  oversized: number;
  closed1009: number;
  /** Closes that no oversized frame caused. */
  unexpectedCloses: number;
  connections: number;
  serverAlive: boolean;
  rssStartMb: number;
  rssPeakMb: number;
  rssEndMb: number;
  fdsStart: number;
  fdsEnd: number;
  ms: number;
}

export interface ControlFuzzOptions {
  socket: string;
  key: string;
  /** The process serving the socket (for RSS, fds and liveness). */
  pid: number;
  frames: number;
  seed: number;
  /** Parallel connections (default 4). */
  lanes?: number;
  /** About one frame in this many is over the 1 MiB frame bound (default 5000). */
  oversizeEvery?: number;
  /** Whether a status answer must equal FUZZ_STATUS (the child server) or only be a status. */
  exactStatus?: boolean;
}

const WINDOW = 12; // unanswered frames per connection: under the server's 16 in flight, so `busy` never answers a valid frame

export async function controlFuzz(options: ControlFuzzOptions): Promise<ControlFuzzSummary> {
  const started = performance.now();
  const lanes = options.lanes ?? 4;
  const oversizeEvery = options.oversizeEvery ?? 5000;
  const alive = (): boolean => {
    try {
      process.kill(options.pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const fdsStart = fdCount(options.pid);
  const rssStartMb = rssMb(options.pid);
  let rssPeakMb = rssStartMb;
  const expectedById = new Map<MessageId, string[][]>();
  const answersById = new Map<MessageId, number>();
  const sentById = new Map<MessageId, number>();
  let answeredOnce = 0;
  let missingNull = 0;
  const summary = {
    withId: 0,
    withoutId: 0,
    answeredNull: 0,
    validFrames: 0,
    wrongAnswers: 0,
    wrongSamples: [] as string[],
    oversized: 0,
    closed1009: 0,
    unexpectedCloses: 0,
    connections: 0,
  };
  const wrong = (what: string): void => {
    summary.wrongAnswers += 1;
    if (summary.wrongSamples.length < 5) summary.wrongSamples.push(what.slice(0, 300));
  };
  const unexpected = (closed: { code: number; reason: string } | undefined): void => {
    summary.unexpectedCloses += 1;
    if (summary.wrongSamples.length < 5) summary.wrongSamples.push(`connection closed ${closed ? `${closed.code} ${closed.reason}` : "(no close within 10 s)"}`);
  };
  const codeOf = (answer: unknown): string => {
    const parsed = ControlResponse.safeParse(answer);
    if (!parsed.success) return "not-a-response";
    if (!parsed.data.ok) return parsed.data.error.code;
    if (parsed.data.op !== "status") return parsed.data.op;
    if (options.exactStatus && JSON.stringify(parsed.data.result) !== JSON.stringify(FUZZ_STATUS)) return "wrong-status";
    return "ok";
  };
  // id-null answers are all refusals sent before any await, so they come in the order of their frames.
  const onAnswer = (answer: unknown, nullQueue: string[][]): void => {
    const id = (answer as { id?: unknown } | null)?.id;
    const code = codeOf(answer);
    if (id === null || id === undefined) {
      summary.answeredNull += 1;
      const codes = nullQueue.shift();
      if (!codes?.includes(code)) wrong(`id-null answer ${JSON.stringify(answer)}, expected ${codes ? codes.join(" or ") : "none"}`);
      return;
    }
    const key = id as MessageId;
    answersById.set(key, (answersById.get(key) ?? 0) + 1);
    const owed = expectedById.get(key);
    const at = owed?.findIndex((codes) => codes.includes(code)) ?? -1;
    if (owed && at >= 0) {
      owed.splice(at, 1);
      answeredOnce += 1;
    } else wrong(`answer ${JSON.stringify(answer)} fits no frame sent with id ${JSON.stringify(id)}`);
  };

  const runLane = async (lane: number, count: number): Promise<void> => {
    const r = new Random(options.seed * 31 + lane + 1);
    const earlier: string[] = [];
    let conn: FuzzConn | undefined;
    let sentOnConn = 0;
    let nullQueue: string[][] = [];
    const connect = async (): Promise<FuzzConn> => {
      missingNull += nullQueue.length;
      const queue: string[][] = [];
      nullQueue = queue;
      const next = new FuzzConn(options.socket, (answer) => onAnswer(answer, queue));
      await next.open;
      summary.connections += 1;
      sentOnConn = 0;
      return next;
    };
    const drain = async (c: FuzzConn, upTo: number): Promise<void> => {
      const deadline = Date.now() + 30_000;
      while (sentOnConn - c.answers.length > upTo && !c.closed && Date.now() < deadline) await sleep(1);
    };
    for (let n = 0; n < count; n++) {
      if (!conn || conn.closed) {
        if (conn?.closed) unexpected(conn.closed);
        conn = await connect();
      }
      if (r.int(oversizeEvery) === 0) {
        // past the frame bound: answered by a close (1009) of this connection alone
        await drain(conn, 0);
        summary.oversized += 1;
        conn.send(r.int(2) === 0 ? Buffer.alloc(MAX_FRAME_BYTES + 1 + r.int(4096), 0x61) : "z".repeat(MAX_FRAME_BYTES + 1), r.int(2) === 0);
        const closed = await conn.waitClosed();
        if (closed?.code === 1009) summary.closed1009 += 1;
        else unexpected(closed);
        conn = await connect();
      }
      const f = frame(r, options.key, lane, n, earlier);
      if (typeof f.expect.id === "string" && f.expect.id.startsWith(`L${lane}f`)) earlier.push(f.expect.id);
      if (earlier.length > 1000) earlier.splice(0, 500);
      if (f.expect.id === null) {
        summary.withoutId += 1;
        nullQueue.push([...f.expect.codes]);
      } else {
        summary.withId += 1;
        expectedById.set(f.expect.id, [...(expectedById.get(f.expect.id) ?? []), [...f.expect.codes]]);
        sentById.set(f.expect.id, (sentById.get(f.expect.id) ?? 0) + 1);
      }
      if (f.valid) summary.validFrames += 1;
      await drain(conn, WINDOW - 1);
      conn.send(f.data, f.binary);
      sentOnConn += 1;
      if (n % 1000 === 999 && lane === 0) rssPeakMb = Math.max(rssPeakMb, alive() ? rssMb(options.pid) : 0);
    }
    if (conn) {
      await drain(conn, 0);
      if (conn.closed) unexpected(conn.closed);
      conn.end();
    }
    missingNull += nullQueue.length;
  };

  const perLane = Math.ceil(options.frames / lanes);
  await Promise.all(Array.from({ length: lanes }, (_, lane) => runLane(lane, Math.min(perLane, options.frames - lane * perLane))));
  const serverAlive = alive();
  const rssEndMb = serverAlive ? rssMb(options.pid) : Number.NaN;
  // The server sees the last closes a moment later.
  let fdsEnd = serverAlive ? fdCount(options.pid) : Number.NaN;
  for (let i = 0; i < 200 && serverAlive && fdsEnd > fdsStart; i++) {
    await sleep(10);
    fdsEnd = fdCount(options.pid);
  }
  let missing = 0;
  for (const owed of expectedById.values()) missing += owed.length;
  let duplicated = 0;
  for (const [id, got] of answersById) if (got > (sentById.get(id) ?? 0)) duplicated += 1;
  return {
    frames: options.frames,
    ...summary,
    answeredOnce,
    missing: missing + missingNull,
    duplicated,
    serverAlive,
    rssStartMb,
    rssPeakMb: Math.max(rssPeakMb, rssEndMb || 0),
    rssEndMb,
    fdsStart,
    fdsEnd,
    ms: Math.round(performance.now() - started),
  };
}

// ---------------------------------------------------------------------------
// A frame streamed at the raw socket (the ws client would buffer it whole)

export interface StreamedFrame {
  /** Bytes of payload written before the server closed the connection. */
  written: number;
  /** The close code the server sent, if a close frame arrived. */
  closeCode: number | undefined;
  /** Whether the server ended the connection (not only sent a close frame). */
  ended: boolean;
  rssPeakMb: number;
  ms: number;
}

/**
 * Upgrade a raw connection, then stream a `totalBytes` binary message in `chunkBytes`
 * chunks: as one frame (its header announcing the whole length), or as continuation
 * fragments of `fragmentBytes`. Stops when the server closes the connection.
 */
export async function streamHugeFrame(options: { socket: string; pid: number; totalBytes: number; chunkBytes?: number; fragmentBytes?: number }): Promise<StreamedFrame> {
  const started = performance.now();
  const chunkBytes = options.chunkBytes ?? 1024 * 1024;
  const sock = net.connect(options.socket);
  await new Promise<void>((resolve, reject) => {
    sock.once("connect", () => resolve());
    sock.once("error", reject);
  });
  let ended = false;
  sock.on("error", () => (ended = true));
  sock.on("close", () => (ended = true));
  const received: Buffer[] = [];
  let headerDone: () => void = () => {};
  const upgraded = new Promise<void>((resolve) => (headerDone = resolve));
  sock.on("data", (d: Buffer) => {
    received.push(d);
    if (Buffer.concat(received).includes("\r\n\r\n")) headerDone();
  });
  sock.write(
    `GET / HTTP/1.1\r\nHost: session-control\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString("base64")}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  );
  await Promise.race([upgraded, sleep(5_000)]);
  const head = Buffer.concat(received).toString("latin1");
  if (!head.startsWith("HTTP/1.1 101")) throw new Error(`the upgrade was refused: ${head.slice(0, 200)}`);
  const headerEnd = Buffer.concat(received).indexOf("\r\n\r\n") + 4;
  // A masked frame header with a zero mask: the payload goes out as it is.
  const header = (fin: boolean, opcode: number, length: number): Buffer => {
    const b = Buffer.alloc(14);
    b[0] = (fin ? 0x80 : 0) | opcode;
    b[1] = 0x80 | 127;
    b.writeBigUInt64BE(BigInt(length), 2);
    return b; // bytes 10..13: the zero mask
  };
  const zeros = Buffer.alloc(chunkBytes);
  let written = 0;
  let rssPeakMb = rssMb(options.pid);
  let fragmentLeft = 0;
  const fragment = options.fragmentBytes;
  if (!fragment) sock.write(header(true, 0x2, options.totalBytes));
  while (written < options.totalBytes && !ended && !sock.destroyed) {
    let chunk = zeros.subarray(0, Math.min(chunkBytes, options.totalBytes - written));
    if (fragment) {
      if (fragmentLeft === 0) {
        fragmentLeft = Math.min(fragment, options.totalBytes - written);
        sock.write(header(written + fragmentLeft >= options.totalBytes, written === 0 ? 0x2 : 0x0, fragmentLeft));
      }
      chunk = chunk.subarray(0, fragmentLeft);
      fragmentLeft -= chunk.length;
    }
    written += chunk.length;
    if (!sock.write(chunk)) await new Promise<void>((resolve) => {
      const done = (): void => {
        sock.off("drain", done);
        sock.off("close", done);
        resolve();
      };
      sock.on("drain", done);
      sock.on("close", done);
    });
    if (written % (64 * 1024 * 1024) < chunk.length) rssPeakMb = Math.max(rssPeakMb, rssMb(options.pid));
  }
  // Give the close a moment to arrive when the whole frame went out.
  for (let i = 0; i < 300 && !ended; i++) await sleep(10);
  const rest = Buffer.concat(received).subarray(headerEnd);
  const closeCode = rest.length >= 4 && (rest[0] ?? 0) === 0x88 ? rest.readUInt16BE(2) : undefined;
  sock.destroy();
  return { written, closeCode, ended, rssPeakMb: Math.max(rssPeakMb, rssMb(options.pid)), ms: Math.round(performance.now() - started) };
}

// The child's entry: only when started as the fuzz server (never inside stress or a test).
const serveAt = process.env.TAMA_CONTROL_FUZZ_SERVE;
const serveKey = process.env.TAMA_CONTROL_FUZZ_KEY;
if (serveAt && serveKey) await serveForFuzz(serveAt, serveKey);
