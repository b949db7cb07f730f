// SessionStart as Claude Code runs it, in real OMP: its hooks' context (JSON or plain
// stdout) reaches the model with the next turn, once — not again on later turns, not
// again after an adapter reload, not lost when the reload comes first; `source` says
// why the session started (startup, resume, clear for a new session), SessionEnd names
// its `reason`, and every event of one prompt carries that prompt's `prompt_id`.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useOmpFixture } from "../omp/fixture.ts";
import { defaultScript, parseCallDirectives, trailingToolResults, type ModelServer, type RecordedRequest, type Script } from "../omp/model-server.ts";
import type { OmpEnv } from "../omp/omp-env.ts";
import type { Frame, RpcSession } from "../omp/rpc-session.ts";
import { newerAdapter } from "./adapter-variants.ts";
import { installTama, type TamaInstall } from "./tama-omp.ts";

const omp = useOmpFixture();
const NOTE = "session-note-7f3a";

/** The default model, reading the prompt's CALL lines from every message of the turn (the context comes with the prompt). */
const script: Script = (req, index) => {
  const lastAssistant = req.turns.map((t) => t.role).lastIndexOf("assistant");
  const turn = req.turns.slice(lastAssistant + 1);
  if (turn.some((t) => t.role === "tool")) return defaultScript(req, index);
  const calls = parseCallDirectives(turn.filter((t) => t.role === "user").map((t) => t.text).join("\n"));
  return calls.length > 0 ? { toolCalls: calls } : { text: "FAKE-TEXT: ok" };
};

/** A recording hook for every event; on SessionStart it prints the note (plain stdout, which is context there). */
function recordingHooks(tama: TamaInstall, env: OmpEnv): () => Record<string, unknown>[] {
  const log = path.join(env.scratch, "inputs.jsonl");
  const script = path.join(env.scratch, "record.sh");
  writeFileSync(script, `#!/bin/sh\ninput=$(cat)\nprintf '%s\\n' "$input" >> '${log}'\ncase "$input" in *'"SessionStart"'*) echo '${NOTE}' ;; esac\nexit 0\n`, { mode: 0o755 });
  tama.writeRegistry({
    schema: 1,
    release: null,
    hooks: [{ id: "record", events: ["session_start", "user_prompt_submit", "pre_tool_use", "post_tool_use", "stop", "session_end"], command: [script] }],
  });
  return () => {
    try {
      return readFileSync(log, "utf8").trim().split("\n").filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
    } catch {
      return [];
    }
  };
}

/** How many times the note is in one model request. */
const notesIn = (server: ModelServer, index: number): number => JSON.stringify(server.requests[index]?.body ?? "").split(NOTE).length - 1;

async function command(session: RpcSession, text: string): Promise<string> {
  const from = session.events.length;
  await session.prompt(text);
  const notify = await session.waitFor((f: Frame) => f.type === "extension_ui_request" && f.method === "notify", { from });
  return String(notify.message);
}

