// Contract tests: OMP 18.2.3 behaviours Tama's extension relies on, observed in a real OMP
// process. If an OMP upgrade changes one of these, this file says which assumption broke.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useOmpFixture } from "./fixture.ts";
import type { ModelServer } from "./model-server.ts";
import type { OmpEnv } from "./omp-env.ts";
import { runPrint } from "./rpc-session.ts";
import { findSessionFile, openTodos } from "./session-file.ts";
import { readJsonl, writeExtension } from "./test-files.ts";

const T = 60_000;

const omp = useOmpFixture();

async function setup(): Promise<{ server: ModelServer; env: OmpEnv; log: string }> {
	const { server, env } = await omp.setup();
	return { server, env, log: path.join(env.scratch, "log.jsonl") };
}

/** Extension source with a `log(obj)` helper bound to `logFile`; `body` is the factory body. */
function ext(logFile: string, body: string): string {
	return `import fs from "node:fs";
const log = (o) => fs.appendFileSync(${JSON.stringify(logFile)}, JSON.stringify(o) + "\\n");
export default function (pi) {
${body}
}
`;
}

/** Polls `check` until it returns a value (bounded; no timing assertions). */
async function eventually<R>(check: () => Promise<R | undefined> | R | undefined, timeoutMs = 30_000): Promise<R> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await check();
		if (value !== undefined) return value;
		if (Date.now() > deadline) throw new Error("eventually: condition not met in time");
		await new Promise(r => setTimeout(r, 50));
	}
}

