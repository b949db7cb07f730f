// Reload under load, in Bun (the runtime OMP runs): the built shell, driven by a
// stand-in for OMP's `pi`, receives tool events while the adapter is adopted in place
// again and again, some adoptions succeeding and some refused. Every event must be
// answered exactly once, by the old or the new adapter. Prints a JSON summary.
//   bun scripts/stress/reload-under-load.ts <shell.js> <adapter.js path> <events> <adoptions>
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

type Handler = (event: unknown, ctx: unknown) => unknown;
const [shellArg, adapterArg, eventsArg, adoptionsArg] = process.argv.slice(2);
if (!shellArg || !adapterArg) throw new Error("usage: reload-under-load.ts <shell.js> <adapter.js> <events> <adoptions>");
const shellPath: string = shellArg;
const adapterPath: string = adapterArg;
const EVENTS = Number(eventsArg ?? 1000);
const ADOPTIONS = Number(adoptionsArg ?? 20);

const handlers = new Map<string, Handler[]>();
const commands = new Map<string, { handler: (args: string, ctx: unknown) => Promise<void> }>();
const notices: string[] = [];
const pi = {
  on(event: string, handler: Handler) {
    handlers.set(event, [...(handlers.get(event) ?? []), handler]);
  },
  registerTool() {},
  registerCommand(name: string, command: { handler: (args: string, ctx: unknown) => Promise<void> }) {
    commands.set(name, command);
  },
};
const ctx = {
  ui: { notify: (message: string) => notices.push(message), setStatus: () => {} },
  hasUI: true,
  mode: "rpc",
  cwd: process.cwd(),
  sessionManager: { getSessionId: () => "load-session", getSessionFile: () => undefined },
};
const emit = async (event: string, payload: unknown): Promise<unknown[]> =>
  Promise.all((handlers.get(event) ?? []).map((h) => h(payload, ctx)));

const shell = (await import(shellPath)) as { default: (pi: unknown) => Promise<void> };
await shell.default(pi);
await emit("session_start", { type: "session_start" });

const good = readFileSync(adapterPath, "utf8");
// The shell adopts only the adapter the installed release records: each new build is
// installed as `tama install` would, its digest in the release record beside it.
const releaseRecord = path.join(path.dirname(adapterPath), "..", "..", "hooks-runtime", "current", "release.json");
function installAdapter(source: string): void {
  const record = JSON.parse(readFileSync(releaseRecord, "utf8")) as Record<string, unknown>;
  writeFileSync(releaseRecord, `${JSON.stringify({ ...record, adapterDigest: createHash("sha256").update(source).digest("hex") }, null, 2)}\n`);
  writeFileSync(adapterPath, source);
}
const answers = new Map<number, unknown[]>();
let adoptions = 0;
let refused = 0;
let adopted = 0;

async function reloads(): Promise<void> {
  for (let i = 0; i < ADOPTIONS; i++) {
    // every third adoption installs a broken adapter; the others a new build of the good one
    const broken = i % 3 === 2;
    installAdapter(broken ? `throw new Error("broken build ${i}");\n` : `${good}\n// build ${i}\n`);
    notices.length = 0;
    await commands.get("tama_reload_hook_runtime")?.handler("", ctx);
    adoptions += 1;
    const said = notices.join("\n");
    if (said.startsWith("Loaded the installed OMP adapter")) adopted += 1;
    else if (said.startsWith("Tama could not reload its OMP adapter")) refused += 1;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  installAdapter(good);
}

async function events(): Promise<void> {
  const batch = 25;
  for (let start = 0; start < EVENTS; start += batch) {
    await Promise.all(
      Array.from({ length: Math.min(batch, EVENTS - start) }, async (_, k) => {
        const n = start + k;
        const command = n % 10 === 0 ? `git commit --no-verify -m load-${n}` : `echo load-${n}`;
        const results = await emit("tool_call", { type: "tool_call", toolCallId: `call-${n}`, toolName: "bash", input: { command } });
        answers.set(n, [...(answers.get(n) ?? []), ...results]);
      }),
    );
  }
}

await Promise.all([reloads(), events()]);
let wrong = 0;
for (const [n, results] of answers) {
  const blocked = results.some((r) => typeof r === "object" && r !== null && (r as { block?: boolean }).block === true);
  if (blocked !== (n % 10 === 0)) wrong += 1;
}
await emit("session_shutdown", { type: "session_shutdown" });
process.stdout.write(
  `${JSON.stringify({
    events: EVENTS,
    answered: answers.size,
    answeredTwice: [...answers.values()].filter((r) => r.length !== 1).length,
    wrongDecisions: wrong,
    adoptions,
    adopted,
    refused,
  })}\n`,
);
