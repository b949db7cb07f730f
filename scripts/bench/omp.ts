// Benchmark rows in a real OMP: what a tool call costs with Tama running 5 pass
// hooks, against OMP with no extension, and against an extension that spawns the
// same 5 hooks from OMP's own process (what in-process hook bridges do).
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { startModelServer } from "../../test/omp/model-server.ts";
import { makeOmpEnv } from "../../test/omp/omp-env.ts";
import { noopExtension, oneCallATurn, timedSession, type TimedSession } from "./omp-session.ts";
import { fmtMs, median, writeExecutable, type Row } from "./support.ts";

const HOOKS = Number(process.env.TAMA_BENCH_OMP_HOOKS ?? 5);

type Mode = "plain" | "tama" | "bridge" | "noop-all";

/** One OMP RPC session in the given configuration, with its own model server. */
async function startMode(tamaBin: string, mode: Mode): Promise<TimedSession> {
  const server = await startModelServer(oneCallATurn());
  const env = makeOmpEnv({ modelServerUrl: server.url });
  const hook = writeExecutable(path.join(env.scratch, "pass.sh"), "#!/bin/sh\ncat >/dev/null\nexit 0\n");
  const extensions: string[] = [];
  if (mode === "tama") {
    env.env.TAMA_HOME = path.join(env.root, "tama");
    const installed = spawnSync(process.execPath, [tamaBin, "install", "--omp"], { env: { ...process.env, ...env.env }, encoding: "utf8" });
    if (installed.status !== 0) throw new Error(installed.stderr);
    writeFileSync(
      path.join(env.root, "tama", "hooks", "registry.json"),
      JSON.stringify({ schema: 1, release: null, hooks: Array.from({ length: HOOKS }, (_, i) => ({ id: `pass${i}`, events: ["pre_tool_use"], command: [hook] })) }),
    );
  }
  if (mode === "bridge") {
    const bridge = path.join(env.scratch, "bridge.js");
    writeFileSync(
      bridge,
      `import { spawn } from "node:child_process";
const run = (input) => new Promise((resolve) => { const c = spawn(${JSON.stringify(hook)}, [], { stdio: ["pipe", "pipe", "pipe"] }); c.stdout.resume(); c.stderr.resume(); c.stdin.on("error", () => {}); c.stdin.end(input); c.on("close", (code) => resolve(code)); });
export default function (pi) {
  pi.on("tool_call", async (event) => {
    const input = JSON.stringify({ hook_event_name: "PreToolUse", tool_name: event.toolName, tool_input: event.input });
    for (let i = 0; i < ${HOOKS}; i++) { if ((await run(input)) === 2) return { block: true, reason: "blocked" }; }
    return undefined;
  });
}
`,
    );
    extensions.push(bridge);
  }
  if (mode === "noop-all") extensions.push(noopExtension(env.scratch));
  return timedSession(server, env, extensions);
}

/** Every configuration's turn p50, measured side by side: one prompt each, in turn, per round. */
async function sideBySide(tamaBin: string, modes: Mode[], rounds: number): Promise<Map<Mode, number>> {
  const running = new Map<Mode, TimedSession>();
  const times = new Map<Mode, number[]>(modes.map((m) => [m, []]));
  try {
    for (const mode of modes) running.set(mode, await startMode(tamaBin, mode));
    for (let i = 0; i < rounds + 3; i++) {
      for (const mode of modes) {
        const ms = await (running.get(mode) as TimedSession).prompt(i);
        if (i >= 3) times.get(mode)?.push(ms);
      }
    }
  } finally {
    for (const r of running.values()) await r.close();
  }
  return new Map(modes.map((m) => [m, median(times.get(m) ?? [])]));
}

export async function ompNoopProbe(tamaBin: string, rounds = 30): Promise<string> {
  const t = await sideBySide(tamaBin, ["plain", "noop-all", "tama"], rounds);
  return [...t].map(([m, ms]) => `${m} ${fmtMs(ms)}`).join(", ");
}

export async function ompRows(tamaBin: string, rounds = 30): Promise<Row[]> {
  const t = await sideBySide(tamaBin, ["plain", "tama", "bridge"], rounds);
  const plain = t.get("plain") ?? Number.NaN;
  const tama = t.get("tama") ?? Number.NaN;
  const bridge = t.get("bridge") ?? Number.NaN;
  const tamaOverhead = tama - plain;
  const bridgeOverhead = bridge - plain;
  return [
    {
      name: `OMP tool call with ${HOOKS} pass hooks: Tama's overhead ÷ spawning them in OMP`,
      measured: `+${fmtMs(tamaOverhead)} vs +${fmtMs(bridgeOverhead)} (turn p50 ${fmtMs(tama)} / ${fmtMs(bridge)} / plain ${fmtMs(plain)}, side by side)`,
      ratio: tamaOverhead / bridgeOverhead,
      goal: "< 1×",
      met: tamaOverhead < bridgeOverhead,
    },
  ];
}
