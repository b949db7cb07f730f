// Pre-started hooks over real pipes with real hook processes: a process started
// before its event is fed only when nothing about it would differ, and the engine
// ends every one it does not use.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { StatusResult } from "../../modules/protocol/engine.ts";
import { EngineClient, makeTestHome, resultOf, settleProcesses, TAMA_BIN, type TestHome } from "../support/engine-client.ts";

let home: TestHome;
let engine: EngineClient | undefined;

beforeEach(() => {
  home = makeTestHome();
});
afterEach(async () => {
  await engine?.close();
  engine = undefined;
  // Nothing the engine pre-started outlives it.
  expect(await settleProcesses(home.home)).toEqual([]);
  home.cleanup();
});

/** Refuses `rm` by exit 2 from what it reads on stdin; logs its pid before it reads. */
function refuser(): string {
  return home.script(
    "refuse-rm.sh",
    `#!/bin/sh
echo "$$ $TAMA_EVENT $TAMA_SESSION_ID" >> "$STARTS"
input=$(cat)
case "$input" in *'"rm '*) echo "no rm" >&2; exit 2;; esac
exit 0
`,
  );
}

async function start(hooks: unknown[], env: NodeJS.ProcessEnv = {}): Promise<EngineClient> {
  home.writeRegistry({ schema: 1, release: { id: "r1" }, hooks });
  engine = new EngineClient(home, { STARTS: path.join(home.dir, "starts.log"), ...env });
  await engine.ready();
  return engine;
}

const bash = (command: string, session = "s1", cwd = home.dir) => ({ session_id: session, cwd, tool_name: "bash", tool_input: { command } });
/** The session's model is asked: what its last events offered to pre-start starts now. */
const asked = (e: EngineClient, session = "s1") => e.modelAsked(session, home.dir);

async function status(e: EngineClient): Promise<StatusResult> {
  const frame = await e.request({ op: "status" });
  return StatusResult.parse(frame.result);
}

/** Status once `count` processes wait (the engine starts them after it answered). */
async function untilHeld(e: EngineClient, count: number): Promise<StatusResult> {
  for (let i = 0; i < 400; i++) {
    const s = await status(e);
    if ((s.runningHooks.prestarted ?? []).length === count) return s;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`never ${count} pre-started processes: ${JSON.stringify((await status(e)).runningHooks.prestarted)}`);
}

async function groupGone(pgid: number): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    try {
      process.kill(-pgid, 0);
    } catch {
      return true;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}

/** Waits until every process of the group reads as stopped: the kernel stops a process only once it runs again, after kill() returned. */
async function groupStopped(pgid: number): Promise<boolean> {
  for (let i = 0; i < 400; i++) {
    const pids = spawnSync("pgrep", ["-g", String(pgid)], { encoding: "utf8" }).stdout.trim().split("\n").filter(Boolean);
    const states = pids.map((pid) => {
      try {
        return readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /s, "")[0];
      } catch {
        return undefined;
      }
    });
    if (states.length > 0 && states.every((state) => state === "T" || state === "t")) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}

const starts = (): string[] => readFileSync(path.join(home.dir, "starts.log"), "utf8").trim().split("\n");

