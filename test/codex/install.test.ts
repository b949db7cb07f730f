// Real Codex with `tama install --codex`: its own hook payloads reach Tama's registry and
// gates as Codex sent them, and Tama's verdicts (Codex's minimal block answer) hold in
// the session. Each scenario is one row; a new Codex release is checked by changing the
// pinned version.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readJsonl } from "../omp/test-files.ts";
import { startModelServer, type ModelServer, type ToolCallSpec } from "../omp/model-server.ts";
import { makeTestHome, ROOT, type TestHome } from "../support/engine-client.ts";
import { tama } from "../cli/cli.ts";
import { CODEX_VERSION, functionOutputs, makeCodexHome, runCodex, trustEveryHook, type CodexHome } from "./codex.ts";

const RECORD = path.join(ROOT, "test/fixtures/hooks/record-input.sh");
const CRASH = path.join(ROOT, "test/fixtures/hooks/crash.sh");

interface Row {
  name: string;
  calls: ToolCallSpec[];
  /** Registry hooks added after the recorder, before the built-in gates. */
  hooks?: () => Record<string, unknown>[];
  setup?: (codex: CodexHome, tama: TestHome) => void;
  /** Codex runs a hook only once the person trusted it in /hooks; the other rows record that trust as the review does. */
  untrusted?: true;
  /** outputs: the tool outputs the model read. */
  check: (outputs: string[], codex: CodexHome) => void;
}

/** A project's own hook in .tama/hooks.json (Codex reads no Claude settings of its own): refuses any call naming "forbidden". */
function writeProject(codex: CodexHome): void {
  mkdirSync(path.join(codex.project, ".tama"), { recursive: true });
  writeFileSync(path.join(codex.project, ".tama/refuse.sh"), "#!/bin/sh\ncase \"$(cat)\" in *forbidden*) echo 'the project refuses forbidden' >&2; exit 2;; esac\n", { mode: 0o755 });
  const hook = { id: "refuse", events: ["pre_tool_use"], tools: ["Bash"], command: [".tama/refuse.sh"] };
  writeFileSync(path.join(codex.project, ".tama/hooks.json"), JSON.stringify({ schema: 1, hooks: [hook] }));
}

const git = (codex: CodexHome, ...args: string[]) => spawnSync("git", args, { cwd: codex.project, encoding: "utf8" }).stdout;

const ROWS: Row[] = [
  {
    name: "a harmless command runs",
    calls: [{ name: "exec_command", arguments: { cmd: "echo harmless" } }],
    check: (outputs) => expect(outputs.join("\n")).toContain("harmless"),
  },
  {
    name: "a --no-verify commit is refused by the built-in gate",
    calls: [{ name: "exec_command", arguments: { cmd: "git commit --allow-empty --no-verify -m x" } }],
    check: (outputs, codex) => {
      expect(outputs).toEqual([expect.stringMatching(/^Command blocked by PreToolUse hook: .*--no-verify/)]);
      expect(git(codex, "log", "--oneline")).toBe("");
    },
  },
  {
    name: "a closed hook that crashes refuses",
    calls: [{ name: "exec_command", arguments: { cmd: "echo never > never.txt" } }],
    hooks: () => [{ id: "crashing", events: ["pre_tool_use"], tools: "shell", failMode: "closed", command: [CRASH] }],
    check: (outputs, codex) => {
      expect(outputs).toEqual([expect.stringContaining("Tama hook crashing exited with code 3")]);
      expect(existsSync(path.join(codex.project, "never.txt"))).toBe(false);
    },
  },
  {
    name: "a project's own hook is held before tama trust: the call runs",
    calls: [{ name: "exec_command", arguments: { cmd: "echo forbidden" } }],
    setup: (codex) => writeProject(codex),
    check: (outputs) => expect(outputs).toEqual([expect.stringContaining("forbidden")]),
  },
  {
    name: "a trusted project's own hook refuses",
    calls: [{ name: "exec_command", arguments: { cmd: "echo forbidden" } }],
    setup: (codex, home) => {
      writeProject(codex);
      expect(tama(home, ["trust", codex.project]).code).toBe(0);
    },
    check: (outputs) => expect(outputs).toEqual(["Command blocked by PreToolUse hook: the project refuses forbidden. Command: echo forbidden"]),
  },
  {
    name: "until the person trusts Tama's entries in /hooks, Codex runs none of them",
    calls: [{ name: "exec_command", arguments: { cmd: "git commit --allow-empty --no-verify -m unchecked" } }],
    untrusted: true,
    check: (_outputs, codex) => expect(git(codex, "log", "--format=%s")).toBe("unchecked\n"),
  },
];

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(async () => {
  await server.close();
});

