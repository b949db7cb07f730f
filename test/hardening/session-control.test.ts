// Session control under fuzz and abuse, against a real ControlServer in a child
// process (so "the server never dies" is observable): generated frames (bounded here;
// `npm run stress` runs 100k), a silent connection, 1000 connections at once, a 1 GB
// frame, and a stale socket. (A sessions dir others can write is refused by
// test/session-control/records.test.ts, cli.test.ts (exit 8) and lifecycle.e2e.test.ts.)
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { SESSIONS_EXIT } from "../../modules/cli/sessions.ts";
import { processStartTicks } from "../../modules/system/process-groups.ts";
import { ControlUnreachable, controlRequest } from "../../modules/session-control/client.ts";
import { recordPath, writePrivateJson } from "../../modules/session-control/records.ts";
import { controlFuzz, fdCount, FuzzConn, rssMb, sleep, startServerChild, streamHugeFrame, type ServerChild } from "../../scripts/stress/session-control-fuzz.ts";
import { ROOT, settleProcesses } from "../support/engine-client.ts";
import { runTama, sampleRecord } from "../session-control/support.ts";

let dir: string;
let sessions: string;
let server: ServerChild;

beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "tama-sc-hard-"));
  sessions = path.join(dir, "sessions");
  mkdirSync(sessions, { mode: 0o700 });
  server = await startServerChild(ROOT, path.join(sessions, "fz.sock"));
});
afterEach(async () => {
  await server.stop();
  expect(await settleProcesses(dir)).toEqual([]);
  rmSync(dir, { recursive: true, force: true });
});

const status = (id: string) => controlRequest(server.socket, { id, op: "status", key: server.key }, 5_000);

/** The server's fd count once it has seen the closes (it must come back to `baseline`). */
async function settledFds(baseline: number): Promise<number> {
  let fds = fdCount(server.pid);
  for (let i = 0; i < 300 && fds > baseline; i++) {
    await sleep(10);
    fds = fdCount(server.pid);
  }
  return fds;
}

it("survives 4000 generated frames: each answered once, valid ones normally, only oversized frames close a connection", async () => {
  const s = await controlFuzz({ socket: server.socket, key: server.key, pid: server.pid, frames: 4000, seed: 20261130, oversizeEvery: 800, exactStatus: true });
  expect(s, JSON.stringify(s)).toMatchObject({ serverAlive: true, missing: 0, duplicated: 0, wrongAnswers: 0, unexpectedCloses: 0 });
  expect(s.answeredOnce).toBe(s.withId);
  expect(s.answeredNull).toBe(s.withoutId);
  expect(s.validFrames).toBeGreaterThan(1000);
  expect(s.oversized).toBeGreaterThan(0);
  expect(s.closed1009).toBe(s.oversized);
  expect(s.connections).toBe(4 + s.oversized);
  expect(s.fdsEnd).toBe(s.fdsStart);
  // bounded memory: the largest frame read is 1 MiB, and nothing is kept once answered
  expect(s.rssPeakMb).toBeLessThan(s.rssStartMb + 150);
  expect(server.exited()).toBe(false);
});

it("a connection that sends nothing holds only its socket; others are served meanwhile", async () => {
  const fds = fdCount(server.pid);
  const rss = rssMb(server.pid);
  // one that never sends its HTTP request, one upgraded that never sends a message
  const raw = net.connect(server.socket);
  const idle = new FuzzConn(server.socket);
  await idle.open;
  for (let i = 0; i < 50; i++) expect((await status(`during${i}`)).ok).toBe(true);
  expect(await settledFds(fds + 2)).toBe(fds + 2);
  expect(rssMb(server.pid)).toBeLessThan(rss + 30);
  expect(idle.closed).toBeUndefined();
  raw.destroy();
  idle.end();
  expect(await settledFds(fds)).toBe(fds);
  expect(server.exited()).toBe(false);
});

