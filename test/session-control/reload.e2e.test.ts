// `tama sessions reload` against a real OMP in RPC mode: the receipt names the new
// adapter, the session behaves like it, the new adapter serves the next connection;
// ten concurrent requests share one adoption; a broken adapter is refused and the
// old one keeps its published digest and keeps gating.
import { appendFileSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ReloadReceipt } from "../../modules/protocol/session-control.ts";
import { BUILT_ADAPTER, failingRegisterAdapter, newerAdapter, throwingAdapter } from "../e2e/adapter-variants.ts";
import { useOmpFixture } from "../omp/fixture.ts";
import { lastToolText, listSessions, runTama, sha, slashCommand, startTamaSession, waitForSession } from "./support.ts";

const omp = useOmpFixture();

/**
 * A newer adapter whose activation notes each registration in `log` and then waits
 * `holdMs`: the adoption stays in flight while concurrent requests arrive.
 */
function slowNewerAdapter(tag: string, log: string, holdMs: number): string {
  const source = newerAdapter(tag, path.join(path.dirname(log), `${tag}-events.log`));
  return source.replace(
    /export \{ __registerNewer as register \};\s*$/,
    `
import { appendFileSync as __noteRegistered } from "node:fs";
function __registerSlow(api) {
  const hooks = __registerNewer(api);
  __noteRegistered(${JSON.stringify(log)}, "registered\\n");
  api.on("session_start", () => new Promise((resolve) => setTimeout(resolve, ${holdMs})));
  return hooks;
}
export { __registerSlow as register };
`,
  );
}

/** The built adapter, registered whole, plus a session_start handler that throws after it. */
function startFailingAdapter(): string {
  return newerAdapter("v6", "/dev/null").replace(
    /export \{ __registerNewer as register \};\s*$/,
    `
function __registerFailing(api) {
  const hooks = __registerNewer(api);
  api.on("session_start", () => { throw new Error("start failed on purpose"); });
  return hooks;
}
export { __registerFailing as register };
`,
  );
}

async function startSession() {
  const started = await startTamaSession(omp);
  const oldDigest = sha(readFileSync(BUILT_ADAPTER));
  expect(started.listed.adapterDigest).toBe(oldDigest);
  return { ...started, oldDigest };
}

