// A session control client: one request over a fresh WebSocket to a session's Unix
// socket. While an adapter hands its socket to its replacement, a connection can be
// refused or closed before it was read; such a request was never handled, so it is
// sent again until the deadline.
import net from "node:net";
import { WebSocket } from "ws";
import { describeSchemaError } from "../protocol/schema.ts";
import { ControlResponse, type ControlRequest } from "../protocol/session-control.ts";

export class ControlTimeout extends Error {}
export class ControlUnreachable extends Error {}

const RETRY_MS = 50;
/** How long a refused connection is tried again: a handoff takes milliseconds, a dead socket forever. */
const CONNECT_RETRY_MS = 5_000;
const GOING_AWAY = 1001;

type Attempt = { done: true; response: ControlResponse } | { done: false; kind: "timeout" | "retry" | "fatal"; error: string };

function attempt(socket: string, request: ControlRequest, deadline: number): Promise<Attempt> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: Attempt): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      ws.removeAllListeners();
      ws.on("error", () => {});
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.terminate();
      resolve(outcome);
    };
    // A connection made here, not a ws+unix: URL, so a path holding ':' works too.
    const ws = new WebSocket("ws://session-control/", {
      createConnection: () => net.connect(socket),
      maxPayload: 16 * 1024 * 1024,
      perMessageDeflate: false,
    });
    const timer = setTimeout(() => finish({ done: false, kind: "timeout", error: "timeout" }), Math.max(0, deadline - Date.now()));
    let opened = false;
    ws.on("open", () => {
      opened = true;
      ws.send(JSON.stringify(request));
    });
    ws.on("message", (data) => {
      let raw: unknown;
      try {
        raw = JSON.parse(String(data));
      } catch (error) {
        finish({ done: false, kind: "fatal", error: `the session answered with something that is not JSON: ${(error as Error).message}` });
        return;
      }
      const parsed = ControlResponse.safeParse(raw);
      if (!parsed.success) {
        finish({ done: false, kind: "fatal", error: `the session's answer is not a session control response: ${describeSchemaError(parsed.error, "the answer")}` });
        return;
      }
      if (parsed.data.id !== request.id && parsed.data.id !== null) return;
      finish({ done: true, response: parsed.data });
    });
    ws.on("unexpected-response", (_req, res) => finish({ done: false, kind: res.statusCode === 503 ? "retry" : "fatal", error: `the session refused the connection (HTTP ${res.statusCode})` }));
    ws.on("error", (error: NodeJS.ErrnoException) => {
      // Refused, reset or closed under the upgrade request's write (EPIPE) before the handshake
      // finished — a listener handing over drops its backlog: the request itself was never sent.
      // EAGAIN: a Unix socket's listen backlog is full (a thousand clients at once); nothing was sent either.
      const retry = !opened && (error.code === "ENOENT" || error.code === "ECONNREFUSED" || error.code === "ECONNRESET" || error.code === "EPIPE" || error.code === "EAGAIN");
      finish({ done: false, kind: retry ? "retry" : "fatal", error: error.message });
    });
    ws.on("close", (code, reason) => finish({ done: false, kind: code === GOING_AWAY ? "retry" : "fatal", error: `the session closed the connection (${code}${reason.length ? `: ${reason.toString()}` : ""})` }));
  });
}

/**
 * Send one request and read its answer. Throws ControlTimeout when none came in
 * time, ControlUnreachable when the socket cannot be reached or answers nonsense.
 */
export async function controlRequest(socket: string, request: ControlRequest, timeoutMs: number, connectRetryMs = CONNECT_RETRY_MS): Promise<ControlResponse> {
  const deadline = Date.now() + timeoutMs;
  let refusedSince: number | undefined;
  for (;;) {
    const outcome = await attempt(socket, request, deadline);
    if (outcome.done) return outcome.response;
    if (outcome.kind === "timeout") throw new ControlTimeout(`no answer from ${socket} within ${timeoutMs} ms`);
    // Out of time while the socket kept refusing: it is unreachable, not slow to answer.
    if (Date.now() >= deadline) throw new ControlUnreachable(`cannot reach session control at ${socket}: ${outcome.error}`);
    refusedSince ??= Date.now();
    if (outcome.kind === "fatal" || Date.now() - refusedSince > connectRetryMs) {
      throw new ControlUnreachable(`cannot reach session control at ${socket}: ${outcome.error}`);
    }
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
}
