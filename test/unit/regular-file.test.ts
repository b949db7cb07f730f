// Files a session's agent can replace are read only when they are regular files: a FIFO
// opened for reading would hold the reading thread until a writer came (OMP's whole
// process, in the adapter), and a device never ends. Each reader runs in a child Bun
// process with a deadline, so that a reader that blocks fails this test instead of
// holding the test worker.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ROOT } from "../support/engine-client.ts";

const BUN = path.join(ROOT, "node_modules/.bin/bun");
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Run `body` (TypeScript, top-level await, `dir` in scope) in Bun from the repository root; what it prints, as JSON. */
function inBun(dir: string, body: string): unknown {
  const script = path.join(dir, "probe.ts");
  writeFileSync(script, `const dir = ${JSON.stringify(dir)};\n${body}`);
  const run = spawnSync(BUN, [script], { cwd: ROOT, encoding: "utf8", timeout: 30_000 });
  if (run.error !== undefined || run.status !== 0) throw new Error(`probe ${run.error?.message ?? `exited ${run.status}`}: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

describe("files read only when regular", () => {
  it("a FIFO or a device is refused at once by every reader of files the agent can replace; a regular file reads as before", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "tama-fifo-"));
    dirs.push(dir);
    mkdirSync(path.join(dir, "repo"));
    mkdirSync(path.join(dir, "home"));
    // Tama's own records as the agent could replace them: a grant, a session record, an
    // engine's running record, an activity file, an abandonment, the release record.
    const tamaFifos = ["home/grant.s.json", "home/engine.7.json", "home/abandoned.s.json", "home/release.json"];
    for (const fifo of ["repo/.git", "fifo", ...tamaFifos]) spawnSync("mkfifo", [path.join(dir, fifo)]);
    writeFileSync(path.join(dir, "plain.json"), '{"a":1}');
    // Sparse: 64 MiB that cost nothing on disk, and as much as any to read whole.
    writeFileSync(path.join(dir, "sparse"), "");
    truncateSync(path.join(dir, "sparse"), 64 * 1024 * 1024);
    const m = (file: string) => JSON.stringify(path.join(ROOT, "modules", file));
    const out = inBun(
      dir,
      `
import { readRegularFile, readRegularFileUpTo } from ${m("system/regular-file.ts")};
import { readSettingsFile } from ${m("claude/settings.ts")};
import { readInstalledContracts } from ${m("model-requests/contracts.ts")};
import { readSessionTodos } from ${m("gates/omp-todos.ts")};
import { builtinGate } from ${m("gates/index.ts")};
import { readGrant } from ${m("session-control/grants.ts")};
import { readRecordFile } from ${m("session-control/records.ts")};
import { readRecords } from ${m("engine/running-records.ts")};
import { readActivityFile } from ${m("engine/activity.ts")};
import { readAbandonmentRecords } from ${m("engine/abandonments.ts")};
import { readReleaseRecord } from ${m("install/release-record.ts")};
const fifo = dir + "/fifo";
const code = (f: () => unknown) => { try { f(); return "read"; } catch (e) { return (e as { code?: string }).code ?? (e as Error).message; } };
const upTo = async (file: string, max: number) => { try { return (await readRegularFileUpTo(file, max))?.toString() ?? "too large"; } catch (e) { return (e as { code?: string }).code; } };
const gate = async (id: string, command: string) => {
  const g = builtinGate(id)!;
  const parsed = g.parseOptions ? g.parseOptions(undefined) : { ok: true as const, options: undefined };
  const v = await g.evaluate({ hook_event_name: "PreToolUse", session_id: "s", cwd: dir + "/repo", tool_name: "Bash", tool_input: { command } }, { tamaHome: dir + "/home" }, parsed.ok ? parsed.options : undefined);
  return v.decision;
};
console.log(JSON.stringify({
  plain: readRegularFile(dir + "/plain.json"),
  fifo: code(() => readRegularFile(fifo)),
  device: code(() => readRegularFile("/dev/zero")),
  sparse: code(() => readRegularFile(dir + "/sparse")),
  settings: readSettingsFile(fifo),
  contracts: readInstalledContracts(fifo),
  todos: code(() => readSessionTodos(fifo)),
  protectBranches: await gate("protect-branches", "git commit -m x"),
  gitBypass: await gate("block-git-hook-bypass", "git commit -m x"),
  tama: [readGrant(dir + "/home", "s"), readRecordFile(fifo), readRecords(dir + "/home").unread, readActivityFile(fifo).unread, readAbandonmentRecords(dir + "/home").unread, readReleaseRecord(dir + "/home")]
    .map((read) => JSON.stringify(read).includes("is not a regular file")),
  upTo: [await upTo(dir + "/plain.json", 7), await upTo(dir + "/plain.json", 6), await upTo(fifo, 7), await upTo("/dev/zero", 7), await upTo(dir, 7), await upTo(dir + "/none", 7)],
}));
`,
    );
    expect(out).toEqual({
      plain: '{"a":1}',
      fifo: "ENOTREG",
      device: "ENOTREG",
      sparse: "EFBIG",
      settings: { ok: false, missing: false, error: `reading ${path.join(dir, "fifo")}: ${path.join(dir, "fifo")} is not a regular file` },
      contracts: { kind: "unreadable", reason: expect.stringContaining("not a regular file") },
      todos: "ENOTREG",
      protectBranches: "pass",
      gitBypass: "pass",
      tama: [true, true, true, true, true, true],
      upTo: ['{"a":1}', "too large", "ENOTREG", "ENOTREG", "EISDIR", "ENOENT"],
    });
  });
});
