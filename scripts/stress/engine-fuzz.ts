// Protocol fuzz for the engine's stdin: random bytes, truncated JSON, huge strings,
// deep nesting, wrong types, duplicate ids, unknown ops, with valid frames
// interleaved. Pass: the process never dies, memory stays bounded, every frame that
// carried an id gets exactly one answer, and valid frames get their normal answers.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import readline from "node:readline";
import { Random } from "./random.ts";

export interface FuzzSummary {
  frames: number;
  withId: number;
  answered: number;
  missing: number;
  duplicated: number;
  validFrames: number;
  validWrong: number;
  engineAlive: boolean;
  rssStartMb: number;
  rssEndMb: number;
}

interface Sent {
  id: string | null;
  valid: "status" | "dispatch" | null;
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

/** One generated line (without LF) and what its answer must be. */
function frame(r: Random, n: number, cwd: string): { line: string; sent: Sent } {
  const id = `f${n}`;
  const valid = { session_id: `s${r.int(4)}`, cwd, tool_input: { command: "ls" } };
  switch (r.int(13)) {
    case 0:
      return { line: r.bytes(1 + r.int(200)).toString("latin1").replace(/\n/g, " "), sent: { id: null, valid: null } };
    case 1: {
      const full = JSON.stringify({ id, op: "dispatch", event: "pre_tool_use:bash", payload: valid });
      return { line: full.slice(0, 1 + r.int(full.length - 1)), sent: { id: null, valid: null } };
    }
    case 2:
      return { line: JSON.stringify({ id, op: "status", pad: "x".repeat(r.int(200_000)) }), sent: { id, valid: null } };
    case 3: {
      let nested: unknown = 1;
      for (let i = 0; i < 50 + r.int(5000); i++) nested = [nested];
      return { line: JSON.stringify({ id, op: "dispatch", event: "stop", payload: { deep: nested } }), sent: { id, valid: "dispatch" } };
    }
    case 4:
      return { line: JSON.stringify({ id, op: "dispatch", event: r.pick([7, null, "nope", "pre_tool_use:"]), payload: valid }), sent: { id, valid: null } };
    case 5:
      return { line: JSON.stringify({ id: r.pick([{}, [], true, "", 1.5]), op: "status" }), sent: { id: null, valid: null } };
    case 6:
      return { line: JSON.stringify({ id, op: r.pick(["explode", "", 3, "STATUS"]) }), sent: { id, valid: null } };
    case 7:
      return { line: JSON.stringify({ id, op: "dispatch", event: "pre_tool_use:bash", payload: { session_id: r.pick([1, [], {}]) } }), sent: { id, valid: null } };
    case 8:
      // a cancel naming no dispatch in flight (valid dispatches must answer normally)
      return { line: JSON.stringify({ id, op: "cancel", target: `gone${r.int(n + 1)}` }), sent: { id, valid: null } };
    case 9:
      return { line: r.pick(["", "   ", "null", "[]", "42", '"x"']), sent: { id: null, valid: null } };
    case 10: {
      // a duplicate id: an earlier frame's id on a status request (answered again, once)
      const earlier = `f${r.int(n + 1)}`;
      return { line: JSON.stringify({ id: earlier, op: "status" }), sent: { id: earlier, valid: null } };
    }
    default:
      return r.int(2) === 0
        ? { line: JSON.stringify({ id, op: "status" }), sent: { id, valid: "status" } }
        : { line: JSON.stringify({ id, op: "dispatch", event: "pre_tool_use:bash", payload: valid }), sent: { id, valid: "dispatch" } };
  }
}

export async function engineFuzz(options: { tamaBin: string; home: string; cwd: string; frames: number; seed: number }): Promise<FuzzSummary> {
  const r = new Random(options.seed);
  const child = spawn(process.execPath, [options.tamaBin, "run-hook", "--serve", "omp"], {
    env: { ...process.env, TAMA_HOME: options.home },
    stdio: ["pipe", "pipe", "pipe"],
  });
  child.stderr.resume();
  const answers = new Map<string, Record<string, unknown>[]>();
  let ready: () => void = () => {};
  const readyFrame = new Promise<void>((resolve) => (ready = resolve));
  readline.createInterface({ input: child.stdout }).on("line", (line) => {
    const f = JSON.parse(line) as Record<string, unknown>;
    if (f.type === "ready") return ready();
    if (f.type === "started") return;
    if (typeof f.id === "string") answers.set(f.id, [...(answers.get(f.id) ?? []), f]);
  });
  let exited = false;
  child.on("exit", () => (exited = true));
  await readyFrame;
  const rssStartMb = rssMb(child.pid ?? 0);
  const sent: Sent[] = [];
  for (let n = 0; n < options.frames; n++) {
    const { line, sent: s } = frame(r, n, options.cwd);
    sent.push(s);
    // Respect the pipe: wait for it to drain instead of buffering the whole run.
    if (!child.stdin.write(`${line}\n`)) await new Promise((resolve) => child.stdin.once("drain", resolve));
    if (n % 500 === 499) {
      // a status round trip keeps the in-flight count bounded
      const id = `sync${n}`;
      child.stdin.write(`${JSON.stringify({ id, op: "status" })}\n`);
      while (!answers.has(id)) await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
  const expected = new Map<string, number>();
  for (const s of sent) if (s.id !== null) expected.set(s.id, (expected.get(s.id) ?? 0) + 1);
  const owed = (): number => [...expected].filter(([id, count]) => (answers.get(id)?.length ?? 0) < count).length;
  const deadline = Date.now() + 120_000;
  while (owed() > 0 && Date.now() < deadline && !exited) await new Promise((resolve) => setTimeout(resolve, 20));
  const rssEndMb = exited ? Number.NaN : rssMb(child.pid ?? 0);
  let validWrong = 0;
  for (const s of sent) {
    if (!s.valid || !s.id) continue;
    const answer = answers.get(s.id)?.[0];
    if (answer && answer.ok !== true) validWrong += 1;
  }
  const withId = [...expected.values()].reduce((a, b) => a + b, 0);
  const summary: FuzzSummary = {
    frames: options.frames,
    withId,
    answered: [...expected].reduce((sum, [id, count]) => sum + Math.min(count, answers.get(id)?.length ?? 0), 0),
    missing: owed(),
    duplicated: [...expected].filter(([id, count]) => (answers.get(id)?.length ?? 0) > count).length,
    validFrames: sent.filter((s) => s.valid).length,
    validWrong,
    engineAlive: !exited,
    rssStartMb,
    rssEndMb,
  };
  child.stdin.end();
  await new Promise((resolve) => child.on("close", resolve));
  return summary;
}
