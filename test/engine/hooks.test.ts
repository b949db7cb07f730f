// Hook execution over real pipes with real hook processes.
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EngineClient, makeTestHome, resultOf, ROOT, settleProcesses, type TestHome } from "../support/engine-client.ts";

const FIX = path.join(ROOT, "test/fixtures/hooks");
const fixture = (name: string): string => path.join(FIX, name);

let home: TestHome;
let engine: EngineClient | undefined;

beforeEach(() => {
  home = makeTestHome();
});
afterEach(async () => {
  await engine?.close();
  engine = undefined;
  // No process of this test's hooks remains (they inherit its TAMA_HOME).
  expect(await settleProcesses(home.home)).toEqual([]);
  home.cleanup();
});

/** The Claude Code and answer suites run cold and with every command hook pre-started. */
let prestart: "opt-in" | "all" = "opt-in";

async function start(hooks: unknown[], env: NodeJS.ProcessEnv = {}): Promise<EngineClient> {
  home.writeRegistry({ schema: 1, release: { id: "r1" }, hooks });
  const e = new EngineClient(home, { TAMA_PRESTART: prestart, ...env });
  engine = e;
  await e.ready();
  if (prestart === "all") {
    // As in an agent's loop, the model is asked after each event: the next one's hooks are pre-started meanwhile.
    const dispatch = e.dispatch.bind(e);
    e.dispatch = async (event, payload, extra) => {
      const answer = await dispatch(event, payload, extra);
      if (typeof payload.session_id === "string" && event !== "before_provider_request") await e.modelAsked(payload.session_id, String(payload.cwd ?? home.dir));
      return answer;
    };
  }
  return e;
}

const bash = (command: string, session = "s1") => ({ session_id: session, cwd: home.dir, tool_name: "bash", tool_input: { command } });

