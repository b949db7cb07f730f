// Shared helpers for session control tests: the CLI against an install, waiting for
// a session's record, OMP slash commands and what the model was shown.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import type { Socket } from "node:net";
import path from "node:path";
import { processStartTicks } from "../../modules/system/process-groups.ts";
import type { SessionRecord } from "../../modules/session-control/records.ts";
import { installTama } from "../e2e/tama-omp.ts";
import type { OmpFixture } from "../omp/fixture.ts";
import type { Frame, RpcSession } from "../omp/rpc-session.ts";
import { TAMA_BIN } from "../support/engine-client.ts";

export const sha = (text: string | Buffer): string => createHash("sha256").update(text).digest("hex");

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `tama …` as a child process with this environment (asynchronous: many may run at once). */
export function runTama(env: Record<string, string | undefined>, args: string[]): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TAMA_BIN, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

export interface ListedSession {
  session: string;
  ompPid: number;
  enginePid: number | null;
  adapterDigest: string | null;
  adapterReloadSupported: boolean;
  installedAdapterDiffers: boolean;
  socket: string;
  serving: boolean;
}

export async function listSessions(env: Record<string, string | undefined>): Promise<{ sessions: ListedSession[]; stale: { session: string }[] }> {
  const run = await runTama(env, ["sessions", "list", "--json"]);
  if (run.code !== 0) throw new Error(`tama sessions list failed (${run.code}): ${run.stderr}`);
  return JSON.parse(run.stdout) as { sessions: ListedSession[]; stale: { session: string }[] };
}

/** The session OMP process `pid` published, once its record names `digest` (when given). */
export async function waitForSession(env: Record<string, string | undefined>, pid: number, digest?: string, timeoutMs = 20_000): Promise<ListedSession> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  while (Date.now() < deadline) {
    const { sessions } = await listSessions(env);
    const found = sessions.find((s) => s.ompPid === pid && (digest === undefined || s.adapterDigest === digest));
    if (found?.serving) return found;
    last = JSON.stringify(sessions);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no session record of OMP pid ${pid}${digest ? ` with adapter ${digest}` : ""} within ${timeoutMs} ms; last list: ${last}`);
}

/** Tama installed into a fresh OMP env, one RPC session started, its session record published. */
export async function startTamaSession(omp: OmpFixture) {
  const { server, env } = await omp.setup();
  const tama = installTama(env);
  const session = omp.rpc();
  await session.ready();
  const cliEnv = { ...env.env, TAMA_HOME: tama.home };
  const listed = await waitForSession(cliEnv, session.pid);
  return { server, env, tama, session, cliEnv, listed };
}

/** A slash command in RPC mode: its answer arrives as a notify frame. */
export async function slashCommand(session: RpcSession, text: string): Promise<string> {
  const from = session.events.length;
  await session.prompt(text);
  const notify = await session.waitFor((f: Frame) => f.type === "extension_ui_request" && f.method === "notify", { from });
  return String(notify.message);
}

/** The text of the last tool result the model was sent. */
export function lastToolText(body: unknown): string {
  const messages = ((body as { messages?: { role: string; content: unknown }[] }).messages ?? []).filter((m) => m.role === "tool");
  const last = messages.at(-1);
  return typeof last?.content === "string" ? last.content : JSON.stringify(last?.content ?? "");
}

let standIn: { pid: number } | undefined;

/**
 * A live process that plays OMP in records: not this test process, because the CLI
 * refuses policy and consent verbs to processes that descend from a session's OMP,
 * and every CLI run of a test descends from the test process.
 */
export function standInOmp(): { pid: number } {
  if (standIn) return standIn;
  // It waits on a pipe from this process, so it ends with the test worker however the
  // worker ends: a worker ended by a signal runs no exit handler, and a sleep outlived it.
  const child = spawn("sh", ["-c", "read _ || true"], { stdio: ["pipe", "ignore", "ignore"] });
  child.unref();
  (child.stdin as Socket).unref();
  process.once("exit", () => child.kill("SIGKILL"));
  if (child.pid === undefined) throw new Error("could not start a stand-in OMP process");
  standIn = { pid: child.pid };
  return standIn;
}

/** A record as the adapter writes it, for a session of a live stand-in OMP process. */
export function sampleRecord(sessionsDir: string, session: string, overrides: Partial<SessionRecord> = {}): SessionRecord {
  const ompPid = standInOmp().pid;
  const ticks = processStartTicks(ompPid);
  return {
    schema: 1,
    protocolVersion: 1,
    session,
    ompPid,
    ...(ticks !== undefined ? { ompStartTicks: ticks } : {}),
    enginePid: null,
    startedAtMs: Date.now(),
    publishedAtMs: Date.now(),
    cwd: "/work",
    adapterDigest: "c".repeat(64),
    adapterReloadSupported: true,
    socket: path.join(sessionsDir, `${session}.sock`),
    key: "a".repeat(64),
    instance: "i1",
    engineGeneration: null,
    ...overrides,
  };
}

/** A pid that certainly names no process any more. */
export function goneProcessPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  return Number(child.stdout);
}
