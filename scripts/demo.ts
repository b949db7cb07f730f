// `npm run demo`: Tama in a real OMP, offline, in throwaway directories. It installs
// the build into an isolated OMP (its own HOME, agent dir and TAMA_HOME, so your own
// ~/.omp and ~/.tama are never touched), starts a scripted model on 127.0.0.1, and
// shows a gate refusing `git commit --no-verify`, a harmless call passing, the adapter
// adopted in place, and the engine's status.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { startModelServer } from "../test/omp/model-server.ts";
import { makeOmpEnv } from "../test/omp/omp-env.ts";
import { startRpcSession, type Frame, type RpcSession } from "../test/omp/rpc-session.ts";
import { TAMA_BIN } from "../test/support/engine-client.ts";

const say = (line = "") => process.stdout.write(`${line}\n`);
const indent = (text: string) => text.split("\n").map((l) => `    ${l}`).join("\n");

function lastTool(body: unknown): string {
  const tools = ((body as { messages?: { role: string; content: unknown }[] }).messages ?? []).filter((m) => m.role === "tool");
  const last = tools.at(-1)?.content;
  return typeof last === "string" ? last : JSON.stringify(last ?? "");
}

async function notified(session: RpcSession, text: string): Promise<string> {
  const from = session.events.length;
  await session.prompt(text);
  const frame = await session.waitFor((f: Frame) => f.type === "extension_ui_request" && f.method === "notify", { from, timeoutMs: 30_000 });
  return String(frame.message);
}

const server = await startModelServer();
const env = makeOmpEnv({ modelServerUrl: server.url });
const tamaHome = path.join(env.root, "tama");
env.env.TAMA_HOME = tamaHome;
let session: RpcSession | undefined;
try {
  say("Tama demo — a real OMP session, offline, in " + env.root);
  say();
  const install = spawnSync(process.execPath, [TAMA_BIN, "install", "--omp"], { env: { ...process.env, ...env.env }, encoding: "utf8" });
  if (install.status !== 0) throw new Error(`tama install failed: ${install.stderr}`);
  say("1. tama install --omp");
  say(indent(install.stdout.trim()));
  say();

  session = startRpcSession({ env: env.env, cwd: env.cwd });
  await session.ready(60_000);
  say("2. The model asks OMP to run: git commit --no-verify -m wip");
  let before = server.requests.length;
  await session.prompt('CALL bash {"command":"git commit --no-verify -m wip"}');
  say(`   The model is told: ${lastTool(server.requests[before + 1]?.body)}`);
  say();

  say("3. The model asks OMP to run: echo the harmless call ran");
  before = server.requests.length;
  await session.prompt('CALL bash {"command":"echo the harmless call ran"}');
  say(`   The model is told: ${lastTool(server.requests[before + 1]?.body).split("\n")[0]}`);
  say();

  say("4. A new adapter is installed while the session runs, and adopted in place:");
  const adapter = path.join(tamaHome, "shared-hooks", "omp", "adapter.js");
  // As `tama install` of a newer build would: the adapter and the digest its release records.
  const newer = `${readFileSync(adapter, "utf8")}\n// demo: a newer adapter build\n`;
  const record = path.join(tamaHome, "hooks-runtime", "current", "release.json");
  writeFileSync(record, JSON.stringify({ ...JSON.parse(readFileSync(record, "utf8")), adapterDigest: createHash("sha256").update(newer).digest("hex") }));
  writeFileSync(adapter, newer);
  say(`   installed adapter now ${createHash("sha256").update(readFileSync(adapter)).digest("hex")}`);
  say("   /tama_reload_hook_runtime →");
  say(indent(await notified(session, "/tama_reload_hook_runtime")));
  before = server.requests.length;
  await session.prompt('CALL bash {"command":"git -c core.hooksPath=/dev/null commit -m again"}');
  say(`   and the gate still holds: ${lastTool(server.requests[before + 1]?.body)}`);
  say();

  say("5. /tama_status --json →");
  const status = JSON.parse(await notified(session, "/tama_status --json")) as {
    ompPid: number;
    adapterDigest: string;
    engine: { processId: number; state: { registeredHookCount: number; loadedReleaseId: string; catalogChecksum: string } };
  };
  say(indent(`OMP pid ${status.ompPid}, engine pid ${status.engine.processId}`));
  say(indent(`adapter ${status.adapterDigest}`));
  say(indent(`${status.engine.state.registeredHookCount} gates, release ${status.engine.state.loadedReleaseId}, catalog ${status.engine.state.catalogChecksum.slice(0, 16)}…`));
  say();
  say("Done. Install into your own OMP with: node dist/bin/tama.js install --omp");
} finally {
  await session?.close();
  await server.close();
  env.cleanup();
}