describe(`Codex ${CODEX_VERSION} with tama install --codex`, () => {
  for (const row of ROWS) {
    it(row.name, async () => {
      const home = makeTestHome("tama-codex-install-");
      const codex = makeCodexHome(server);
      try {
        spawnSync("git", ["init", "-q"], { cwd: codex.project });
        spawnSync("git", ["config", "user.email", "t@example.com"], { cwd: codex.project });
        spawnSync("git", ["config", "user.name", "t"], { cwd: codex.project });
        row.setup?.(codex, home);
        const direct = path.join(codex.dir, "direct.jsonl");
        const viaTama = path.join(codex.dir, "via-tama.jsonl");
        // Codex's own hook beside Tama's entries: what Codex sent, to compare with what Tama's hooks got.
        const recorder = [{ hooks: [{ type: "command", command: `RECORD_FILE='${direct}' '${RECORD}'` }] }];
        codex.writeHooks({ SessionStart: recorder, UserPromptSubmit: recorder, PreToolUse: recorder, PostToolUse: recorder, Stop: recorder });
        const env = { CODEX_HOME: codex.codexHome, HOME: codex.home };
        const installed = tama(home, ["install", "--codex"], { env });
        expect(installed.stderr).toBe("");
        expect(installed.code).toBe(0);
        expect(installed.stdout).toContain("open /hooks in Codex");
        const again = tama(home, ["install", "--codex", "--json"], { env });
        expect((JSON.parse(again.stdout) as { codex: { added: string[] } }).codex.added).toEqual([]);

        const registry = JSON.parse(readFileSync(home.registry, "utf8")) as { hooks: Record<string, unknown>[]; checksum?: string };
        delete registry.checksum;
        const record = { id: "record", events: ["session_start", "user_prompt_submit", "pre_tool_use", "post_tool_use", "stop"], command: ["sh", "-c", `RECORD_FILE='${viaTama}' exec '${RECORD}'`] };
        home.writeRegistry({ ...registry, hooks: [record, ...(row.hooks?.() ?? []), ...registry.hooks] });

        let turn = 0;
        server.setScript(() => {
          const call = row.calls[turn++];
          return call ? { toolCalls: [call] } : { text: "FAKE-FINAL" };
        });
        const doctorCodex = () =>
          (JSON.parse(tama(home, ["doctor", "--json"], { env }).stdout) as { checks: { id: string; status: string; summary: string }[] }).checks.find((c) => c.id === "codex");
        expect(doctorCodex()).toMatchObject({ status: "warning", summary: expect.stringContaining("Codex skips them") });
        if (!row.untrusted) {
          const trusted = await trustEveryHook(codex);
          expect(trusted).toContain(`${codex.hooksFile}:pre_tool_use:1:0`);
          // doctor reads the same record Codex does.
          expect(doctorCodex()).toMatchObject({ status: "ok" });
        }

        const before = server.requests.length;
        const run = await runCodex(codex, "go", { env: { TAMA_HOME: home.home } });
        expect(run.code, run.stderr).toBe(0);
        row.check(functionOutputs(server.requests.slice(before).at(-1)?.body), codex);

        const sent = readJsonl(direct);
        const got = readJsonl(viaTama);
        if (row.untrusted) {
          expect(sent).toEqual([]);
          expect(got).toEqual([]);
        } else {
          // Every event reached Tama's hooks exactly as Codex sent it, and each event Codex ran hooks for.
          expect(sent.map((r) => r.hook_event_name)).toContain("PreToolUse");
          for (const input of got) expect(sent).toContainEqual(input);
          expect(new Set(got.map((r) => r.hook_event_name))).toEqual(new Set(sent.map((r) => r.hook_event_name)));
        }

        expect(tama(home, ["uninstall", "--codex"], { env }).code).toBe(0);
        const left = JSON.stringify(codex.readHooks());
        expect(left).not.toContain("run-hook");
        expect(left).toContain("direct.jsonl");
      } finally {
        codex.cleanup();
        home.cleanup();
      }
    }, 180_000);
  }
});
