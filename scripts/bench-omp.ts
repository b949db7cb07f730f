// Benchmark rows in a real OMP: what a tool call costs with Tama running 5 pass
// hooks, against OMP with no extension, and against an extension that spawns the
// same 5 hooks from OMP's own process (what in-process hook bridges do).
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { startModelServer, type RecordedRequest } from "../test/omp/model-server.ts";
import { makeOmpEnv } from "../test/omp/omp-env.ts";
import { startRpcSession } from "../test/omp/rpc-session.ts";
import { fmtMs, median, writeExecutable, type Row } from "./bench-support.ts";

const HOOKS = 5;

async function perCall(tamaBin: string, mode: "plain" | "tama" | "bridge", rounds: number): Promise<number> {
  const server = await startModelServer((req: RecordedRequest) =>
    req.turns.at(-1)?.role === "tool" ? { text: "ok" } : { toolCalls: [{ name: "bash", arguments: { command: "true" } }] },
  );
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
  const session = startRpcSession({ env: env.env, cwd: env.cwd, extensionPaths: extensions });
  try {
    await session.ready(60_000);
    const times: number[] = [];
    for (let i = 0; i < rounds + 3; i++) {
      const t = performance.now();
      await session.prompt(`call ${i}`);
      if (i >= 3) times.push(performance.now() - t);
    }
    return median(times);
  } finally {
    await session.close();
    await server.close();
    env.cleanup();
  }
}

export async function ompRows(tamaBin: string, rounds = 20): Promise<Row[]> {
  const plain = await perCall(tamaBin, "plain", rounds);
  const tama = await perCall(tamaBin, "tama", rounds);
  const bridge = await perCall(tamaBin, "bridge", rounds);
  const tamaOverhead = tama - plain;
  const bridgeOverhead = bridge - plain;
  return [
    {
      name: `OMP tool call with ${HOOKS} pass hooks: Tama's overhead ÷ spawning them in OMP`,
      measured: `+${fmtMs(tamaOverhead)} vs +${fmtMs(bridgeOverhead)} (turn p50 ${fmtMs(tama)} / ${fmtMs(bridge)} / plain ${fmtMs(plain)})`,
      ratio: tamaOverhead / bridgeOverhead,
      goal: "< 1×",
      met: tamaOverhead < bridgeOverhead,
    },
  ];
}
