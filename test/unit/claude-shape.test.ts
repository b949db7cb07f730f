import { describe, expect, it } from "vitest";
import { type HookTarget, toHookTargets } from "../../modules/claude/hook-input.ts";
import { type DispatchPayload, EVENT_KINDS, parseEvent } from "../../modules/protocol/engine.ts";

const CWD = "/repo";

function targets(event: string, payload: DispatchPayload): HookTarget[] {
  const parsed = parseEvent(event);
  if (!parsed) throw new Error(`bad event ${event}`);
  const result = toHookTargets(parsed, payload);
  if (!result.ok) throw new Error(result.error);
  return result.targets;
}

function only(event: string, payload: DispatchPayload): HookTarget {
  const all = targets(event, payload);
  expect(all).toHaveLength(1);
  return all[0] as HookTarget;
}

function refusal(event: string, payload: DispatchPayload): string {
  const parsed = parseEvent(event);
  if (!parsed) throw new Error(`bad event ${event}`);
  const result = toHookTargets(parsed, payload);
  if (result.ok) throw new Error(`expected a refusal, got ${JSON.stringify(result.targets)}`);
  return result.error;
}

function pre(tool: string, toolInput: unknown): HookTarget[] {
  return targets(`pre_tool_use:${tool}`, { cwd: CWD, tool_name: tool, tool_input: toolInput, tool_call_id: "call-1" });
}

describe("Claude's session fields, each on the events Claude Code sends it on", () => {
  const session = { cwd: CWD, prompt_id: "p-1", permission_mode: "default", effort: { level: "high" }, source: "resume", reason: "clear" };
  const fieldsOf = (event: string) => {
    const input = only(event, { ...session, tool_input: { command: "ls" } }).input;
    return ["prompt_id", "permission_mode", "effort", "source", "reason"].filter((key) => key in input);
  };

  it("SessionStart has its source and no prompt yet; SessionEnd its reason and the last prompt's id", () => {
    expect(fieldsOf("session_start")).toEqual(["source"]);
    expect(fieldsOf("session_end")).toEqual(["prompt_id", "reason"]);
    expect(only("session_start", session).input.source).toBe("resume");
  });

  it("a prompt has its id and mode; tool events and Stop add the effort", () => {
    expect(fieldsOf("user_prompt_submit")).toEqual(["prompt_id", "permission_mode"]);
    for (const event of ["pre_tool_use:bash", "post_tool_use:bash", "stop"]) expect(fieldsOf(event), event).toEqual(["prompt_id", "permission_mode", "effort"]);
  });
});

describe("event names and common fields", () => {
  const expected: Record<string, string> = {
    session_start: "SessionStart",
    user_prompt_submit: "UserPromptSubmit",
    stop: "Stop",
    session_end: "SessionEnd",
    before_provider_request: "BeforeProviderRequest",
  };

  it.each(Object.entries(expected))("%s → %s, one target of kind other with no names", (event, claude) => {
    const target = only(event, { session_id: "s1", cwd: CWD });
    expect(target).toEqual({ input: { session_id: "s1", cwd: CWD, hook_event_name: claude }, kind: "other", names: [] });
  });

  it("covers every event the protocol knows", () => {
    const tool = new Set(["pre_tool_use", "post_tool_use"]);
    expect(new Set(EVENT_KINDS.filter((k) => !tool.has(k)))).toEqual(new Set(Object.keys(expected)));
    expect(only("pre_tool_use:bash", { tool_input: { command: "ls" } }).input.hook_event_name).toBe("PreToolUse");
    expect(only("post_tool_use:bash", { tool_input: { command: "ls" } }).input.hook_event_name).toBe("PostToolUse");
  });

  it("passes prompt on user_prompt_submit and stop_hook_active on stop only", () => {
    expect(only("user_prompt_submit", { prompt: "hi", cwd: CWD }).input.prompt).toBe("hi");
    expect(only("stop", { stop_hook_active: true, cwd: CWD }).input.stop_hook_active).toBe(true);
    expect(only("stop", { prompt: "stray", cwd: CWD }).input).not.toHaveProperty("prompt");
  });

  it("passes transcript_path and uses process.cwd() only when the payload has no cwd", () => {
    expect(only("session_start", { transcript_path: "/t.jsonl" }).input).toEqual({
      transcript_path: "/t.jsonl",
      cwd: process.cwd(),
      hook_event_name: "SessionStart",
    });
  });

  it("carries tool_use_id on tool events and tool_response on post only", () => {
    const payload = { cwd: CWD, tool_input: { command: "ls" }, tool_call_id: "c9", tool_response: { ok: 1 } };
    const post = only("post_tool_use:bash", payload).input;
    expect(post.tool_use_id).toBe("c9");
    expect(post.tool_response).toEqual({ ok: 1 });
    expect(only("pre_tool_use:bash", payload).input).not.toHaveProperty("tool_response");
  });

  it("takes the tool from the event, not payload.tool_name", () => {
    const target = only("pre_tool_use:bash", { cwd: CWD, tool_name: "read", tool_input: { command: "ls" } });
    expect(target.input.tool_name).toBe("Bash");
  });
});

