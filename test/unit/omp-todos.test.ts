import { appendFileSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readSessionTodos } from "../../modules/gates/omp-todos.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "todos-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const todo = (id: string, parentId: string | null, status: string, content = "task") =>
  JSON.stringify({ type: "message", id, parentId, message: { role: "toolResult", toolName: "todo", details: { op: "start", phases: [{ name: "P", tasks: [{ content, status }] }] } } });
const text = (id: string, parentId: string | null, filler = "") => JSON.stringify({ type: "message", id, parentId, message: { role: "assistant", content: filler } });
const write = (lines: string[]) => {
  const file = path.join(dir, "s.jsonl");
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
};

describe("readSessionTodos", () => {
  it("returns the newest todo list", () => {
    const file = write([todo("a", null, "pending"), text("b", "a"), todo("c", "b", "completed")]);
    expect(readSessionTodos(file)?.map((t) => t.status)).toEqual(["completed"]);
  });

  it("follows the active branch, not file order", () => {
    // c was written after b, but the leaf d hangs off b's branch
    const file = write([todo("a", null, "pending", "root"), todo("b", "a", "in_progress", "on-branch"), todo("c", "a", "completed", "abandoned-branch"), text("d", "b")]);
    expect(readSessionTodos(file)?.map((t) => t.content)).toEqual(["on-branch"]);
  });

  it("reads a user's /todo edit and lines that span read chunks", () => {
    const big = "x".repeat(200 * 1024);
    const edit = JSON.stringify({ type: "custom", id: "e", parentId: "a", customType: "user_todo_edit", data: { phases: [{ name: "Mine", tasks: [{ content: "by hand", status: "pending" }] }] } });
    const file = write([text("a", null, big), edit, text("f", "e", big), text("g", "f", big)]);
    expect(readSessionTodos(file)).toEqual([{ phase: "Mine", content: "by hand", status: "pending" }]);
  });

  it("is undefined for a session that never wrote todos, and ignores a torn last line", () => {
    const file = path.join(dir, "t.jsonl");
    writeFileSync(file, `${text("a", null)}\n${todo("b", "a", "pending")}\n{"type":"mess`);
    expect(readSessionTodos(file)?.[0]?.status).toBe("pending");
    expect(readSessionTodos(write([text("a", null), text("b", "a")]))).toBeUndefined();
  });

  it("reads what was appended since the last call, branches included", () => {
    const file = write([text("a", null), text("b", "a")]);
    expect(readSessionTodos(file)).toBeUndefined();
    appendFileSync(file, `${todo("c", "b", "pending", "first")}\n`);
    expect(readSessionTodos(file)?.map((t) => t.content)).toEqual(["first"]);
    // A torn append is not an entry until its line is whole.
    appendFileSync(file, `${todo("d", "c", "completed", "second").slice(0, 20)}`);
    expect(readSessionTodos(file)?.map((t) => t.content)).toEqual(["first"]);
    appendFileSync(file, `${todo("d", "c", "completed", "second").slice(20)}\n`);
    expect(readSessionTodos(file)?.map((t) => t.content)).toEqual(["second"]);
    // A new leaf off b: the branch without todos.
    appendFileSync(file, `${text("e", "b")}\n`);
    expect(readSessionTodos(file)).toBeUndefined();
    appendFileSync(file, `${text("f", "d")}\n`);
    expect(readSessionTodos(file)?.map((t) => t.content)).toEqual(["second"]);
  });

  it("reads entries written otherwise than OMP writes them (keys in another order, escaped ids, no parent) by parsing them", () => {
    const reordered = JSON.stringify({ id: "b", type: "message", parentId: "a", message: { role: "assistant", content: "x" } });
    const escaped = JSON.stringify({ type: "message", id: 'c"1', parentId: "b", message: { role: "assistant", content: 'says "phases" in text' } });
    const file = write([todo("a", null, "pending", "kept"), reordered, escaped, text("d", 'c"1'), todo("z", null, "completed", "other root")]);
    appendFileSync(file, `${text("e", "d")}\n`);
    expect(readSessionTodos(file)?.map((t) => t.content)).toEqual(["kept"]);
    // A branch whose leaf has no parent field at all stands on nothing.
    appendFileSync(file, `${JSON.stringify({ type: "message", id: "f", message: { role: "assistant", content: "" } })}\n`);
    expect(readSessionTodos(file)).toBeUndefined();
  });

  it("reads a replaced or rewritten file again from its start", () => {
    const file = write([todo("a", null, "pending", "old")]);
    expect(readSessionTodos(file)?.map((t) => t.content)).toEqual(["old"]);
    const other = path.join(dir, "other.jsonl");
    writeFileSync(other, `${todo("a", null, "pending", "new")}\n${text("b", "a")}\n`);
    renameSync(other, file);
    expect(readSessionTodos(file)?.map((t) => t.content)).toEqual(["new"]);
    // Rewritten in place (not OMP's way, which renames a new file over it), longer, with another header.
    writeFileSync(file, `${todo("a", null, "pending", "neu")}\n${text("b", "a")}\n${text("c", "b")}\n`);
    expect(readSessionTodos(file)?.map((t) => t.content)).toEqual(["neu"]);
  });
});