describe("tama sessions reload in a real OMP session", () => {
  it("adopts a changed adapter: the receipt names the new digest, the session runs its code, and it serves the next connection", async () => {
    const { server, env, tama, session, cliEnv, oldDigest, listed } = await startSession();
    expect(listed).toMatchObject({ ompPid: session.pid, adapterDigest: oldDigest, adapterReloadSupported: true, installedAdapterDiffers: false });

    const newer = newerAdapter("v2", path.join(env.scratch, "events.log"));
    tama.installAdapter(newer);
    expect((await listSessions(cliEnv)).sessions[0]?.installedAdapterDiffers).toBe(true);

    const run = await runTama(cliEnv, ["sessions", "reload", "--session", listed.session, "--json"]);
    expect(run.code, run.stderr).toBe(0);
    const receipt = JSON.parse(run.stdout) as ReloadReceipt;
    expect(receipt).toEqual({
      ok: true,
      changed: true,
      ompPid: session.pid,
      session: listed.session,
      adapterDigest: sha(newer),
      // Where the spec names it: a client written to the spec reads runtime.adapterDigest.
      runtime: { adapterDigest: sha(newer) },
      previousDigest: oldDigest,
      adapterReloadSupported: true,
      message: `Loaded the installed OMP adapter ${sha(newer)} in place of ${oldDigest}`,
    });

    // The record is the replacement's, and the replacement answers the next connection.
    const after = await waitForSession(cliEnv, session.pid, sha(newer));
    expect(after.installedAdapterDiffers).toBe(false);
    const status = await runTama(cliEnv, ["sessions", "status", "--session", listed.session, "--json"]);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ adapterDigest: sha(newer), serving: "serving", ompPid: session.pid });

    // The session behaves like the new adapter: its tool runs, and its gates still hold.
    const before = server.requests.length;
    await session.prompt("CALL tama_probe_v2 {}");
    expect(lastToolText(server.requests[before + 1]?.body)).toBe("v2-ran");
    const gated = server.requests.length;
    await session.prompt('CALL bash {"command":"git commit -n -m x"}');
    expect(lastToolText(server.requests[gated + 1]?.body)).toMatch(/git commit -n/);

    // Again: already current, exit 0, nothing changed.
    const again = await runTama(cliEnv, ["sessions", "reload", "--session", listed.session, "--json"]);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ ok: true, changed: false, adapterDigest: sha(newer), previousDigest: sha(newer) });
  });

  it("ten concurrent reload requests share one adoption and get ten identical receipts", async () => {
    const { env, tama, session, cliEnv, oldDigest, listed } = await startSession();
    const registrations = path.join(env.scratch, "registrations.log");
    appendFileSync(registrations, "");
    // Held long enough that ten CLI processes, started at once on a loaded machine, all arrive while it is in flight.
    const newer = slowNewerAdapter("v3", registrations, 8_000);
    tama.installAdapter(newer);

    const runs = await Promise.all(
      Array.from({ length: 10 }, () => runTama(cliEnv, ["sessions", "reload", "--session", listed.session, "--json"])),
    );
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    const receipts = runs.map((run) => JSON.parse(run.stdout) as ReloadReceipt);
    for (const receipt of receipts) expect(receipt).toEqual(receipts[0]);
    expect(receipts[0]).toMatchObject({ ok: true, changed: true, adapterDigest: sha(newer), previousDigest: oldDigest, ompPid: session.pid });
    expect(readFileSync(registrations, "utf8")).toBe("registered\n");
    await waitForSession(cliEnv, session.pid, sha(newer));
  });

  it("a slash command and CLI requests in flight together share one adoption", async () => {
    const { env, tama, session, cliEnv, oldDigest, listed } = await startSession();
    const registrations = path.join(env.scratch, "registrations.log");
    const newer = slowNewerAdapter("v4", registrations, 1_500);
    tama.installAdapter(newer);
    const [answer, ...runs] = await Promise.all([
      slashCommand(session, "/tama_reload_hook_runtime"),
      runTama(cliEnv, ["sessions", "reload", "--session", listed.session, "--json"]),
      runTama(cliEnv, ["sessions", "reload", "--session", listed.session, "--json"]),
    ]);
    expect(answer.split("\n")[0]).toBe(`Loaded the installed OMP adapter ${sha(newer)} in place of ${oldDigest}`);
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, changed: true, adapterDigest: sha(newer), previousDigest: oldDigest });
    }
    expect(readFileSync(registrations, "utf8")).toBe("registered\n");
  });

  for (const broken of [
    { name: "throws when imported", source: throwingAdapter(), reason: /this adapter is broken on purpose/ },
    { name: "fails to register", source: failingRegisterAdapter(), reason: /register failed on purpose/ },
    // Its own session control took the socket over before the failure: it is handed back.
    { name: "fails to start", source: startFailingAdapter(), reason: /start failed on purpose/ },
  ]) {
    it(`refuses an adapter that ${broken.name}: the receipt says why, the old digest stays published and working`, async () => {
      const { server, tama, session, cliEnv, oldDigest, listed } = await startSession();
      tama.installAdapter(broken.source);
      const run = await runTama(cliEnv, ["sessions", "reload", "--session", listed.session, "--json"]);
      expect(run.code).toBe(1);
      const receipt = JSON.parse(run.stdout) as ReloadReceipt;
      expect(receipt).toMatchObject({ ok: false, changed: false, adapterDigest: oldDigest, previousDigest: oldDigest, ompPid: session.pid, session: listed.session });
      expect(receipt.error).toMatch(broken.reason);
      expect(receipt.message).toMatch(/^Tama could not reload its OMP adapter: /);
      expect(run.stderr).toMatch(/the adoption failed/);

      // Still published under the old digest, still answering, still gating.
      const after = await waitForSession(cliEnv, session.pid, oldDigest);
      expect(after.installedAdapterDiffers).toBe(true);
      const status = await runTama(cliEnv, ["sessions", "status", "--session", listed.session, "--json"]);
      expect(status.code, status.stderr).toBe(0);
      expect(JSON.parse(status.stdout)).toMatchObject({ adapterDigest: oldDigest, serving: "serving" });
      const before = server.requests.length;
      await session.prompt('CALL bash {"command":"git commit --no-verify -m y"}');
      expect(lastToolText(server.requests[before + 1]?.body)).toMatch(/--no-verify/);
    });
  }
});