for (const mode of ["opt-in", "all"] as const) {
describe(`with TAMA_PRESTART=${mode}`, () => {
  beforeEach(() => {
    prestart = mode;
  });
  afterEach(() => {
    prestart = "opt-in";
  });

  describe("Claude Code hook scripts run unchanged against OMP calls", () => {
    it("a Python script refusing Bash by exit 2 refuses OMP's bash", async () => {
      const e = await start([{ id: "no-rm", events: ["pre_tool_use"], tools: "shell", command: [fixture("deny-bash-rm.py")] }]);
      const refused = await e.dispatch("pre_tool_use:bash", bash("rm -rf build"));
      expect(refused.ok).toBe(true);
      expect(resultOf(refused).decision).toBe("block");
      expect(resultOf(refused).reason).toBe("rm -rf is not allowed here");
      const passed = await e.dispatch("pre_tool_use:bash", bash("ls -la"));
      expect(resultOf(passed).decision).toBe("pass");
      expect(resultOf(passed).failedOpen).toEqual([]);
    });

    it("a Python script denying Write to *.env by permissionDecision denies OMP's write", async () => {
      const e = await start([{ id: "no-env", events: ["pre_tool_use"], tools: "write", command: [fixture("deny-env-write.py")] }]);
      const refused = await e.dispatch("pre_tool_use:write", {
        session_id: "s1",
        cwd: home.dir,
        tool_input: { path: "config/.env", content: "SECRET=1" },
      });
      expect(resultOf(refused).decision).toBe("block");
      expect(resultOf(refused).reason).toBe(`writing ${path.join(home.dir, "config/.env")} is not allowed`);
      const passed = await e.dispatch("pre_tool_use:write", { session_id: "s1", cwd: home.dir, tool_input: { path: "README.md", content: "x" } });
      expect(resultOf(passed).decision).toBe("pass");
    });

    it("hands hooks Claude's names and fields with OMP's own beside them", async () => {
      const record = path.join(home.dir, "inputs.jsonl");
      const e = await start([{ id: "rec", events: ["pre_tool_use", "stop", "user_prompt_submit"], command: [fixture("record-input.sh")] }], { RECORD_FILE: record });
      await e.dispatch("pre_tool_use:bash", bash("git status"));
      await e.dispatch("user_prompt_submit", { session_id: "s1", cwd: home.dir, prompt: "hello" });
      await e.dispatch("stop", { session_id: "s1", cwd: home.dir, stop_hook_active: true });
      const inputs = readFileSync(record, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(inputs[0]).toMatchObject({
        session_id: "s1",
        hook_event_name: "PreToolUse",
        cwd: home.dir,
        tool_name: "Bash",
        tool_input: { command: "git status" },
        omp: { tool_name: "bash", tool_input: { command: "git status" } },
      });
      expect(inputs[1]).toMatchObject({ hook_event_name: "UserPromptSubmit", prompt: "hello", session_id: "s1" });
      expect(inputs[2]).toMatchObject({ hook_event_name: "Stop", stop_hook_active: true });
    });
  });

  describe("answers", () => {
    it("honours a JSON decision:block on stdout", async () => {
      const e = await start([{ id: "json", events: ["pre_tool_use"], command: [fixture("block-json.sh")] }]);
      const answer = await e.dispatch("pre_tool_use:bash", bash("ls"));
      expect(resultOf(answer)).toMatchObject({ decision: "block", reason: "blocked by JSON" });
    });

    it("a permissionDecision of ask is reported as ask, with its reason, and ends the dispatch", async () => {
      const asker = home.script("ask.sh", `#!/bin/sh\ncat >/dev/null\necho '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"deploys need a person"}}'\n`);
      const e = await start([
        { id: "asker", events: ["pre_tool_use"], command: [asker] },
        { id: "after", events: ["pre_tool_use"], command: [fixture("crash.sh")] },
      ]);
      const result = resultOf(await e.dispatch("pre_tool_use:bash", bash("make deploy")));
      expect(result).toMatchObject({ decision: "ask", reason: "deploys need a person" });
      expect(result.results.map((r) => [r.hook, r.outcome])).toEqual([["asker", "ask"]]);
    });

    it("a crash fails open by default, and the answer says so: never a passing verdict", async () => {
      const e = await start([{ id: "crashy", events: ["pre_tool_use"], command: [fixture("crash.sh")] }]);
      const answer = await e.dispatch("pre_tool_use:bash", bash("ls"));
      const result = resultOf(answer);
      expect(result.decision).toBe("pass");
      expect(result.failedOpen).toHaveLength(1);
      expect(result.failedOpen[0]?.reason).toMatch(/hook crashy exited with code 3: boom: something broke; it failed open/);
      expect(result.results[0]?.outcome).toBe("failed-open");
    });

    it("a crash with failMode closed refuses with an explicit reason", async () => {
      const e = await start([{ id: "crashy", events: ["pre_tool_use"], failMode: "closed", command: [fixture("crash.sh")] }]);
      const result = resultOf(await e.dispatch("pre_tool_use:bash", bash("ls")));
      expect(result.decision).toBe("block");
      expect(result.reason).toMatch(/Tama hook crashy exited with code 3: boom: something broke; its failMode is closed, so this is refused/);
    });

    it("a hook that cannot start resolves by its fail mode", async () => {
      const e = await start([
        { id: "missing-open", events: ["pre_tool_use"], command: [path.join(home.dir, "nope")] },
        { id: "missing-closed", events: ["pre_tool_use"], failMode: "closed", command: [path.join(home.dir, "nope")] },
      ]);
      const result = resultOf(await e.dispatch("pre_tool_use:bash", bash("ls")));
      expect(result.results.map((r) => r.outcome)).toEqual(["failed-open", "failed-closed"]);
      expect(result.reason).toMatch(/could not start: .*ENOENT/);
    });

    it("a hanging hook is ended with its whole process group when its timeout passes", async () => {
      const e = await start([{ id: "hang", events: ["pre_tool_use"], timeoutMs: 500, failMode: "closed", command: [fixture("hang-with-grandchild.sh")] }]);
      const result = resultOf(await e.dispatch("pre_tool_use:bash", bash("ls")));
      expect(result.decision).toBe("block");
      expect(result.reason).toMatch(/gave no answer within 500 ms, so its process group was ended/);
      // the grandchild `sleep 300` is checked gone by afterEach
    });

    it("a hook that ignores SIGTERM is killed", async () => {
      const e = await start([{ id: "stubborn", events: ["pre_tool_use"], timeoutMs: 300, command: [fixture("ignore-term.sh")] }]);
      const result = resultOf(await e.dispatch("pre_tool_use:bash", bash("ls")));
      expect(result.failedOpen[0]?.reason).toMatch(/gave no answer within 300 ms/);
    });

    it("a hook flooding stdout cannot exhaust memory: it is ended and resolves by its fail mode", async () => {
      const e = await start([{ id: "flood", events: ["pre_tool_use"], failMode: "closed", command: [fixture("flood.sh")] }]);
      const result = resultOf(await e.dispatch("pre_tool_use:bash", bash("ls")));
      expect(result.decision).toBe("block");
      expect(result.reason).toMatch(/wrote more than 1048576 bytes on stdout/);
    });

    it("tool hooks run in registry order and the first refusal ends the dispatch", async () => {
      const record = path.join(home.dir, "after.jsonl");
      const e = await start(
        [
          { id: "first", events: ["pre_tool_use"], command: [fixture("block-json.sh")] },
          { id: "second", events: ["pre_tool_use"], command: [fixture("record-input.sh")] },
        ],
        { RECORD_FILE: record },
      );
      const result = resultOf(await e.dispatch("pre_tool_use:bash", bash("ls")));
      expect(result.results.map((r) => r.hook)).toEqual(["first"]);
      expect(() => readFileSync(record)).toThrow();
    });

    it("tool matchers: shell, write, and a list of names", async () => {
      const e = await start([
        { id: "shell-only", events: ["pre_tool_use"], tools: "shell", command: [fixture("block-json.sh")] },
        { id: "read-only", events: ["pre_tool_use"], tools: ["Read"], command: [fixture("crash.sh")] },
      ]);
      expect(resultOf(await e.dispatch("pre_tool_use:bash", bash("ls"))).results.map((r) => r.hook)).toEqual(["shell-only"]);
      expect(resultOf(await e.dispatch("pre_tool_use:functions.exec_command", { session_id: "s", cwd: home.dir, tool_input: { cmd: "ls" } })).results.map((r) => r.hook)).toEqual(["shell-only"]);
      const read = resultOf(await e.dispatch("pre_tool_use:read", { session_id: "s", cwd: home.dir, tool_input: { path: "a.txt" } }));
      expect(read.results.map((r) => r.hook)).toEqual(["read-only"]);
      expect(resultOf(await e.dispatch("pre_tool_use:grep", { session_id: "s", cwd: home.dir, tool_input: { pattern: "x" } })).results).toEqual([]);
    });

    it("an edit touching several files is assessed for every target before it is applied", async () => {
      const record = path.join(home.dir, "targets.jsonl");
      mkdirSync(path.join(home.dir, "src"), { recursive: true });
      const e = await start([{ id: "rec", events: ["pre_tool_use"], tools: "write", command: [fixture("record-input.sh")] }], { RECORD_FILE: record });
      const patch = ["*** Begin Patch", "*** Update File: src/a.ts", "@@", "-x", "+y", "*** Add File: src/b.ts", "+hello", "*** End Patch"].join("\n");
      const result = resultOf(await e.dispatch("pre_tool_use:edit", { session_id: "s", cwd: home.dir, tool_input: { input: patch } }));
      expect(result.results.map((r) => r.target)).toEqual([path.join(home.dir, "src/a.ts"), path.join(home.dir, "src/b.ts")]);
      const files = readFileSync(record, "utf8").trim().split("\n").filter(Boolean).map((l) => (JSON.parse(l) as { tool_input: { file_path: string } }).tool_input.file_path);
      expect(files).toEqual([path.join(home.dir, "src/a.ts"), path.join(home.dir, "src/b.ts")]);
    });
  });
});
}

describe("stop", () => {
  it("runs stop hooks side by side and waits for all; records keep registry order", async () => {
    const hooks = ["a", "b", "c", "d"].map((id) => ({ id: `slow-${id}`, events: ["stop"], command: [fixture("sleep-300ms.sh")] }));
    const e = await start(hooks);
    const result = resultOf(await e.dispatch("stop", { session_id: "s1", cwd: home.dir }));
    expect(result.results.map((r) => r.hook)).toEqual(["slow-a", "slow-b", "slow-c", "slow-d"]);
    // Side by side, by ordering rather than a clock: every hook started before any ended.
    const firstEnd = Math.min(...result.results.map((r) => r.startMs + r.ms));
    for (const r of result.results) expect(r.startMs).toBeLessThan(firstEnd);
  });

  it("joins every refusal's reason in registry order", async () => {
    const e = await start([
      { id: "one", events: ["stop"], command: [fixture("block-json.sh")] },
      { id: "two", events: ["stop"], command: [fixture("crash.sh")], failMode: "closed" },
    ]);
    const result = resultOf(await e.dispatch("stop", { session_id: "s1", cwd: home.dir }));
    expect(result.decision).toBe("block");
    expect(result.reason?.split("\n\n")[0]).toBe("blocked by JSON");
    expect(result.reason?.split("\n\n")[1]).toMatch(/Tama hook two/);
  });
});

describe("answers come as requests finish", () => {
  it("a fast dispatch is answered before a slow one sent earlier", async () => {
    const fifo = path.join(home.dir, "hold.fifo");
    const { execFileSync } = await import("node:child_process");
    execFileSync("mkfifo", [fifo]);
    const e = await start(
      [
        { id: "held", events: ["pre_tool_use"], tools: ["bash"], command: [fixture("wait-fifo.sh")] },
        { id: "quick", events: ["pre_tool_use"], tools: ["read"], command: [fixture("record-input.sh")] },
      ],
      { HOLD_FIFO: fifo, RECORD_FILE: path.join(home.dir, "q.jsonl") },
    );
    const slow = e.dispatch("pre_tool_use:bash", bash("make"));
    const fast = await e.dispatch("pre_tool_use:read", { session_id: "s1", cwd: home.dir, tool_input: { path: "x" } });
    expect(fast.ok).toBe(true);
    const { writeFileSync } = await import("node:fs");
    writeFileSync(fifo, "go\n");
    const slowAnswer = await slow;
    const order = e.frames.filter((f) => f.id === slowAnswer.id || f.id === fast.id).map((f) => f.id);
    expect(order).toEqual([fast.id, slowAnswer.id]);
  });
});
