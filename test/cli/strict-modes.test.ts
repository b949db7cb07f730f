// StrictModes: Tama trusts no policy file that another local user can change. A
// registry, adapter or TAMA_HOME writable by group or others, or owned by another
// user (one this test creates), is refused by the engine, the shell's adoption check,
// `tama install` and `tama doctor`, each naming the path, the mode and the fix.
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkInstalledAdapter } from "../../modules/omp/adoption-check.ts";
import { trustProblem } from "../../modules/system/strict-modes.ts";
import { EngineClient, makeTestHome, type TestHome } from "../support/engine-client.ts";
import { json, tama } from "./cli.ts";

/** Another local user, made for this file; undefined (and said why) when users cannot be made here. */
function makeOtherUser(): { name: string; uid: number } | { skip: string } {
  if (process.getuid?.() !== 0) return { skip: "not root: this test cannot create a user" };
  const name = `tama-other-${process.pid}`;
  const made = spawnSync("useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name], { encoding: "utf8" });
  if (made.status !== 0) return { skip: `useradd failed: ${made.stderr.trim() || made.error?.message}` };
  const uid = Number(spawnSync("id", ["-u", name], { encoding: "utf8" }).stdout.trim());
  return { name, uid };
}

const other = makeOtherUser();
afterAll(() => {
  if ("name" in other) spawnSync("userdel", [other.name]);
});
if ("skip" in other) process.stderr.write(`strict-modes: the other-user cases are skipped: ${other.skip}\n`);

let home: TestHome;
let agentDir: string;
beforeEach(() => {
  home = makeTestHome("tama-strict-");
  agentDir = path.join(home.dir, "agent");
});
afterEach(() => home.cleanup());

const install = () => tama(home, ["install", "--omp", "--agent-dir", agentDir, "--json"]);
type Report = { errors: number; checks: { id: string; status: string; summary: string; fix?: string }[] };
const doctorErrors = () => json<Report>(tama(home, ["doctor", "--agent-dir", agentDir, "--json"])).checks.filter((c) => c.status === "error");

describe("StrictModes", () => {
  it("a registry writable by others is a rejected replacement: no hook runs, the reason names path, mode and fix", async () => {
    expect(install().code).toBe(0);
    const engine = new EngineClient(home);
    await engine.ready();
    const first = await engine.request({ op: "dispatch", event: "pre_tool_use:bash", payload: { session_id: "s", cwd: home.dir, tool_input: { command: "ls" } } });
    expect(first.ok).toBe(true);
    chmodSync(home.registry, 0o666);
    const refused = await engine.request({ op: "dispatch", event: "pre_tool_use:bash", payload: { session_id: "s", cwd: home.dir, tool_input: { command: "ls" } } });
    expect(refused.ok).toBe(false);
    expect(refused.error).toBe(
      `hook registry ${home.registry} is not trusted: ${home.registry} is writable by its group or by others (mode 0666), so Tama does not trust it as policy: run chmod go-w ${home.registry}; no hook was run`,
    );
    expect(refused.state?.generation).toBe(1);
    chmodSync(home.registry, 0o644);
    const again = await engine.request({ op: "dispatch", event: "pre_tool_use:bash", payload: { session_id: "s", cwd: home.dir, tool_input: { command: "ls" } } });
    expect(again.ok).toBe(true);
    await engine.close();
  });

  it("doctor names each untrusted file as an error; install refuses a TAMA_HOME others can write", () => {
    expect(install().code).toBe(0);
    chmodSync(home.registry, 0o666);
    chmodSync(path.join(home.home, "shared-hooks", "omp", "adapter.js"), 0o666);
    const errors = doctorErrors();
    expect(errors.map((e) => e.summary)).toEqual(
      expect.arrayContaining([
        expect.stringContaining(`${home.registry} is writable by its group or by others (mode 0666)`),
        expect.stringContaining(`adapter.js is writable by its group or by others (mode 0666)`),
      ]),
    );
    chmodSync(home.registry, 0o644);
    chmodSync(path.join(home.home, "shared-hooks", "omp", "adapter.js"), 0o644);
    chmodSync(home.home, 0o777);
    expect(doctorErrors().map((e) => e.summary)).toEqual(
      expect.arrayContaining([`${home.home} is writable by its group or by others (mode 0777), so Tama does not trust it as policy: run chmod go-w ${home.home}`]),
    );
    const refused = install();
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`refusing to install into TAMA_HOME ${home.home}: ${home.home} is writable by its group or by others (mode 0777)`);
    chmodSync(home.home, 0o755);
    expect(install().code).toBe(0);
  });

  it("an adapter others can write is not adopted", () => {
    expect(install().code).toBe(0);
    const adapter = path.join(home.home, "shared-hooks", "omp", "adapter.js");
    const bytes = readFileSync(adapter);
    expect(checkInstalledAdapter(home.home, adapter, bytes, "command")).toMatchObject({ ok: true });
    chmodSync(adapter, 0o666);
    expect(checkInstalledAdapter(home.home, adapter, bytes, "tool")).toMatchObject({ ok: false, reason: expect.stringContaining(`${adapter} is writable by its group or by others (mode 0666)`) });
    chmodSync(adapter, 0o644);
    writeFileSync(adapter, "export function register() { return {}; }\n");
    const planted = checkInstalledAdapter(home.home, adapter, readFileSync(adapter), "tool");
    expect(planted).toMatchObject({ ok: false, reason: expect.stringMatching(/is not the adapter release .* installed .*the reload tool adopts only the release `tama install` installed/) });
  });

  it.skipIf("skip" in other)("files and a TAMA_HOME owned by another user are refused; root-owned ones are fine", async () => {
    if (!("uid" in other)) return;
    expect(install().code).toBe(0);
    chownSync(home.registry, other.uid, other.uid);
    expect(trustProblem(home.registry)).toBe(`${home.registry} belongs to uid ${other.uid}, not to this user (uid 0) or root, so Tama does not trust it as policy: run chown 0 ${home.registry} if it is yours, or remove it`);
    const engine = new EngineClient(home);
    const ready = await engine.ready();
    expect(String((ready.state as { lastReloadError?: string }).lastReloadError)).toContain(`belongs to uid ${other.uid}`);
    const refused = await engine.request({ op: "dispatch", event: "pre_tool_use:bash", payload: { session_id: "s", cwd: home.dir, tool_input: { command: "ls" } } });
    expect(refused.ok).toBe(false);
    await engine.close();
    expect(doctorErrors().map((e) => e.summary)).toEqual(expect.arrayContaining([expect.stringContaining(`${home.registry} belongs to uid ${other.uid}`)]));
    chownSync(home.registry, 0, 0);

    const elsewhere = path.join(home.dir, "others-home");
    mkdirSync(elsewhere, { mode: 0o755 });
    chownSync(elsewhere, other.uid, other.uid);
    const refusedInstall = tama(home, ["install", "--omp", "--agent-dir", agentDir], { env: { TAMA_HOME: elsewhere } });
    expect(refusedInstall.code).toBe(1);
    expect(refusedInstall.stderr).toContain(`${elsewhere} belongs to uid ${other.uid}`);
  });
});