it("1000 connections at once: each served or refused with 503 and a reason; no fd left once they close", async () => {
  const fds = fdCount(server.pid);
  const conns = Array.from({ length: 1000 }, () => new FuzzConn(server.socket));
  await Promise.allSettled(conns.map((c) => c.open));
  const open = conns.filter((c) => !c.refused && !c.closed);
  const refused = conns.filter((c) => c.refused);
  // On a loaded machine the kernel's listen backlog can fill before the server accepts: those were
  // refused before anything was sent (the real client tries them again, below).
  const backlog = conns.filter((c) => c.backlogRefused !== undefined);
  // every one of them either holds a connection or was told why not
  expect(open.length + refused.length + backlog.length).toBe(1000);
  expect(open.length).toBeGreaterThan(0);
  expect(open.length).toBeLessThanOrEqual(64);
  for (const c of refused) expect(c.refused).toEqual({ status: 503, body: "too many session control connections\n" });
  open.forEach((c, i) => c.send(JSON.stringify({ id: `c${i}`, op: "status", key: server.key }), false));
  const deadline = Date.now() + 10_000;
  while (open.some((c) => c.answers.length === 0) && Date.now() < deadline) await sleep(10);
  expect(open.map((c) => (c.answers[0] as { ok?: boolean } | undefined)?.ok)).toEqual(open.map(() => true));
  for (const c of conns) c.end();
  expect(await settledFds(fds)).toBe(fds);

  // The real client retries a 503 while the window lasts: 1000 at once all get answers.
  const answers = await Promise.allSettled(Array.from({ length: 1000 }, (_, i) => status(`r${i}`)));
  const failures = answers.filter((a) => a.status === "rejected").map((a) => String((a as PromiseRejectedResult).reason));
  for (const failure of failures) expect(failure).toMatch(/cannot reach session control at .*: the session refused the connection \(HTTP 503\)|no answer from/);
  expect(answers.filter((a) => a.status === "fulfilled" && a.value.ok).length + failures.length).toBe(1000);
  expect(await settledFds(fds)).toBe(fds);
  expect((await status("after")).ok).toBe(true);
  expect(server.exited()).toBe(false);
});

it("a 1 GB frame, whole or in fragments, closes that connection (1009) after about a MiB read, without buffering it", async () => {
  const fds = fdCount(server.pid);
  const rss = rssMb(server.pid);
  for (const fragmentBytes of [undefined, 64 * 1024]) {
    const sent = await streamHugeFrame({ socket: server.socket, pid: server.pid, totalBytes: 1024 ** 3, ...(fragmentBytes ? { fragmentBytes } : {}) });
    expect(sent.closeCode, JSON.stringify(sent)).toBe(1009);
    expect(sent.ended).toBe(true);
    // the kernel's buffers take a few MiB more before the close reaches the writer
    expect(sent.written).toBeLessThan(64 * 1024 * 1024);
    expect(sent.rssPeakMb).toBeLessThan(rss + 50);
  }
  expect((await status("after")).ok).toBe(true);
  expect(await settledFds(fds)).toBe(fds);
  expect(server.exited()).toBe(false);
});

it("a stale socket (its server killed): the client names it, `tama sessions` says stale (4) or unreachable (7)", async () => {
  const pid = server.pid;
  const ticks = processStartTicks(pid);
  writePrivateJson(recordPath(sessions, "fz-gone"), sampleRecord(sessions, "fz-gone", { ompPid: pid, ...(ticks !== undefined ? { ompStartTicks: ticks } : {}), socket: server.socket, key: server.key }));
  // A live process (this one) whose socket is dead: the other way a socket goes stale.
  writePrivateJson(recordPath(sessions, "fz-dead"), sampleRecord(sessions, "fz-dead", { socket: server.socket, key: server.key }));
  server.child.kill("SIGKILL");
  await server.stop();
  expect(existsSync(server.socket)).toBe(true);

  await expect(controlRequest(server.socket, { id: "1", op: "status", key: server.key }, 5_000, 200)).rejects.toThrow(
    new ControlUnreachable(`cannot reach session control at ${server.socket}: connect ECONNREFUSED ${server.socket}`),
  );
  const env = { TAMA_HOME: dir };
  // dead first: removing the stale record of fz-gone takes the shared socket file with it
  const dead = await runTama(env, ["sessions", "status", "--session", "fz-dead"]);
  const gone = await runTama(env, ["sessions", "status", "--session", "fz-gone"]);
  expect(gone.code, gone.stderr).toBe(SESSIONS_EXIT.staleSession);
  expect(gone.stderr).toBe(`tama sessions: session fz-gone is stale: its OMP process ${pid} is gone, so its record was removed\n`);
  expect(existsSync(recordPath(sessions, "fz-gone"))).toBe(false);
  expect(existsSync(server.socket)).toBe(false);
  expect(dead.code, dead.stderr).toBe(SESSIONS_EXIT.unreachable);
  expect(dead.stderr).toMatch(`cannot reach session control at ${server.socket}: connect ECONNREFUSED`);
});
