// Adoption in place, in Bun: the built shell with a stand-in for OMP's `pi` adopts a
// new adapter build N times. Prints JSON: the adoption times and the RSS growth.
//   bun scripts/bench/adoption-in-bun.ts <shell.js> <adapter.js> <count>
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const [shellArg, adapterArg, countArg] = process.argv.slice(2);
if (!shellArg || !adapterArg) throw new Error("usage: adoption.ts <shell.js> <adapter.js> <count>");
const adapterPath: string = adapterArg;
const COUNT = Number(countArg ?? 100);
type Handler = (event: unknown, ctx: unknown) => unknown;
const handlers = new Map<string, Handler[]>();
const commands = new Map<string, { handler: (args: string, ctx: unknown) => Promise<void> }>();
const notices: string[] = [];
const pi = {
  on: (event: string, handler: Handler) => handlers.set(event, [...(handlers.get(event) ?? []), handler]),
  registerTool() {},
  registerCommand: (name: string, command: { handler: (args: string, ctx: unknown) => Promise<void> }) => commands.set(name, command),
};
const ctx = {
  ui: { notify: (m: string) => notices.push(m), setStatus() {} },
  hasUI: true,
  mode: "rpc",
  cwd: process.cwd(),
  sessionManager: { getSessionId: () => "bench", getSessionFile: () => undefined },
};
const shell = (await import(shellArg)) as { default: (pi: unknown) => Promise<void> };
await shell.default(pi);
for (const h of handlers.get("session_start") ?? []) await h({ type: "session_start" }, ctx);
const good = readFileSync(adapterPath, "utf8");
// The shell adopts only the adapter the installed release records: each build is installed with its digest.
const releaseRecord = path.join(path.dirname(adapterPath), "..", "..", "hooks-runtime", "current", "release.json");
function installAdapter(source: string): void {
  const record = JSON.parse(readFileSync(releaseRecord, "utf8")) as Record<string, unknown>;
  writeFileSync(releaseRecord, JSON.stringify({ ...record, adapterDigest: createHash("sha256").update(source).digest("hex") }));
  writeFileSync(adapterPath, source);
}
const gc = (): void => (globalThis as { Bun?: { gc(full: boolean): void } }).Bun?.gc(true);
const rss = (): number => process.memoryUsage().rss / 2 ** 20;
// two warm-up adoptions, then measure
const times: number[] = [];
let rssStart = 0;
for (let i = -2; i < COUNT; i++) {
  if (i === 0) {
    gc();
    rssStart = rss();
  }
  installAdapter(`${good}\n// build ${i}\n`);
  notices.length = 0;
  const t = performance.now();
  await commands.get("tama_reload_hook_runtime")?.handler("", ctx);
  if (i >= 0) times.push(performance.now() - t);
  if (!notices[0]?.startsWith("Loaded the installed OMP adapter")) throw new Error(`adoption ${i} failed: ${notices.join(" ")}`);
}
gc();
const rssEnd = rss();
for (const h of handlers.get("session_shutdown") ?? []) await h({ type: "session_shutdown" }, ctx);
installAdapter(good);
process.stdout.write(`${JSON.stringify({ times, rssStartMb: rssStart, rssEndMb: rssEnd })}\n`);
