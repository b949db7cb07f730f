// `tama install --claude|--codex` / `uninstall` and doctor's check of them, on a real
// install into a test TAMA_HOME and a test Claude Code config dir or Codex home.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EngineClient, makeTestHome, resultOf, type TestHome } from "../support/engine-client.ts";
import { json, tama } from "./cli.ts";

const EVENTS = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop", "SessionEnd"];

let home: TestHome;
let claudeDir: string;
let settingsFile: string;
beforeEach(() => {
  home = makeTestHome("tama-install-claude-");
  rmSync(path.dirname(home.registry), { recursive: true, force: true });
  claudeDir = path.join(home.dir, "claude-config");
  settingsFile = path.join(claudeDir, "settings.json");
});
afterEach(() => home.cleanup());

const env = () => ({ CLAUDE_CONFIG_DIR: claudeDir });
const settings = () => JSON.parse(readFileSync(settingsFile, "utf8")) as { hooks?: Record<string, { matcher?: string; hooks: { command: string }[] }[]> } & Record<string, unknown>;
const doctorClaude = () =>
  json<{ checks: { id: string; status: string; summary: string }[] }>(tama(home, ["doctor", "--json"], { env: env() })).checks.find((c) => c.id === "claude");

const USER_HOOK = { matcher: "Bash", hooks: [{ type: "command", command: "~/.claude/my-own-hook.sh" }] };

describe("tama install --claude", () => {
  it("adds one entry per gated event beside the person's own settings, once; uninstall takes only those away", () => {
    mkdirSync(claudeDir, { recursive: true });
    writeFileSync(settingsFile, JSON.stringify({ model: "opus", hooks: { PreToolUse: [USER_HOOK] } }));
    const first = tama(home, ["install", "--claude", "--json"], { env: env() });
    expect(first.code, first.stderr).toBe(0);
    expect(json<{ claude: { added: string[] } }>(first).claude.added).toEqual(EVENTS);
    const written = settings();
    expect(written.model).toBe("opus");
    expect(Object.keys(written.hooks ?? {}).sort()).toEqual([...EVENTS].sort());
    expect(written.hooks?.PreToolUse?.[0]).toEqual(USER_HOOK);
    const launcher = path.join(home.home, "hooks-runtime", "current", "bin", "tama");
    expect(written.hooks?.PreToolUse?.[1]).toEqual({ matcher: "*", hooks: [{ type: "command", command: `'${launcher}' run-hook PreToolUse "\${TAMA_AGENT_ID:-claude-code}"` }] });
    expect(written.hooks?.Stop?.[0]).toEqual({ hooks: [{ type: "command", command: `'${launcher}' run-hook Stop "\${TAMA_AGENT_ID:-claude-code}"` }] });
    expect(doctorClaude()).toMatchObject({ status: "ok" });

    const second = tama(home, ["install", "--claude", "--json"], { env: env() });
    expect(json<{ claude: { added: string[]; kept: string[] } }>(second).claude).toMatchObject({ added: [], kept: EVENTS });
    expect(settings()).toEqual(written);

    const removed = tama(home, ["uninstall", "--claude"], { env: env() });
    expect(removed.code).toBe(0);
    expect(settings()).toEqual({ model: "opus", hooks: { PreToolUse: [USER_HOOK] } });
    expect(doctorClaude()).toBeUndefined();
  });

  it("doctor names a missing entry and a launcher that is gone", () => {
    expect(tama(home, ["install", "--claude"], { env: env() }).code).toBe(0);
    const partial = settings();
    delete partial.hooks?.Stop;
    writeFileSync(settingsFile, JSON.stringify(partial));
    expect(doctorClaude()).toMatchObject({ status: "warning", summary: expect.stringContaining("but not Stop") });
    rmSync(path.join(home.home, "hooks-runtime"), { recursive: true, force: true });
    expect(doctorClaude()).toMatchObject({ status: "error", summary: expect.stringContaining("runs every call unchecked") });
  });

  it("with Claude sources on, OMP's engine does not read Tama's own entries back as Claude hooks", async () => {
    // The same file both ways: Claude Code's user settings are where install --claude writes.
    const claudeHome = path.join(home.dir, "user");
    const env = { HOME: claudeHome, CLAUDE_CONFIG_DIR: path.join(claudeHome, ".claude") };
    mkdirSync(env.CLAUDE_CONFIG_DIR, { recursive: true });
    writeFileSync(path.join(env.CLAUDE_CONFIG_DIR, "settings.json"), JSON.stringify({ hooks: { PreToolUse: [USER_HOOK] } }));
    expect(tama(home, ["install", "--claude"], { env }).code).toBe(0);
    expect(tama(home, ["hooks", "claude-sources", "on"], { env }).code).toBe(0);
    const listed = json<{ userClaude: { hooks: { id: string }[]; untranslated: { claudeEvent: string; why: string }[] } }>(tama(home, ["hooks", "list", "--json"], { env }));
    // The person's own hook is read; each of Tama's entries is not, with why.
    expect(listed.userClaude.hooks.map((h) => h.id)).toEqual(["claude-user:pre_tool_use.my-own-hook"]);
    expect(listed.userClaude.untranslated.map((u) => u.claudeEvent).sort()).toEqual([...EVENTS].sort());
    expect(listed.userClaude.untranslated[0]?.why).toContain("Tama's own entry");
    const engine = new EngineClient(home, env);
    try {
      const answer = await engine.dispatch("pre_tool_use:bash", { session_id: "s", cwd: home.dir, tool_input: { command: "ls" } });
      const ran = resultOf(answer).results.map((r) => r.hook);
      expect(ran.filter((id) => id.startsWith("claude-user:"))).toEqual(["claude-user:pre_tool_use.my-own-hook"]);
    } finally {
      await engine.close();
    }
  });

  it("refuses settings that are not JSON, and leaves them as they were", () => {
    mkdirSync(claudeDir, { recursive: true });
    writeFileSync(settingsFile, "{ not json");
    const r = tama(home, ["install", "--claude"], { env: env() });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`Claude Code's hook file ${settingsFile} is not JSON`);
    expect(readFileSync(settingsFile, "utf8")).toBe("{ not json");
  });
});

