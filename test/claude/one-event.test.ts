// One-event mode (`tama run-hook <Event> <agent-id>`) on Claude Code's own payloads,
// in the shapes Claude Code sends them: each reaches the hooks as it was sent, and the
// registry's matchers read Claude's names. The tools the pinned Claude Code no longer
// offers itself (Glob, Grep, MultiEdit, Task, an MCP server's) are covered here; the
// ones it runs are also run for real in install.test.ts.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTestHome, ROOT, TAMA_BIN, type TestHome } from "../support/engine-client.ts";

const RECORD = path.join(ROOT, "test/fixtures/hooks/record-input.sh");

let home: TestHome;
let recordFile: string;
beforeEach(() => {
  home = makeTestHome("tama-claude-one-event-");
  recordFile = path.join(home.dir, "record.jsonl");
});
afterEach(() => home.cleanup());

function registry(hooks: Record<string, unknown>[]) {
  const record = { id: "record", events: ["session_start", "user_prompt_submit", "pre_tool_use", "post_tool_use", "stop", "session_end"], command: [RECORD] };
  home.writeRegistry({ schema: 1, release: null, hooks: [record, ...hooks] });
}

function runHook(event: string, payload: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) {
  const base: NodeJS.ProcessEnv = { ...process.env, TAMA_HOME: home.home, RECORD_FILE: recordFile };
  delete base.TAMA_AGENT_ID;
  delete base.TAMA_PROVIDER;
  const r = spawnSync(process.execPath, [TAMA_BIN, "run-hook", event, "claude-test"], { input: JSON.stringify(payload), env: { ...base, ...env }, encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function recorded(): Record<string, unknown>[] {
  return readFileSync(recordFile, "utf8")
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const common = (event: string) => ({
  session_id: "5a1f0c2e-claude",
  transcript_path: "/home/u/.claude/projects/p/5a1f0c2e-claude.jsonl",
  // The hooks start in the payload's cwd, so it must exist.
  cwd: home.dir,
  permission_mode: "default",
  prompt_id: "7648e014",
  hook_event_name: event,
});

const pre = (tool: string, input: Record<string, unknown>, id: string) => ({
  ...common("PreToolUse"),
  effort: { level: "medium" },
  tool_name: tool,
  tool_input: input,
  tool_use_id: id,
});

/** Claude Code's calls, one per tool, as it sends them before the call. */
const CALLS: [string, Record<string, unknown>][] = [
  ["Write", { file_path: "/home/dev/project/new.ts", content: "export {};\n" }],
  ["Read", { file_path: "/home/dev/project/op.env.local", offset: 10, limit: 5 }],
  ["Edit", { file_path: "/home/dev/project/a.ts", old_string: "a", new_string: "b", replace_all: false }],
  ["MultiEdit", { file_path: "/home/dev/project/a.ts", edits: [{ old_string: "a", new_string: "b" }] }],
  ["Bash", { command: "npm test", timeout: 120000, description: "run the tests" }],
  ["Glob", { pattern: "**/*.ts", path: "/home/dev/project/src" }],
  ["Grep", { pattern: "TODO", "-i": true, output_mode: "content", glob: "*.ts" }],
  ["WebFetch", { url: "https://example.com/doc", prompt: "summarise" }],
  ["Task", { description: "look around", prompt: "find the config", subagent_type: "general-purpose" }],
  ["Agent", { description: "look around", prompt: "find the config", subagent_type: "general-purpose" }],
  ["mcp__github__create_issue", { owner: "o", repo: "r", title: "t" }],
];

describe("tama run-hook on Claude Code's own payloads", () => {
  for (const [tool, input] of CALLS) {
    it(`${tool}: the hook reads the call as Claude sent it, and it passes`, () => {
      registry([]);
      const payload = pre(tool, input, `toolu_${tool}`);
      const r = runHook("PreToolUse", payload);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout).toBe("");
      expect(recorded()).toEqual([payload]);
    });
  }

  it("a PostToolUse keeps Claude's per-tool tool_response and duration_ms", () => {
    registry([]);
    const payload = {
      ...common("PostToolUse"),
      tool_name: "Bash",
      tool_input: { command: "echo hi" },
      tool_response: { stdout: "hi", stderr: "", interrupted: false, isImage: false, noOutputExpected: false },
      tool_use_id: "toolu_1",
      duration_ms: 20,
    };
    expect(runHook("PostToolUse", payload).code).toBe(0);
    const failure = { ...payload, hook_event_name: "PostToolUseFailure", error: "Exit code 1" };
    expect(runHook("PostToolUseFailure", failure).code).toBe(0);
    expect(recorded()).toEqual([payload, failure]);
  });

  it("a result hook limited to failures runs for PostToolUseFailure only, one limited to successes for PostToolUse only", () => {
    const only = (results: string) => ({ id: `only-${results}`, events: ["post_tool_use"], results, command: ["sh", "-c", `cat >/dev/null; echo ${results} >> '${recordFile}.kinds'`] });
    registry([only("success"), only("failure")]);
    const payload = { ...common("PostToolUse"), tool_name: "Bash", tool_input: { command: "make" }, tool_response: { stdout: "" }, tool_use_id: "toolu_2" };
    expect(runHook("PostToolUse", payload).code).toBe(0);
    expect(runHook("PostToolUseFailure", { ...payload, hook_event_name: "PostToolUseFailure", error: "Exit code 2" }).code).toBe(0);
    expect(readFileSync(`${recordFile}.kinds`, "utf8")).toBe("success\nfailure\n");
  });

  it("SessionStart, UserPromptSubmit, Stop and SessionEnd keep every field Claude sends", () => {
    registry([]);
    const payloads: [string, Record<string, unknown>][] = [
      ["SessionStart", { ...common("SessionStart"), source: "startup" }],
      ["UserPromptSubmit", { ...common("UserPromptSubmit"), prompt: "go" }],
      ["Stop", { ...common("Stop"), stop_hook_active: false, last_assistant_message: "done", background_tasks: [] }],
      ["SessionEnd", { ...common("SessionEnd"), reason: "other" }],
    ];
    for (const [event, payload] of payloads) expect(runHook(event, payload).code).toBe(0);
    expect(recorded()).toEqual(payloads.map(([, payload]) => payload));
  });

  it("matchers read Claude's names: the write kind, a list, an MCP prefix", () => {
    const refuse = (id: string) => home.script(`${id}.sh`, `#!/bin/sh\ncat >/dev/null\necho "${id} refused" >&2\nexit 2\n`);
    registry([
      { id: "writes", events: ["pre_tool_use"], tools: "write", command: [refuse("writes")] },
      { id: "reads", events: ["pre_tool_use"], tools: ["Read"], command: [refuse("reads")] },
      { id: "mcp", events: ["pre_tool_use"], tools: ["mcp__github__*"], command: [refuse("mcp")] },
    ]);
    for (const [tool, input] of CALLS) {
      const r = runHook("PreToolUse", pre(tool, input, "toolu_x"));
      const expected = ["Write", "Edit", "MultiEdit"].includes(tool) ? "writes" : tool === "Read" ? "reads" : tool.startsWith("mcp__") ? "mcp" : undefined;
      if (expected === undefined) {
        expect(r.code, tool).toBe(0);
        continue;
      }
      expect(r.code, tool).toBe(2);
      expect(r.stderr, tool).toBe(`${expected} refused\n`);
      expect(JSON.parse(r.stdout)).toEqual({ decision: "block", reason: `${expected} refused` });
    }
  });

  it("an ask is Claude's permissionDecision ask; a pass's context is additionalContext Claude gives the model", () => {
    const ask = home.script(
      "ask.sh",
      `#!/bin/sh\ncat >/dev/null\nprintf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"ask first"}}'\n`,
    );
    const context = home.script("context.sh", `#!/bin/sh\ncat >/dev/null\nprintf '%s' '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"a note"}}'\n`);
    registry([
      { id: "ask", events: ["pre_tool_use"], tools: ["Bash"], command: [ask] },
      { id: "context", events: ["user_prompt_submit"], command: [context] },
    ]);
    const asked = runHook("PreToolUse", pre("Bash", { command: "ls" }, "toolu_a"));
    expect(asked.code).toBe(0);
    expect(JSON.parse(asked.stdout)).toEqual({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "ask", permissionDecisionReason: "ask first" } });
    const noted = runHook("UserPromptSubmit", { ...common("UserPromptSubmit"), prompt: "go" });
    expect(noted.code).toBe(0);
    expect(JSON.parse(noted.stdout)).toEqual({ hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "a note" } });
  });

  it("the built-in shell gate reads Claude's Bash; Codex keeps its minimal answer", () => {
    home.writeRegistry({ schema: 1, release: null, hooks: [{ id: "block-git-hook-bypass", events: ["pre_tool_use"], tools: "shell", builtin: "block-git-hook-bypass" }] });
    const bypass = pre("Bash", { command: "git commit --no-verify -m x" }, "toolu_b");
    const claude = runHook("PreToolUse", bypass);
    expect(claude.code).toBe(2);
    expect(claude.stderr).toMatch(/--no-verify/);
    const codex = runHook("PreToolUse", { ...bypass, tool_name: "exec_command", tool_input: { cmd: "git commit --no-verify -m x" } }, { TAMA_PROVIDER: "codex" });
    expect(codex.code).toBe(0);
    expect(Object.keys(JSON.parse(codex.stdout) as object)).toEqual(["decision", "reason"]);
    expect(runHook("PreToolUse", { ...bypass, tool_input: { command: "git log" } }, { TAMA_PROVIDER: "codex" }).stdout).toBe("");
  });
});
