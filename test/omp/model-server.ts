// Scripted fake model server for end-to-end tests of a real OMP process. Listens on
// 127.0.0.1 with an ephemeral port (OMP itself probes 8080/1234/11434 at startup, so those
// must stay free) and answers OpenAI chat-completions, OpenAI responses and Anthropic
// messages with streamed SSE, deciding each reply with a test-supplied script.
import http from "node:http";
import type { AddressInfo } from "node:net";
import {
	apiForPath,
	isJsonObject,
	type Json,
	type JsonObject,
	normalizeTurns,
	type Turn,
	type WireApi,
} from "./request-view.ts";
import { type PlannedReply, streamFrames, toolCallIdPrefix } from "./wire-formats.ts";

export type { Json, JsonObject, Turn, WireApi } from "./request-view.ts";

export interface RecordedRequest {
	/** 0-based arrival order among model (POST) requests. */
	index: number;
	method: string;
	/** Path including any query string, e.g. `/v1/chat/completions`. */
	path: string;
	headers: http.IncomingHttpHeaders;
	/** Parsed JSON body (`{}` when the body was not a JSON object). */
	body: JsonObject;
	api: WireApi | "unknown";
	/** The conversation the model was sent, normalized across wire formats. */
	turns: Turn[];
}

export interface ToolCallSpec {
	name: string;
	arguments: Record<string, unknown>;
}

/** Options every reply may carry. */
interface ReplyTiming {
	/** Wait this long before answering (the request stays open, OMP just sees a slow model). */
	delayMs?: number;
}

export type Reply = ({ text: string } | { toolCalls: ToolCallSpec[] }) & ReplyTiming;

/** Decides the reply to one model request. May be async to hold the reply until the test is ready. */
export type Script = (req: RecordedRequest, index: number) => Reply | Promise<Reply>;

export interface ModelServer {
	/** Root URL, e.g. `http://127.0.0.1:41234`; OMP's `baseUrl` is `${url}/v1` for every API. */
	url: string;
	port: number;
	/** Every model request in arrival order (live array). */
	requests: RecordedRequest[];
	/** Swap the script for subsequent requests. */
	setScript(script: Script): void;
	/** Resolves once at least `count` model requests arrived. */
	waitForRequests(count: number, timeoutMs?: number): Promise<RecordedRequest[]>;
	close(): Promise<void>;
}

/** Text of the trailing tool results (several when the model made parallel calls). */
export function trailingToolResults(turns: Turn[]): Turn[] {
	const out: Turn[] = [];
	for (let i = turns.length - 1; i >= 0 && turns[i]?.role === "tool"; i--) {
		const t = turns[i];
		if (t) out.unshift(t);
	}
	return out;
}

export function lastUserText(turns: Turn[]): string {
	for (let i = turns.length - 1; i >= 0; i--) {
		const t = turns[i];
		if (t?.role === "user") return t.text;
	}
	return "";
}

const CALL_LINE = /^CALL (\S+) (\{.*\})\s*$/gm;

/** Parses every `CALL <tool> <json>` line; several lines become parallel tool calls. */
export function parseCallDirectives(text: string): ToolCallSpec[] {
	const calls: ToolCallSpec[] = [];
	for (const m of text.matchAll(CALL_LINE)) {
		const parsed: unknown = JSON.parse(m[2] ?? "{}");
		const args = typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : {};
		calls.push({ name: m[1] ?? "", arguments: args });
	}
	return calls;
}

/**
 * Stateless default: after tool results → `FAKE-FINAL: tool said: "<result>"` (so the test can
 * read exactly what the model saw); a prompt with `CALL <tool> <json>` lines → those tool calls;
 * anything else (e.g. `NOTOOL`) → `FAKE-TEXT: <last line of the prompt>`.
 */
export const defaultScript: Script = req => {
	const results = trailingToolResults(req.turns);
	if (results.length > 0) {
		return { text: `FAKE-FINAL: ${results.map(r => `tool said: ${JSON.stringify(r.text.slice(0, 300))}`).join("; ")}` };
	}
	const prompt = lastUserText(req.turns);
	const calls = parseCallDirectives(prompt);
	if (calls.length > 0) return { toolCalls: calls };
	const lastLine = prompt.trim().split("\n").at(-1) ?? "";
	return { text: `FAKE-TEXT: ${lastLine.slice(0, 200)}` };
};

