// Real Claude Code with `tama install --claude`: its own hook payloads reach Tama's
// registry and gates as Claude sent them, and Tama's verdicts hold in the session.
// Each scenario is one row; a new Claude Code release is checked by changing the pinned
// version.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readJsonl } from "../omp/test-files.ts";
import { startModelServer, type ModelServer, type ToolCallSpec } from "../omp/model-server.ts";
import { makeTestHome, ROOT, type TestHome } from "../support/engine-client.ts";
import { tama } from "../cli/cli.ts";
import { callsInTurn, CLAUDE_VERSION, makeClaudeHome, runClaude, toolResults, type ClaudeHome, type ClaudeRun } from "./claude-code.ts";

const RECORD = path.join(ROOT, "test/fixtures/hooks/record-input.sh");
const CRASH = path.join(ROOT, "test/fixtures/hooks/crash.sh");

/** A Claude Code hook, unchanged: refuses reading .env files, by file_path. */
const DENY_ENV_READ = `#!/usr/bin/env python3
import json, sys
data = json.load(sys.stdin)
path = data.get("tool_input", {}).get("file_path", "")
if data.get("tool_name") == "Read" and ".env" in path.rsplit("/", 1)[-1]:
    print("reading %s is not allowed" % path, file=sys.stderr)
    sys.exit(2)
`;

/** A Claude Code hook asking the person before every Bash call. */
const ASK_BASH = `#!/bin/sh
cat >/dev/null
printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"ask the person first"}}'
`;

/** A Claude Code hook that passes and gives the model a note. */
const CONTEXT_BASH = `#!/bin/sh
cat >/dev/null
printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"remember the style guide"}}'
`;

/** A hook printing a fixed answer on stdout. */
const answering = (home: TestHome, name: string, stdout: string) => home.script(name, `#!/bin/sh\ncat >/dev/null\nprintf '%s' '${stdout}'\n`);

interface Row {
  name: string;
  calls: ToolCallSpec[];
  /** Registry hooks added after the recorder, before the built-in gates. */
  hooks?: (tama: TestHome) => Record<string, unknown>[];
  /** Registry settings besides the hooks. */
  registry?: Record<string, unknown>;
  setup?: (claude: ClaudeHome, tama: TestHome) => void;
  /** Events no hook of Tama's sees in this scenario (a changed project's call is refused before any runs). */
  unseen?: string[];
  /** modelSaw: the text of every turn of the last model request. */
  check: (run: ClaudeRun, claude: ClaudeHome, modelSaw: string, tama: TestHome) => void;
}

const only = (run: ClaudeRun) => {
  const results = toolResults(run);
  expect(results).toHaveLength(1);
  return results[0] as { text: string; isError: boolean };
};

/**
 * A project's own hooks, as a repository keeps them. Tama's in `.tama/hooks.json`: a
 * script that records what it got and refuses any Bash call naming "forbidden". Claude
 * Code's in `.claude/settings.json`: a recorder, which Claude Code runs itself.
 */
function writeProject(claude: ClaudeHome): void {
  mkdirSync(path.join(claude.project, ".tama"), { recursive: true });
  writeFileSync(path.join(claude.project, ".tama/refuse.sh"), refuseScript(claude, "the project refuses forbidden"), { mode: 0o755 });
  const hook = { id: "refuse-forbidden", events: ["pre_tool_use"], tools: ["Bash"], failMode: "closed", command: [".tama/refuse.sh"] };
  writeFileSync(path.join(claude.project, ".tama/hooks.json"), JSON.stringify({ schema: 1, hooks: [hook] }, null, 2));
  mkdirSync(path.join(claude.project, ".claude"), { recursive: true });
  const own = `RECORD_FILE='${path.join(claude.dir, "claude-project.jsonl")}' '${RECORD}'`;
  writeFileSync(path.join(claude.project, ".claude/settings.json"), JSON.stringify({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: own }] }] } }));
}

function refuseScript(claude: ClaudeHome, reason: string): string {
  return `#!/bin/sh\ninput=$(cat)\nprintf '%s\\n' "$input" >> '${path.join(claude.dir, "project-hook.jsonl")}'\ncase "$input" in *forbidden*) echo '${reason}' >&2; exit 2;; esac\n`;
}

