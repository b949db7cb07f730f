// The activity store: what a real engine writes per answered dispatch (the logs'
// allowlist, a capped reason, private files), and the store's own bounds.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ActivityStore, FILE_COUNT_CAP, readActivity, REASON_CAP, type ActivityRecord } from "../../modules/engine/activity.ts";
import { EngineClient, makeTestHome, resultOf, type TestHome } from "../support/engine-client.ts";

let home: TestHome | undefined;
let scratch: string | undefined;
afterEach(() => {
  home?.cleanup();
  home = undefined;
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
});

const CANARY = "CANARY-7f3a9c";

describe("the engine's activity records", () => {
  it("hold one allowlisted line per answered dispatch: never the prompt, the tool's input or output, a reason capped; 0600 in 0700", async () => {
    home = makeTestHome();
    const hook = home.script(
      "refuse-marked.sh",
      // The hook reads the payload (which holds the canary) and answers in its own words only.
      `#!/bin/sh\ninput=$(cat)\ncase "$input" in *REFUSE-ME*) printf 'refused by policy %0500d' 0 >&2; exit 2;; esac\nexit 0\n`,
    );
    home.writeRegistry({
      schema: 1,
      release: { id: "r1" },
      hooks: [
        { id: "marked", events: ["user_prompt_submit", "pre_tool_use", "post_tool_use"], tools: "any", command: [hook] },
        { id: "block-git-hook-bypass", events: ["pre_tool_use"], tools: "shell", builtin: "block-git-hook-bypass" },
      ],
    });
    const engine = new EngineClient(home);
    await engine.ready();
    const base = { session_id: "s-activity", cwd: home.dir };
    expect(resultOf(await engine.dispatch("user_prompt_submit", { ...base, prompt: `say ${CANARY} please` })).decision).toBe("pass");
    expect(resultOf(await engine.dispatch("pre_tool_use:bash", { ...base, tool_name: "bash", tool_input: { command: `echo ${CANARY}` } })).decision).toBe("pass");
    const refused = resultOf(await engine.dispatch("pre_tool_use:bash", { ...base, tool_name: "bash", tool_input: { command: `echo REFUSE-ME ${CANARY}` } }));
    expect(refused.decision).toBe("block");
    expect(
      resultOf(await engine.dispatch("post_tool_use:bash", { ...base, tool_name: "bash", tool_input: { command: "ls" }, tool_response: `out ${CANARY}` })).decision,
    ).toBe("pass");
    expect(await engine.close()).toBe(0);

    const dir = path.join(home.home, "activity");
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const files = readdirSync(dir);
    expect(files).toEqual([`${engine.pid}.jsonl`]);
    const file = path.join(dir, files[0]!);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, "utf8");
    expect(text).not.toContain(CANARY);
    expect(text).not.toContain("REFUSE-ME");

    const { records, unreadLines } = readActivity(dir);
    expect(unreadLines).toBe(0);
    expect(records.map((r) => [r.event, r.tool, r.decision])).toEqual([
      ["user_prompt_submit", null, "pass"],
      ["pre_tool_use:bash", "bash", "pass"],
      ["pre_tool_use:bash", "bash", "block"],
      ["post_tool_use:bash", "bash", "pass"],
    ]);
    const block = records[2]!;
    expect(block).toMatchObject({ session: "s-activity", engine: engine.pid });
    expect(block.hooks).toHaveLength(1);
    expect(block.hooks[0]).toMatchObject({ hook: "marked", outcome: "block" });
    expect(block.hooks[0]!.reason!.startsWith("refused by policy 000")).toBe(true);
    expect(block.hooks[0]!.reason!.length).toBe(REASON_CAP);
    expect(records[1]!.hooks.map((h) => `${h.hook}:${h.outcome}`)).toEqual(["marked:pass", "block-git-hook-bypass:pass"]);
    expect(Object.keys(records[1]!.stages)).toContain("hooksEnded");
    // Only the allowlisted fields, nothing else of the payload.
    for (const r of records) expect(Object.keys(r).sort()).toEqual(["at", "decision", "dispatch", "engine", "event", "hooks", "session", "slowestStage", "stages", "tool", "totalMs", "v"]);
  });
});

function record(i: number, pad = 0): ActivityRecord {
  return {
    v: 1,
    at: 1_700_000_000_000 + i,
    engine: 4242,
    dispatch: `d${i}`,
    session: "s",
    event: "pre_tool_use:bash",
    tool: "bash",
    decision: "pass",
    hooks: [{ hook: `h${"x".repeat(pad)}`, outcome: "pass", ms: 1 }],
    totalMs: 2,
    stages: {},
    slowestStage: null,
  };
}

