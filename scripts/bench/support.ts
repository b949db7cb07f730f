// Shared pieces of the benchmark: timing, percentiles, a line client for the engine,
// and the table printer. Every row is a ratio of two things measured in one run.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";

export interface Row {
  name: string;
  measured: string;
  ratio: number;
  goal: string;
  met: boolean;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

export const median = (values: number[]): number => percentile(values, 50);

export function fmtMs(ms: number): string {
  return ms >= 100 ? `${ms.toFixed(0)} ms` : ms >= 1 ? `${ms.toFixed(2)} ms` : `${(ms * 1000).toFixed(0)} µs`;
}

export function scratch(prefix: string): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function writeExecutable(file: string, body: string): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, body, { mode: 0o755 });
  return file;
}

/** A persistent engine over real pipes, for the benchmark. */
export class BenchEngine {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting = new Map<string, (frame: Record<string, unknown>) => void>();
  private seq = 0;
  readonly ready: Promise<void>;

  /** `runtime`: the Node running the bench, or a Bun binary (as inside OMP). */
  constructor(tamaBin: string, env: NodeJS.ProcessEnv, runtime: string = process.execPath) {
    const profile = process.env.TAMA_BENCH_ENGINE_PROFILE ? [`--cpu-prof`, `--cpu-prof-dir=${process.env.TAMA_BENCH_ENGINE_PROFILE}`, ...(process.env.TAMA_BENCH_PROFILE_INTERVAL ? [`--cpu-prof-interval=${process.env.TAMA_BENCH_PROFILE_INTERVAL}`] : [])] : [];
    this.child = spawn(runtime, [...profile, tamaBin, "run-hook", "--serve", "omp"], { env, stdio: ["pipe", "pipe", "pipe"] });
    this.child.stderr.resume();
    let readyResolve: () => void = () => {};
    this.ready = new Promise((resolve) => (readyResolve = resolve));
    readline.createInterface({ input: this.child.stdout }).on("line", (line) => {
      const frame = JSON.parse(line) as Record<string, unknown>;
      if (frame.type === "ready") return readyResolve();
      if (frame.type === "started") return;
      const id = String(frame.id);
      this.waiting.get(id)?.(frame);
      this.waiting.delete(id);
    });
  }

  request(frame: Record<string, unknown>): Promise<Record<string, unknown>> {
    const id = `b${++this.seq}`;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.child.stdin.write(`${JSON.stringify({ ...frame, id })}\n`);
    });
  }

  async close(): Promise<void> {
    this.child.stdin.end();
    await new Promise((resolve) => this.child.on("exit", resolve));
  }
}

/** Spawn a command with input on stdin and wait for it to close: what any hook runner does. */
export function spawnOnce(argv: string[], input: string, env?: NodeJS.ProcessEnv): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const [program, ...args] = argv;
    if (!program) return reject(new Error("empty argv"));
    const child = spawn(program, args, { stdio: ["pipe", "pipe", "pipe"], ...(env ? { env } : {}) });
    child.stdout.resume();
    child.stderr.resume();
    child.stdin.on("error", () => {});
    child.stdin.end(input);
    child.on("error", reject);
    child.on("close", (code) => resolve(code));
  });
}

export function printTable(header: string[], rows: Row[]): void {
  const cells = [["benchmark", "measured", "ratio", "goal", "met"], ...rows.map((r) => [r.name, r.measured, `${r.ratio.toFixed(2)}×`, r.goal, r.met ? "yes" : "NO"])];
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? "").length)));
  const line = (row: string[]) => row.map((c, i) => c.padEnd(widths[i] ?? 0)).join("  ").trimEnd();
  process.stdout.write(`${header.join("\n")}\n\n${line(cells[0]!)}\n${widths.map((w) => "-".repeat(w)).join("  ")}\n${cells.slice(1).map(line).join("\n")}\n`);
}
