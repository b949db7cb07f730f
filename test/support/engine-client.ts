// A test client for the real engine: `node dist/bin/tama.js run-hook --serve omp`
// as a child process over real pipes, with its own TAMA_HOME.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import type { BrokenSource, HeldProject } from "../../modules/protocol/engine.ts";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const TAMA_BIN = path.join(ROOT, "dist/bin/tama.js");
/**
 * The runtime the engine under test runs on: Node, or Bun (as the adapter starts it
 * inside OMP) when TAMA_TEST_ENGINE_RUNTIME=bun.
 */
export const ENGINE_RUNTIME = process.env.TAMA_TEST_ENGINE_RUNTIME === "bun" ? path.join(ROOT, "node_modules/.bin/bun") : process.execPath;

export type Frame = Record<string, unknown> & { id?: unknown; ok?: boolean; error?: string; result?: unknown; state?: Record<string, unknown> };

export interface TestHome {
  dir: string;
  home: string;
  registry: string;
  writeRegistry(registry: unknown): void;
  /** A script file in the test dir, made executable. */
  script(name: string, body: string): string;
  cleanup(): void;
}

export function makeTestHome(prefix = "tama-test-"): TestHome {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  const home = path.join(dir, "tama-home");
  const registry = path.join(home, "hooks", "registry.json");
  mkdirSync(path.dirname(registry), { recursive: true });
  return {
    dir,
    home,
    registry,
    writeRegistry(value) {
      const temp = `${registry}.tmp`;
      writeFileSync(temp, typeof value === "string" ? value : JSON.stringify(value, null, 2));
      // rename, so a dispatch never reads a half-written file
      renameSync(temp, registry);
    },
    script(name, body) {
      const file = path.join(dir, name);
      writeFileSync(file, body, { mode: 0o755 });
      return file;
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export class EngineClient {
  readonly child: ChildProcessWithoutNullStreams;
  readonly frames: Frame[] = [];
  /** Ids of the dispatches the engine said started a hook process, in order. */
  readonly started: string[] = [];
  stderr = "";
  private waiters: { pred: (f: Frame) => boolean; resolve: (f: Frame) => void }[] = [];
  private seq = 0;
  readonly exited: Promise<number | null>;

  constructor(home: TestHome, env: NodeJS.ProcessEnv = {}, args: string[] = []) {
    this.child = spawn(ENGINE_RUNTIME, [TAMA_BIN, "run-hook", "--serve", "omp", ...args], {
      env: { ...process.env, TAMA_HOME: home.home, ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child.stderr.on("data", (d: Buffer) => (this.stderr += d.toString()));
    const rl = readline.createInterface({ input: this.child.stdout });
    rl.on("line", (line) => {
      const frame = JSON.parse(line) as Frame;
      // The notice before a dispatch's first hook process is not an answer: kept apart.
      if (frame.type === "started") {
        this.started.push(String(frame.id));
        return;
      }
      this.frames.push(frame);
      for (const w of [...this.waiters]) {
        if (w.pred(frame)) {
          this.waiters.splice(this.waiters.indexOf(w), 1);
          w.resolve(frame);
        }
      }
    });
    this.exited = new Promise((resolve) => this.child.on("exit", (code) => resolve(code)));
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  waitFor(pred: (f: Frame) => boolean, timeoutMs = 30_000): Promise<Frame> {
    const seen = this.frames.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching frame within ${timeoutMs} ms; stderr: ${this.stderr}`)), timeoutMs);
      this.waiters.push({
        pred,
        resolve: (f) => {
          clearTimeout(timer);
          resolve(f);
        },
      });
    });
  }

  /** Wait (bounded) until the engine's stderr matches: it is a separate pipe from its answers. */
  async stderrMatching(pattern: RegExp | string, boundMs = 10_000): Promise<string> {
    const deadline = Date.now() + boundMs;
    const matches = (): boolean => (typeof pattern === "string" ? this.stderr.includes(pattern) : pattern.test(this.stderr));
    while (!matches()) {
      if (Date.now() > deadline) throw new Error(`stderr never matched ${pattern}: ${this.stderr}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    return this.stderr;
  }

  ready(): Promise<Frame> {
    return this.waitFor((f) => f.type === "ready");
  }

  sendRaw(text: string): void {
    this.child.stdin.write(text);
  }

  send(frame: Record<string, unknown>): void {
    this.sendRaw(`${JSON.stringify(frame)}\n`);
  }

  nextId(): string {
    this.seq += 1;
    return `r${this.seq}`;
  }

  /** Send a request and wait for its answer. */
  request(frame: Record<string, unknown>): Promise<Frame> {
    const id = (frame.id as string | undefined) ?? this.nextId();
    const answer = this.waitFor((f) => f.id === id);
    this.send({ ...frame, id });
    return answer;
  }

  dispatch(event: string, payload: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<Frame> {
    return this.request({ op: "dispatch", event, payload, ...extra });
  }

  /** The session's model is asked (as OMP does after each tool result): its pre-start hooks start now. */
  modelAsked(session: string, cwd: string): Promise<Frame> {
    return this.dispatch("before_provider_request", { session_id: session, cwd });
  }

  async close(): Promise<number | null> {
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 15_000);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }
}

/** Pids of live processes whose command line or environment mentions a path (a test's own hooks). */
export function processesMentioning(fragment: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      // Hooks inherit the engine's environment (TAMA_HOME is the test's), so their
      // descendants are found even when their command lines say nothing.
      const environ = readFileSync(`/proc/${entry}/environ`, "utf8");
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      if (state !== "Z" && (cmdline.includes(fragment) || environ.includes(fragment))) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** Wait (bounded) until no process mentions the fragment; returns what is left. */
export async function settleProcesses(fragment: string, boundMs = 5_000): Promise<number[]> {
  const deadline = Date.now() + boundMs;
  let left = processesMentioning(fragment);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    left = processesMentioning(fragment);
  }
  return left;
}

export function resultOf(frame: Frame): {
  decision: string;
  reason?: string;
  failedOpen: { hook: string; reason: string }[];
  results: { hook: string; outcome: string; reason?: string; ms: number; startMs: number; target?: string; processGroup?: number }[];
  additionalContext?: string;
  held?: HeldProject;
  brokenSources?: BrokenSource[];
} {
  return frame.result as ReturnType<typeof resultOf>;
}