/** The project's Tama hook's inputs, and Claude Code's own project hook's. */
const projectHookRan = (claude: ClaudeHome) => readJsonl(path.join(claude.dir, "project-hook.jsonl"));
const claudeProjectHookRan = (claude: ClaudeHome) => readJsonl(path.join(claude.dir, "claude-project.jsonl"));

const trust = (claude: ClaudeHome, home: TestHome) => {
  const trusted = tama(home, ["trust", claude.project]);
  expect(trusted.code, trusted.stderr).toBe(0);
};

/** What Claude Code showed the person from its hooks' systemMessage (never the model). */
const toldThePerson = (run: ClaudeRun) =>
  run.events.filter((e) => e.type === "system" && e.subtype === "informational").map((e) => String(e.content));

const ROWS: Row[] = [
  {
    name: "a harmless Bash call runs",
    calls: [{ name: "Bash", arguments: { command: "echo harmless", timeout: 5000 } }],
    check: (run) => expect(only(run)).toMatchObject({ text: "harmless", isError: false }),
  },
  {
    name: "a --no-verify commit is refused by the built-in gate",
    calls: [{ name: "Bash", arguments: { command: "git commit --allow-empty --no-verify -m x" } }],
    check: (run, claude) => {
      expect(only(run)).toMatchObject({ isError: true, text: expect.stringContaining("--no-verify") });
      const log = spawnSync("git", ["log", "--oneline"], { cwd: claude.project, encoding: "utf8" });
      expect(log.stdout).toBe("");
    },
  },
  {
    name: "a closed hook that crashes refuses",
    calls: [{ name: "Bash", arguments: { command: "echo never" } }],
    hooks: () => [{ id: "crashing", events: ["pre_tool_use"], tools: "shell", failMode: "closed", command: [CRASH] }],
    check: (run) => expect(only(run)).toMatchObject({ isError: true, text: expect.stringContaining("Tama hook crashing exited with code 3") }),
  },
  {
    name: "a Write names its file in file_path and runs",
    calls: [{ name: "Write", arguments: { file_path: "written.txt", content: "from claude\n" } }],
    check: (run, claude) => {
      expect(only(run).isError).toBe(false);
      expect(readFileSync(path.join(claude.project, "written.txt"), "utf8")).toBe("from claude\n");
    },
  },
  {
    name: "a Claude hook reading Read's file_path refuses a secret read",
    calls: [{ name: "Read", arguments: { file_path: "op.env.local" } }],
    hooks: (home) => [{ id: "deny-env-read", events: ["pre_tool_use"], tools: ["Read"], command: [home.script("deny-env-read.py", DENY_ENV_READ)] }],
    setup: (claude) => writeFileSync(path.join(claude.project, "op.env.local"), "SECRET=1\n"),
    check: (run) => {
      const result = only(run);
      expect(result).toMatchObject({ isError: true, text: expect.stringContaining("op.env.local is not allowed") });
      expect(result.text).not.toContain("SECRET");
    },
  },
  {
    name: "an Edit runs",
    calls: [{ name: "Read", arguments: { file_path: "a.txt" } }, { name: "Edit", arguments: { file_path: "a.txt", old_string: "hello", new_string: "bye" } }],
    setup: (claude) => writeFileSync(path.join(claude.project, "a.txt"), "hello\n"),
    check: (run, claude) => {
      expect(toolResults(run).map((r) => r.isError)).toEqual([false, false]);
      expect(readFileSync(path.join(claude.project, "a.txt"), "utf8")).toBe("bye\n");
    },
  },
  {
    name: "a WebFetch reaches the hooks with its url, its failure as PostToolUseFailure",
    calls: [{ name: "WebFetch", arguments: { url: "http://127.0.0.1:9/nothing", prompt: "summarise" } }],
    check: (run) => expect(only(run).isError).toBe(true),
  },
  {
    name: "an ask is Claude's own ask, not a refusal",
    calls: [{ name: "Bash", arguments: { command: "echo asked > asked.txt" } }],
    hooks: (home) => [{ id: "ask-bash", events: ["pre_tool_use"], tools: ["Bash"], command: [home.script("ask.sh", ASK_BASH)] }],
    check: (run, claude) => {
      // -p has nobody to ask: Claude answers with the ask's reason, exactly as for its own
      // ask hook; a refusal would read "PreToolUse:Bash hook error: …".
      expect(only(run)).toEqual({ id: expect.any(String), text: "ask the person first", isError: true });
      expect(existsSync(path.join(claude.project, "asked.txt"))).toBe(false);
    },
  },
  {
    name: "a passing hook's context reaches the model",
    calls: [{ name: "Bash", arguments: { command: "echo with-context" } }],
    hooks: (home) => [{ id: "context", events: ["pre_tool_use"], tools: ["Bash"], command: [home.script("context.sh", CONTEXT_BASH)] }],
    check: (run, _claude, modelSaw) => {
      expect(only(run)).toMatchObject({ text: "with-context", isError: false });
      expect(modelSaw).toContain("PreToolUse:Bash hook additional context: remember the style guide");
    },
  },
  {
    name: "a hook's updatedInput rewrites the call",
    calls: [{ name: "Bash", arguments: { command: "echo original" } }],
    hooks: (home) => [
      {
        id: "rewrite",
        events: ["pre_tool_use"],
        tools: ["Bash"],
        command: [answering(home, "rewrite.sh", '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"echo rewritten"}}}')],
      },
    ],
    check: (run) => expect(only(run)).toMatchObject({ text: "rewritten", isError: false }),
  },
  {
    name: "continue:false before a call runs it, then ends the run",
    calls: [{ name: "Bash", arguments: { command: "echo ran" } }],
    hooks: (home) => [{ id: "stop-after", events: ["pre_tool_use"], tools: ["Bash"], command: [answering(home, "stop.sh", '{"continue":false,"stopReason":"enough"}')] }],
    check: (run) => {
      expect(only(run)).toMatchObject({ text: "ran", isError: false });
      expect(run.events.find((e) => e.type === "result")).toMatchObject({ terminal_reason: "hook_stopped" });
    },
  },
  {
    name: "a PostToolUse hook's plain stdout is not for the model",
    calls: [{ name: "Bash", arguments: { command: "echo linted" } }],
    hooks: (home) => [{ id: "noisy-lint", events: ["post_tool_use"], tools: ["Bash"], command: [answering(home, "lint.sh", "Resolving dependencies")] }],
    check: (run, _claude, modelSaw) => {
      expect(only(run)).toMatchObject({ text: "linted", isError: false });
      expect(modelSaw).not.toContain("Resolving dependencies");
    },
  },
  {
    name: "a project hook is held until the project is trusted, and the person is told",
    calls: [{ name: "Bash", arguments: { command: "echo forbidden" } }],
    registry: { readClaudeSettings: true },
    setup: (claude) => writeProject(claude),
    check: (run, claude, modelSaw) => {
      expect(only(run)).toMatchObject({ text: "forbidden", isError: false });
      expect(projectHookRan(claude)).toEqual([]);
      expect(toldThePerson(run)).toEqual([
        `UserPromptSubmit says: Tama holds 1 hook(s) of ${claude.project} (project:refuse-forbidden): the project is not trusted yet. To run them, from your own terminal: tama trust ${claude.project}`,
      ]);
      expect(modelSaw).not.toContain("Tama holds");
      // Claude Code runs its own project settings' hooks itself, trusted or not; Tama leaves them to it.
      expect(claudeProjectHookRan(claude)).toHaveLength(1);
    },
  },
  {
    name: "the agent cannot trust the project: its tama trust is refused",
    calls: [{ name: "Bash", arguments: { command: "tama trust ." } }],
    setup: (claude) => writeProject(claude),
    check: (run, _claude, _modelSaw, home) => {
      expect(only(run)).toMatchObject({ isError: true, text: expect.stringContaining("`tama trust` changes Tama's policy or consent") });
      expect(JSON.parse(tama(home, ["trust", "--list", "--json"]).stdout)).toMatchObject({ projects: [] });
    },
  },
  {
    name: "a trusted project's hook runs, and Claude's own project hook runs once",
    calls: [{ name: "Bash", arguments: { command: "echo forbidden" } }],
    registry: { readClaudeSettings: true },
    setup: (claude, home) => {
      writeProject(claude);
      trust(claude, home);
    },
    check: (run, claude) => {
      expect(only(run)).toMatchObject({ isError: true, text: expect.stringContaining("the project refuses forbidden") });
      expect(projectHookRan(claude).map((r) => [r.hook_event_name, r.tool_name])).toEqual([["PreToolUse", "Bash"]]);
      expect(claudeProjectHookRan(claude)).toHaveLength(1);
      expect(toldThePerson(run)).toEqual([]);
    },
  },
  {
    name: "a trusted project whose hook script changed refuses its calls with the command that re-trusts",
    calls: [{ name: "Bash", arguments: { command: "echo harmless" } }],
    unseen: ["PreToolUse"],
    setup: (claude, home) => {
      writeProject(claude);
      trust(claude, home);
      writeFileSync(path.join(claude.project, ".tama/refuse.sh"), refuseScript(claude, "changed after trust"));
    },
    check: (run, claude) => {
      const result = only(run);
      expect(result).toMatchObject({ isError: true, text: expect.stringContaining(`the hooks of project ${claude.project} changed after they were trusted (.tama/refuse.sh (changed))`) });
      expect(result.text).toContain(`runs \`tama trust ${claude.project}\``);
      expect(projectHookRan(claude)).toEqual([]);
      expect(toldThePerson(run)).toEqual([expect.stringContaining("changed since it was trusted (.tama/refuse.sh (changed))")]);
    },
  },
];

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(async () => {
  await server.close();
});

