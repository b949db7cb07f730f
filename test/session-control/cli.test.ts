// `tama sessions …` against a session served in this process: list, status, reload,
// grant and revoke, and every documented exit code.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SESSIONS_EXIT } from "../../modules/cli/sessions.ts";
import type { ControlStatus, ReloadReceipt } from "../../modules/protocol/session-control.ts";
import { ControlFailure, ControlServer, type ControlHandlers } from "../../modules/session-control/server.ts";
import { recordPath, writePrivateJson, type SessionRecord } from "../../modules/session-control/records.ts";
import { goneProcessPid, runTama, sampleRecord, sha, standInOmp } from "./support.ts";

const KEY = "a".repeat(64);
const OLD = "c".repeat(64);
const INSTALLED = "installed adapter bytes";
const C1 = "1".repeat(64);

let root: string;
let home: string;
let sessions: string;
let env: Record<string, string>;
const servers: ControlServer[] = [];

beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), "tama-cli-"));
  home = path.join(root, "home");
  sessions = path.join(home, "sessions");
  mkdirSync(sessions, { recursive: true, mode: 0o700 });
  mkdirSync(path.join(home, "shared-hooks", "omp"), { recursive: true });
  writeFileSync(path.join(home, "shared-hooks", "omp", "adapter.js"), INSTALLED);
  env = { TAMA_HOME: home };
});
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
  rmSync(root, { recursive: true, force: true });
});

const status = (session: string): ControlStatus => ({
  protocolVersion: 1,
  session,
  ompPid: standInOmp().pid,
  adapterDigest: OLD,
  adapterReloadSupported: true,
  startedAtMs: 1_700_000_000_000,
  cwd: "/work",
  serving: "serving",
  adapter: {
    failMode: "closed",
    engine: {
      processId: 4242,
      state: {
        processId: 4242,
        generation: 1,
        loadedReleaseId: "r1",
        catalogChecksum: C1,
        registeredHookCount: 3,
        reloadCount: 1,
        lastReloadAtMs: 1,
        lastReloadError: null,
        coreReleaseId: "r1",
        coreReplacedByRelease: false,
        registryPath: "/r.json",
        protocolVersion: 1,
      },
    },
  },
});

const receipt = (session: string, overrides: Partial<ReloadReceipt> = {}): ReloadReceipt => ({
  ok: true,
  changed: true,
  ompPid: standInOmp().pid,
  session,
  adapterDigest: sha(INSTALLED),
  previousDigest: OLD,
  adapterReloadSupported: true,
  message: `Loaded the installed OMP adapter ${sha(INSTALLED)} in place of ${OLD}`,
  ...overrides,
});

/** A live session served by this process, with its record. */
async function session(id: string, handlers: Partial<ControlHandlers> = {}, record: Partial<SessionRecord> = {}): Promise<SessionRecord> {
  const written = sampleRecord(sessions, id, { adapterDigest: OLD, ...record });
  const server = await ControlServer.listen(written.socket, { key: KEY, status: async () => status(id), reloadAdapter: async () => receipt(id), ...handlers });
  servers.push(server);
  writePrivateJson(recordPath(sessions, id), written);
  return written;
}

const tama = (...args: string[]) => runTama(env, ["sessions", ...args]);