describe("pre-started hooks", () => {
  it("a hook marked prestart is started before the session's next such event and fed it; the verdict is the cold one's", async () => {
    const e = await start([{ id: "no-rm", events: ["pre_tool_use"], tools: "shell", command: [refuser()], prestart: true }]);
    const cold = await e.dispatch("pre_tool_use:bash", bash("rm -rf x"));
    expect(resultOf(cold).decision).toBe("block");
    expect(resultOf(cold).results[0]).not.toHaveProperty("prestarted");

    await asked(e);
    const held = await untilHeld(e, 1);
    const waiting = held.runningHooks.prestarted?.[0];
    expect(waiting).toMatchObject({ session: "s1", event: "pre_tool_use:bash", hook: "no-rm" });
    expect(held.runningHooks.prestart).toMatchObject({ mode: "opt-in", held: 1, perSession: 16, total: 64 });
    // It waits on stdin: it logs its start and no event has come for it yet.
    for (let i = 0; i < 200 && starts().length < 2; i++) await new Promise((r) => setTimeout(r, 25));
    expect(starts()).toHaveLength(2);

    const fed = await e.dispatch("pre_tool_use:bash", bash("rm -rf y"));
    expect(resultOf(fed).decision).toBe("block");
    expect(resultOf(fed).reason).toBe("no rm");
    expect(resultOf(fed).results[0]).toMatchObject({ prestarted: true, processGroup: waiting?.processGroup });
    await asked(e);
    await untilHeld(e, 1);
    const passed = await e.dispatch("pre_tool_use:bash", bash("ls"));
    expect(resultOf(passed).decision).toBe("pass");
    expect(resultOf(passed).results[0]).toMatchObject({ prestarted: true });
  });

  it("a process for the next event starts once the tool it let through has run (its result, the model asked), not before", async () => {
    const e = await start([{ id: "no-rm", events: ["pre_tool_use"], command: [refuser()], prestart: true }]);
    await e.dispatch("pre_tool_use:bash", bash("ls"));
    // Offered, not started: the tool it let through runs first. Another session's model being asked changes nothing.
    await e.dispatch("pre_tool_use:bash", bash("ls", "s2"));
    await asked(e, "s2");
    await untilHeld(e, 1);
    const before = await status(e);
    expect(before.runningHooks.prestarted?.map((p) => p.session)).toEqual(["s2"]);
    expect(before.runningHooks.prestart).toMatchObject({ held: 1, queued: 1 });
    // An event that comes before the model was asked starts cold, and says why.
    const early = await e.dispatch("pre_tool_use:bash", bash("rm -rf x"));
    expect(resultOf(early).decision).toBe("block");
    expect(resultOf(early).results[0]).toMatchObject({
      prestartNote: "the pre-started process had not started yet (they start while the model is asked, one at a time); started cold",
    });
    // The early call's result: the tool ran, and the model is asked next.
    await e.dispatch("post_tool_use:bash", { ...bash("rm -rf x"), tool_response: { content: [] } });
    const after = await untilHeld(e, 2);
    expect(after.runningHooks.prestart).toMatchObject({ held: 2, queued: 0 });
    const fed = await e.dispatch("pre_tool_use:bash", bash("rm -rf y"));
    expect(resultOf(fed).results[0]).toMatchObject({ prestarted: true });
  });

  // Retried: "quiet" is read from /proc between two looks, and once in a loaded CI run a process started during the busy loop.
  it("a process starts only once the harness (the engine's parent) is quiet, not while it works", { retry: 2 }, async () => {
    const e = await start([{ id: "no-rm", events: ["pre_tool_use"], command: [refuser()], prestart: true }]);
    await e.dispatch("pre_tool_use:bash", bash("ls"));
    // This test's process is the engine's parent: from the model request on it works (as OMP
    // works through a model's answer), so nothing starts. Waiting for the request's answer
    // first would leave it asleep for as long as the engine takes to answer, which on a
    // loaded machine is long enough to look quiet.
    const answered = asked(e);
    const until = performance.now() + 500;
    while (performance.now() < until) Math.sqrt(Math.random());
    expect(starts()).toHaveLength(1);
    await answered;
    await untilHeld(e, 1);
    for (let i = 0; i < 200 && starts().length < 2; i++) await new Promise((r) => setTimeout(r, 25));
    expect(starts()).toHaveLength(2);
  });

  it("processes start one at a time, each once the one before sleeps on its input", async () => {
    // Busy before reading stdin: while one works, the next must not have started.
    const busy = home.script(
      "busy.sh",
      `#!/bin/sh
echo "start $TAMA_HOOK_ID" >> "$STARTS"
i=0; while [ $i -lt 60000 ]; do i=$((i+1)); done
echo "ready $TAMA_HOOK_ID" >> "$STARTS"
cat >/dev/null
`,
    );
    const e = await start(["a", "b", "c"].map((id) => ({ id, events: ["pre_tool_use"], command: [busy], prestart: true })));
    await e.dispatch("pre_tool_use:bash", bash("ls"));
    await asked(e);
    await untilHeld(e, 3);
    for (let i = 0; i < 400 && starts().length < 12; i++) await new Promise((r) => setTimeout(r, 25));
    // The dispatch's own runs (one after another, as the spec orders), then the three pre-started ones.
    const pairs = ["a", "b", "c"].flatMap((id) => [`start ${id}`, `ready ${id}`]);
    expect(starts()).toEqual([...pairs, ...pairs]);
  });

  it("a hook that cannot be spawned at all (its cwd is a file) fails by its fail mode, cold or pre-started, and the engine goes on", async () => {
    const file = path.join(home.dir, "not-a-dir");
    writeFileSync(file, "x");
    const e = await start([{ id: "no-rm", events: ["pre_tool_use"], command: [refuser()], prestart: true, failMode: "closed" }]);
    const refused = await e.dispatch("pre_tool_use:bash", bash("ls", "s1", file));
    expect(resultOf(refused).decision).toBe("block");
    expect(resultOf(refused).results[0]).toMatchObject({ hook: "no-rm", outcome: "failed-closed" });
    expect(String(resultOf(refused).results[0]?.reason)).toMatch(/ENOTDIR/);
    // Its offer starts, and fails the same way, in the engine's own time: the engine must live through it.
    await asked(e);
    let s = await status(e);
    for (let i = 0; i < 200 && s.runningHooks.prestart?.queued !== 0; i++) {
      await new Promise((r) => setTimeout(r, 25));
      s = await status(e);
    }
    expect(s.runningHooks.prestart).toMatchObject({ queued: 0, held: 0 });
    const again = await e.dispatch("pre_tool_use:bash", bash("ls"));
    expect(resultOf(again).decision).toBe("pass");
    expect((resultOf(again).results[0] as Record<string, unknown> | undefined)?.prestartNote).toMatch(/^the pre-started process could not start: .*ENOTDIR.* before its event; started cold$/);
  });

  it("without prestart (and under TAMA_PRESTART=off) nothing is started before its event", async () => {
    const e = await start(
      [
        { id: "plain", events: ["pre_tool_use"], command: [refuser()] },
        { id: "marked", events: ["pre_tool_use"], command: [refuser()], prestart: true },
      ],
      { TAMA_PRESTART: "off" },
    );
    await e.dispatch("pre_tool_use:bash", bash("ls"));
    await asked(e);
    await e.dispatch("pre_tool_use:bash", bash("ls"));
    await asked(e);
    await new Promise((r) => setTimeout(r, 200));
    const s = await status(e);
    expect(s.runningHooks.prestarted).toEqual([]);
    expect(s.runningHooks.prestart?.mode).toBe("off");
    expect(starts()).toHaveLength(4);
  });

  it("a pre-started process killed before its event is never fed: the hook starts cold and the record says so", async () => {
    const e = await start([{ id: "no-rm", events: ["pre_tool_use"], command: [refuser()], prestart: true }]);
    await e.dispatch("pre_tool_use:bash", bash("ls"));
    await asked(e);
    const pgid = (await untilHeld(e, 1)).runningHooks.prestarted?.[0]?.processGroup;
    expect(typeof pgid).toBe("number");
    process.kill(-(pgid as number), "SIGKILL");
    await untilHeld(e, 0);
    const answer = await e.dispatch("pre_tool_use:bash", bash("rm -rf x"));
    expect(resultOf(answer).decision).toBe("block");
    const result = resultOf(answer).results[0] as Record<string, unknown>;
    expect(result.prestarted).toBeUndefined();
    expect(result.prestartNote).toBe("the pre-started process was killed by SIGKILL before its event; started cold");
    expect(result.processGroup).not.toBe(pgid);
    // Killed from outside, not exited on its own: the next event is pre-started again.
    await asked(e);
    await untilHeld(e, 1);
  });

  it("a pre-started process stopped before its event (SIGSTOP to its child) is ended unused, never fed: the hook starts cold", async () => {
    const e = await start([{ id: "no-rm", events: ["pre_tool_use"], command: [refuser()], prestart: true }]);
    await e.dispatch("pre_tool_use:bash", bash("ls"));
    await asked(e);
    const pgid = (await untilHeld(e, 1)).runningHooks.prestarted?.[0]?.processGroup as number;
    // What reads the hook's stdin is the shell's child (cat): stop every process of the group.
    for (let i = 0; i < 200 && spawnSync("pgrep", ["-g", String(pgid)], { encoding: "utf8" }).stdout.trim().split("\n").length < 2; i++) await new Promise((r) => setTimeout(r, 25));
    process.kill(-pgid, "SIGSTOP");
    expect(await groupStopped(pgid)).toBe(true);
    const answer = await e.dispatch("pre_tool_use:bash", bash("rm -rf x"));
    expect(resultOf(answer).decision).toBe("block");
    expect(resultOf(answer).results[0]).toMatchObject({ prestartNote: "the pre-started process was stopped (a signal) before its event; ended unused, started cold" });
    expect(resultOf(answer).results[0]?.processGroup).not.toBe(pgid);
    expect(await groupGone(pgid)).toBe(true);
  });

  it("another process cannot write into a waiting process's input: it is a socket only the engine holds", async () => {
    const e = await start([{ id: "no-rm", events: ["pre_tool_use"], command: [refuser()], prestart: true }]);
    await e.dispatch("pre_tool_use:bash", bash("ls"));
    await asked(e);
    const pgid = (await untilHeld(e, 1)).runningHooks.prestarted?.[0]?.processGroup as number;
    // What an agent's bash call would try: a harmless call written in ahead of the real one.
    const injected = spawnSync("sh", ["-c", `printf '%s' '{"tool_input":{"command":"ls"}}' > /proc/${pgid}/fd/0`], { encoding: "utf8" });
    expect(injected.status).not.toBe(0);
    const answer = await e.dispatch("pre_tool_use:bash", bash("rm -rf x"));
    expect(resultOf(answer).results[0]).toMatchObject({ prestarted: true, processGroup: pgid, outcome: "block" });
  });

  it("a hook that exits without waiting for its input is started cold, and not pre-started again", async () => {
    const quick = home.script("quick.sh", '#!/bin/sh\necho "$$" >> "$STARTS"\nexit 0\n');
    const e = await start([{ id: "quick", events: ["pre_tool_use"], command: [quick], prestart: true }]);
    await e.dispatch("pre_tool_use:bash", bash("ls"));
    await asked(e);
    for (let i = 0; i < 200 && starts().length < 2; i++) await new Promise((r) => setTimeout(r, 25));
    await untilHeld(e, 0);
    const second = await e.dispatch("pre_tool_use:bash", bash("ls"));
    await asked(e);
    expect(resultOf(second).decision).toBe("pass");
    expect(resultOf(second).results[0]).toMatchObject({ prestartNote: "the pre-started process exited with code 0 before its event; started cold" });
    await new Promise((r) => setTimeout(r, 300));
    expect(starts()).toHaveLength(3);
    expect((await status(e)).runningHooks.prestarted).toEqual([]);
  });

  it("a process whose event would give it another cwd, session or registry is ended unused, never fed", async () => {
    const other = path.join(home.dir, "sub");
    spawnSync("mkdir", [other]);
    const hook = { id: "no-rm", events: ["pre_tool_use", "session_end"], command: [refuser()], prestart: true };
    const e = await start([hook]);
    await e.dispatch("pre_tool_use:bash", bash("ls"));
    await asked(e);
    const first = (await untilHeld(e, 1)).runningHooks.prestarted?.[0]?.processGroup;
    const moved = await e.dispatch("pre_tool_use:bash", bash("rm -rf x", "s1", other));
    expect(resultOf(moved).decision).toBe("block");
    expect(resultOf(moved).results[0]).toMatchObject({ prestartNote: "the pre-started process was ended unused: the event's cwd differs; started cold" });
    expect(resultOf(moved).results[0]?.processGroup).not.toBe(first);

    // Another session's event never takes this session's process.
    await asked(e);
    await untilHeld(e, 1);
    const elsewhere = await e.dispatch("pre_tool_use:bash", bash("ls", "s2", other));
    expect(resultOf(elsewhere).results[0]).not.toHaveProperty("prestarted");
    await asked(e, "s2");
    await untilHeld(e, 2);

    // A registry change ends every process of the older generation as the next event adopts it.
    const older = (await status(e)).runningHooks.prestarted?.map((p) => p.processGroup) ?? [];
    home.writeRegistry({ schema: 1, release: { id: "r2" }, hooks: [{ ...hook, timeoutMs: 20_000 }] });
    const after = await e.dispatch("pre_tool_use:bash", bash("ls", "s1", other));
    expect(resultOf(after).results[0]).not.toHaveProperty("prestarted");
    for (const pgid of older) expect(await groupGone(pgid as number)).toBe(true);
    await asked(e);
    const s = await untilHeld(e, 1);
    expect(s.runningHooks.prestarted?.[0]).toMatchObject({ session: "s1" });

    // The session's end ends its processes, and none is started for it again.
    await e.dispatch("session_end", { session_id: "s1", cwd: other });
    await untilHeld(e, 0);
    await new Promise((r) => setTimeout(r, 200));
    expect((await status(e)).runningHooks.prestarted).toEqual([]);
  });

  it("keeps at most its bounds per session and in all", async () => {
    const hooks = ["a", "b", "c"].map((id) => ({ id, events: ["pre_tool_use"], command: [refuser()], prestart: true }));
    const e = await start(hooks, { TAMA_PRESTART_PER_SESSION: "2", TAMA_PRESTART_TOTAL: "3" });
    await e.dispatch("pre_tool_use:bash", bash("ls", "s1"));
    await asked(e);
    await untilHeld(e, 2);
    await e.dispatch("pre_tool_use:bash", bash("ls", "s2"));
    await asked(e, "s2");
    const s = await untilHeld(e, 3);
    expect(s.runningHooks.prestart).toMatchObject({ perSession: 2, total: 3, held: 3 });
    await new Promise((r) => setTimeout(r, 200));
    expect((await status(e)).runningHooks.prestarted).toHaveLength(3);
  });

  it("ends a process left unused past the idle bound", async () => {
    const e = await start([{ id: "no-rm", events: ["pre_tool_use"], command: [refuser()], prestart: true }], { TAMA_PRESTART_IDLE_MS: "1000" });
    await e.dispatch("pre_tool_use:bash", bash("ls"));
    await asked(e);
    // The replacement starts after the answer: held 0 counts only once it has started (its start line).
    for (let i = 0; i < 400 && starts().length < 2; i++) await new Promise((r) => setTimeout(r, 25));
    await untilHeld(e, 0);
    expect(starts()).toHaveLength(2);
  });

  it("drops an offer its session never let start past the idle bound: it counts against the bounds no more", async () => {
    const e = await start([{ id: "no-rm", events: ["pre_tool_use"], command: [refuser()], prestart: true }], { TAMA_PRESTART_IDLE_MS: "1000" });
    await e.dispatch("pre_tool_use:bash", bash("ls"));
    expect((await status(e)).runningHooks.prestart).toMatchObject({ held: 0, queued: 1 });
    let s = await status(e);
    for (let i = 0; i < 200 && s.runningHooks.prestart?.queued !== 0; i++) {
      await new Promise((r) => setTimeout(r, 25));
      s = await status(e);
    }
    expect(s.runningHooks.prestart).toMatchObject({ held: 0, queued: 0 });
    await asked(e);
    await new Promise((r) => setTimeout(r, 200));
    expect(starts()).toHaveLength(1);
  });

  it("tama hooks running names the waiting processes and the bounds", async () => {
    const e = await start([{ id: "no-rm", events: ["pre_tool_use"], command: [refuser()], prestart: true }]);
    await e.dispatch("pre_tool_use:bash", bash("ls"));
    await asked(e);
    const pgid = (await untilHeld(e, 1)).runningHooks.prestarted?.[0]?.processGroup;
    let listed: { prestarted: { hook: string; processGroup: number }[]; prestartBounds: { held: number; total: number }[] } | undefined;
    for (let i = 0; i < 100; i++) {
      const out = spawnSync(process.execPath, [TAMA_BIN, "hooks", "running", "--json"], { env: { ...process.env, TAMA_HOME: home.home }, encoding: "utf8" });
      listed = JSON.parse(out.stdout) as typeof listed;
      if ((listed?.prestarted.length ?? 0) > 0) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(listed?.prestarted).toEqual([expect.objectContaining({ hook: "no-rm", processGroup: pgid })]);
    expect(listed?.prestartBounds[0]).toMatchObject({ held: 1, total: 64 });
    const text = spawnSync(process.execPath, [TAMA_BIN, "hooks", "running"], { env: { ...process.env, TAMA_HOME: home.home }, encoding: "utf8" }).stdout;
    expect(text).toContain("Pre-started, waiting for their event:");
  });

  it("once fed, a pre-started hook is cancelled and recorded as abandoned exactly like a cold one", async () => {
    const hang = home.script("hang.sh", "#!/bin/sh\ncat >/dev/null\nexec sleep 600\n");
    const e = await start([{ id: "hang", events: ["pre_tool_use"], command: [hang], prestart: true, timeoutMs: 60_000 }]);
    const first = e.dispatch("pre_tool_use:bash", bash("ls"), { id: "first" });
    await new Promise((r) => setTimeout(r, 300));
    await e.request({ op: "cancel", target: "first" });
    await first;
    await asked(e);
    await untilHeld(e, 1);
    const second = e.dispatch("pre_tool_use:bash", bash("ls"), { id: "second" });
    let s = await status(e);
    for (let i = 0; i < 200 && s.runningHooks.dispatched.length === 0; i++) s = await status(e);
    const running = s.runningHooks.dispatched[0];
    expect(running).toMatchObject({ hook: "hang", dispatchId: "second" });
    const cancelled = await e.request({ op: "cancel", target: "second" });
    expect(cancelled.result).toMatchObject({ endedHooks: ["hang"] });
    const answer = await second;
    expect(answer.ok).toBe(false);
    expect(resultOf(answer).results[0]).toMatchObject({ prestarted: true, outcome: "cancelled" });
    const abandoned = (await status(e)).runningHooks.abandoned.find((a) => a.session === "s1");
    expect(abandoned?.hooks[0]).toMatchObject({ hook: "hang", processGroup: running?.processGroup });
  });
});
