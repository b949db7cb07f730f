// Small helpers for tests that load throwaway extensions into OMP and read what they logged.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/** Writes an ESM extension (`export default function (pi) {...}`) into `dir`; returns its path. */
export function writeExtension(dir: string, name: string, source: string): string {
	const file = path.join(dir, name.endsWith(".js") || name.endsWith(".ts") ? name : `${name}.js`);
	writeFileSync(file, source);
	return file;
}

/** Parses a JSONL file; missing file → []. */
export function readJsonl<T = Record<string, unknown>>(file: string): T[] {
	if (!existsSync(file)) return [];
	return readFileSync(file, "utf8")
		.split("\n")
		.filter(line => line.trim() !== "")
		.map(line => JSON.parse(line) as T);
}

/**
 * Source of an extension that appends `{ev, ...}` lines to `logFile` for the given events
 * (plus `factory` at load). Handlers return nothing, so they never change OMP's behaviour.
 */
export function eventLoggerSource(logFile: string, events: readonly string[]): string {
	return `import fs from "node:fs";
const LOG = ${JSON.stringify(logFile)};
const log = (ev, data) => fs.appendFileSync(LOG, JSON.stringify({ ev, ...data }) + "\\n");
export default function (pi) {
	log("factory", {});
	for (const ev of ${JSON.stringify(events)}) {
		pi.on(ev, (event, ctx) => {
			log(ev, { toolName: event.toolName, input: event.input, mode: ctx.mode, sessionId: ctx.sessionManager.getSessionId() });
		});
	}
}
`;
}
