// Session records and the directory that holds them: permissions checked and set,
// stale records told apart from live ones, atomic private writes, socket names.
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  listRecords,
  readRecordFile,
  recordPath,
  removeSessionFiles,
  sessionFileKey,
  sessionsDirProblem,
  socketPath,
  writePrivateJson,
} from "../../modules/session-control/records.ts";
import { goneProcessPid, sampleRecord } from "./support.ts";

let root: string;
let home: string;
let sessions: string;

beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), "tama-rec-"));
  home = path.join(root, "home");
  sessions = path.join(home, "sessions");
  mkdirSync(home, { mode: 0o755 });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("the sessions directory", () => {
  it("is made 0700 and tightened when others could read it", () => {
    expect(sessionsDirProblem(home, sessions, true)).toBeUndefined();
    expect(statSync(sessions).mode & 0o777).toBe(0o700);
    chmodSync(sessions, 0o750);
    expect(sessionsDirProblem(home, sessions, true)).toBeUndefined();
    expect(statSync(sessions).mode & 0o777).toBe(0o700);
  });

  it("is refused, by name, when its group or others can write it or TAMA_HOME", () => {
    mkdirSync(sessions, { mode: 0o700 });
    chmodSync(sessions, 0o770);
    expect(sessionsDirProblem(home, sessions, true)).toBe(
      `${sessions} is writable by its group or by others (mode 0770); Tama serves and trusts session control only in a directory its owner alone can write: run chmod go-w ${sessions}`,
    );
    // Refused, not silently repaired: someone else may already have put something there.
    expect(statSync(sessions).mode & 0o777).toBe(0o770);
    chmodSync(sessions, 0o700);
    chmodSync(home, 0o777);
    expect(sessionsDirProblem(home, sessions, false)).toMatch(`${home} is writable by its group or by others (mode 0777)`);
  });

  it("is refused when it is a symbolic link or not a directory", () => {
    const elsewhere = path.join(root, "elsewhere");
    mkdirSync(elsewhere, { mode: 0o700 });
    symlinkSync(elsewhere, sessions);
    expect(sessionsDirProblem(home, sessions, false)).toBe(`${sessions} is not a directory (a symbolic link)`);
    rmSync(sessions);
    writeFileSync(sessions, "");
    expect(sessionsDirProblem(home, sessions, false)).toMatch(/cannot make|is not a directory/);
  });

  it.skipIf(process.getuid?.() !== 0)("is refused when another user owns it", () => {
    mkdirSync(sessions, { mode: 0o700 });
    chownSync(sessions, 4321, 4321);
    expect(sessionsDirProblem(home, sessions, false)).toBe(`${sessions} belongs to uid 4321, not to this user (uid 0)`);
  });
});

describe("session records", () => {
  beforeEach(() => {
    sessionsDirProblem(home, sessions, true);
  });

  it("are written atomically, owner-only, and read back", () => {
    const record = sampleRecord(sessions, "s-1");
    writePrivateJson(recordPath(sessions, "s-1"), record);
    expect(statSync(recordPath(sessions, "s-1")).mode & 0o777).toBe(0o600);
    expect(readdirSync(sessions)).toEqual(["session.s-1.json"]);
    expect(readRecordFile(recordPath(sessions, "s-1"))).toEqual({ ok: true, record });
  });

  it("are live while their process runs, stale when it is gone or the pid was reused", () => {
    const live = sampleRecord(sessions, "live");
    const gone = sampleRecord(sessions, "gone", { ompPid: goneProcessPid(), ompStartTicks: 1 });
    const reused = sampleRecord(sessions, "reused", { ompStartTicks: 1 });
    for (const r of [live, gone, reused]) writePrivateJson(recordPath(sessions, r.session), r);
    writeFileSync(path.join(sessions, "session.broken.json"), "{");
    writeFileSync(path.join(sessions, "session.wrong.json"), JSON.stringify({ ...live, key: "short" }));
    const listing = listRecords(sessions);
    expect(listing.live.map((r) => r.session)).toEqual(["live"]);
    expect(listing.stale.map((r) => r.session).sort()).toEqual(["gone", "reused"]);
    expect(listing.unread.map((u) => u.error)).toEqual([
      expect.stringMatching(/^parsing session record .*session\.broken\.json: /),
      expect.stringMatching(/^session record .*session\.wrong\.json: key: a session control key is 64 lower-case hex digits/),
    ]);
  });

  it("removing a stale session takes its record, grant and socket, and nothing outside the directory", () => {
    const outside = path.join(root, "outside.sock");
    writeFileSync(outside, "");
    const record = sampleRecord(sessions, "s-2", { socket: outside });
    writePrivateJson(recordPath(sessions, "s-2"), record);
    writeFileSync(path.join(sessions, "grant.s-2.json"), "{}");
    removeSessionFiles(sessions, record);
    expect(readdirSync(sessions)).toEqual([]);
    expect(statSync(outside).isFile()).toBe(true);
  });

  it("name files by the session id, or by its hash when the id cannot name a file", () => {
    expect(sessionFileKey("01a22736-fa67-72b8-b519-55ee855acd26")).toBe("01a22736-fa67-72b8-b519-55ee855acd26");
    expect(sessionFileKey("../etc/passwd")).toMatch(/^h-[0-9a-f]{32}$/);
    expect(recordPath(sessions, "../x")).toBe(path.join(sessions, `session.${sessionFileKey("../x")}.json`));
  });

  it("put the socket under a short name when the id would not fit a Unix socket path, and refuse a home that is too long", () => {
    const id = "01a22736-fa67-72b8-b519-55ee855acd26";
    expect(socketPath("/s", id)).toBe(`/s/${id}.sock`);
    const deep = `/${"d".repeat(75)}`;
    expect(socketPath(deep, id)).toMatch(new RegExp(`^${deep}/[0-9a-f]{16}\\.sock$`));
    expect(() => socketPath(`/${"d".repeat(100)}`, id)).toThrow(/longer than the 107 bytes a Unix socket may have; set TAMA_HOME to a shorter path/);
  });
});
