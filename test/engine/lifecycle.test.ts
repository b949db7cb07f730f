// The lifecycle rules: a hook is ended because the harness's own next signal proved
// nobody waits for it, never because a clock of the engine's guessed.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { StatusResult } from "../../modules/protocol/engine.ts";
import { EngineClient, makeTestHome, processesMentioning, resultOf, ROOT, settleProcesses, TAMA_BIN, type Frame, type TestHome } from "../support/engine-client.ts";

const FIX = path.join(ROOT, "test/fixtures/hooks");
let home: TestHome;
let engine: EngineClient | undefined;
let fifo: string;

beforeEach(() => {
  home = makeTestHome();
  fifo = path.join(home.dir, "nobody-writes.fifo");
  execFileSync("mkfifo", [fifo]);
});
afterEach(async () => {
  await engine?.close();
  engine = undefined;
  expect(await settleProcesses(home.home)).toEqual([]);
  home.cleanup();
});

async function start(hooks: unknown[]): Promise<EngineClient> {
  home.writeRegistry({ schema: 1, release: { id: "r1" }, hooks });
  engine = new EngineClient(home, { HOLD_FIFO: fifo });
  await engine.ready();
  return engine;
}

const held = (id: string, events: string[]) => ({ id, events, command: [path.join(FIX, "wait-fifo.sh")] });
const edit = (session = "s1") => ({ session_id: session, cwd: home.dir, tool_name: "write", tool_input: { path: "a.txt", content: "x" } });

/**
 * Until `count` processes of `hook` run. With `dispatchId`, until they are that dispatch's
 * only: an ended dispatch's process may still be running beside it, reading what the test writes.
 */
async function untilRunning(e: EngineClient, hook: string, count = 1, dispatchId?: string): Promise<Frame> {
  for (let i = 0; i < 200; i++) {
    const status = await e.request({ op: "status" });
    const dispatched = (status.state?.runningHooks as { dispatched: { hook: string; dispatchId: string | number }[] }).dispatched;
    const ofHook = dispatched.filter((h) => h.hook === hook);
    const ours = ofHook.filter((h) => dispatchId === undefined || h.dispatchId === dispatchId);
    if (ours.length >= count && (dispatchId === undefined || ours.length === ofHook.length)) return status;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`hook ${hook} never ran`);
}

