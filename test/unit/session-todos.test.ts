// The open tasks the adapter reads from OMP's session in memory (adapter/session-todos.ts),
// and the gates preferring them to the session file the agent can rewrite.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openTodosField } from "../../adapter/session-todos.ts";
import { blockOpenTodos } from "../../modules/gates/block-open-todos.ts";
import { openTodosOf } from "../../modules/gates/omp-todos.ts";
import { DispatchPayload, OPEN_TODOS_NAMED, TODO_TEXT_MAX } from "../../modules/protocol/engine.ts";

type Entry = { type: string; id: string; parentId: string | null; [key: string]: unknown };

/** OMP's session manager as far as the adapter reads it, counting each entry it is asked for. */
class Session {
  readonly byId = new Map<string, Entry>();
  leaf: Entry | undefined;
  asked = 0;
  add(entry: Entry): this {
    this.byId.set(entry.id, entry);
    this.leaf = entry;
    return this;
  }
  getSessionId = (): string => "s";
  getSessionFile = (): string | undefined => undefined;
  getLeafEntry = (): Entry | undefined => this.leaf;
  getEntry = (id: string): Entry | undefined => {
    this.asked += 1;
    return this.byId.get(id);
  };
}

const tasks = (...list: [string, string][]) => [{ name: "P", tasks: list.map(([content, status]) => ({ content, status })) }];
const todo = (id: string, parentId: string | null, ...list: [string, string][]): Entry => ({
  type: "message",
  id,
  parentId,
  message: { role: "toolResult", toolName: "todo", details: { op: "start", phases: tasks(...list) } },
});
const text = (id: string, parentId: string | null): Entry => ({ type: "message", id, parentId, message: { role: "assistant", content: "…" } });

describe("the open tasks OMP holds", () => {
  it("are the newest list on the active branch, read back only over entries made since the last event", () => {
    const session = new Session().add(text("a", null)).add(todo("b", "a", ["one", "pending"], ["two", "completed"], ["three", "in_progress"]));
    for (let i = 0; i < 1000; i++) session.add(text(`t${i}`, i === 0 ? "b" : `t${i - 1}`));
    expect(openTodosField(session)).toEqual({
      open_todos: { count: 2, named: [{ phase: "P", content: "one", status: "pending" }, { phase: "P", content: "three", status: "in_progress" }] },
    });
    expect(session.asked).toBe(1000);
    session.add(text("u", "t999")).add(text("v", "u"));
    session.asked = 0;
    expect(openTodosField(session).open_todos?.count).toBe(2);
    // v's parent u is new; u's parent t999 was read before.
    expect(session.asked).toBe(2);
    // A branch elsewhere: the leaf moves back onto an older entry, nothing is read again.
    session.leaf = session.byId.get("a");
    session.asked = 0;
    expect(openTodosField(session)).toEqual({ open_todos: { count: 0, named: [] } });
    expect(session.asked).toBe(0);
  });

  it("count every open task but name only the first, each within the protocol's bounds", () => {
    const many = Array.from({ length: 20 }, (_, i): [string, string] => [`${"x".repeat(5000)}${i}`, "pending"]);
    const session = new Session().add(todo("a", null, ...many));
    const field = openTodosField(session);
    expect(field.open_todos?.count).toBe(20);
    expect(field.open_todos?.named.length).toBe(OPEN_TODOS_NAMED);
    expect(field.open_todos?.named[0]?.content.length).toBe(TODO_TEXT_MAX.content);
    expect(DispatchPayload.safeParse({ cwd: "/w", ...field }).success).toBe(true);
  });

  it("are none to say when OMP's session cannot be read so, and a parent link that loops ends the walk", () => {
    expect(openTodosField({ getSessionId: () => "s", getSessionFile: () => undefined })).toEqual({});
    const throwing = new Session();
    throwing.getLeafEntry = () => {
      throw new Error("gone");
    };
    expect(openTodosField(throwing)).toEqual({});
    const looped = new Session().add(text("a", "b")).add(text("b", "a"));
    expect(openTodosField(looped)).toEqual({ open_todos: { count: 0, named: [] } });
  });
});

describe("the gates' open tasks", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "held-todos-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("are the ones OMP holds when the adapter hands them over, whatever the session file says", () => {
    // The file as the agent rewrote it: every task done.
    const file = path.join(dir, "s.jsonl");
    writeFileSync(file, `${JSON.stringify(todo("a", null, ["first", "completed"]))}\n`);
    expect(openTodosOf({ transcript_path: file }).count).toBe(0);
    const held = { count: 9, named: [{ phase: "P", content: "first", status: "pending" }] };
    expect(openTodosOf({ transcript_path: file, open_todos: held })).toEqual(held);
    const verdict = blockOpenTodos.evaluate({ hook_event_name: "Stop", cwd: dir, transcript_path: file, open_todos: held } as never, { tamaHome: dir });
    expect(verdict).toMatchObject({ decision: "block" });
    expect((verdict as { reason: string }).reason).toMatch(/^Your todo list still has 9 open tasks:\n- \[pending\] first\n- … and 8 more\n/);
    // And none open is none, though the file says otherwise.
    writeFileSync(file, `${JSON.stringify(todo("a", null, ["first", "pending"]))}\n`);
    expect(blockOpenTodos.evaluate({ hook_event_name: "Stop", cwd: dir, transcript_path: file, open_todos: { count: 0, named: [] } } as never, { tamaHome: dir })).toEqual({ decision: "pass" });
  });
});