describe(`Claude Code ${CLAUDE_VERSION} with tama install --claude`, () => {
  for (const row of ROWS) {
    it(row.name, async () => {
      const home = makeTestHome("tama-claude-install-");
      const claude = makeClaudeHome();
      try {
        spawnSync("git", ["init", "-q"], { cwd: claude.project });
        row.setup?.(claude, home);
        const direct = path.join(claude.dir, "direct.jsonl");
        const viaTama = path.join(claude.dir, "via-tama.jsonl");
        // Claude's own hook beside Tama's entries: what Claude sent, to compare with what Tama's hooks got.
        const recorder = (matcher?: string) => [{ ...(matcher ? { matcher } : {}), hooks: [{ type: "command", command: `RECORD_FILE='${direct}' '${RECORD}'` }] }];
        claude.writeSettings({
          hooks: {
            SessionStart: recorder(),
            UserPromptSubmit: recorder(),
            PreToolUse: recorder("*"),
            PostToolUse: recorder("*"),
            PostToolUseFailure: recorder("*"),
            Stop: recorder(),
            SessionEnd: recorder(),
          },
        });
        const env = { CLAUDE_CONFIG_DIR: claude.configDir, HOME: claude.home };
        const installed = tama(home, ["install", "--claude"], { env });
        expect(installed.stderr).toBe("");
        expect(installed.code).toBe(0);
        // Idempotent: a second install adds nothing.
        const again = tama(home, ["install", "--claude", "--json"], { env });
        expect((JSON.parse(again.stdout) as { claude: { added: string[] } }).claude.added).toEqual([]);

        const registry = JSON.parse(readFileSync(home.registry, "utf8")) as { hooks: Record<string, unknown>[]; checksum?: string };
        delete registry.checksum;
        const record = { id: "record", events: ["session_start", "user_prompt_submit", "pre_tool_use", "post_tool_use", "stop", "session_end"], command: ["sh", "-c", `RECORD_FILE='${viaTama}' exec '${RECORD}'`] };
        home.writeRegistry({ ...registry, ...row.registry, hooks: [record, ...(row.hooks?.(home) ?? []), ...registry.hooks] });

        server.setScript(callsInTurn(row.calls));
        const before = server.requests.length;
        const run = await runClaude(claude, server, "go", { env: { TAMA_HOME: home.home } });
        expect(run.code, run.stderr).toBe(0);
        const last = server.requests.slice(before).at(-1);
        row.check(run, claude, (last?.turns ?? []).map((turn) => turn.text).join("\n"), home);

        // Every event reached Tama's hooks exactly as Claude sent it.
        const sent = readJsonl(direct);
        const got = readJsonl(viaTama);
        expect(sent.map((r) => r.hook_event_name)).toContain("PreToolUse");
        for (const input of got) expect(sent).toContainEqual(input);
        // …and every event Claude ran hooks for reached Tama's (the recorder runs first, so even a refused call's).
        const expected = sent.map((r) => r.hook_event_name).filter((name) => !(row.unseen ?? []).includes(String(name)));
        expect(new Set(got.map((r) => r.hook_event_name))).toEqual(new Set(expected));

        // Uninstall takes Tama's entries away and leaves Claude's own.
        expect(tama(home, ["uninstall", "--claude"], { env }).code).toBe(0);
        const left = JSON.stringify(claude.readSettings());
        expect(left).not.toContain("run-hook");
        expect(left).toContain("direct.jsonl");
      } finally {
        claude.cleanup();
        home.cleanup();
      }
    }, 180_000);
  }
});