function tamaCli(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [TAMA_BIN, ...args], { env: { ...process.env, TAMA_HOME: home.home }, encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("a call's result ends its check", () => {
  it("answers the pre-tool dispatch, ends its process group and names it on stderr, in status, on disk and in `tama hooks running`", async () => {
    const e = await start([held("guard", ["pre_tool_use"])]);
    const pre = e.dispatch("pre_tool_use:write", edit());
    const status = await untilRunning(e, "guard");
    const pgid = (status.state?.runningHooks as { dispatched: { processGroup: number }[] }).dispatched[0]?.processGroup;
    expect(pgid).toBeGreaterThan(0);
    // the status names the hook a dispatch stands on while it runs
    expect((status.state?.dispatchStages as { running: { stage: string }[] }).running[0]?.stage).toBe("sessionStateRead");
    // the status is what the protocol's schema says, while a hook runs and after it was abandoned
    expect(StatusResult.safeParse(status.result).success).toBe(true);

    const post = await e.dispatch("post_tool_use:write", { ...edit(), tool_response: { ok: true } });
    expect(post.ok).toBe(true);
    const preAnswer = await pre;
    expect(preAnswer.ok).toBe(false);
    expect(preAnswer.error).toBe("the result of the write call already arrived, so the harness stopped waiting for this check");
    await e.stderrMatching(
      `tama: ended pre-tool dispatch ${String(preAnswer.id)} of write in session s1: the result of the write call already arrived, so the harness stopped waiting for this check`,
    );
    await e.stderrMatching(/still running in Tama: guard \(pre_tool_use:write, \d+ ms\)/);

    const after = await e.request({ op: "status" });
    expect(StatusResult.safeParse(after.result).success).toBe(true);
    expect(StatusResult.parse(after.result).dispatchStages.lastByEvent["pre_tool_use:write"]?.stages.answered).toBeDefined();
    const abandoned = (after.state?.runningHooks as { abandoned: { session: string; reason: string; hooks: { hook: string; event: string; processGroup: number; ranForMs: number }[]; corePid: number; text: string }[] }).abandoned;
    expect(abandoned).toHaveLength(1);
    expect(abandoned[0]).toMatchObject({ session: "s1", corePid: e.pid, hooks: [{ hook: "guard", event: "pre_tool_use:write", processGroup: pgid }] });
    expect(abandoned[0]?.reason).toMatch(/the result of the write call arrived/);
    const onDisk = JSON.parse(readFileSync(path.join(home.home, "sessions", "abandoned.s1.json"), "utf8")) as typeof abandoned[0];
    expect(onDisk.hooks[0]?.hook).toBe("guard");
    expect(onDisk.hooks[0]?.ranForMs).toBeGreaterThan(0);

    const cli = tamaCli(["hooks", "running", "--json"]);
    expect(cli.code).toBe(0);
    const listed = JSON.parse(cli.stdout) as { abandoned: { hooks: { hook: string; event: string }[]; reason: string }[] };
    expect(listed.abandoned[0]?.hooks[0]).toMatchObject({ hook: "guard", event: "pre_tool_use:write" });
  });

  it("a cancel from the caller ends the dispatch the same way", async () => {
    const e = await start([held("guard", ["pre_tool_use"])]);
    const pre = e.dispatch("pre_tool_use:write", edit(), { id: "pre-1" });
    await untilRunning(e, "guard");
    const cancel = await e.request({ op: "cancel", target: "pre-1" });
    expect(cancel.ok).toBe(true);
    expect(cancel.result).toMatchObject({ cancelled: true, endedHooks: ["guard"] });
    const answer = await pre;
    expect(answer.ok).toBe(false);
    expect(answer.error).toMatch(/cancelled by its caller/);
    expect(answer.code).toBe("dispatch-ended");
    // stderr and stdout are separate pipes: the line may land after the answer
    await e.stderrMatching(/the caller cancelled dispatch "pre-1" of pre_tool_use:write; still running in Tama: guard \(pre_tool_use:write, \d+ ms\)/);
    const unknown = await e.request({ op: "cancel", target: "nope" });
    expect(unknown.ok).toBe(false);
    expect(unknown.error).toMatch(/no dispatch "nope" is in flight/);
    expect(unknown.code).toBe("not-in-flight");
  });

  it("a stop cancelled before its hooks start starts none of them", async () => {
    const marker = path.join(home.dir, "ran");
    const hook = home.script("mark.sh", `#!/bin/sh\ncat >/dev/null\ntouch ${marker}\n`);
    const e = await start([{ id: "marker", events: ["stop"], command: [hook] }]);
    const answer = e.waitFor((f) => f.id === "stop-1");
    // one write: the cancel is read in the same turn as the dispatch, before any hook starts
    e.sendRaw(`${JSON.stringify({ id: "stop-1", op: "dispatch", event: "stop", payload: { session_id: "s1", cwd: home.dir } })}\n${JSON.stringify({ id: "c", op: "cancel", target: "stop-1" })}\n`);
    const stopped = await answer;
    expect(stopped.ok).toBe(false);
    expect(stopped.error).toMatch(/cancelled by its caller/);
    expect(resultOf(stopped).results).toEqual([]);
    await e.request({ op: "status" });
    expect(existsSync(marker)).toBe(false);
  });

  it("an unreadable abandonment record is refused by name, never skipped", async () => {
    const e = await start([]);
    await e.request({ op: "status" });
    const { mkdirSync } = await import("node:fs");
    mkdirSync(path.join(home.home, "sessions"), { recursive: true });
    writeFileSync(path.join(home.home, "sessions", "abandoned.broken.json"), "{not json");
    const cli = tamaCli(["hooks", "running"]);
    expect(cli.code).toBe(1);
    expect(cli.stdout).toMatch(/cannot read .*abandoned\.broken\.json: /);
  });
});

describe("turn end", () => {
  it("the session's stop ends a tool hook still running, and that dispatch starts none of its remaining hooks", async () => {
    const record = path.join(home.dir, "after.jsonl");
    home.writeRegistry({ schema: 1, release: null, hooks: [] });
    engine = new EngineClient(home, { HOLD_FIFO: fifo, RECORD_FILE: record });
    await engine.ready();
    home.writeRegistry({
      schema: 1,
      release: null,
      hooks: [held("guard", ["pre_tool_use"]), { id: "after-guard", events: ["pre_tool_use"], command: [path.join(FIX, "record-input.sh")] }],
    });
    const e = engine;
    const pre = e.dispatch("pre_tool_use:write", edit());
    const status = await untilRunning(e, "guard");
    const pgid = (status.state?.runningHooks as { dispatched: { processGroup: number }[] }).dispatched[0]?.processGroup;
    const stop = await e.dispatch("stop", { session_id: "s1", cwd: home.dir });
    expect(stop.ok).toBe(true);
    const answer = await pre;
    expect(answer.ok).toBe(false);
    expect(answer.error).toBe(
      "the turn of session s1 ended while pre_tool_use:write was still being checked, so that tool call is over and hook after-guard and the ones after it were not started",
    );
    await e.stderrMatching(
      `tama: ended hook guard (process group ${pgid}) still running for pre_tool_use:write of session s1: the session's stop arrived, so that tool call is over and nobody waits for its answer`,
    );
    expect(existsSync(record)).toBe(false);
  });

  it("the first ending wins: a dispatch its caller cancelled answers as cancelled when the turn end comes after", async () => {
    const e = await start([held("guard", ["pre_tool_use"]), { id: "after-guard", events: ["pre_tool_use"], command: [path.join(FIX, "record-input.sh")] }]);
    const pre = e.dispatch("pre_tool_use:write", edit(), { id: "pre-1" });
    await untilRunning(e, "guard");
    const cancelled = e.waitFor((f) => f.id === "c1");
    const stopped = e.waitFor((f) => f.id === "stop-1");
    // one write: the stop is read while the cancelled dispatch is still in flight
    e.sendRaw(
      `${JSON.stringify({ id: "c1", op: "cancel", target: "pre-1" })}\n${JSON.stringify({ id: "stop-1", op: "dispatch", event: "stop", payload: { session_id: "s1", cwd: home.dir } })}\n`,
    );
    expect((await cancelled).result).toMatchObject({ cancelled: true, endedHooks: ["guard"] });
    expect((await stopped).ok).toBe(true);
    const answer = await pre;
    expect(answer.ok).toBe(false);
    expect(answer.code).toBe("dispatch-ended");
    expect(answer.error).toBe('dispatch "pre-1" of pre_tool_use:write was cancelled by its caller');
    await e.stderrMatching(/the caller cancelled dispatch "pre-1" of pre_tool_use:write; still running in Tama: guard/);
    // the turn end found it ended already: it ended nothing more and recorded nothing of its own
    expect(e.stderr).not.toMatch(/the session's stop arrived/);
    const status = await e.request({ op: "status" });
    const abandoned = (status.state?.runningHooks as { abandoned: { reason: string }[] }).abandoned;
    expect(abandoned.map((a) => a.reason)).toEqual(['the caller cancelled dispatch "pre-1" of pre_tool_use:write']);
  });

  it("a newer tool call never ends an older one, and another session's stop ends nothing", async () => {
    const e = await start([held("guard", ["pre_tool_use"])]);
    const first = e.dispatch("pre_tool_use:write", edit());
    await untilRunning(e, "guard");
    const second = e.dispatch("pre_tool_use:write", { ...edit(), tool_input: { path: "b.txt", content: "y" } });
    await untilRunning(e, "guard", 2);
    await e.dispatch("stop", { session_id: "other-session", cwd: home.dir });
    const status = await e.request({ op: "status" });
    expect((status.state?.runningHooks as { dispatched: unknown[] }).dispatched).toHaveLength(2);
    // A payload without a session id is never superseded by another session's event.
    const anonymous = e.dispatch("pre_tool_use:write", { cwd: home.dir, tool_input: { path: "c.txt", content: "z" } });
    await untilRunning(e, "guard", 3);
    await e.dispatch("stop", { session_id: "s1", cwd: home.dir });
    expect((await first).ok).toBe(false);
    expect((await second).ok).toBe(false);
    const still = await e.request({ op: "status" });
    expect((still.state?.runningHooks as { dispatched: { session: string | null }[] }).dispatched).toEqual([
      expect.objectContaining({ session: null }),
    ]);
    await e.close();
    expect((await anonymous).error).toMatch(/closed its input/);
  });
});

describe("supersession", () => {
  it("a stop hook still running for the previous stop is ended when the next stop starts it", async () => {
    const e = await start([held("review", ["stop"])]);
    const first = e.dispatch("stop", { session_id: "s1", cwd: home.dir });
    const status = await untilRunning(e, "review");
    const pgid = (status.state?.runningHooks as { dispatched: { processGroup: number }[] }).dispatched[0]?.processGroup;
    const second = e.dispatch("stop", { session_id: "s1", cwd: home.dir });
    const firstAnswer = await first;
    expect(firstAnswer.ok).toBe(false);
    expect(resultOf(firstAnswer).results[0]).toMatchObject({ hook: "review", outcome: "cancelled" });
    expect(resultOf(firstAnswer).decision).toBe("pass");
    expect(firstAnswer.error).toMatch(/hooks were ended before they answered: review/);
    expect(firstAnswer.code).toBe("hooks-cancelled");
    await e.stderrMatching(`tama: ended hook review (process group ${pgid}) still running for the previous stop of session s1`);
    // the second is the one now running; end it by closing
    await untilRunning(e, "review");
    writeFileSync(fifo, "go\n");
    const secondAnswer = await second;
    expect(secondAnswer.ok).toBe(true);
  });

  it("stop runs the built-in policy first and other stop hooks only when it passes", async () => {
    const record = path.join(home.dir, "stop.jsonl");
    home.writeRegistry({ schema: 1, release: null, hooks: [] });
    engine = new EngineClient(home, { RECORD_FILE: record });
    await engine.ready();
    home.writeRegistry({
      schema: 1,
      release: null,
      hooks: [
        { id: "recorder", events: ["stop"], command: [path.join(FIX, "record-input.sh")] },
        { id: "open-todos", events: ["stop"], builtin: "block-open-todos" },
      ],
    });
    // OMP's session file: the newest todo toolResult carries the whole list
    const sessionFile = path.join(home.dir, "session.jsonl");
    const todoEntry = (status: string, id: string, parentId: string | null) =>
      JSON.stringify({ type: "message", id, parentId, message: { role: "toolResult", toolName: "todo", details: { op: "start", phases: [{ name: "Work", tasks: [{ content: "write the tests", status }] }] } } });
    writeFileSync(sessionFile, `${todoEntry("pending", "a", null)}\n${todoEntry("in_progress", "b", "a")}\n`);
    const blocked = await engine.dispatch("stop", { session_id: "s1", cwd: home.dir, transcript_path: sessionFile });
    expect(resultOf(blocked).decision).toBe("block");
    expect(resultOf(blocked).results.map((r) => r.hook)).toEqual(["open-todos"]);
    expect(resultOf(blocked).reason).toMatch(/1 open task:\n- \[in progress\] write the tests/);
    expect(existsSync(record)).toBe(false);
    writeFileSync(sessionFile, `${todoEntry("in_progress", "a", null)}\n${todoEntry("completed", "b", "a")}\n`);
    const passed = await engine.dispatch("stop", { session_id: "s1", cwd: home.dir, transcript_path: sessionFile });
    expect(resultOf(passed).decision).toBe("pass");
    expect(resultOf(passed).results.map((r) => r.hook)).toEqual(["open-todos", "recorder"]);
    expect(existsSync(record)).toBe(true);
  });
});

describe("core identity", () => {
  it("a refreshing dispatch that loads another release flips coreReplacedByRelease", async () => {
    const e = await start([]);
    home.writeRegistry({ schema: 1, release: { id: "r2" }, hooks: [] });
    const answer = await e.dispatch("stop", { session_id: "s1", cwd: home.dir });
    expect(answer.state).toMatchObject({ coreReleaseId: "r1", loadedReleaseId: "r2", coreReplacedByRelease: true });
  });
});

describe("an engine that is gone", () => {
  it("its hooks are listed by `tama hooks running` and ended by the next engine", async () => {
    const e = await start([held("guard", ["pre_tool_use"])]);
    void e.dispatch("pre_tool_use:write", edit()).catch(() => undefined);
    const status = await untilRunning(e, "guard");
    const pgid = (status.state?.runningHooks as { dispatched: { processGroup: number }[] }).dispatched[0]?.processGroup ?? -1;
    // give the record writer its turn, then kill the engine so it cannot clean up
    await new Promise((r) => setTimeout(r, 100));
    e.child.kill("SIGKILL");
    await e.exited;
    engine = undefined;
    const listed = JSON.parse(tamaCli(["hooks", "running", "--json"]).stdout) as { running: { hook: string; engine: string; processGroup: number }[] };
    expect(listed.running).toEqual([expect.objectContaining({ hook: "guard", engine: "gone", processGroup: pgid })]);
    let alive = true;
    try {
      process.kill(-pgid, 0);
    } catch {
      alive = false;
    }
    expect(alive).toBe(true);
    // the next engine ends what the dead one left running, and says so
    const next = await start([]);
    await next.request({ op: "status" });
    await next.stderrMatching(`tama: ended hook guard (process group ${pgid}) left running by an engine that is gone`);
  });
});

describe("closed input", () => {
  it("a caller that dies (every pipe closed) while a TERM-ignoring hook and its TERM-ignoring child run: both are ended and the engine exits cleanly", async () => {
    const e = await start([{ id: "stubborn", events: ["pre_tool_use"], tools: "write", timeoutMs: 600_000, command: [path.join(FIX, "ignore-term-tree.sh")] }]);
    void e.dispatch("pre_tool_use:write", edit()).catch(() => undefined);
    await untilRunning(e, "stubborn");
    // the hook and its child, both marked
    for (let i = 0; i < 200 && processesMentioning(`STUBBORN_HOOK_OF=${home.home}`).length < 2; i++) await new Promise((r) => setTimeout(r, 25));
    expect(processesMentioning(`STUBBORN_HOOK_OF=${home.home}`).length).toBeGreaterThanOrEqual(2);
    // as a SIGKILLed OMP leaves it: nobody writes, and nobody reads answers or stderr
    e.child.stdout.destroy();
    e.child.stderr.destroy();
    e.child.stdin.destroy();
    expect(await e.exited).toBe(0);
    expect(await settleProcesses(home.home)).toEqual([]);
  });

  it("closing the input ends what a hook that already answered left running outside its process group", async () => {
    const e = await start([{ id: "escaper", events: ["pre_tool_use"], tools: "write", command: [path.join(FIX, "escape-group.sh")] }]);
    const answer = await e.dispatch("pre_tool_use:write", edit());
    expect(resultOf(answer).decision).toBe("pass");
    // the escaped process runs on while the engine serves
    expect(processesMentioning(home.home).filter((pid) => pid !== e.pid).length).toBeGreaterThan(0);
    expect(await e.close()).toBe(0);
    expect(await settleProcesses(home.home)).toEqual([]);
  });
});

describe("a check that could not finish names the closed hooks that owed it a verdict", () => {
  const prompt = (text: string) => ({ session_id: "s1", cwd: home.dir, prompt: text });

  it("a closed prompt hook superseded by the next prompt: the first answer names it", async () => {
    const e = await start([{ ...held("guard", ["user_prompt_submit"]), failMode: "closed" }]);
    const first = e.dispatch("user_prompt_submit", prompt("one"));
    await untilRunning(e, "guard");
    const second = e.dispatch("user_prompt_submit", prompt("two"));
    const answer = await first;
    expect(answer.ok).toBe(false);
    expect(answer.code).toBe("hooks-cancelled");
    expect((answer.result as { unansweredClosed?: string[] }).unansweredClosed).toEqual(["guard"]);
    await untilRunning(e, "guard");
    writeFileSync(fifo, "go\n");
    expect((await second).ok).toBe(true);
    expect((await second).result as object).not.toHaveProperty("unansweredClosed");
  });

  it("only open hooks owed it: the list is empty", async () => {
    const e = await start([held("guard", ["user_prompt_submit"])]);
    const first = e.dispatch("user_prompt_submit", prompt("one"));
    await untilRunning(e, "guard");
    const second = e.dispatch("user_prompt_submit", prompt("two"), { id: "prompt-two" });
    const answer = await first;
    expect(answer.code).toBe("hooks-cancelled");
    expect((answer.result as { unansweredClosed?: string[] }).unansweredClosed).toEqual([]);
    // The second dispatch's own guard: the first one's, ended, may not have exited yet, and must not take the line.
    await untilRunning(e, "guard", 1, "prompt-two");
    writeFileSync(fifo, "go\n");
    await second;
  });

  it("a cancelled dispatch names the closed hooks it never started, not the open ones nor those that answered", async () => {
    const pass = { id: "closed-pass", events: ["user_prompt_submit"], failMode: "closed", command: [path.join(FIX, "sleep-300ms.sh")] };
    const later = { id: "closed-later", events: ["user_prompt_submit"], failMode: "closed", command: [path.join(FIX, "sleep-300ms.sh")] };
    const openLater = { id: "open-later", events: ["user_prompt_submit"], command: [path.join(FIX, "sleep-300ms.sh")] };
    const e = await start([pass, held("open-held", ["user_prompt_submit"]), later, openLater]);
    const id = "prompt-1";
    const first = e.dispatch("user_prompt_submit", prompt("one"), { id });
    await untilRunning(e, "open-held");
    await e.request({ op: "cancel", target: id });
    const answer = await first;
    expect(answer.code).toBe("dispatch-ended");
    expect((answer.result as { unansweredClosed?: string[] }).unansweredClosed).toEqual(["closed-later"]);
  });
});