function plan(reply: Reply, api: WireApi, index: number): PlannedReply {
	if ("toolCalls" in reply) {
		const prefix = toolCallIdPrefix(api);
		return {
			text: "",
			toolCalls: reply.toolCalls.map((c, i) => ({
				id: `${prefix}_${index}_${i}`,
				name: c.name,
				arguments: JSON.stringify(c.arguments),
			})),
		};
	}
	return { text: reply.text, toolCalls: [] };
}

function parseBody(raw: string): JsonObject {
	try {
		const parsed = JSON.parse(raw) as Json;
		return isJsonObject(parsed) ? parsed : {};
	} catch {
		return {};
	}
}

function sendJson(res: http.ServerResponse, status: number, body: Json): void {
	res.writeHead(status, { "content-type": "application/json" });
	res.end(JSON.stringify(body));
}

const sleep = (ms: number) => new Promise<void>(resolve => setTimeout(resolve, ms));

export async function startModelServer(initialScript: Script = defaultScript): Promise<ModelServer> {
	let script = initialScript;
	const requests: RecordedRequest[] = [];
	const waiters = new Set<() => void>();

	async function answer(req: http.IncomingMessage, res: http.ServerResponse, raw: string): Promise<void> {
		const method = req.method ?? "GET";
		const path = req.url ?? "/";
		const api = apiForPath(method, path);
		if (method === "GET" && path.split("?")[0]?.endsWith("/models")) {
			sendJson(res, 200, { object: "list", data: [{ id: "fake-model", object: "model", owned_by: "fake" }] });
			return;
		}
		if (api === "unknown") {
			sendJson(res, 404, { error: { message: `fake model server: no route ${method} ${path}` } });
			return;
		}
		const body = parseBody(raw);
		const index = requests.length;
		const recorded: RecordedRequest = { index, method, path, headers: req.headers, body, api, turns: normalizeTurns(api, body) };
		requests.push(recorded);
		for (const wake of waiters) wake();

		let reply: Reply;
		try {
			reply = await script(recorded, index);
		} catch (err) {
			// A throwing script is a test bug: surface it to OMP as a non-retryable 400.
			sendJson(res, 400, { error: { message: `fake model script failed: ${String(err)}` } });
			return;
		}
		if (reply.delayMs) await sleep(reply.delayMs);
		if (res.destroyed) return;
		const model = typeof body.model === "string" ? body.model : "fake-model";
		res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
		for (const frame of streamFrames(api, plan(reply, api, index), model, index)) {
			if (res.destroyed) return;
			res.write(frame);
		}
		res.end();
	}

	const server = http.createServer((req, res) => {
		let raw = "";
		req.setEncoding("utf8");
		req.on("data", (chunk: string) => {
			raw += chunk;
		});
		req.on("end", () => {
			answer(req, res, raw).catch(err => {
				if (!res.headersSent) sendJson(res, 500, { error: { message: String(err) } });
				else res.destroy();
			});
		});
	});

	await new Promise<void>((resolve, reject) => {
		server.once("error", reject);
		server.listen(0, "127.0.0.1", () => resolve());
	});
	const { port } = server.address() as AddressInfo;

	return {
		url: `http://127.0.0.1:${port}`,
		port,
		requests,
		setScript(next) {
			script = next;
		},
		waitForRequests(count, timeoutMs = 60_000) {
			return new Promise((resolve, reject) => {
				const check = () => {
					if (requests.length < count) return;
					cleanup();
					resolve(requests);
				};
				const timer = setTimeout(() => {
					cleanup();
					reject(new Error(`fake model server: ${requests.length}/${count} requests after ${timeoutMs} ms`));
				}, timeoutMs);
				const cleanup = () => {
					clearTimeout(timer);
					waiters.delete(check);
				};
				waiters.add(check);
				check();
			});
		},
		close() {
			return new Promise<void>(resolve => {
				server.close(() => resolve());
				// Held replies and keep-alive sockets would otherwise keep close() pending.
				server.closeAllConnections();
			});
		},
	};
}