describe("OMP 18.2.3 contract", () => {
	it(
		"ctx.abort() inside before_agent_start drops the prompt before the model (print and rpc)",
		async () => {
			const { server, env, log } = await setup();
			const file = writeExtension(
				env.scratch,
				"refuse",
				ext(log, `	pi.on("before_agent_start", (event, ctx) => {
		if (!event.prompt.includes("REFUSE")) return;
		ctx.abort();
		log({ ev: "refused", prompt: event.prompt });
	});`),
			);

			const print = await runPrint({ ...env, extensionPaths: [file], args: ["NOTOOL REFUSE me"] });
			expect(print.code).toBe(0);
			expect(print.extensionLoadErrors).toEqual([]);
			expect(print.stdout).toBe("");
			expect(server.requests).toHaveLength(0);

			const session = omp.rpc({ extensionPaths: [file] });
			await session.ready();
			// A dropped prompt gets its `response` but neither agent_end nor prompt_result, so use send().
			expect((await session.send({ type: "prompt", message: "NOTOOL REFUSE me too" })).success).toBe(true);
			await eventually(() => (readJsonl(log).length === 2 ? true : undefined));
			const state = await eventually(async () => {
				const s = (await session.send({ type: "get_state" }))?.data as { isStreaming: boolean; messageCount: number };
				return s.isStreaming ? undefined : s;
			});
			expect(state.messageCount).toBe(0);
			expect(server.requests).toHaveLength(0);
			const next = await session.prompt("NOTOOL allowed");
			expect(next.agentInvoked).toBe(true);
			expect(JSON.stringify(server.requests[0]?.body)).not.toContain("REFUSE");
		},
		T,
	);

	it(
		"before_agent_start can add a message and replace the system prompt, not the prompt",
		async () => {
			const { server, env, log } = await setup();
			const file = writeExtension(
				env.scratch,
				"bas",
				ext(log, `	pi.on("before_agent_start", () => ({
		message: { customType: "tama-note", content: "TAMA-NOTE", display: false },
		systemPrompt: ["TAMA-SYSTEM"],
	}));`),
			);
			const run = await runPrint({ ...env, extensionPaths: [file], args: ["NOTOOL hello"] });
			expect(run.code, run.stderr).toBe(0);
			expect(run.extensionLoadErrors).toEqual([]);
			expect(server.requests[0]?.turns[0]).toMatchObject({ role: "system", text: "TAMA-SYSTEM" });
			const users = server.requests[0]?.turns.filter(t => t.role === "user").map(t => t.text) ?? [];
			expect(users.at(-2)).toContain("NOTOOL hello");
			expect(users.at(-1)).toBe("TAMA-NOTE");
		},
		T,
	);

	it(
		"session_stop {decision:'block', reason} continues the turn; the model gets the reason as a user message",
		async () => {
			const { server, env, log } = await setup();
			const file = writeExtension(
				env.scratch,
				"stop",
				ext(log, `	pi.on("session_stop", event => {
		log({ ev: "session_stop", active: event.stop_hook_active, id: event.session_id, file: event.session_file, turn: event.turn_id });
		// decision:"block" bypasses OMP's continuation cap, so the guard is mandatory.
		if (!event.stop_hook_active) return { decision: "block", reason: "TAMA-STOP: run the tests first" };
	});`),
			);
			const session = omp.rpc({ extensionPaths: [file] });
			await session.ready();
			const out = await session.prompt("NOTOOL done?");

			expect(server.requests).toHaveLength(2);
			expect(server.requests[1]?.turns.at(-1)).toMatchObject({ role: "user", text: "TAMA-STOP: run the tests first" });
			const stops = readJsonl<{ active: boolean; id: string; file: string }>(log);
			expect(stops.map(s => s.active)).toEqual([false, true]);
			const continuation = out.frames.find(f => f.type === "message_end" && (f.message as { customType?: string }).customType === "session-stop-continuation");
			expect(continuation?.message).toMatchObject({ role: "custom", display: false, content: "TAMA-STOP: run the tests first" });
			expect(out.frames.filter(f => f.type === "agent_end")).toHaveLength(1);
			expect(readFileSync(stops[0]?.file ?? "", "utf8")).toContain(stops[0]?.id);
		},
		T,
	);

	it(
		"tool_call for a hashline edit carries derived path/paths; todo state is readable from the session file",
		async () => {
			const { env, log } = await setup();
			writeFileSync(path.join(env.cwd, "a.txt"), "one\n");
			const file = writeExtension(
				env.scratch,
				"observe",
				ext(log, `	pi.on("tool_call", event => { log({ ev: "tool_call", toolName: event.toolName, input: event.input }); });
	pi.on("session_start", (event, ctx) => {
		ctx.ui.setStatus("tama", "TAMA-STATUS");
		ctx.ui.notify("TAMA-NOTIFY", "warning");
		ctx.ui.setFooter(undefined);
		log({ ev: "session_start", hasUI: ctx.hasUI, mode: ctx.mode });
	});`),
			);
			const session = omp.rpc({ extensionPaths: [file] });
			await session.ready();
			const multi = "*** Begin Patch\n[a.txt#ABCD]\nPUT 1.=1:\n+ONE\n[sub/b.txt#1234]\nPUT >$:\n+x\nMV c.txt\n*** End Patch\n";
			await session.prompt(`CALL edit ${JSON.stringify({ input: multi })}`);
			await session.prompt(`CALL edit ${JSON.stringify({ input: "[a.txt#ABCD]\nPUT 1.=1:\n+ONE\n" })}`);
			await session.prompt('CALL todo {"op":"init","list":[{"phase":"P1","items":["first","second"]},{"phase":"P2","items":["third"]}]}');
			await session.prompt('CALL todo {"op":"done","task":"first"}');

			const seen = readJsonl<{ ev: string; toolName?: string; input?: Record<string, unknown>; hasUI?: boolean; mode?: string }>(log);
			const edits = seen.filter(e => e.toolName === "edit").map(e => e.input);
			expect(edits[0]).toEqual({ input: multi, paths: ["a.txt", "sub/b.txt"] }); // no `path`, MV target absent
			expect(edits[1]).toMatchObject({ path: "a.txt", paths: ["a.txt"] });
			expect(seen.find(e => e.ev === "session_start")).toMatchObject({ mode: "rpc", hasUI: true });

			const ui = session.events.filter(f => f.type === "extension_ui_request");
			expect(ui).toContainEqual(expect.objectContaining({ method: "setStatus", statusKey: "tama", statusText: "TAMA-STATUS" }));
			expect(ui).toContainEqual(expect.objectContaining({ method: "notify", message: "TAMA-NOTIFY", notifyType: "warning" }));

			const state = (await session.send({ type: "get_state" })).data as { sessionId: string; sessionFile: string };
			expect(findSessionFile(env.agentDir, state.sessionId)).toBe(state.sessionFile);
			expect(openTodos(state.sessionFile)).toEqual([
				{ phase: "P1", content: "second", status: "in_progress" },
				{ phase: "P2", content: "third", status: "pending" },
			]);
		},
		T,
	);
});