describe("tool mapping", () => {
  it("bash → Bash with the timeout in milliseconds and async as run_in_background", () => {
    const [target] = pre("bash", { command: "sleep 1", timeout: 30, async: true, cwd: "/x", env: { A: "1" } });
    expect(target).toEqual({
      input: {
        // OMP runs the command in its `cwd` field: so does the hook.
        cwd: "/x",
        hook_event_name: "PreToolUse",
        tool_name: "Bash",
        tool_input: { command: "sleep 1", timeout: 30000, run_in_background: true, env: { A: "1" }, cwd: "/x" },
        tool_use_id: "call-1",
        // The session's, whose project the gates keep.
        omp: { tool_name: "bash", tool_input: { command: "sleep 1", timeout: 30, async: true, cwd: "/x", env: { A: "1" } }, kind: "shell", session_cwd: "/repo" },
      },
      kind: "shell",
      names: ["bash", "Bash"],
    });
    // OMP's timeout 0 disables the deadline; Claude has no spelling for that.
    expect(pre("bash", { command: "x", timeout: 0 })[0]?.input.tool_input).toEqual({ command: "x" });
  });

  it("other shell spellings are Bash too, read through the one tool declaration", () => {
    const [target] = pre("exec_command", { cmd: ["git", "status"] });
    expect(target?.kind).toBe("shell");
    expect(target?.names).toEqual(["exec_command", "Bash"]);
    expect(target?.input.tool_input).toEqual({ command: "git status" });
  });

  it("read → Read with file_path resolved and a line selector as offset/limit", () => {
    expect(pre("read", { path: "src/a.ts" })[0]).toMatchObject({
      kind: "other",
      names: ["read", "Read"],
      target: "/repo/src/a.ts",
      input: { tool_name: "Read", tool_input: { file_path: "/repo/src/a.ts" } },
    });
    expect(pre("read", { path: "src/a.ts:10-19" })[0]?.input.tool_input).toEqual({ file_path: "/repo/src/a.ts", offset: 10, limit: 10 });
    expect(pre("read", { path: "a.ts:5+3:raw" })[0]?.input.tool_input).toEqual({ file_path: "/repo/a.ts", offset: 5, limit: 3 });
    expect(pre("read", { path: "a.ts:40" })[0]?.input.tool_input).toEqual({ file_path: "/repo/a.ts", offset: 40 });
    expect(pre("read", { path: "/abs/.env" })[0]?.input.tool_input).toEqual({ file_path: "/abs/.env" });
  });

  it("read of a URL → WebFetch", () => {
    expect(pre("read", { path: "https://example.com/x" })[0]).toMatchObject({
      names: ["read", "WebFetch"],
      input: { tool_name: "WebFetch", tool_input: { url: "https://example.com/x" } },
    });
  });

  it("write → Write with file_path and content", () => {
    expect(pre("write", { path: "out/b.txt", content: "hi" })[0]).toMatchObject({
      kind: "write",
      names: ["write", "Write"],
      target: "/repo/out/b.txt",
      input: {
        tool_name: "Write",
        tool_input: { file_path: "/repo/out/b.txt", content: "hi" },
        omp: { tool_name: "write", tool_input: { path: "out/b.txt", content: "hi" }, target: "/repo/out/b.txt" },
      },
    });
  });

  it("grep (and its legacy name search) → Grep, case → -i", () => {
    expect(pre("grep", { pattern: "TODO", path: "src", case: false })[0]).toMatchObject({
      kind: "other",
      names: ["grep", "Grep"],
      input: { tool_name: "Grep", tool_input: { pattern: "TODO", path: "src", "-i": true } },
    });
    expect(pre("search", { pattern: "x" })[0]?.names).toEqual(["search", "Grep"]);
  });

  it("glob (and its legacy name find) → Glob with OMP's path as the pattern", () => {
    expect(pre("glob", { path: "src/**/*.ts", limit: 5 })[0]?.input).toMatchObject({
      tool_name: "Glob",
      tool_input: { pattern: "src/**/*.ts" },
    });
    expect(pre("find", { path: "*.md" })[0]?.names).toEqual(["find", "Glob"]);
  });

  it("web_search → WebSearch", () => {
    expect(pre("web_search", { query: "zod 4", recency: "week" })[0]?.input).toMatchObject({
      tool_name: "WebSearch",
      tool_input: { query: "zod 4" },
    });
  });

  it("task → Task, one per subagent of a batch", () => {
    expect(pre("task", { name: "Scout", agent: "scout", task: "find it" })[0]?.input.tool_input).toEqual({
      description: "Scout",
      prompt: "find it",
      subagent_type: "scout",
    });
    const batch = pre("task", { context: "shared", tasks: [{ agent: "a", task: "one" }, { agent: "b", task: "two" }] });
    expect(batch.map((t) => t.input.tool_input)).toEqual([
      { prompt: "one", subagent_type: "a" },
      { prompt: "two", subagent_type: "b" },
    ]);
    expect(batch.every((t) => t.names.join() === "task,Task")).toBe(true);
  });

  it("todo init → TodoWrite; incremental todo ops keep OMP's name", () => {
    const init = pre("todo", { op: "init", list: [{ phase: "p", items: ["a", "b"] }] })[0];
    expect(init?.names).toEqual(["todo", "TodoWrite"]);
    expect(init?.input.tool_input).toEqual({ todos: [{ content: "a", status: "pending" }, { content: "b", status: "pending" }] });
    expect(pre("todo", { op: "done", task: "a" })[0]).toMatchObject({
      names: ["todo"],
      input: { tool_name: "todo", tool_input: { op: "done", task: "a" } },
    });
  });

  it("a tool with no Claude equivalent keeps its name and input", () => {
    expect(pre("github", { op: "view", repo: "a/b" })[0]).toMatchObject({
      kind: "other",
      names: ["github"],
      input: { tool_name: "github", tool_input: { op: "view", repo: "a/b" }, omp: { tool_name: "github" } },
    });
  });

  it("ast_edit is Claude's Edit of each path, one target per path", () => {
    const ops = [{ pat: "a", out: "b" }];
    const all = pre("ast_edit", { ops, paths: ["src", "lib/x.ts"] });
    expect(all.map((t) => [t.kind, t.target, t.input.tool_name, t.input.tool_input])).toEqual([
      ["write", "/repo/src", "Edit", { file_path: "/repo/src", ops }],
      ["write", "/repo/lib/x.ts", "Edit", { file_path: "/repo/lib/x.ts", ops }],
    ]);
    expect(all[0]?.names).toEqual(["ast_edit", "Edit"]);
    expect(refusal("pre_tool_use:ast_edit", { tool_input: { ops: [], paths: [] } })).toMatch(/ast_edit names no target/);
  });
});

