// Engines killed mid-dispatch, hooks that misbehave, registries replaced mid-run:
// nothing lost, nothing left running.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { engineKillTrials } from "../../scripts/stress/engine-kill.ts";
import { EngineClient, makeTestHome, resultOf, ROOT, settleProcesses, TAMA_BIN, type TestHome } from "../support/engine-client.ts";

const FIX = path.join(ROOT, "test/fixtures/hooks");
let home: TestHome;
beforeEach(() => {
  home = makeTestHome();
});
afterEach(async () => {
  expect(await settleProcesses(home.home)).toEqual([]);
  home.cleanup();
});

describe("the engine killed while dispatches are in flight", () => {
  it("answers every held request (refused if started, else by the next engine), and leaves no hook of the dead one running", async () => {
    // bounded, so a request asked again of the next engine is answered too (failed open at the bound)
    home.writeRegistry({ schema: 1, release: null, hooks: [{ id: "forever", events: ["pre_tool_use"], timeoutMs: 1500, command: [path.join(FIX, "hang-forever.sh")] }] });
    const summary = await engineKillTrials({ tamaBin: TAMA_BIN, home: home.home, cwd: home.dir, trials: 8, seed: 7, inFlight: 4 });
    expect(summary.answered).toBe(summary.requests);
    // refused when the dead engine had started the hook, else decided by the next one: never both, never neither
    expect(summary.failures + summary.askedAgain).toBe(summary.requests);
    expect(summary.failures).toBeGreaterThan(0);
    expect(summary.freshEngines).toBe(summary.trials + 1);
    // the last engine ended what every dead one left running (checked in afterEach)
  });
});

describe("hooks that misbehave resolve by their fail mode, naming what happened", () => {
  const cases: { name: string; script: string; reason: RegExp }[] = [
    { name: "exits by a signal", script: "#!/bin/sh\ncat >/dev/null\nkill -SEGV $$\n", reason: /was ended by SIGSEGV/ },
    { name: "closes stdout early and then fails", script: "#!/bin/sh\nexec >&-\ncat >/dev/null\nexit 5\n", reason: /exited with code 5/ },
    { name: "never reads a large stdin", script: "#!/bin/sh\nexit 7\n", reason: /exited with code 7/ },
    { name: "writes 100 MB", script: "#!/bin/sh\nhead -c 104857600 /dev/zero\n", reason: /wrote more than 1048576 bytes on stdout/ },
    { name: "ignores SIGTERM past its timeout", script: "#!/bin/sh\ntrap '' TERM\ncat >/dev/null\nwhile :; do sleep 0.05; done\n", reason: /gave no answer within 400 ms/ },
    { name: "leaves a grandchild behind on a clean exit", script: "#!/bin/sh\ncat >/dev/null\nsleep 600 &\nexit 9\n", reason: /exited with code 9/ },
  ];
  for (const c of cases) {
    it(`a hook that ${c.name}`, async () => {
      const script = home.script("misbehave.sh", c.script);
      home.writeRegistry({
        schema: 1,
        release: null,
        hooks: [
          { id: "open", events: ["pre_tool_use"], timeoutMs: 400, command: [script] },
          { id: "closed", events: ["post_tool_use"], timeoutMs: 400, failMode: "closed", command: [script] },
        ],
      });
      const engine = new EngineClient(home);
      await engine.ready();
      const big = { command: "x".repeat(2 * 1024 * 1024) };
      const open = resultOf(await engine.dispatch("pre_tool_use:bash", { session_id: "s", cwd: home.dir, tool_input: big }));
      expect(open.decision).toBe("pass");
      expect(open.failedOpen[0]?.reason).toMatch(c.reason);
      const closed = resultOf(await engine.dispatch("post_tool_use:bash", { session_id: "s", cwd: home.dir, tool_input: { command: "ls" } }));
      expect(closed.decision).toBe("block");
      expect(closed.reason).toMatch(c.reason);
      await engine.close();
    });
  }
});

describe("registry faults while dispatches run", () => {
  it("keeps the previous generation, runs nothing on a failed read, and adopts the next valid registry", async () => {
    const record = path.join(home.dir, "ran.jsonl");
    const valid = (id: string) => ({ schema: 1, release: null, hooks: [{ id, events: ["pre_tool_use"], command: [path.join(FIX, "record-input.sh")] }] });
    home.writeRegistry(valid("first"));
    const engine = new EngineClient(home, { RECORD_FILE: record });
    await engine.ready();
    const faults: (() => void)[] = [
      () => home.writeRegistry("garbage"),
      () => home.writeRegistry({ ...valid("x"), checksum: "f".repeat(64) }),
      () => home.writeRegistry(""),
      // a half-written file: written in place, without a rename
      () => writeFileSync(home.registry, JSON.stringify(valid("half")).slice(0, 40)),
    ];
    for (const [i, fault] of faults.entries()) {
      const running = Array.from({ length: 6 }, (_, n) => engine.dispatch("pre_tool_use:bash", { session_id: `s${n}`, cwd: home.dir, tool_input: { command: `c${i}-${n}` } }));
      fault();
      const after = Array.from({ length: 6 }, (_, n) => engine.dispatch("pre_tool_use:bash", { session_id: `s${n}`, cwd: home.dir, tool_input: { command: `d${i}-${n}` } }));
      for (const answer of await Promise.all([...running, ...after])) {
        if (answer.ok) {
          expect(resultOf(answer).results.map((r) => r.hook)).toEqual(["first"]);
        } else {
          expect(answer.error).toMatch(/hook registry .*; no hook was run$/);
          expect(answer.state?.generation).toBe(1);
        }
      }
      const failed = await engine.dispatch("pre_tool_use:bash", { session_id: "s", cwd: home.dir, tool_input: { command: "probe" } });
      expect(failed.ok).toBe(false);
      home.writeRegistry(valid("first"));
    }
    home.writeRegistry(valid("second"));
    const adopted = await engine.dispatch("pre_tool_use:bash", { session_id: "s", cwd: home.dir, tool_input: { command: "final" } });
    expect(resultOf(adopted).results.map((r) => r.hook)).toEqual(["second"]);
    expect(adopted.state?.generation).toBe(2);
    await engine.close();
  });
});

describe("a hook that leaves its process group", () => {
  it("is answered by its exit, and what it started with setsid is ended too", async () => {
    const script = home.script("escape.sh", "#!/bin/sh\ncat >/dev/null\nsetsid sleep 600 &\nexit 0\n");
    home.writeRegistry({ schema: 1, release: null, hooks: [{ id: "escape", events: ["pre_tool_use"], timeoutMs: 30_000, command: [script] }] });
    const engine = new EngineClient(home);
    await engine.ready();
    const answer = await engine.dispatch("pre_tool_use:bash", { session_id: "s", cwd: home.dir, tool_input: { command: "ls" } });
    expect(resultOf(answer).decision).toBe("pass");
    expect(resultOf(answer).results[0]?.outcome).toBe("pass");
    await engine.close();
    // afterEach: no process of this test's hooks remains, the setsid'd sleep included
  });
});