describe("SessionStart in real OMP, as in Claude Code", () => {
  it("its context reaches the model with the first turn and stays once; prompt_id is one per prompt; an adapter reload adds no second copy", async () => {
    const { server, env } = await omp.setup({ script });
    const tama = installTama(env);
    const inputs = recordingHooks(tama, env);
    const session = omp.rpc();
    await session.ready();

    const first = server.requests.length;
    await session.prompt('CALL bash {"command":"echo one"}');
    expect(notesIn(server, first)).toBe(1);
    // The later request of the same prompt has it once, from the conversation.
    expect(notesIn(server, server.requests.length - 1)).toBe(1);
    const second = server.requests.length;
    await session.prompt("hello again");
    expect(notesIn(server, second)).toBe(1);

    tama.installAdapter(newerAdapter("v2", path.join(env.scratch, "events.log")));
    expect(await command(session, "/tama_reload_hook_runtime")).toMatch(/^Loaded the installed OMP adapter/);
    const third = server.requests.length;
    await session.prompt("after the reload");
    expect(notesIn(server, third)).toBe(1);

    const seen = inputs();
    const starts = seen.filter((i) => i.hook_event_name === "SessionStart");
    expect(starts).toHaveLength(1);
    expect(starts[0]).toMatchObject({ source: "startup" });
    expect(starts[0]).not.toHaveProperty("prompt_id");
    // One id per prompt, on every event of that prompt.
    const prompts = seen.filter((i) => i.hook_event_name === "UserPromptSubmit");
    expect(prompts).toHaveLength(3);
    const ids = prompts.map((p) => p.prompt_id);
    expect(new Set(ids).size).toBe(3);
    const firstPromptEvents = seen.slice(seen.indexOf(prompts[0] as Record<string, unknown>), seen.indexOf(prompts[1] as Record<string, unknown>));
    expect(firstPromptEvents.map((e) => e.hook_event_name)).toEqual(["UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"]);
    for (const event of firstPromptEvents) expect(event, String(event.hook_event_name)).toMatchObject({ prompt_id: ids[0], permission_mode: "default" });
    const post = firstPromptEvents.find((e) => e.hook_event_name === "PostToolUse");
    expect(post?.tool_response).toMatchObject({ stdout: "one", stderr: "", interrupted: false });
    expect(typeof post?.duration_ms).toBe("number");
  });

  it("a reload before the first prompt keeps the context for it", async () => {
    const { server, env } = await omp.setup({ script });
    const tama = installTama(env);
    recordingHooks(tama, env);
    const session = omp.rpc();
    await session.ready();
    tama.installAdapter(newerAdapter("v2", path.join(env.scratch, "events.log")));
    expect(await command(session, "/tama_reload_hook_runtime")).toMatch(/^Loaded the installed OMP adapter/);
    const first = server.requests.length;
    await session.prompt("the first prompt");
    expect(notesIn(server, first)).toBe(1);
  });

  it("a new session is Claude's clear: the old one ends, the new one starts with its own context; a resumed session says resume", async () => {
    const { server, env } = await omp.setup({ script });
    const tama = installTama(env);
    const inputs = recordingHooks(tama, env);
    const session = omp.rpc();
    await session.ready();
    await session.prompt("in the first session");
    const before = inputs().find((i) => i.hook_event_name === "SessionStart")?.session_id;
    const switched = await session.send({ type: "new_session" });
    expect(switched.success, JSON.stringify(switched)).toBe(true);
    const fresh = server.requests.length;
    await session.prompt("in the new session");
    expect(notesIn(server, fresh)).toBe(1);
    await session.close();

    const seen = inputs();
    const starts = seen.filter((i) => i.hook_event_name === "SessionStart");
    expect(starts.map((s) => s.source)).toEqual(["startup", "clear"]);
    expect(starts[1]?.session_id).not.toBe(before);
    const ends = seen.filter((i) => i.hook_event_name === "SessionEnd");
    expect(ends.map((e) => [e.session_id, e.reason])).toEqual([
      [before, "clear"],
      [starts[1]?.session_id, "other"],
    ]);

    // Started again on the newest session file: OMP resumes it.
    const resumed = omp.rpc({ extraArgs: ["--continue"] });
    await resumed.ready();
    await resumed.prompt("resumed");
    await resumed.close();
    const last = inputs().filter((i) => i.hook_event_name === "SessionStart").at(-1);
    expect(last).toMatchObject({ source: "resume", session_id: starts[1]?.session_id });
  });

  it("variables a SessionStart hook writes to CLAUDE_ENV_FILE reach the session's later bash calls", async () => {
    const { server, env } = await omp.setup({ script });
    const tama = installTama(env);
    const hook = path.join(env.scratch, "env-hook.sh");
    writeFileSync(hook, `#!/bin/sh\ncat >/dev/null\nprintf '%s\\n' "export TAMA_TEST_GREETING=hello-from-env-file" 'PLAIN_SET=plain-too' >> "$CLAUDE_ENV_FILE"\n`, { mode: 0o755 });
    tama.writeRegistry({ schema: 1, release: null, hooks: [{ id: "env", events: ["session_start"], command: [hook] }] });
    const session = omp.rpc();
    await session.ready();
    const from = server.requests.length;
    await session.prompt('CALL bash {"command":"echo \\"[$TAMA_TEST_GREETING] [$PLAIN_SET]\\""}');
    const seen = JSON.stringify(server.requests.slice(from).map((r) => r.body));
    expect(seen).toContain("[hello-from-env-file] [plain-too]");
    // Read once: a later call gets the same variables from what was read.
    const next = server.requests.length;
    await session.prompt('CALL bash {"command":"echo \\"again [$TAMA_TEST_GREETING]\\""}');
    expect(JSON.stringify(server.requests.slice(next).map((r) => r.body))).toContain("again [hello-from-env-file]");
    // The file is Tama's, under its protected home.
    const files = readdirSync(path.join(tama.home, "sessions", "env"));
    expect(files).toHaveLength(1);
  });

  // A subagent ends with `yield` in OMP 18.2.3 only (as test/e2e/subagents.test.ts says).
  it.skipIf(process.env.TAMA_TEST_OMP !== undefined && process.env.TAMA_TEST_OMP !== "18.2.3")("a subagent's session starts with its own SessionStart context, once", async () => {
    const isSubagent = (req: RecordedRequest): boolean => JSON.stringify(req.body.tools ?? []).includes('"name":"yield"');
    const subScript: Script = (req, index) => {
      if (!isSubagent(req)) return script(req, index);
      return trailingToolResults(req.turns).length > 0 || !/CALL /.test(JSON.stringify(req.turns))
        ? { toolCalls: [{ name: "yield", arguments: { data: { answer: "sub done" } } }] }
        : script(req, index);
    };
    const { server, env } = await omp.setup({ script: subScript });
    const tama = installTama(env);
    const inputs = recordingHooks(tama, env);
    const session = omp.rpc();
    await session.ready();
    await session.prompt('CALL task {"agent":"task","task":"CALL bash {\\"command\\":\\"echo sub-ran\\"}"}', { timeoutMs: 120_000 });
    const sub = server.requests.filter(isSubagent);
    expect(sub.length).toBeGreaterThan(0);
    for (const req of sub) expect(JSON.stringify(req.body).split(NOTE).length - 1).toBe(1);
    const starts = inputs().filter((i) => i.hook_event_name === "SessionStart");
    expect(starts).toHaveLength(2);
    expect(new Set(starts.map((s) => s.session_id)).size).toBe(2);
  });

  it("after a compaction SessionStart runs again (source compact) and its context comes with the next prompt", async () => {
    // Little to keep, so a short session has something to compact.
    const { server, env } = await omp.setup({ script, configYaml: "compaction:\n  keepRecentTokens: 1" });
    const tama = installTama(env);
    const inputs = recordingHooks(tama, env);
    const session = omp.rpc();
    await session.ready();
    await session.prompt("before the compaction");
    await session.prompt("a second prompt, so there is something to compact");
    const compacted = await session.send({ type: "compact" }, 120_000);
    expect(compacted.success, JSON.stringify(compacted)).toBe(true);
    const next = server.requests.length;
    await session.prompt("after the compaction");
    expect(inputs().filter((i) => i.hook_event_name === "SessionStart").map((i) => i.source)).toEqual(["startup", "compact"]);
    // Given again with the prompt after the compaction (not just kept from before it).
    const body = JSON.stringify(server.requests[next]?.body ?? "");
    expect(body.lastIndexOf(NOTE)).toBeGreaterThan(body.indexOf("after the compaction"));
  });

  it("tool events and Stop carry Claude's effort: OMP's thinking level", async () => {
    const { env } = await omp.setup({ script });
    // A model that reasons, at a level set on the command line.
    const models = path.join(env.agentDir, "models.yml");
    writeFileSync(models, readFileSync(models, "utf8").replace("reasoning: false", "reasoning: true"));
    const tama = installTama(env);
    const inputs = recordingHooks(tama, env);
    const session = omp.rpc({ extraArgs: ["--thinking", "high"] });
    await session.ready();
    await session.prompt('CALL bash {"command":"echo effort"}');
    const seen = inputs();
    for (const name of ["PreToolUse", "PostToolUse", "Stop"]) expect(seen.find((i) => i.hook_event_name === name)?.effort, name).toEqual({ level: "high" });
    expect(seen.find((i) => i.hook_event_name === "UserPromptSubmit")).not.toHaveProperty("effort");
  });
});
