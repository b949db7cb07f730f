// SSE bodies for the three streaming APIs. Each function returns the complete list of frames
// for one reply; the server writes them in order. Shapes follow what OMP 18.2.3's parsers
// accept (pi-ai/src/providers/{openai-completions,openai-responses,anthropic}.ts).
import type { Json, JsonObject, WireApi } from "./request-view.ts";

export interface PlannedToolCall {
	id: string;
	name: string;
	/** JSON text of the arguments. */
	arguments: string;
}

/** A reply resolved to concrete ids: either text or one/many (parallel) tool calls. */
export interface PlannedReply {
	text: string;
	toolCalls: PlannedToolCall[];
}

const USAGE = { input: 10, output: 5 };

function data(obj: Json): string {
	return `data: ${JSON.stringify(obj)}\n\n`;
}

function event(name: string, obj: JsonObject): string {
	return `event: ${name}\ndata: ${JSON.stringify(obj)}\n\n`;
}

/** Splits text into a couple of deltas so OMP exercises its streaming accumulation. */
function pieces(text: string): string[] {
	if (text.length < 2) return [text];
	const mid = Math.ceil(text.length / 2);
	return [text.slice(0, mid), text.slice(mid)];
}

function openAICompletions(reply: PlannedReply, model: string, n: number): string[] {
	const id = `chatcmpl-fake-${n}`;
	const created = Math.floor(Date.now() / 1000);
	const chunk = (delta: JsonObject, finish: string | null = null): string =>
		data({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason: finish }] });
	const frames: string[] = [];
	if (reply.toolCalls.length > 0) {
		frames.push(chunk({ role: "assistant", content: null }));
		reply.toolCalls.forEach((call, index) => {
			frames.push(
				chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }),
			);
			for (const part of pieces(call.arguments)) {
				frames.push(chunk({ tool_calls: [{ index, function: { arguments: part } }] }));
			}
		});
		frames.push(chunk({}, "tool_calls"));
	} else {
		frames.push(chunk({ role: "assistant", content: "" }));
		for (const part of pieces(reply.text)) frames.push(chunk({ content: part }));
		frames.push(chunk({}, "stop"));
	}
	const usage = { prompt_tokens: USAGE.input, completion_tokens: USAGE.output, total_tokens: USAGE.input + USAGE.output };
	frames.push(data({ id, object: "chat.completion.chunk", created, model, choices: [], usage }));
	frames.push("data: [DONE]\n\n");
	return frames;
}

function anthropicMessages(reply: PlannedReply, model: string, n: number): string[] {
	const frames: string[] = [];
	frames.push(
		event("message_start", {
			type: "message_start",
			message: {
				id: `msg_fake_${n}`,
				type: "message",
				role: "assistant",
				model,
				content: [],
				stop_reason: null,
				stop_sequence: null,
				usage: { input_tokens: USAGE.input, output_tokens: 1 },
			},
		}),
	);
	let index = 0;
	const block = (start: JsonObject, deltas: JsonObject[]) => {
		frames.push(event("content_block_start", { type: "content_block_start", index, content_block: start }));
		for (const delta of deltas) frames.push(event("content_block_delta", { type: "content_block_delta", index, delta }));
		frames.push(event("content_block_stop", { type: "content_block_stop", index }));
		index++;
	};
	if (reply.toolCalls.length === 0) {
		block(
			{ type: "text", text: "" },
			pieces(reply.text).map(text => ({ type: "text_delta", text })),
		);
	}
	for (const call of reply.toolCalls) {
		block(
			{ type: "tool_use", id: call.id, name: call.name, input: {} },
			pieces(call.arguments).map(partial_json => ({ type: "input_json_delta", partial_json })),
		);
	}
	const stopReason = reply.toolCalls.length > 0 ? "tool_use" : "end_turn";
	frames.push(
		event("message_delta", {
			type: "message_delta",
			delta: { stop_reason: stopReason, stop_sequence: null },
			usage: { output_tokens: USAGE.output },
		}),
	);
	frames.push(event("message_stop", { type: "message_stop" }));
	return frames;
}

function openAIResponses(reply: PlannedReply, model: string, n: number): string[] {
	const frames: string[] = [];
	let seq = 0;
	const emit = (type: string, fields: JsonObject) => frames.push(event(type, { type, sequence_number: seq++, ...fields }));
	const responseId = `resp_fake_${n}`;
	const base = { id: responseId, object: "response", created_at: Math.floor(Date.now() / 1000), model };
	emit("response.created", { response: { ...base, status: "in_progress", output: [] } });
	const output: JsonObject[] = [];
	if (reply.toolCalls.length === 0) {
		const itemId = `msg_fake_${n}`;
		const output_index = 0;
		emit("response.output_item.added", {
			output_index,
			item: { type: "message", id: itemId, status: "in_progress", role: "assistant", content: [] },
		});
		const emptyPart = { type: "output_text", text: "", annotations: [] };
		emit("response.content_part.added", { item_id: itemId, output_index, content_index: 0, part: emptyPart });
		for (const delta of pieces(reply.text)) {
			emit("response.output_text.delta", { item_id: itemId, output_index, content_index: 0, delta });
		}
		emit("response.output_text.done", { item_id: itemId, output_index, content_index: 0, text: reply.text });
		const part = { type: "output_text", text: reply.text, annotations: [] };
		emit("response.content_part.done", { item_id: itemId, output_index, content_index: 0, part });
		const item = { type: "message", id: itemId, status: "completed", role: "assistant", content: [part] };
		emit("response.output_item.done", { output_index, item });
		output.push(item);
	}
	reply.toolCalls.forEach((call, output_index) => {
		const itemId = `fc_fake_${n}_${output_index}`;
		const item = { type: "function_call", id: itemId, call_id: call.id, name: call.name };
		emit("response.output_item.added", { output_index, item: { ...item, arguments: "", status: "in_progress" } });
		for (const delta of pieces(call.arguments)) {
			emit("response.function_call_arguments.delta", { item_id: itemId, output_index, delta });
		}
		emit("response.function_call_arguments.done", { item_id: itemId, output_index, arguments: call.arguments });
		const done = { ...item, arguments: call.arguments, status: "completed" };
		emit("response.output_item.done", { output_index, item: done });
		output.push(done);
	});
	const usage = {
		input_tokens: USAGE.input,
		input_tokens_details: { cached_tokens: 0 },
		output_tokens: USAGE.output,
		output_tokens_details: { reasoning_tokens: 0 },
		total_tokens: USAGE.input + USAGE.output,
	};
	emit("response.completed", { response: { ...base, status: "completed", output, usage } });
	return frames;
}

export function streamFrames(api: WireApi, reply: PlannedReply, model: string, n: number): string[] {
	switch (api) {
		case "openai-completions":
			return openAICompletions(reply, model, n);
		case "anthropic-messages":
			return anthropicMessages(reply, model, n);
		case "openai-responses":
			return openAIResponses(reply, model, n);
	}
}

/** Prefix for generated tool-call ids: Anthropic wants `toolu_`, OpenAI uses `call_`. */
export function toolCallIdPrefix(api: WireApi): string {
	return api === "anthropic-messages" ? "toolu_fake" : "call_fake";
}