describe("anchored edits", () => {
  const hashline = "*** Begin Patch\n[src/a.ts#ABCD]\nPUT 1.=1:\n+one\n[src/b.ts#1234]\nREM\n*** End Patch\n";

  it.each(["patch", "input", "raw_input", "content"])("one Edit target per file header, patch in %s", (field) => {
    const all = pre("edit", { [field]: hashline });
    expect(all.map((t) => t.target)).toEqual(["/repo/src/a.ts", "/repo/src/b.ts"]);
    expect(all.map((t) => t.input.tool_input)).toEqual([
      { file_path: "/repo/src/a.ts", new_string: "one" },
      { file_path: "/repo/src/b.ts" },
    ]);
    for (const target of all) {
      expect(target.kind).toBe("write");
      expect(target.names).toEqual(["edit", "Edit"]);
      expect(target.input.omp).toEqual({ tool_name: "edit", tool_input: { [field]: hashline }, target: target.target, kind: "write" });
    }
  });

  it("apply_patch: every Add/Update/Move/Delete file is a target", () => {
    const patch = "*** Begin Patch\n*** Add File: n.txt\n+new\n*** Update File: u.py\n*** Move to: m.py\n@@\n-a\n+b\n*** Delete File: d.txt\n*** End Patch\n";
    expect(pre("edit", { input: patch }).map((t) => t.target)).toEqual(["/repo/n.txt", "/repo/u.py", "/repo/m.py", "/repo/d.txt"]);
    expect(pre("apply_patch", { input: patch }).every((t) => t.names.join() === "apply_patch,Edit")).toBe(true);
  });

  it("replace mode keeps Claude's own Edit fields", () => {
    expect(pre("edit", { path: "r.ts", old_string: "a", new_string: "b", replace_all: true })[0]?.input.tool_input).toEqual({
      file_path: "/repo/r.ts",
      old_string: "a",
      new_string: "b",
      replace_all: true,
    });
  });

  it("a raw patch string as the whole tool input is read as the patch", () => {
    expect(pre("edit", hashline).map((t) => t.target)).toEqual(["/repo/src/a.ts", "/repo/src/b.ts"]);
  });

  it("never substitutes the session directory for a missing target", () => {
    expect(refusal("pre_tool_use:edit", { cwd: CWD, tool_input: {} })).toMatch(/edit: edit names no target file/);
    expect(refusal("pre_tool_use:edit", { cwd: CWD, tool_input: { input: "PUT 1.=1:\n+x\n" } })).toMatch(/no file header/);
    expect(refusal("pre_tool_use:write", { cwd: CWD, tool_input: { content: "x" } })).toMatch(/write names no target file/);
    expect(refusal("post_tool_use:multi_edit", { cwd: CWD, tool_input: { edits: [] } })).toMatch(/no target file/);
  });
});