describe("tama install --codex", () => {
  const codexDir = () => path.join(home.dir, "codex-home");
  const hooksFile = () => path.join(codexDir(), "hooks.json");
  const codexEnv = () => ({ CODEX_HOME: codexDir() });
  const doctorCodex = () =>
    json<{ checks: { id: string; status: string; summary: string }[] }>(tama(home, ["doctor", "--json"], { env: codexEnv() })).checks.find((c) => c.id === "codex");
  const CODEX_EVENTS = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"];

  it("writes Codex's hooks.json entries with Codex's answer, says they need the person's trust, and doctor reads Codex's trust record", () => {
    mkdirSync(codexDir(), { recursive: true });
    const own = { hooks: [{ type: "command", command: "~/.codex/mine.sh" }] };
    writeFileSync(hooksFile(), JSON.stringify({ hooks: { PreToolUse: [own] } }));
    const first = tama(home, ["install", "--codex"], { env: codexEnv() });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain("open /hooks in Codex and trust Tama's entries");
    const written = JSON.parse(readFileSync(hooksFile(), "utf8")) as { hooks: Record<string, unknown[]> };
    expect(Object.keys(written.hooks).sort()).toEqual([...CODEX_EVENTS].sort());
    const launcher = path.join(home.home, "hooks-runtime", "current", "bin", "tama");
    expect(written.hooks.PreToolUse).toEqual([own, { hooks: [{ type: "command", command: `'${launcher}' run-hook PreToolUse "\${TAMA_AGENT_ID:-codex}" --provider codex` }] }]);

    expect(doctorCodex()).toMatchObject({ status: "warning", summary: expect.stringContaining(`no trust record for Tama's entries for ${CODEX_EVENTS.join(", ")}`) });
    // Codex's record of the person's review: one table per hook, keyed by file, event, group and hook.
    const keys = CODEX_EVENTS.map((event) => {
      const snake = event.replace(/[A-Z]/g, (c, at: number) => `${at > 0 ? "_" : ""}${c.toLowerCase()}`);
      return `${hooksFile()}:${snake}:${event === "PreToolUse" ? 1 : 0}:0`;
    });
    const trust = (list: string[]) => list.map((key) => `[hooks.state.${JSON.stringify(key)}]\ntrusted_hash = "sha256:00"\n`).join("\n");
    writeFileSync(path.join(codexDir(), "config.toml"), `model = "x"\n\n${trust(keys.slice(1))}`);
    expect(doctorCodex()).toMatchObject({ status: "warning", summary: expect.stringContaining("entries for SessionStart in") });
    writeFileSync(path.join(codexDir(), "config.toml"), `model = "x"\n\n${trust(keys)}`);
    expect(doctorCodex()).toMatchObject({ status: "ok" });

    expect(tama(home, ["uninstall", "--codex"], { env: codexEnv() }).code).toBe(0);
    expect(JSON.parse(readFileSync(hooksFile(), "utf8"))).toEqual({ hooks: { PreToolUse: [own] } });
    expect(doctorCodex()).toBeUndefined();
  });
});