describe("tama sessions list", () => {
  it("lists live sessions with their digests and whether the installed adapter differs; removes stale records", async () => {
    await session("live-1");
    const staleRecord = sampleRecord(sessions, "gone-1", { ompPid: goneProcessPid(), ompStartTicks: 1 });
    writePrivateJson(recordPath(sessions, "gone-1"), staleRecord);
    writeFileSync(path.join(sessions, "grant.gone-1.json"), "{}");

    const run = await tama("list", "--json");
    expect(run.code, run.stderr).toBe(0);
    const listed = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(listed).toMatchObject({
      installedAdapterDigest: sha(INSTALLED),
      sessions: [{ session: "live-1", ompPid: standInOmp().pid, adapterDigest: OLD, installedAdapterDiffers: true, adapterReloadSupported: true, serving: true }],
      stale: [{ session: "gone-1", ompPid: staleRecord.ompPid, removed: true }],
      unreadable: [],
    });
    expect(JSON.stringify(listed)).not.toContain(KEY);
    expect(existsSync(recordPath(sessions, "gone-1"))).toBe(false);
    expect(existsSync(path.join(sessions, "grant.gone-1.json"))).toBe(false);

    const human = await tama("list");
    expect(human.stdout).toMatch(/^SESSION\s+OMP PID\s+ENGINE PID\s+ADAPTER\s+INSTALLED\s+RELOAD\s+STARTED\s+CWD\n/);
    expect(human.stdout).toMatch(new RegExp(`live-1\\s+${standInOmp().pid}\\s+-\\s+${OLD.slice(0, 12)}\\s+differs \\(${sha(INSTALLED).slice(0, 12)}\\)\\s+yes`));
  });

  it("names an unreadable record and exits 1; refuses a directory others can write (8)", async () => {
    writeFileSync(path.join(sessions, "session.bad.json"), "{");
    const run = await tama("list");
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/cannot read .*session\.bad\.json: parsing session record/);
    chmodSync(sessions, 0o777);
    const unsafe = await tama("list");
    expect(unsafe.code).toBe(SESSIONS_EXIT.unsafeDirectory);
    expect(unsafe.stderr).toMatch(/^tama sessions: not reading session records: .* is writable by its group or by others \(mode 0777\)/);
  });
});