describe("xd:// tool devices", () => {
  const lsp = (request: unknown) => pre("write", { path: "xd://lsp", content: JSON.stringify(request) });

  it.each([
    "status",
    "capabilities",
    "diagnostics",
    "definition",
    "references",
    "hover",
    "symbols",
    "type_definition",
    "type-definition",
    "implementation",
  ])("lsp %s is a lookup", (action) => {
    const [target] = lsp({ action, file: "src/a.ts", line: 3 });
    expect(target).toEqual({
      kind: "lookup",
      names: ["lsp", "LSP"],
      target: "/repo/src/a.ts",
      input: {
        cwd: CWD,
        hook_event_name: "PreToolUse",
        tool_name: "LSP",
        tool_input: { action, file: "src/a.ts", line: 3 },
        tool_use_id: "call-1",
        omp: {
          tool_name: "write",
          tool_input: { path: "xd://lsp", content: JSON.stringify({ action, file: "src/a.ts", line: 3 }) },
          target: "/repo/src/a.ts",
          kind: "lookup",
        },
      },
    });
  });

  it.each(["rename", "rename_file", "rename-file", "code_actions", "reload", "request", "format_everything"])(
    "lsp %s is not read-only",
    (action) => {
      expect(lsp({ action, file: "a.ts", new_name: "b" })[0]?.kind).toBe("write");
    },
  );

  it("the direct lsp tool gets the same identity", () => {
    const [direct] = pre("lsp", { action: "hover", file: "a.ts" });
    const [device] = lsp({ action: "hover", file: "a.ts" });
    expect(direct?.kind).toBe(device?.kind);
    expect(direct?.names).toEqual(device?.names);
    expect(direct?.input.tool_input).toEqual(device?.input.tool_input);
    expect(pre("lsp", { action: "rename", file: "a.ts" })[0]?.kind).toBe("write");
  });

  it("post events classify the same way as pre", () => {
    const content = JSON.stringify({ action: "references", file: "a.ts" });
    const post = only("post_tool_use:write", { cwd: CWD, tool_input: { path: "xd://lsp", content }, tool_response: "r" });
    expect(post.kind).toBe("lookup");
    expect(post.names).toEqual(["lsp", "LSP"]);
  });

  it("refuses malformed JSON, a non-object and a missing or non-string action with the cause", () => {
    const refuse = (content: string) => refusal("pre_tool_use:write", { cwd: CWD, tool_input: { path: "xd://lsp", content } });
    expect(refuse("{action:")).toMatch(/^xd:\/\/lsp: content is not JSON/);
    expect(refuse("[1]")).toMatch(/must be a JSON object, got array/);
    expect(refuse("{}")).toMatch(/no string "action"/);
    expect(refuse('{"action":3}')).toMatch(/no string "action"/);
    expect(refusal("pre_tool_use:lsp", { tool_input: { file: "a.ts" } })).toMatch(/no string "action"/);
  });

  it("other devices are classified as the tool they run: a write to xd://bash is a shell call", () => {
    const [target] = pre("write", { path: "xd://bash", content: JSON.stringify({ command: "rm -rf /" }) });
    expect(target).toMatchObject({
      kind: "shell",
      names: ["bash", "Bash"],
      input: { tool_name: "Bash", tool_input: { command: "rm -rf /" }, omp: { tool_name: "write" } },
    });
    const astEdit = pre("write", { path: "xd://ast_edit", content: JSON.stringify({ ops: [{ pat: "a", out: "b" }], paths: ["x.ts"] }) });
    expect(astEdit.map((t) => [t.kind, t.target])).toEqual([["write", "/repo/x.ts"]]);
  });

  it("a device's docs request (?) is a lookup; a bad device URL is refused", () => {
    expect(pre("write", { path: "xd://github", content: "?" })[0]?.kind).toBe("lookup");
    expect(refusal("pre_tool_use:write", { tool_input: { path: "xd://", content: "{}" } })).toMatch(/not a tool device URL/);
  });
});

