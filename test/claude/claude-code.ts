// Real Claude Code, offline: an isolated HOME and config dir, the scripted Messages
// server of test/omp/model-server.ts as its API, hooks from the isolated settings.json.
// The version under test is the pinned dev dependency; changing it re-checks everything.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT } from "../support/engine-client.ts";
import { runToExit } from "../support/run-to-exit.ts";
import { trailingToolResults, type ModelServer, type Script } from "../omp/model-server.ts";

export const CLAUDE_BIN = path.join(ROOT, "node_modules/@anthropic-ai/claude-code/bin/claude.exe");
export const CLAUDE_VERSION = (JSON.parse(readFileSync(path.join(ROOT, "node_modules/@anthropic-ai/claude-code/package.json"), "utf8")) as { version: string }).version;

/** Tools Claude may run without a permission prompt (as root --dangerously-skip-permissions is refused). */
const ALLOWED = ["Bash", "Read", "Write", "Edit", "MultiEdit", "Glob", "Grep", "WebFetch", "Task", "NotebookEdit", "TodoWrite"];

export interface ClaudeHome {
  dir: string;
  /** HOME of the Claude process. */
  home: string;
  /** CLAUDE_CONFIG_DIR: the user settings live here. */
  configDir: string;
  /** The project Claude runs in (a git repository). */
  project: string;
  settingsFile: string;
  /** Write the user settings: the permissions above plus whatever the test adds. */
  writeSettings(extra: Record<string, unknown>): void;
  readSettings(): Record<string, unknown>;
  cleanup(): void;
}

export function makeClaudeHome(prefix = "tama-claude-"): ClaudeHome {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  const home = path.join(dir, "home");
  const configDir = path.join(home, ".claude");
  const project = path.join(dir, "project");
  mkdirSync(configDir, { recursive: true });
  mkdirSync(project, { recursive: true });
  const settingsFile = path.join(configDir, "settings.json");
  return {
    dir,
    home,
    configDir,
    project,
    settingsFile,
    writeSettings(extra) {
      writeFileSync(settingsFile, JSON.stringify({ permissions: { allow: ALLOWED }, ...extra }, null, 2));
    },
    readSettings() {
      return JSON.parse(readFileSync(settingsFile, "utf8")) as Record<string, unknown>;
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Claude Code's environment for an offline run against `server`. */
export function claudeEnv(claude: ClaudeHome, server: ModelServer, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: claude.home,
    CLAUDE_CONFIG_DIR: claude.configDir,
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: "sk-fake",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_ERROR_REPORTING: "1",
    // Claude gives SessionEnd hooks a short budget of its own; a loaded machine must not decide a test.
    CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS: "60000",
    ...extra,
  };
  return env;
}

export type StreamEvent = Record<string, unknown> & { type?: string; subtype?: string };

export interface ClaudeRun {
  code: number | null;
  /** The stream-json events, in order. */
  events: StreamEvent[];
  /** The final `result` event's text, when there was one. */
  result: string | undefined;
  stderr: string;
}

/** `claude -p <prompt> --output-format stream-json --verbose` in the project; resolves when it exits. */
export async function runClaude(
  claude: ClaudeHome,
  server: ModelServer,
  prompt: string,
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number; args?: string[] } = {},
): Promise<ClaudeRun> {
  const { code, stdout, stderr } = await runToExit("claude", CLAUDE_BIN, ["-p", prompt, "--output-format", "stream-json", "--verbose", ...(options.args ?? [])], {
    cwd: claude.project,
    env: claudeEnv(claude, server, options.env),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  });
  const events = stdout
    .split("\n")
    .filter((line) => line.trim().startsWith("{"))
    .map((line) => JSON.parse(line) as StreamEvent);
  const last = [...events].reverse().find((e) => e.type === "result");
  return { code, events, result: typeof last?.result === "string" ? last.result : undefined, stderr };
}

/** The tool results Claude put in front of the model, by tool_use id, from the stream. */
export function toolResults(run: ClaudeRun): { id: string; text: string; isError: boolean }[] {
  const out: { id: string; text: string; isError: boolean }[] = [];
  for (const event of run.events) {
    if (event.type !== "user") continue;
    const message = event.message as { content?: unknown } | undefined;
    if (!Array.isArray(message?.content)) continue;
    for (const block of message.content as Record<string, unknown>[]) {
      if (block.type !== "tool_result") continue;
      const content = block.content;
      const text = typeof content === "string" ? content : Array.isArray(content) ? (content as { text?: string }[]).map((c) => c.text ?? "").join("") : "";
      out.push({ id: String(block.tool_use_id), text, isError: block.is_error === true });
    }
  }
  return out;
}

/**
 * A stateless script for Claude's main conversation: the n-th assistant turn makes the
 * n-th call, then the model says what the last tool result was (so a test reads exactly
 * what the model saw).
 */
export function callsInTurn(calls: { name: string; arguments: Record<string, unknown> }[]): Script {
  return (req) => {
    const done = req.turns.filter((turn) => turn.role === "assistant").length;
    const call = calls[done];
    if (call) return { toolCalls: [call] };
    const last = trailingToolResults(req.turns).at(-1);
    return { text: `FAKE-FINAL: ${last ? last.text.slice(0, 400) : "no tool"}` };
  };
}
