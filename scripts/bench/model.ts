// Benchmark rows for model requests: deciding before_provider_request at once from
// the cached verdict vs awaiting a 2 s gate, and splicing contracts into 200 KB.
import path from "node:path";
import { ModelGate } from "../../adapter/model-gate.ts";
import { AdapterRuntime } from "../../adapter/runtime.ts";
import { spliceContracts } from "../../modules/model-requests/contracts.ts";
import type { OmpContext } from "../../modules/omp/api.ts";
import { fmtMs, median, percentile, writeExecutable, type Row } from "./support.ts";

export async function modelRequestRows(home: string, tamaBin: string): Promise<Row[]> {
  const gate = writeExecutable(path.join(home, "slow-gate.sh"), "#!/bin/sh\ncat >/dev/null\nsleep 2\nexit 0\n");
  writeExecutable(path.join(home, "hooks/registry.json"), JSON.stringify({ schema: 1, release: null, hooks: [{ id: "slow", events: ["before_provider_request"], command: [gate] }] }));
  process.env.TAMA_HOME = home;
  process.env.TAMA_ENGINE_COMMAND = JSON.stringify([process.execPath, tamaBin, "run-hook", "--serve", "omp"]);
  const runtime = new AdapterRuntime(
    { contractVersion: 1, shellVersion: "bench", digest: null, adopt: () => Promise.reject(new Error("no shell")), lastContext: () => undefined },
    "file:///bench/adapter.js",
  );
  const ctx: OmpContext = {
    ui: { notify: () => {}, setStatus: () => {} },
    hasUI: false,
    cwd: home,
    sessionManager: { getSessionId: () => "bench-session", getSessionFile: () => undefined },
  };
  const model = new ModelGate(runtime);
  const payload = { model: "m", messages: [{ role: "user", content: "hi" }], tools: [{ type: "function", function: { name: "bash", parameters: {} } }] };
  const decisions: number[] = [];
  for (let i = 0; i < 2000; i++) {
    const t = performance.now();
    model.onRequest(payload, ctx);
    decisions.push(performance.now() - t);
    if (i % 100 === 0) await new Promise((r) => setImmediate(r));
  }
  const awaited: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    await runtime.verdict("before_provider_request", runtime.basePayload(ctx));
    awaited.push(performance.now() - t);
  }
  await runtime.engine.close();

  const block = "<!-- jeden contracts: start -->\nCONTRACT v2\n<!-- jeden contracts: end -->";
  const big = {
    model: "m",
    messages: [
      { role: "system", content: `${"x".repeat(100 * 1024)}\n<!-- jeden contracts: start -->\nCONTRACT v1\n<!-- jeden contracts: end -->` },
      ...Array.from({ length: 200 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: "y".repeat(500) })),
    ],
  };
  const splices: number[] = [];
  for (let i = 0; i < 300; i++) {
    const t = performance.now();
    spliceContracts(big, block);
    splices.push(performance.now() - t);
  }
  // A long session's request: 16,000 messages, the installed block already in place (the usual case).
  const current = "<!-- jeden contracts: start -->\nCONTRACT v1\n<!-- jeden contracts: end -->";
  const long = JSON.parse(
    JSON.stringify({
      model: "m",
      messages: [
        { role: "system", content: `${"x".repeat(8 * 1024)}\n${current}` },
        ...Array.from({ length: 4000 }, (_, i) => [
          { role: "user", content: [{ type: "text", text: `call ${i}` }] },
          { role: "assistant", content: null, tool_calls: [{ id: `c${i}`, type: "function", function: { name: "bash", arguments: '{"command":"true"}' } }] },
          { role: "tool", tool_call_id: `c${i}`, content: "ok ".repeat(50) },
          { role: "assistant", content: "ok" },
        ]).flat(),
      ],
    }),
  ) as unknown;
  const checks: number[] = [];
  const serialised: number[] = [];
  for (let i = 0; i < 60; i++) {
    let t = performance.now();
    spliceContracts(long, current);
    checks.push(performance.now() - t);
    t = performance.now();
    JSON.stringify(long);
    serialised.push(performance.now() - t);
  }
  const p99 = percentile(decisions, 99);
  const wait = median(awaited);
  return [
    {
      name: "model request: decided at once (p99) vs awaiting a 2 s gate",
      measured: `${fmtMs(p99)} p99 (p50 ${fmtMs(median(decisions))}) vs ${fmtMs(wait)}`,
      ratio: wait / p99,
      goal: "p99 ≤ 1 ms",
      met: p99 <= 1,
    },
    {
      name: "contract splice into a 200 KB payload (p50) ÷ 1 ms",
      measured: `${fmtMs(median(splices))} (p99 ${fmtMs(percentile(splices, 99))})`,
      ratio: median(splices) / 1,
      goal: "≤ 1 ms",
      met: median(splices) <= 1,
    },
    {
      // It grows with the conversation, as OMP's own serialisation of each request does: the ratio is what stays.
      name: "contracts of a 16,000-message request, block current (p50) ÷ OMP serialising it (JSON.stringify)",
      measured: `${fmtMs(median(checks))} vs ${fmtMs(median(serialised))}`,
      ratio: median(checks) / median(serialised),
      goal: "< 1×",
      met: median(checks) < median(serialised),
    },
  ];
}
