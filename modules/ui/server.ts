// The `tama ui` server: Node's http on 127.0.0.1 only, every request checked against
// a random token from the URL it prints, GET only, nothing that changes a file.
// The page is one HTML document; it gets the view over a WebSocket, sent again
// whenever what it shows has changed.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocketServer, type WebSocket } from "ws";
import type { TamaPaths } from "../system/paths.ts";
import { pageHtml } from "./page.ts";
import { cachedActivityReader, ProjectReader, snapshot, type Snapshot } from "./snapshot.ts";

/** The only address served: the view is for this machine's user alone. */
export const UI_HOST = "127.0.0.1";
/** How often the files are looked at again while a page is open. */
const REFRESH_MS = 500;

export interface UiServer {
  url: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

export interface UiOptions {
  paths: TamaPaths;
  /** 0: a free port. */
  port: number;
  /** A fixed token (tests); a random one otherwise. */
  token?: string;
}

function tokenMatches(given: string | null, token: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The request's path and whether it carries the token. */
function parse(request: IncomingMessage, token: string): { path: string; authorized: boolean } {
  const url = new URL(request.url ?? "/", `http://${UI_HOST}`);
  return { path: url.pathname, authorized: tokenMatches(url.searchParams.get("token"), token) };
}

/** A Host header naming this server (a page from another site resolving its name here is refused). */
function hostAllowed(request: IncomingMessage, port: number): boolean {
  const host = request.headers.host;
  return host === `${UI_HOST}:${port}` || host === `localhost:${port}`;
}

const SECURITY_HEADERS = {
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
};

function refuse(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { ...SECURITY_HEADERS, "content-type": "text/plain; charset=utf-8" });
  response.end(`${text}\n`);
}

export async function startUiServer(options: UiOptions): Promise<UiServer> {
  const token = options.token ?? randomBytes(24).toString("hex");
  const readFile = cachedActivityReader();
  const projects = new ProjectReader(options.paths);
  const view = (): Snapshot => snapshot(options.paths, Date.now(), readFile, projects);
  let port = options.port;

  const server: Server = createServer((request, response) => {
    const { path, authorized } = parse(request, token);
    if (!authorized || !hostAllowed(request, port)) return refuse(response, 403, "forbidden: open the URL `tama ui` printed, with its token");
    if (request.method !== "GET" && request.method !== "HEAD") return refuse(response, 405, "the view is read-only: GET only");
    if (path === "/") {
      const nonce = randomBytes(16).toString("base64");
      response.writeHead(200, {
        ...SECURITY_HEADERS,
        "content-type": "text/html; charset=utf-8",
        "content-security-policy": `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src ws://${UI_HOST}:${port} ws://localhost:${port}; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
      });
      return response.end(request.method === "HEAD" ? undefined : pageHtml(nonce));
    }
    if (path === "/snapshot.json") {
      response.writeHead(200, { ...SECURITY_HEADERS, "content-type": "application/json; charset=utf-8" });
      return response.end(request.method === "HEAD" ? undefined : JSON.stringify(view()));
    }
    return refuse(response, 404, "not found");
  });

  const sockets = new WebSocketServer({ noServer: true, maxPayload: 1024 });
  server.on("upgrade", (request, socket, head) => {
    const { path, authorized } = parse(request, token);
    const origin = request.headers.origin;
    const originAllowed = origin === undefined || origin === `http://${UI_HOST}:${port}` || origin === `http://localhost:${port}`;
    if (!authorized || path !== "/live" || !hostAllowed(request, port) || !originAllowed) {
      socket.end("HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    sockets.handleUpgrade(request, socket, head, (ws) => sockets.emit("connection", ws, request));
  });

  // Each open page gets the view at once and again when it changed; what a page sends is ignored.
  let last = "";
  const send = (ws: WebSocket, text: string): void => {
    if (ws.readyState === ws.OPEN) ws.send(text);
  };
  const frame = (): { text: string; key: string } => {
    const v = view();
    const text = JSON.stringify(v);
    return { text, key: JSON.stringify({ ...v, generatedAtMs: 0 }) };
  };
  sockets.on("connection", (ws) => {
    ws.on("message", () => {});
    ws.on("error", () => {});
    try {
      send(ws, frame().text);
    } catch (error) {
      send(ws, JSON.stringify({ error: (error as Error).message }));
    }
  });
  const timer = setInterval(() => {
    if (sockets.clients.size === 0) return;
    try {
      const { text, key } = frame();
      if (key === last) return;
      last = key;
      for (const ws of sockets.clients) send(ws, text);
    } catch (error) {
      for (const ws of sockets.clients) send(ws, JSON.stringify({ error: (error as Error).message }));
    }
  }, REFRESH_MS);
  timer.unref();

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ host: UI_HOST, port: options.port, exclusive: true }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://${UI_HOST}:${port}/?token=${token}`,
    port,
    token,
    close: async () => {
      clearInterval(timer);
      for (const ws of sockets.clients) ws.terminate();
      sockets.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
