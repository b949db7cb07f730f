// Drives `omp --mode rpc` (JSONL on stdin/stdout) and `omp -p` for tests. RPC frames are read
// line by line; every frame is kept in `events` so a test can assert on the full stream.
import type { ChildProcess } from "node:child_process";
import readline from "node:readline";
import { endOmp, type ExitInfo, exitOf, type OmpLaunch, ompArgs, spawnOmp } from "./omp-process.ts";

export type { ExitInfo, OmpLaunch } from "./omp-process.ts";

/** One JSON line from OMP's stdout. */
export interface Frame {
	type: string;
	id?: string;
	[key: string]: unknown;
}

export interface RpcCommand {
	type: string;
	id?: string;
	[key: string]: unknown;
}

export interface PromptOutcome {
	/** The immediate `response` frame for the prompt command. */
	response: Frame;
	/** Every frame seen from sending the prompt until it settled (inclusive). */
	frames: Frame[];
	/** The frame that settled it: terminal `agent_end`, `prompt_result`, or an error `response`. */
	settledBy: Frame;
	/** False when OMP handled the prompt without running the agent (slash command, dropped prompt). */
	agentInvoked: boolean;
}

export interface RpcSessionOptions extends OmpLaunch {
	/** Bound for close() to wait for a clean exit before killing the process group. */
	closeGraceMs?: number;
	/** OMP only warns when an `-e` extension fails to load and runs without it; ready() rejects unless this is set. */
	allowExtensionLoadErrors?: boolean;
}

/** OMP's stderr lines for `-e` extensions that failed to load (the run continues without them). */
export function extensionLoadErrors(stderr: string): string[] {
	return stderr.split("\n").filter(line => line.startsWith("Failed to load extension"));
}

export interface RpcSession {
	pid: number;
	/** All frames, in order (live array). */
	events: Frame[];
	/** Everything OMP wrote to stderr so far. */
	readonly stderr: string;
	/** Resolves with the `ready` frame; rejects if an extension failed to load (see allowExtensionLoadErrors). */
	ready(timeoutMs?: number): Promise<Frame>;
	/** Sends a command (an id is added when missing) and resolves with its `response` frame. */
	send(cmd: RpcCommand, timeoutMs?: number): Promise<Frame>;
	/** Sends a prompt and resolves once the agent settled. */
	prompt(message: string, options?: { timeoutMs?: number; extra?: Record<string, unknown> }): Promise<PromptOutcome>;
	/** Resolves with the first frame at index >= `from` matching `pred`. */
	waitFor(pred: (f: Frame) => boolean, options?: { from?: number; timeoutMs?: number }): Promise<Frame>;
	/** Ends stdin, waits for exit (then kills the process group after closeGraceMs). Idempotent. */
	close(): Promise<ExitInfo>;
}

interface Waiter {
	from: number;
	pred: (f: Frame) => boolean;
	resolve: (f: Frame) => void;
	reject: (e: Error) => void;
}

/** Terminal settle of a prompt: agent_end not followed by a scheduled continuation. */
export function isTerminalAgentEnd(f: Frame): boolean {
	return f.type === "agent_end" && f.isTerminal !== false && f.willContinue !== true;
}

function parseFrame(line: string): Frame | undefined {
	try {
		const value: unknown = JSON.parse(line);
		if (typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string") {
			return value as Frame;
		}
	} catch {
		// not JSON: OMP should never do this on stdout in rpc mode; keep it visible anyway
	}
	return { type: "_non_json", line };
}

