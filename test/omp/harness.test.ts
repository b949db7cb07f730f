// Proves the e2e harness against a real OMP 18.2.3 process and the scripted model server.
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useOmpFixture } from "./fixture.ts";
import { defaultScript, type Reply } from "./model-server.ts";
import { type Frame, runPrint } from "./rpc-session.ts";
import { eventLoggerSource, readJsonl, writeExtension } from "./test-files.ts";

const T = 60_000;

const omp = useOmpFixture();

function assistantTexts(frames: Frame[]): string[] {
	const out: string[] = [];
	for (const f of frames) {
		const message = f.message as { role?: string; content?: { type: string; text?: string }[] } | undefined;
		if (f.type !== "message_end" || message?.role !== "assistant") continue;
		for (const part of message.content ?? []) if (part.type === "text" && part.text) out.push(part.text);
	}
	return out;
}

describe("omp e2e harness", () => {
	it(
		"print mode: one tool call round trip, extension sees the events in order",
		async () => {
			const { server, env } = await omp.setup();
			const log = path.join(env.scratch, "events.jsonl");
			const events = ["session_start", "before_agent_start", "agent_start", "tool_call", "tool_result", "session_stop", "agent_end", "session_shutdown"];
			const ext = writeExtension(env.scratch, "logger", eventLoggerSource(log, events));

			const run = await runPrint({ ...env, extensionPaths: [ext], args: ['CALL bash {"command":"echo hi-from-bash"}'] });

			expect(run.code, run.stderr).toBe(0);
			expect(run.extensionLoadErrors).toEqual([]);
			expect(run.stdout).toContain('FAKE-FINAL: tool said: "hi-from-bash');
			const seen = readJsonl<{ ev: string; toolName?: string; mode?: string }>(log);
			expect(seen.map(e => e.ev)).toEqual(["factory", ...events]);
			expect(seen.find(e => e.ev === "tool_call")).toMatchObject({ toolName: "bash", mode: "print" });
			expect(server.requests).toHaveLength(2);
			expect(server.requests[0]?.headers.authorization).toBe("Bearer fake-key-123");
			expect(server.requests[1]?.turns.at(-1)).toMatchObject({ role: "tool" });
			expect(server.requests[1]?.turns.at(-1)?.text).toContain("hi-from-bash");
		},
		T,
	);

	it(
		"rpc mode: two prompts on one session, a held reply, parallel tool calls",
		async () => {
			const { server } = await omp.setup();
			let release: (() => void) | undefined;
			const held = new Promise<void>(resolve => {
				release = resolve;
			});
			// Hold the very first model reply until the test has looked at the session.
			server.setScript(async (req, index): Promise<Reply> => {
				if (index === 0) await held;
				return defaultScript(req, index);
			});
			const session = omp.rpc();
			expect((await session.ready()).type).toBe("ready");
			const state = await session.send({ type: "get_state" });
			expect(state.success).toBe(true);

			const first = session.prompt("NOTOOL first prompt");
			await server.waitForRequests(1);
			const busy = await session.send({ type: "get_state" });
			expect((busy.data as { isStreaming?: boolean }).isStreaming).toBe(true);
			release?.();
			const one = await first;
			expect(one.agentInvoked).toBe(true);
			expect(assistantTexts(one.frames)).toEqual(["FAKE-TEXT: NOTOOL first prompt"]);

			const two = await session.prompt(
				'two tools at once\nCALL bash {"command":"echo AAA"}\nCALL bash {"command":"echo BBB"}',
			);
			const ends = two.frames.filter(f => f.type === "tool_execution_end");
			expect(ends).toHaveLength(2);
			const last = server.requests.at(-1);
			// Parallel results may reach the model in completion order, not call order.
			const results = last?.turns.filter(t => t.role === "tool").map(t => t.text.split("\n")[0]);
			expect(results?.sort()).toEqual(["AAA", "BBB"]);
			// The second prompt's first request carries the first exchange as history.
			expect(server.requests[1]?.turns.some(t => t.role === "assistant" && t.text === "FAKE-TEXT: NOTOOL first prompt")).toBe(true);
			const final = assistantTexts(two.frames).at(-1);
			expect(final).toContain('tool said: "AAA');
			expect(final).toContain('tool said: "BBB');

			const exit = await session.close();
			expect(exit.code).toBe(0);
		},
		T,
	);

	it(
		"a tool_call handler's block reason is what the model receives as the tool result",
		async () => {
			const { server, env } = await omp.setup();
			const marker = path.join(env.scratch, "ran.marker");
			const ext = writeExtension(
				env.scratch,
				"blocker",
				`export default function (pi) {
	pi.on("tool_call", event => event.toolName === "bash" ? { block: true, reason: "TAMA-BLOCKED: no bash here" } : undefined);
}
`,
			);
			const session = omp.rpc({ extensionPaths: [ext] });
			await session.ready();
			const out = await session.prompt(`CALL bash {"command":"touch ${marker}"}`);

			expect(existsSync(marker)).toBe(false);
			const end = out.frames.find(f => f.type === "tool_execution_end");
			expect(end?.isError).toBe(true);
			expect(server.requests).toHaveLength(2);
			const toolTurn = server.requests[1]?.turns.at(-1);
			expect(toolTurn).toMatchObject({ role: "tool", text: "TAMA-BLOCKED: no bash here" });
			expect(server.requests[1]?.body.messages).toContainEqual(
				expect.objectContaining({ role: "tool", content: "TAMA-BLOCKED: no bash here" }),
			);
		},
		T,
	);

	it.each(["anthropic-messages", "openai-responses"] as const)(
		"%s wire format: tool call then final text",
		async api => {
			const { server, env } = await omp.setup({ api });
			const run = await runPrint({ ...env, args: ['CALL bash {"command":"echo via-other-api"}'] });
			expect(run.code, run.stderr).toBe(0);
			expect(run.stdout).toContain('FAKE-FINAL: tool said: "via-other-api');
			expect(server.requests.map(r => r.api)).toEqual([api, api]);
			expect(server.requests[1]?.turns.at(-1)).toMatchObject({ role: "tool" });
		},
		T,
	);
});