describe("ActivityStore", () => {
  it("rotates one engine's file past its cap and keeps every file together under the total cap", async () => {
    scratch = mkdtempSync(path.join(os.tmpdir(), "tama-activity-"));
    const dir = path.join(scratch, "activity");
    mkdirSync(dir, { mode: 0o700 });
    // An older engine's file, the oldest on disk: removed first when the total is over.
    const old = path.join(dir, "17.jsonl");
    writeFileSync(old, `${JSON.stringify(record(0, 3000))}\n`, { mode: 0o600 });
    const warnings: string[] = [];
    const store = new ActivityStore(dir, (m) => warnings.push(m), { fileBytes: 4000, totalBytes: 9000 }, 4242);
    for (let i = 1; i <= 40; i++) {
      store.add(record(i, 200));
      if (i % 5 === 0) await store.flush();
    }
    await store.flush();
    expect(warnings).toEqual([]);
    const names = readdirSync(dir).sort();
    expect(names).toEqual(["4242.1.jsonl", "4242.jsonl"]);
    const total = names.reduce((sum, n) => sum + statSync(path.join(dir, n)).size, 0);
    expect(total).toBeLessThanOrEqual(9000);
    for (const n of names) {
      expect(statSync(path.join(dir, n)).size).toBeLessThanOrEqual(4000);
      expect(statSync(path.join(dir, n)).mode & 0o777).toBe(0o600);
    }
    // The newest lines survive, in order, every one whole.
    const read = readActivity(dir);
    expect(read.unreadLines).toBe(0);
    expect(read.records.at(-1)!.dispatch).toBe("d40");
    const ids = read.records.map((r) => Number(String(r.dispatch).slice(1)));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it("turns itself off with one warning when it cannot write, and never throws to its caller", async () => {
    scratch = mkdtempSync(path.join(os.tmpdir(), "tama-activity-"));
    const notADir = path.join(scratch, "activity");
    writeFileSync(notADir, "a file where the directory should be");
    const warnings: string[] = [];
    const store = new ActivityStore(notADir, (m) => warnings.push(m));
    store.add(record(1));
    await store.flush();
    store.add(record(2));
    await store.flush();
    store.flushSync();
    expect(store.disabled).toBe(true);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^activity is not recorded: cannot write .*activity/);
  });

  it("keeps at most FILE_COUNT_CAP files: a one-event engine per hook call writes one each, at exit", () => {
    scratch = mkdtempSync(path.join(os.tmpdir(), "tama-activity-"));
    const dir = path.join(scratch, "activity");
    mkdirSync(dir, { mode: 0o700 });
    for (let pid = 1; pid <= FILE_COUNT_CAP + 20; pid++) {
      const file = path.join(dir, `${pid}.jsonl`);
      writeFileSync(file, `${JSON.stringify(record(pid))}\n`, { mode: 0o600 });
      // Each an hour newer than the one before, whatever the clock's resolution.
      utimesSync(file, 1_000_000 + pid * 3600, 1_000_000 + pid * 3600);
    }
    const store = new ActivityStore(dir, () => {}, undefined, 999_999);
    store.add(record(100_000));
    store.flushSync();
    const names = readdirSync(dir);
    expect(names).toHaveLength(FILE_COUNT_CAP);
    expect(names).toContain("999999.jsonl");
    // The oldest went first.
    for (let pid = 1; pid <= 21; pid++) expect(names).not.toContain(`${pid}.jsonl`);
    expect(names).toContain("22.jsonl");
  });

  it("writes what it still holds synchronously (at process exit)", () => {
    scratch = mkdtempSync(path.join(os.tmpdir(), "tama-activity-"));
    const dir = path.join(scratch, "activity");
    const store = new ActivityStore(dir, () => {}, undefined, 99);
    store.add(record(1));
    store.add(record(2));
    store.flushSync();
    expect(readActivity(dir).records.map((r) => r.dispatch)).toEqual(["d1", "d2"]);
    expect(statSync(path.join(dir, "99.jsonl")).mode & 0o777).toBe(0o600);
  });

  it("counts lines it cannot read instead of failing (a line cut short, another version)", () => {
    scratch = mkdtempSync(path.join(os.tmpdir(), "tama-activity-"));
    writeFileSync(path.join(scratch, "5.jsonl"), `${JSON.stringify(record(1))}\n{"v":1,"at":\n${JSON.stringify({ ...record(2), v: 9 })}\n`);
    const read = readActivity(scratch);
    expect(read.records).toHaveLength(1);
    expect(read.unreadLines).toBe(2);
  });
});
