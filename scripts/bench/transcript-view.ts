// Benchmark rows: what a Claude-format view of OMP's session file would cost, to decide
// whether hooks get one as `transcript_path` (they get OMP's session file, and Stop
// hooks `last_assistant_message`). The view is Claude Code's transcript lines (`type`
// user/assistant, `message.content` blocks text/thinking/tool_use/tool_result, a
// uuid/parentUuid chain) made from OMP's message entries by the converter below — a
// prototype, complete enough to be timed: written whole for each Stop, or kept by
// appending what OMP appended since the last event that had a hook. Each is measured
// against the Stop dispatch of one command hook (engine on Bun, as inside OMP).
import { appendFileSync, closeSync, openSync, readFileSync, readSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { BenchEngine, fmtMs, median, writeExecutable, type Row } from "./support.ts";

type Block = Record<string, unknown>;

/** OMP's tool names as Claude Code names its own (the rest as they are). */
const CLAUDE_TOOL: Record<string, string> = { bash: "Bash", read: "Read", write: "Write", edit: "Edit", grep: "Grep", find: "Glob", fetch: "WebFetch", task: "Task" };

function blocksOf(content: unknown): Block[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? (content as Block[]) : [];
}

/** One OMP session line as Claude Code's transcript line, or nothing for entries Claude has no line for. */
export function claudeTranscriptLine(line: string, sessionId: string, cwd: string): string | undefined {
  let entry: { type?: string; id?: string; parentId?: string | null; timestamp?: string; message?: Record<string, unknown> };
  try {
    entry = JSON.parse(line) as typeof entry;
  } catch {
    return undefined;
  }
  const message = entry.message;
  if (entry.type !== "message" || message === undefined) return undefined;
  const base = { parentUuid: entry.parentId ?? null, isSidechain: false, userType: "external", cwd, sessionId, uuid: entry.id, timestamp: entry.timestamp };
  switch (message.role) {
    case "user":
      return JSON.stringify({ ...base, type: "user", message: { role: "user", content: blocksOf(message.content) } });
    case "assistant": {
      const content = blocksOf(message.content).map((block): Block => {
        if (block.type === "toolCall") return { type: "tool_use", id: block.id, name: CLAUDE_TOOL[String(block.name)] ?? block.name, input: block.arguments ?? {} };
        if (block.type === "thinking") return { type: "thinking", thinking: block.thinking };
        return block;
      });
      const stop = message.stopReason === "toolUse" ? "tool_use" : "end_turn";
      return JSON.stringify({ ...base, type: "assistant", message: { id: entry.id, type: "message", role: "assistant", model: message.model, content, stop_reason: stop } });
    }
    case "toolResult": {
      const text = blocksOf(message.content)
        .map((block) => (typeof block.text === "string" ? block.text : ""))
        .join("");
      const result = { type: "tool_result", tool_use_id: message.toolCallId, content: text, is_error: message.isError === true };
      return JSON.stringify({ ...base, type: "user", message: { role: "user", content: [result] } });
    }
    default:
      return undefined;
  }
}

function convertText(text: string, sessionId: string, cwd: string): string {
  let out = "";
  for (const line of text.split("\n")) {
    if (line.length === 0) continue;
    const converted = claudeTranscriptLine(line, sessionId, cwd);
    if (converted !== undefined) out += `${converted}\n`;
  }
  return out;
}

/** The whole view, written again from the whole session file. */
function writeWhole(sessionFile: string, viewFile: string): void {
  writeFileSync(viewFile, convertText(readFileSync(sessionFile, "utf8"), "bench", path.dirname(sessionFile)));
}

function readFrom(file: string, offset: number, end: number): string {
  const buffer = Buffer.alloc(end - offset);
  const fd = openSync(file, "r");
  try {
    readSync(fd, buffer, 0, buffer.length, offset);
  } finally {
    closeSync(fd);
  }
  return buffer.toString("utf8");
}

/** The view kept up to date: what OMP appended since the last call, complete lines only. */
class IncrementalView {
  private offset = 0;
  constructor(
    private readonly sessionFile: string,
    private readonly viewFile: string,
  ) {
    writeFileSync(viewFile, "");
  }
  update(): void {
    const size = statSync(this.sessionFile).size;
    if (size <= this.offset) return;
    const text = readFrom(this.sessionFile, this.offset, size);
    const complete = text.lastIndexOf("\n") + 1;
    this.offset += Buffer.byteLength(text.slice(0, complete));
    appendFileSync(this.viewFile, convertText(text.slice(0, complete), "bench", path.dirname(this.sessionFile)));
  }
}

/** A turn of a coding session as OMP writes it: a prompt, a call, its result (2 KiB of output), an answer. */
function turnEntries(turn: number): string[] {
  const id = (k: number) => `e${turn * 4 + k}`;
  const at = new Date(0).toISOString();
  const entry = (k: number, message: Record<string, unknown>) => JSON.stringify({ type: "message", id: id(k), parentId: turn === 0 && k === 0 ? null : `e${turn * 4 + k - 1}`, timestamp: at, message });
  return [
    entry(0, { role: "user", content: [{ type: "text", text: `please fix test ${turn} `.repeat(8) }] }),
    entry(1, { role: "assistant", model: "m", stopReason: "toolUse", content: [{ type: "text", text: "Running it." }, { type: "toolCall", id: `c${turn}`, name: "bash", arguments: { command: `npm test -- t${turn}` } }] }),
    entry(2, { role: "toolResult", toolCallId: `c${turn}`, toolName: "bash", isError: false, content: [{ type: "text", text: `ok ${turn}\n`.repeat(256) }] }),
    entry(3, { role: "assistant", model: "m", stopReason: "stop", content: [{ type: "text", text: `Fixed ${turn}. `.repeat(20) }] }),
  ];
}

function sessionFile(file: string, entries: number): void {
  const lines = [JSON.stringify({ type: "session", version: 3, id: "bench", timestamp: new Date(0).toISOString(), cwd: path.dirname(file) })];
  for (let turn = 0; lines.length <= entries; turn++) lines.push(...turnEntries(turn));
  writeFileSync(file, `${lines.slice(0, entries + 1).join("\n")}\n`);
}

export async function transcriptViewRows(home: string, tamaBin: string, bun: string, rounds = 50): Promise<Row[]> {
  const hook = writeExecutable(path.join(home, "pass.sh"), "#!/bin/sh\ncat >/dev/null\nexit 0\n");
  writeExecutable(path.join(home, "hooks/registry.json"), JSON.stringify({ schema: 1, release: null, hooks: [{ id: "pass", events: ["stop"], command: [hook] }] }));
  const engine = new BenchEngine(tamaBin, { ...process.env, TAMA_HOME: home }, bun);
  await engine.ready;
  const stops: number[] = [];
  const whole = new Map<number, number[]>();
  const incremental = new Map<number, number[]>();
  const sizes = new Map<number, number>();
  try {
    for (const entries of [100, 10_000]) {
      const file = path.join(home, `session-${entries}.jsonl`);
      sessionFile(file, entries);
      sizes.set(entries, statSync(file).size);
      const view = new IncrementalView(file, path.join(home, `view-inc-${entries}.jsonl`));
      view.update();
      whole.set(entries, []);
      incremental.set(entries, []);
      for (let i = 0; i < rounds + 5; i++) {
        // A turn goes by between two Stops: OMP appends its four entries.
        appendFileSync(file, `${turnEntries(entries + i).join("\n")}\n`);
        let t = performance.now();
        view.update();
        const inc = performance.now() - t;
        t = performance.now();
        writeWhole(file, path.join(home, `view-${entries}.jsonl`));
        const all = performance.now() - t;
        t = performance.now();
        const answer = await engine.request({ op: "dispatch", event: "stop", payload: { session_id: `s${entries}`, cwd: home, transcript_path: file } });
        const stop = performance.now() - t;
        if (answer.ok !== true) throw new Error(`bench dispatch failed: ${JSON.stringify(answer.error)}`);
        if (i < 5) continue;
        incremental.get(entries)?.push(inc);
        whole.get(entries)?.push(all);
        stops.push(stop);
      }
    }
  } finally {
    await engine.close();
  }
  const stop = median(stops);
  const rows: Row[] = [];
  for (const entries of [100, 10_000]) {
    const w = median(whole.get(entries) ?? []);
    const n = median(incremental.get(entries) ?? []);
    const mib = ((sizes.get(entries) ?? 0) / 2 ** 20).toFixed(1);
    rows.push(
      {
        name: `Claude-format transcript view written whole per Stop, ${entries.toLocaleString("en")}-entry session (${mib} MiB, +4 entries a turn) ÷ a Stop dispatch of one hook`,
        measured: `${fmtMs(w)} vs ${fmtMs(stop)} (p50, n=${rounds})`,
        ratio: w / stop,
        goal: "(measured)",
        met: true,
      },
      {
        name: "  kept by appending each turn's entries instead",
        measured: `${fmtMs(n)} vs ${fmtMs(stop)} (p50, n=${rounds})`,
        ratio: n / stop,
        goal: "(measured)",
        met: true,
      },
    );
  }
  return rows;
}