describe("code execution", () => {
  it("eval: each readable command is a Bash target, each readable write a Write target, then the call itself", () => {
    const code = "const cp = require('child_process');\ncp.execSync('npm test');\nawait write('notes/a.md', 'hello');\nBun.write('/tmp/x.txt', data);";
    const all = pre("eval", { language: "js", code, title: "t" });
    expect(all.map((t) => [t.kind, t.input.tool_name, t.input.tool_input])).toEqual([
      ["shell", "Bash", { command: "npm test" }],
      ["write", "Write", { file_path: "/repo/notes/a.md", content: "hello" }],
      ["write", "Write", { file_path: "/tmp/x.txt" }],
      ["code", "eval", { title: "t", code, language: "javascript" }],
    ]);
    expect(all.map((t) => t.names)).toEqual([["eval", "Bash"], ["eval", "Write"], ["eval", "Write"], ["eval"]]);
    // only the call itself says its code can write files no hook was shown
    expect(all.map((t) => t.input.unnamed_writes)).toEqual([undefined, undefined, undefined, true]);
    expect(all[3]?.input.omp).toEqual({ tool_name: "eval", tool_input: { language: "js", code, title: "t" }, kind: "code" });
  });

  it("eval Python: subprocess literals, IPython escapes, open() for writing, local:// under the session's root", () => {
    const code = "import subprocess\nsubprocess.run(['git', 'status'])\n!ls -la\nopen('out.txt', 'w').write('x')\nopen('in.txt').read()\nwrite('local://plan.md', 'p')";
    const all = targets("pre_tool_use:eval", { cwd: CWD, tool_name: "eval", tool_input: { language: "py", code }, transcript_path: "/s/2026_abc.jsonl" });
    expect(all.filter((t) => t.kind !== "code").map((t) => t.input.tool_input)).toEqual([
      { command: "ls -la" },
      { command: "git status" },
      { file_path: "/repo/out.txt" },
      { file_path: "/s/2026_abc/local/plan.md", content: "p" },
    ]);
  });

  it("write xd://eval is the same code-execution call", () => {
    const all = pre("write", { path: "xd://eval", content: JSON.stringify({ language: "py", code: "import os\nos.system('make')" }) });
    expect(all.map((t) => [t.kind, t.input.tool_name])).toEqual([
      ["shell", "Bash"],
      ["code", "eval"],
    ]);
  });

  it("debug launch and attach run code; its inspection actions do not", () => {
    const launch = pre("debug", { action: "launch", program: "./app", args: ["--x", "a b"], cwd: "sub" });
    expect(launch.map((t) => [t.kind, t.input.tool_name, t.input.cwd])).toEqual([
      ["shell", "Bash", "/repo/sub"],
      ["code", "debug", "/repo/sub"],
    ]);
    expect(launch[0]?.input.tool_input).toEqual({ command: "./app --x 'a b'" });
    expect(launch[1]?.input.tool_input).toMatchObject({ code: "./app --x a b", language: "program", action: "launch" });
    expect(pre("debug", { action: "attach", pid: 12 }).map((t) => t.kind)).toEqual(["code"]);
    expect(pre("debug", { action: "threads" }).map((t) => t.kind)).toEqual(["other"]);
  });

  it("a registry's toolKinds make other tools shell, write or code, and cannot make a known tool ungated", () => {
    const parsed = parseEvent("pre_tool_use:mcp__srv__run");
    if (!parsed) throw new Error("bad event");
    const declared = { mcp__srv__run: "shell", mcp__py__exec: "code", bash: "other" } as const;
    const run = toHookTargets(parsed, { cwd: CWD, tool_name: "mcp__srv__run", tool_input: { command: "make" } }, declared);
    expect(run.ok && run.targets.map((t) => [t.kind, t.input.tool_name, t.input.tool_input])).toEqual([["shell", "Bash", { command: "make" }]]);
    const bash = toHookTargets(parseEvent("pre_tool_use:bash")!, { cwd: CWD, tool_name: "bash", tool_input: { command: "make" } }, declared);
    expect(bash.ok && bash.targets[0]?.kind).toBe("shell");
    const py = toHookTargets(parseEvent("pre_tool_use:mcp__py__exec")!, { cwd: CWD, tool_name: "mcp__py__exec", tool_input: { code: "print(1)", language: "python" } }, declared);
    expect(py.ok && py.targets.map((t) => t.kind)).toEqual(["code"]);
  });
});

