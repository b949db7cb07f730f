// OMP's tool results as Claude Code's per-tool `tool_response` and PostToolUseFailure
// fields, through the engine's mapping (toHookTargets), as every hook reads them.
// The shapes are the ones real Claude Code 2.1.328 sent for the same calls
// (test/claude/side-by-side.test.ts compares them against it).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { toHookTargets } from "../../modules/claude/hook-input.ts";
import { structuredPatch } from "../../modules/claude/tool-response.ts";
import { parseEvent, type DispatchPayload } from "../../modules/protocol/engine.ts";

const CWD = "/work/project";

function post(tool: string, payload: DispatchPayload): Record<string, unknown> {
  const event = parseEvent(`post_tool_use:${tool}`);
  if (!event) throw new Error("bad event");
  const shaped = toHookTargets(event, { cwd: CWD, tool_call_id: "c1", ...payload });
  if (!shaped.ok) throw new Error(shaped.error);
  const target = shaped.targets[0];
  if (!target) throw new Error("no target");
  // What a command hook reads: its stdin.
  return JSON.parse(JSON.stringify(target.input)) as Record<string, unknown>;
}

const text = (t: string) => ({ content: [{ type: "text", text: t }], isError: false });

describe("PostToolUse tool_response per tool", () => {
  it("Bash: stdout without OMP's Wall time and exit-code lines; stderr empty (OMP merges them, as Claude's -p did)", () => {
    const input = post("bash", {
      tool_input: { command: "echo fine" },
      tool_response: text("fine\nwarn\n\nWall time: 0.01 seconds"),
      tool_details: { wallTimeMs: 12 },
      duration_ms: 15.4,
    });
    expect(input.hook_event_name).toBe("PostToolUse");
    expect(input.tool_response).toEqual({ stdout: "fine\nwarn", stderr: "", interrupted: false, isImage: false, noOutputExpected: false });
    expect(input.duration_ms).toBe(15);
    // OMP's own result stays beside it.
    expect((input.omp as { tool_response: unknown }).tool_response).toEqual(text("fine\nwarn\n\nWall time: 0.01 seconds"));
  });

  it("Read: type text with the file's raw content and Claude's line counts (a final newline is one more line)", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "tama-read-"));
    try {
      writeFileSync(path.join(dir, "b.txt"), "one\ntwo\nthree\n");
      writeFileSync(path.join(dir, "c.txt"), "one\ntwo");
      const read = (file: string, shown: string, total: number) =>
        post("read", { cwd: dir, tool_input: { path: file }, tool_response: text("1#ab|one"), tool_details: { totalLines: total, displayContent: { text: shown, startLine: 1 } } }).tool_response;
      expect(read("b.txt", "one\ntwo\nthree", 3)).toEqual({ type: "text", file: { filePath: path.join(dir, "b.txt"), content: "one\ntwo\nthree\n", numLines: 4, startLine: 1, totalLines: 4 } });
      expect(read("c.txt", "one\ntwo", 2)).toEqual({ type: "text", file: { filePath: path.join(dir, "c.txt"), content: "one\ntwo", numLines: 2, startLine: 1, totalLines: 2 } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("Write: create when there was no file, update with the patch when there was", () => {
    const created = post("write", { tool_input: { path: "a.txt", content: "hello\n" }, tool_response: text("ok"), original_file: null });
    expect(created.tool_response).toEqual({ type: "create", filePath: `${CWD}/a.txt`, content: "hello\n", structuredPatch: [], originalFile: null, userModified: false });
    const updated = post("write", { tool_input: { path: "a.txt", content: "one\nTWO\n" }, tool_response: text("ok"), original_file: "one\ntwo\n" });
    expect(updated.tool_response).toMatchObject({ type: "update", originalFile: "one\ntwo\n", structuredPatch: [{ oldStart: 1, oldLines: 2, newStart: 1, newLines: 2, lines: [" one", "-two", "+TWO"] }] });
  });

  it("Write whose file the adapter could not read: OMP's result as it is", () => {
    const input = post("write", { tool_input: { path: "a.txt", content: "x" }, tool_response: text("ok") });
    expect(input.tool_response).toEqual(text("ok"));
  });

  it("Edit: Claude's fields, the original file and the patch", () => {
    const input = post("edit", {
      tool_input: { path: "b.txt", old_string: "two", new_string: "TWO" },
      tool_response: text("edited"),
      tool_details: { oldText: "one\ntwo\nthree\n", newText: "one\nTWO\nthree\n" },
    });
    expect(input.tool_input).toEqual({ file_path: `${CWD}/b.txt`, old_string: "two", new_string: "TWO", replace_all: false });
    expect(input.tool_response).toEqual({
      filePath: `${CWD}/b.txt`,
      oldString: "two",
      newString: "TWO",
      originalFile: "one\ntwo\nthree\n",
      structuredPatch: [{ oldStart: 1, oldLines: 3, newStart: 1, newLines: 3, lines: [" one", "-two", "+TWO", " three"] }],
      userModified: false,
      replaceAll: false,
    });
  });

  it("a tool without a Claude shape keeps OMP's result", () => {
    const input = post("grep", { tool_input: { pattern: "x" }, tool_response: text("a.ts:1:x") });
    expect(input.tool_response).toEqual(text("a.ts:1:x"));
  });
});

describe("a failed call is PostToolUseFailure", () => {
  it("Bash with a non-zero exit: Claude's `Exit code N` error, no tool_response", () => {
    const input = post("bash", {
      tool_input: { command: "exit 3" },
      tool_response: { content: [{ type: "text", text: "out\nerr\n\nWall time: 0.02 seconds\n\nCommand exited with code 3" }], isError: true },
      is_error: true,
      tool_details: { exitCode: 3, wallTimeMs: 20 },
      duration_ms: 21,
    });
    expect(input.hook_event_name).toBe("PostToolUseFailure");
    expect(input.error).toBe("Exit code 3\nout\nerr");
    expect(input.is_interrupt).toBe(false);
    expect(input.duration_ms).toBe(21);
    expect(input).not.toHaveProperty("tool_response");
  });

  it("a cancelled command is an interrupt; another tool's error is its text", () => {
    const cancelled = post("bash", { tool_input: { command: "sleep 9" }, tool_response: { content: [{ type: "text", text: "[Command cancelled]" }], isError: true }, is_error: true });
    expect(cancelled.is_interrupt).toBe(true);
    const read = post("read", { tool_input: { path: "missing.txt" }, tool_response: { content: [{ type: "text", text: "File not found" }], isError: true }, is_error: true });
    expect(read).toMatchObject({ hook_event_name: "PostToolUseFailure", error: "File not found", is_interrupt: false });
  });
});

describe("the per-tool response is built when a hook reads it", () => {
  it("a target whose input nobody serializes builds nothing", () => {
    const event = parseEvent("post_tool_use:read");
    if (!event) throw new Error("bad event");
    const shaped = toHookTargets(event, { cwd: CWD, tool_input: { path: "b.txt" }, tool_response: text("x"), tool_details: { displayContent: { text: "x", startLine: 1 } } });
    if (!shaped.ok) throw new Error(shaped.error);
    const input = shaped.targets[0]?.input as Record<string, unknown>;
    const descriptor = Object.getOwnPropertyDescriptor(input, "tool_response");
    expect(typeof descriptor?.get).toBe("function");
    expect(descriptor?.enumerable).toBe(true);
    // Read twice, built once: the same object.
    expect(input.tool_response).toBe(input.tool_response);
  });
});

describe("structuredPatch", () => {
  it("is one hunk with three lines of context around the change", () => {
    const before = ["a", "b", "c", "d", "e", "f", "g", "h"].join("\n") + "\n";
    const after = before.replace("e", "E");
    expect(structuredPatch(before, after)).toEqual([{ oldStart: 2, oldLines: 7, newStart: 2, newLines: 7, lines: [" b", " c", " d", "-e", "+E", " f", " g", " h"] }]);
  });

  it("is empty for the same text, and all added lines for a new one", () => {
    expect(structuredPatch("x\n", "x\n")).toEqual([]);
    expect(structuredPatch("", "a\nb\n")).toEqual([{ oldStart: 0, oldLines: 0, newStart: 1, newLines: 2, lines: ["+a", "+b"] }]);
  });
});
