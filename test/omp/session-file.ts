// Reads an OMP session journal (`$PI_CODING_AGENT_DIR/sessions/<cwd-dir>/<ts>_<id>.jsonl`) from
// outside the OMP process, mirroring OMP 18.2.3's own rules: the active branch ends at the last
// physical entry with an id (session-manager.ts "loader reconstructs the active branch from the
// last physical journal entry"), and the current todo list is the newest canonical snapshot on
// that branch (tools/todo.ts canonicalTodoPhases / getLatestTodoPhasesFromEntries).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

export type TodoStatus = "pending" | "in_progress" | "completed" | "abandoned" | "blocked";
export interface TodoItem {
	content: string;
	status: TodoStatus;
	blocker?: string;
}
export interface TodoPhase {
	name: string;
	tasks: TodoItem[];
}

export interface SessionEntry {
	type: string;
	id?: string;
	parentId?: string | null;
	customType?: string;
	data?: unknown;
	message?: {
		role?: string;
		toolName?: string;
		isError?: boolean;
		details?: { op?: string; phases?: unknown };
	};
}

export function readSessionEntries(file: string): SessionEntry[] {
	const entries: SessionEntry[] = [];
	for (const line of readFileSync(file, "utf8").split("\n")) {
		if (line.trim() === "") continue;
		try {
			entries.push(JSON.parse(line) as SessionEntry);
		} catch {
			// a line being appended right now; the next read sees it whole
		}
	}
	return entries;
}

/** Root → leaf path of the active branch. */
export function activeBranch(entries: SessionEntry[]): SessionEntry[] {
	const byId = new Map<string, SessionEntry>();
	for (const e of entries) if (e.id) byId.set(e.id, e);
	const leaf = [...entries].reverse().find(e => e.id);
	const path: SessionEntry[] = [];
	const seen = new Set<string>();
	for (let e = leaf; e?.id && !seen.has(e.id); e = e.parentId ? byId.get(e.parentId) : undefined) {
		seen.add(e.id);
		path.unshift(e);
	}
	return path;
}

function canonicalPhases(e: SessionEntry): TodoPhase[] | undefined {
	// `/todo` edits by the user are stored as custom entries.
	if (e.type === "custom" && e.customType === "user_todo_edit") {
		const phases = (e.data as { phases?: unknown } | undefined)?.phases;
		return Array.isArray(phases) ? (phases as TodoPhase[]) : undefined;
	}
	const m = e.message;
	if (e.type !== "message" || m?.role !== "toolResult" || m.toolName !== "todo" || m.isError) return undefined;
	if (m.details?.op === "view") return undefined;
	return Array.isArray(m.details?.phases) ? (m.details.phases as TodoPhase[]) : undefined;
}

export function latestTodoPhases(file: string): TodoPhase[] {
	const branch = activeBranch(readSessionEntries(file));
	for (let i = branch.length - 1; i >= 0; i--) {
		const entry = branch[i];
		const phases = entry ? canonicalPhases(entry) : undefined;
		if (phases) return phases;
	}
	return [];
}

/** Open = not completed and not abandoned (OMP's isClosedTodo). */
export function openTodos(file: string): (TodoItem & { phase: string })[] {
	return latestTodoPhases(file).flatMap(p =>
		p.tasks.filter(t => t.status !== "completed" && t.status !== "abandoned").map(t => ({ ...t, phase: p.name })),
	);
}

/** Session files are named `<timestamp>_<sessionId>.jsonl` in one dir per cwd. */
export function findSessionFile(agentDir: string, sessionId: string): string | undefined {
	const root = path.join(agentDir, "sessions");
	if (!existsSync(root)) return undefined;
	for (const dir of readdirSync(root)) {
		const full = path.join(root, dir);
		let names: string[];
		try {
			names = readdirSync(full);
		} catch {
			continue;
		}
		const hit = names.find(n => n.endsWith(`_${sessionId}.jsonl`));
		if (hit) return path.join(full, hit);
	}
	return undefined;
}
