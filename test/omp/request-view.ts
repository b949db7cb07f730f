// Normalizes the three wire formats OMP can speak (OpenAI chat-completions, OpenAI responses,
// Anthropic messages) into one list of turns, so scripts can ask "what did the model just see?"
// without caring which API the test configured.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export type WireApi = "openai-completions" | "openai-responses" | "anthropic-messages";

export interface SeenToolCall {
	id: string;
	name: string;
	/** Raw JSON text of the arguments, exactly as OMP echoed it back. */
	arguments: string;
}

export interface Turn {
	role: "system" | "user" | "assistant" | "tool";
	text: string;
	/** Tool calls the assistant made in this turn (assistant turns only). */
	toolCalls: SeenToolCall[];
	/** Which call a tool turn answers (tool turns only). */
	toolCallId?: string;
}

export function isJsonObject(value: Json | undefined): value is JsonObject {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function str(value: Json | undefined): string {
	return typeof value === "string" ? value : "";
}

/** Text of a content field that is either a string or an array of typed parts. */
export function contentText(content: Json | undefined): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return content === undefined || content === null ? "" : JSON.stringify(content);
	const parts: string[] = [];
	for (const part of content) {
		if (typeof part === "string") parts.push(part);
		else if (isJsonObject(part) && typeof part.text === "string") parts.push(part.text);
		else if (isJsonObject(part) && part.content !== undefined) parts.push(contentText(part.content));
	}
	return parts.join("\n");
}

function turn(role: Turn["role"], text: string, extra: Partial<Turn> = {}): Turn {
	return { role, text, toolCalls: [], ...extra };
}

function fromOpenAICompletions(body: JsonObject): Turn[] {
	const turns: Turn[] = [];
	for (const m of Array.isArray(body.messages) ? body.messages : []) {
		if (!isJsonObject(m)) continue;
		const role = str(m.role);
		if (role === "system" || role === "developer") turns.push(turn("system", contentText(m.content)));
		else if (role === "user") turns.push(turn("user", contentText(m.content)));
		else if (role === "tool") turns.push(turn("tool", contentText(m.content), { toolCallId: str(m.tool_call_id) }));
		else if (role === "assistant") {
			const calls: SeenToolCall[] = [];
			for (const c of Array.isArray(m.tool_calls) ? m.tool_calls : []) {
				if (!isJsonObject(c) || !isJsonObject(c.function)) continue;
				calls.push({ id: str(c.id), name: str(c.function.name), arguments: str(c.function.arguments) });
			}
			turns.push(turn("assistant", contentText(m.content), { toolCalls: calls }));
		}
	}
	return turns;
}

function fromAnthropic(body: JsonObject): Turn[] {
	const turns: Turn[] = [];
	if (body.system !== undefined) turns.push(turn("system", contentText(body.system)));
	for (const m of Array.isArray(body.messages) ? body.messages : []) {
		if (!isJsonObject(m)) continue;
		const blocks: Json | undefined = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
		if (!Array.isArray(blocks)) continue;
		if (m.role === "assistant") {
			const texts: string[] = [];
			const calls: SeenToolCall[] = [];
			for (const b of blocks) {
				if (!isJsonObject(b)) continue;
				if (b.type === "text") texts.push(str(b.text));
				if (b.type === "tool_use")
					calls.push({ id: str(b.id), name: str(b.name), arguments: JSON.stringify(b.input ?? {}) });
			}
			turns.push(turn("assistant", texts.join("\n"), { toolCalls: calls }));
			continue;
		}
		// A user message may mix tool_result blocks and text; keep their order.
		let texts: string[] = [];
		const flush = () => {
			if (texts.length > 0) turns.push(turn("user", texts.join("\n")));
			texts = [];
		};
		for (const b of blocks) {
			if (!isJsonObject(b)) continue;
			if (b.type === "tool_result") {
				flush();
				turns.push(turn("tool", contentText(b.content), { toolCallId: str(b.tool_use_id) }));
			} else if (b.type === "text") texts.push(str(b.text));
		}
		flush();
	}
	return turns;
}

function fromResponses(body: JsonObject): Turn[] {
	const turns: Turn[] = [];
	if (typeof body.instructions === "string") turns.push(turn("system", body.instructions));
	const input: Json | undefined = typeof body.input === "string" ? [{ role: "user", content: body.input }] : body.input;
	for (const item of Array.isArray(input) ? input : []) {
		if (!isJsonObject(item)) continue;
		if (item.type === "function_call") {
			const call = { id: str(item.call_id), name: str(item.name), arguments: str(item.arguments) };
			const last = turns.at(-1);
			// Consecutive function_call items belong to one assistant message.
			if (last?.role === "assistant") last.toolCalls.push(call);
			else turns.push(turn("assistant", "", { toolCalls: [call] }));
		} else if (item.type === "function_call_output") {
			turns.push(turn("tool", contentText(item.output), { toolCallId: str(item.call_id) }));
		} else if (item.type === undefined || item.type === "message") {
			const role = str(item.role);
			if (role === "system" || role === "developer") turns.push(turn("system", contentText(item.content)));
			else if (role === "user") turns.push(turn("user", contentText(item.content)));
			else if (role === "assistant") turns.push(turn("assistant", contentText(item.content)));
		}
	}
	return turns;
}

export function normalizeTurns(api: WireApi | "unknown", body: JsonObject): Turn[] {
	switch (api) {
		case "openai-completions":
			return fromOpenAICompletions(body);
		case "anthropic-messages":
			return fromAnthropic(body);
		case "openai-responses":
			return fromResponses(body);
		default:
			return [];
	}
}

export function apiForPath(method: string, path: string): WireApi | "unknown" {
	if (method !== "POST") return "unknown";
	const p = path.split("?")[0] ?? "";
	if (p.endsWith("/chat/completions")) return "openai-completions";
	if (p.endsWith("/responses")) return "openai-responses";
	if (p.endsWith("/messages")) return "anthropic-messages";
	return "unknown";
}