describe("tama sessions reload", () => {
  it("prints the receipt and exits 0 for reloaded and for already current; a unique id prefix is enough", async () => {
    let current = false;
    await session("0123-abcd", {
      reloadAdapter: async () => (current ? receipt("0123-abcd", { changed: false, previousDigest: sha(INSTALLED), message: "already loaded" }) : receipt("0123-abcd")),
    });
    const run = await tama("reload", "--session", "0123-abcd", "--json");
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(receipt("0123-abcd"));
    current = true;
    const again = await tama("reload", "--session", "0123");
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(`already loaded\nsession 0123-abcd, OMP pid ${standInOmp().pid}: adapter ${sha(INSTALLED)}\n`);
  });

  it("exits 1 with the failure when the adoption failed, the receipt still printed", async () => {
    const failed = receipt("s-fail", { ok: false, changed: false, adapterDigest: OLD, error: "boom on import", message: "Tama could not reload its OMP adapter: boom on import" });
    await session("s-fail", { reloadAdapter: async () => failed });
    const run = await tama("reload", "--session", "s-fail", "--json");
    expect(run.code).toBe(SESSIONS_EXIT.adoptionFailed);
    expect(JSON.parse(run.stdout)).toEqual(failed);
    expect(run.stderr).toBe(`tama sessions: the adoption failed and adapter ${OLD} keeps running: boom on import\n`);
  });

  it("exits 3 for an unknown or ambiguous session, 4 for a stale one (and removes it)", async () => {
    const unknown = await tama("reload", "--session", "nope", "--json");
    expect(unknown.code).toBe(SESSIONS_EXIT.unknownSession);
    expect(unknown.stderr).toMatch(/no session "nope" has a record in .*; `tama sessions list` shows the live ones/);
    expect(JSON.parse(unknown.stdout)).toMatchObject({ ok: false, exitCode: 3, error: expect.stringMatching(/no session "nope"/) });

    await session("dup-1");
    await session("dup-2");
    expect((await tama("reload", "--session", "dup")).stderr).toMatch(/"dup" names 2 sessions \(dup-1, dup-2\)/);

    const gone = sampleRecord(sessions, "gone-2", { ompPid: goneProcessPid(), ompStartTicks: 1 });
    writePrivateJson(recordPath(sessions, "gone-2"), gone);
    const stale = await tama("reload", "--session", "gone-2");
    expect(stale.code).toBe(SESSIONS_EXIT.staleSession);
    expect(stale.stderr).toBe(`tama sessions: session gone-2 is stale: its OMP process ${gone.ompPid} is gone, so its record was removed\n`);
    expect(existsSync(recordPath(sessions, "gone-2"))).toBe(false);
  });

  it("exits 5 when the session's shell cannot reload remotely (by its record, or by its answer)", async () => {
    await session("old-shell", {}, { adapterReloadSupported: false });
    const byRecord = await tama("reload", "--session", "old-shell");
    expect(byRecord.code).toBe(SESSIONS_EXIT.reloadUnsupported);
    expect(byRecord.stderr).toMatch(/cannot reload its adapter remotely; use \/tama_reload_hook_runtime in it, or restart OMP once/);
    await session("refuses", {
      reloadAdapter: async () => {
        throw new ControlFailure("reload-unsupported", "this session's OMP shell cannot adopt an adapter in place");
      },
    });
    const byAnswer = await tama("reload", "--session", "refuses");
    expect(byAnswer.code).toBe(SESSIONS_EXIT.reloadUnsupported);
    expect(byAnswer.stderr).toMatch(/refused reload-adapter \(reload-unsupported\)/);
  });

  it("exits 6 when no receipt comes in time, 7 when the session refuses or speaks another protocol", async () => {
    await session("silent", { reloadAdapter: () => new Promise(() => {}) });
    const silent = await tama("reload", "--session", "silent", "--timeout", "300");
    expect(silent.code).toBe(SESSIONS_EXIT.timeout);
    expect(silent.stderr).toMatch(/gave no answer to reload-adapter within 300 ms \(the reload may still finish; /);

    await session("wrong-key", {}, { key: "f".repeat(64) });
    const refused = await tama("reload", "--session", "wrong-key");
    expect(refused.code).toBe(SESSIONS_EXIT.unreachable);
    expect(refused.stderr).toMatch(/refused reload-adapter \(unauthorized\): the key does not open this session's control/);

    await session("future", {}, { protocolVersion: 2 });
    expect((await tama("reload", "--session", "future")).code).toBe(SESSIONS_EXIT.unreachable);
  });

  it("exits 2 on usage errors", async () => {
    expect((await tama("reload")).code).toBe(SESSIONS_EXIT.usage);
    expect((await tama("reload", "--session", "x", "--timeout", "soon")).code).toBe(SESSIONS_EXIT.usage);
    expect((await tama("frobnicate")).code).toBe(SESSIONS_EXIT.usage);
    expect((await tama("reload", "--bogus")).code).toBe(SESSIONS_EXIT.usage);
  });
});

describe("tama sessions status, grant and revoke", () => {
  it("shows the adapter's and engine's status; grant binds the key to the loaded release and catalog; revoke takes it back", async () => {
    await session("s-status");
    const before = await tama("status", "--session", "s-status", "--json");
    expect(before.code, before.stderr).toBe(0);
    expect(JSON.parse(before.stdout)).toMatchObject({ ...status("s-status"), installedAdapterDigest: sha(INSTALLED), installedAdapterDiffers: true, grant: { state: "none" } });

    const granted = await tama("grant", "--session", "s-status", "--json");
    expect(granted.code, granted.stderr).toBe(0);
    expect(JSON.parse(granted.stdout)).toMatchObject({ session: "s-status", releaseId: "r1", catalogChecksum: C1 });
    const file = JSON.parse(readFileSync(path.join(sessions, "grant.s-status.json"), "utf8")) as Record<string, unknown>;
    expect(file).toMatchObject({ schema: 1, session: "s-status", key: KEY, releaseId: "r1", catalogChecksum: C1, grantedBy: "operator" });

    const human = await tama("status", "--session", "s-status");
    expect(human.stdout).toMatch(/^session   s-status \(serving\), cwd \/work$/m);
    expect(human.stdout).toMatch(/^engine    pid 4242, release r1, catalog 111111111111, 3 hooks, generation 1$/m);
    expect(human.stdout).toMatch(/^grant     granted: release r1, catalog 111111111111$/m);

    writeFileSync(path.join(sessions, "grant.s-status.json"), JSON.stringify({ ...file, catalogChecksum: "2".repeat(64) }));
    expect(JSON.parse((await tama("status", "--session", "s-status", "--json")).stdout)).toMatchObject({ grant: { state: "stale" } });

    const revoked = await tama("revoke", "--session", "s-status");
    expect(revoked.stdout).toBe("Revoked the session control grant of session s-status.\n");
    expect(existsSync(path.join(sessions, "grant.s-status.json"))).toBe(false);
  });
});
