// Benchmark row: what a stop and a model request cost the engine (on Bun, as inside
// OMP, with the built-in gates install lays down) in a 10,000-entry session against
// a 100-entry one, neither with a todo ever made (the gates' worst case), and OMP
// appending an entry between events as it does.
import { appendFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { openTodosField } from "../../adapter/session-todos.ts";
import { defaultRegistry } from "../../modules/registry/default.ts";
import { BenchEngine, fmtMs, median, writeExecutable, type Row } from "./support.ts";

const entry = (i: number): string =>
  JSON.stringify({
    type: "message",
    id: `e${i}`,
    parentId: i === 0 ? null : `e${i - 1}`,
    timestamp: new Date(0).toISOString(),
    message: { role: i % 2 === 0 ? "user" : "assistant", content: [{ type: "text", text: `entry ${i} `.repeat(30) }] },
  });

function sessionFile(file: string, entries: number): { file: string; next: number } {
  const lines = [JSON.stringify({ type: "session", version: 3, id: "bench", timestamp: new Date(0).toISOString(), cwd: path.dirname(file) })];
  for (let i = 0; i < entries; i++) lines.push(entry(i));
  writeFileSync(file, `${lines.join("\n")}\n`);
  return { file, next: entries };
}

export async function sessionLengthRows(home: string, tamaBin: string, bun: string, rounds = 200): Promise<Row[]> {
  writeExecutable(path.join(home, "hooks/registry.json"), JSON.stringify(defaultRegistry(null)));
  const engine = new BenchEngine(tamaBin, { ...process.env, TAMA_HOME: home }, bun);
  await engine.ready;
  const short = sessionFile(path.join(home, "short.jsonl"), 100);
  const long = sessionFile(path.join(home, "long.jsonl"), 10_000);
  const times = new Map<string, number[]>([
    [short.file, []],
    [long.file, []],
  ]);
  const event = async (session: { file: string; next: number }, name: string, record: boolean): Promise<void> => {
    appendFileSync(session.file, `${entry(session.next++)}\n`);
    const t = performance.now();
    const answer = await engine.request({ op: "dispatch", event: name, payload: { session_id: path.basename(session.file), cwd: home, transcript_path: session.file } });
    if (record) times.get(session.file)?.push(performance.now() - t);
    if (answer.ok !== true) throw new Error(`bench dispatch failed: ${JSON.stringify(answer.error)}`);
  };
  try {
    for (let i = 0; i < rounds + 20; i++) {
      for (const session of i % 2 === 0 ? [short, long] : [long, short]) {
        await event(session, "before_provider_request", i >= 20);
        await event(session, "stop", i >= 20);
      }
    }
  } finally {
    await engine.close();
  }
  const s = median(times.get(short.file) ?? []);
  const l = median(times.get(long.file) ?? []);
  const held = heldSessionRow(rounds * 10);
  return [
    {
      name: "stop and model request in a 10,000-entry session ÷ a 100-entry one (no todo ever, engine on Bun)",
      measured: `${fmtMs(l)} vs ${fmtMs(s)} (p50 per event, n=${rounds * 2})`,
      ratio: l / s,
      goal: "≤ 1.1×",
      met: l / s <= 1.1,
    },
    held,
  ];
}

/** OMP's session as the adapter reads it: entries by id and the active branch's newest. */
class HeldSession {
  private readonly byId = new Map<string, object>();
  private leaf: object | undefined;
  next = 0;
  constructor(entries: number) {
    for (let i = 0; i < entries; i++) this.add();
  }
  add(): void {
    const made = JSON.parse(entry(this.next++)) as { id: string };
    this.byId.set(made.id, made);
    this.leaf = made;
  }
  getSessionId = (): string => "bench";
  getSessionFile = (): string | undefined => undefined;
  getLeafEntry = (): object | undefined => this.leaf;
  getEntry = (id: string): object | undefined => this.byId.get(id);
}

/**
 * Inside OMP the todo gates read the open tasks OMP holds (adapter/session-todos.ts), in
 * OMP's process: per event, one entry made and the list read, 10,000 entries against 100.
 */
function heldSessionRow(rounds: number): Row {
  const short = new HeldSession(100);
  const long = new HeldSession(10_000);
  let t = performance.now();
  openTodosField(long);
  const first = performance.now() - t;
  openTodosField(short);
  const times = new Map<HeldSession, number[]>([
    [short, []],
    [long, []],
  ]);
  for (let i = 0; i < rounds + 100; i++) {
    for (const session of i % 2 === 0 ? [short, long] : [long, short]) {
      session.add();
      t = performance.now();
      openTodosField(session);
      if (i >= 100) times.get(session)?.push(performance.now() - t);
    }
  }
  const s = median(times.get(short) ?? []);
  const l = median(times.get(long) ?? []);
  return {
    name: "  the open tasks OMP holds, read in OMP's process as the adapter does: 10,000 entries ÷ 100",
    measured: `${fmtMs(l)} vs ${fmtMs(s)} (p50 per event, n=${rounds}; a first read of the 10,000 ${fmtMs(first)})`,
    ratio: l / s,
    goal: "≤ 1.1×",
    met: l / s <= 1.1,
  };
}