export function startRpcSession(options: RpcSessionOptions): RpcSession {
	const child: ChildProcess = spawnOmp(ompArgs(["--mode", "rpc"], options), options, "pipe");
	const pid = child.pid;
	if (pid === undefined) throw new Error("failed to spawn omp");
	const events: Frame[] = [];
	const waiters = new Set<Waiter>();
	let stderr = "";
	let exitNote: string | undefined;
	let nextId = 0;
	let closing: Promise<ExitInfo> | undefined;

	child.stderr?.setEncoding("utf8");
	child.stderr?.on("data", (d: string) => {
		stderr += d;
	});
	const lines = readline.createInterface({ input: child.stdout as NodeJS.ReadableStream, crlfDelay: Infinity });
	lines.on("line", line => {
		if (line.trim() === "") return;
		const frame = parseFrame(line);
		if (!frame) return;
		events.push(frame);
		const index = events.length - 1;
		for (const w of [...waiters]) {
			if (index >= w.from && w.pred(frame)) {
				waiters.delete(w);
				w.resolve(frame);
			}
		}
	});
	// Fail pending waiters only once the process is gone AND stdout is drained, so frames
	// written just before exit still reach their waiters.
	let exited = false;
	let stdoutClosed = false;
	const failWaiters = () => {
		if (!exited || !stdoutClosed) return;
		for (const w of waiters) w.reject(new Error(`${exitNote} while waiting; stderr tail:\n${stderr.slice(-2000)}`));
		waiters.clear();
	};
	lines.on("close", () => {
		stdoutClosed = true;
		failWaiters();
	});
	void exitOf(child).then(info => {
		exitNote = `omp exited (code ${info.code}, signal ${info.signal})`;
		exited = true;
		failWaiters();
	});

	function waitFor(pred: (f: Frame) => boolean, opts: { from?: number; timeoutMs?: number } = {}): Promise<Frame> {
		const from = opts.from ?? 0;
		const timeoutMs = opts.timeoutMs ?? 45_000;
		for (let i = from; i < events.length; i++) {
			const f = events[i];
			if (f && pred(f)) return Promise.resolve(f);
		}
		if (exited && stdoutClosed) return Promise.reject(new Error(exitNote));
		return new Promise<Frame>((resolve, reject) => {
			const timer = setTimeout(() => {
				waiters.delete(waiter);
				const tail = events.slice(-5).map(f => f.type).join(", ");
				reject(new Error(`rpc: no matching frame within ${timeoutMs} ms (last frames: ${tail}); stderr tail:\n${stderr.slice(-2000)}`));
			}, timeoutMs);
			const waiter: Waiter = {
				from,
				pred,
				resolve: f => {
					clearTimeout(timer);
					resolve(f);
				},
				reject: e => {
					clearTimeout(timer);
					reject(e);
				},
			};
			waiters.add(waiter);
		});
	}

	function write(cmd: RpcCommand): RpcCommand & { id: string } {
		const withId = { ...cmd, id: cmd.id ?? `t${++nextId}` };
		child.stdin?.write(`${JSON.stringify(withId)}\n`);
		return withId;
	}

	async function send(cmd: RpcCommand, timeoutMs = 30_000): Promise<Frame> {
		const from = events.length;
		const sent = write(cmd);
		return waitFor(f => f.type === "response" && f.id === sent.id, { from, timeoutMs });
	}

	async function prompt(
		message: string,
		opts: { timeoutMs?: number; extra?: Record<string, unknown> } = {},
	): Promise<PromptOutcome> {
		const timeoutMs = opts.timeoutMs ?? 45_000;
		const from = events.length;
		const sent = write({ ...opts.extra, type: "prompt", message });
		const response = await waitFor(f => f.type === "response" && f.id === sent.id, { from, timeoutMs });
		const data = response.data as { agentInvoked?: unknown } | undefined;
		// A failed or purely local (builtin command) prompt settles with its response.
		if (response.success === false || data?.agentInvoked === false) {
			return { response, frames: events.slice(from), settledBy: response, agentInvoked: false };
		}
		const settledBy = await waitFor(
			f =>
				isTerminalAgentEnd(f) ||
				(f.type === "prompt_result" && f.id === sent.id) ||
				(f.type === "response" && f.id === sent.id && f.success === false),
			{ from, timeoutMs },
		);
		const end = events.indexOf(settledBy);
		const agentInvoked = settledBy.type === "agent_end";
		return { response, frames: events.slice(from, end + 1), settledBy, agentInvoked };
	}

	return {
		pid,
		events,
		get stderr() {
			return stderr;
		},
		async ready(timeoutMs = 45_000) {
			const frame = await waitFor(f => f.type === "ready", { timeoutMs });
			const failed = extensionLoadErrors(stderr);
			if (failed.length > 0 && !options.allowExtensionLoadErrors) throw new Error(failed.join("\n"));
			return frame;
		},
		send,
		prompt,
		waitFor,
		close(): Promise<ExitInfo> {
			closing ??= (async () => {
				child.stdin?.end(); // OMP exits 0 on stdin EOF
				return endOmp(child, options.closeGraceMs ?? 20_000);
			})();
			return closing;
		},
	};
}

export interface PrintRunOptions extends OmpLaunch {
	/** Trailing args after `-p --model <m> --no-title [-e ...]`: usually just the prompt. */
	args: string[];
	/** Kill the process group after this long (the result then has code null). */
	timeoutMs?: number;
}

export interface PrintResult extends ExitInfo {
	stdout: string;
	stderr: string;
	/** Non-empty when an extension failed to load: OMP then ran WITHOUT it (exit code stays 0). */
	extensionLoadErrors: string[];
}

/** Runs `omp -p ...` to completion with stdin at EOF (/dev/null). */
export async function runPrint(options: PrintRunOptions): Promise<PrintResult> {
	const child = spawnOmp(ompArgs(["-p"], { ...options, extraArgs: [...(options.extraArgs ?? []), ...options.args] }), options, "ignore");
	let stdout = "";
	let stderr = "";
	child.stdout?.setEncoding("utf8");
	child.stderr?.setEncoding("utf8");
	child.stdout?.on("data", (d: string) => {
		stdout += d;
	});
	child.stderr?.on("data", (d: string) => {
		stderr += d;
	});
	const streamsDone = Promise.all([
		new Promise(r => child.stdout?.once("close", r)),
		new Promise(r => child.stderr?.once("close", r)),
	]);
	const info = await endOmp(child, options.timeoutMs ?? 50_000);
	// Wait for stdio to drain, but not forever if a grandchild inherited the pipes.
	await Promise.race([streamsDone, new Promise(r => setTimeout(r, 2_000))]);
	return { ...info, stdout, stderr, extensionLoadErrors: extensionLoadErrors(stderr) };
}
