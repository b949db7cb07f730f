// Spawning `omp` in its own process group, so a hung OMP and anything it started (bash tool
// children, bun workers) can be ended together by group id, and never by name.
import { type ChildProcess, spawn } from "node:child_process";
import { FAKE_MODEL, ompBin } from "./omp-env.ts";

export { OMP_VERSIONS, ompBin } from "./omp-env.ts";
export const OMP_BIN = ompBin();

export interface OmpLaunch {
	env: Record<string, string>;
	cwd: string;
	/** `provider/id`; defaults to the fake model from omp-env. */
	model?: string;
	/** Each becomes `-e <path>`. */
	extensionPaths?: string[];
	/** Appended after the generated flags. */
	extraArgs?: string[];
}

export function ompArgs(mode: string[], launch: OmpLaunch): string[] {
	const ext = (launch.extensionPaths ?? []).flatMap(p => ["-e", p]);
	return [...mode, "--model", launch.model ?? FAKE_MODEL, "--no-title", ...ext, ...(launch.extraArgs ?? [])];
}

export function spawnOmp(args: string[], launch: OmpLaunch, stdin: "pipe" | "ignore"): ChildProcess {
	return spawn(OMP_BIN, args, {
		cwd: launch.cwd,
		env: launch.env,
		stdio: [stdin, "pipe", "pipe"],
		detached: true, // new process group: pid === pgid
	});
}

function groupAlive(pgid: number): boolean {
	try {
		process.kill(-pgid, 0);
		return true;
	} catch {
		return false;
	}
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
	try {
		process.kill(-pgid, signal);
	} catch {
		// group already gone
	}
}

export interface ExitInfo {
	code: number | null;
	signal: NodeJS.Signals | null;
}

/** Resolves when the child exits (immediately if it already has). */
export function exitOf(child: ChildProcess): Promise<ExitInfo> {
	if (child.exitCode !== null || child.signalCode !== null) {
		return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
	}
	return new Promise(resolve => child.once("exit", (code, signal) => resolve({ code, signal })));
}

const sleep = (ms: number) => new Promise<void>(resolve => setTimeout(resolve, ms));

/**
 * Waits up to `graceMs` for a clean exit, then SIGTERMs and finally SIGKILLs the child's process
 * group. Also reaps leftovers of the group after a clean exit (e.g. a backgrounded tool child).
 */
export async function endOmp(child: ChildProcess, graceMs: number): Promise<ExitInfo> {
	const pgid = child.pid;
	const exited = exitOf(child);
	const first = await Promise.race([exited, sleep(graceMs).then(() => undefined)]);
	if (pgid === undefined) return exited;
	if (!first) {
		signalGroup(pgid, "SIGTERM");
		const second = await Promise.race([exited, sleep(5_000).then(() => undefined)]);
		if (!second) signalGroup(pgid, "SIGKILL");
	}
	const info = await exited;
	if (groupAlive(pgid)) {
		signalGroup(pgid, "SIGTERM");
		await sleep(200);
		if (groupAlive(pgid)) signalGroup(pgid, "SIGKILL");
	}
	return info;
}