describe("paths as OMP resolves them", () => {
  it("write and edit: [PATH] and [PATH#TAG] are unwrapped, so the hook sees the file OMP writes", () => {
    expect(pre("write", { path: "[../outside.txt]", content: "x" })[0]?.input.tool_input).toEqual({ file_path: "/outside.txt", content: "x" });
    expect(pre("write", { path: "[src/a.ts#ABCD]", content: "x" })[0]?.target).toBe("/repo/src/a.ts");
    expect(pre("edit", { path: "[../o.ts#1F2E]", old_string: "a", new_string: "b" })[0]?.target).toBe("/o.ts");
    expect(pre("edit", { path: "[/etc/x]", edits: [{ op: "create", diff: "x" }] })[0]?.target).toBe("/etc/x");
    // not the strict shape: stays a literal name
    expect(pre("write", { path: "[a#b#ABCD]", content: "x" })[0]?.target).toBe("/repo/[a#b#ABCD]");
  });

  it("local:// resolves under the session's local root; :raw is peeled; [xd://…] is still a device", () => {
    const all = targets("pre_tool_use:write", { cwd: CWD, tool_name: "write", tool_input: { path: "local://notes/a.md:raw", content: "x" }, transcript_path: "/s/f.jsonl" });
    expect(all[0]?.target).toBe("/s/f/local/notes/a.md");
    expect(pre("write", { path: "[xd://bash]", content: JSON.stringify({ command: "ls" }) })[0]?.kind).toBe("shell");
  });

  it("bash cwd and env reach the hook: cwd resolved against the session's, env as given", () => {
    const [target] = pre("bash", { command: "make", cwd: "../other", env: { HUSKY: "0" } });
    expect(target?.input.cwd).toBe("/other");
    expect(target?.input.tool_input).toEqual({ command: "make", cwd: "/other", env: { HUSKY: "0" } });
    expect(pre("bash", { command: "make", cwd: "~/w" })[0]?.input.cwd).toMatch(/\/w$/);
  });
});

describe("plain-text devices", () => {
  it("xd://resolve, reject, propose and report_issue are read as text, not refused", () => {
    for (const device of ["resolve", "reject", "propose", "report_issue"]) {
      const [target] = pre("write", { path: `xd://${device}`, content: "apply the staged rewrite" });
      expect(target).toMatchObject({ kind: "other", names: [device] });
      expect(target?.input.tool_input).toEqual({ device, text: "apply the staged rewrite" });
    }
  });

  it("a JSON device with content that is not JSON never runs (OMP refuses it): a lookup, not a refusal", () => {
    expect(pre("write", { path: "xd://bash", content: "ls -la" })[0]?.kind).toBe("lookup");
    expect(refusal("pre_tool_use:write", { cwd: CWD, tool_name: "write", tool_input: { path: "xd://lsp", content: "nope" } })).toMatch(/content is not JSON/);
  });
});
