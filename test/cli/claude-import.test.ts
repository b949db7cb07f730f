// `tama hooks import --from-claude`: Claude Code settings files, read where Claude
// reads them, translated into the registry; the imported hooks then run in a real engine.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { translateMatcher } from "../../modules/claude/settings.ts";
import { parseRegistry } from "../../modules/registry/registry.ts";
import { EngineClient, makeTestHome, resultOf, type TestHome } from "../support/engine-client.ts";
import { json, tama } from "./cli.ts";

let home: TestHome;
let user: string;
let project: string;
beforeEach(() => {
  home = makeTestHome("tama-import-");
  user = path.join(home.dir, "user");
  project = path.join(home.dir, "project");
  mkdirSync(path.join(user, ".claude"), { recursive: true });
  mkdirSync(path.join(project, ".claude", "hooks"), { recursive: true });
});
afterEach(() => home.cleanup());

function settings(file: string, value: unknown): string {
  writeFileSync(file, JSON.stringify(value, null, 2));
  return file;
}

/** The CLI as a user runs it: HOME is the test's, the cwd the project. */
const run = (args: string[]) => tama(home, ["hooks", "import", "--from-claude", ...args], { env: { HOME: user }, cwd: project });

interface ImportReport {
  registry: string;
  dryRun: boolean;
  sources: { file: string; scope: string; found: boolean }[];
  imported: { id: string; source: string; claudeEvent: string; matcher?: string; notes: string[]; hook: Record<string, unknown> }[];
  existing: { id: string }[];
  notTranslated: { source: string; claudeEvent: string; matcher?: string; what: string; why: string }[];
  notes: string[];
}

const USER_SETTINGS = {
  model: "opus",
  hooks: {
    PreToolUse: [
      { matcher: "Bash|Write", hooks: [{ type: "command", command: "/usr/bin/env true", timeout: 60 }] },
      { matcher: "Notebook.*", hooks: [{ type: "command", command: "echo notebook" }] },
      { matcher: "mcp__github__.*", hooks: [{ type: "command", command: "echo github", timeout: 5 }] },
      { matcher: "*", hooks: [{ type: "prompt", prompt: "Is this safe?" }] },
    ],
    PostToolUse: [{ matcher: "", hooks: [{ type: "command", command: "~/.claude/hooks/log.sh", async: true }] }],
    Notification: [{ hooks: [{ type: "command", command: "notify-send claude" }] }],
    PreCompact: [{ matcher: "auto", hooks: [{ type: "command", command: "echo compact" }] }],
    SubagentStop: [{ hooks: [{ type: "command", command: "echo subagent" }] }],
    Stop: [{ hooks: [{ type: "command", command: "echo stop", timeout: 7200 }] }],
  },
};

describe("tama hooks import --from-claude", () => {
  it("reads the user, project and local settings, translates what it can and names what it cannot", () => {
    settings(path.join(user, ".claude", "settings.json"), USER_SETTINGS);
    settings(path.join(project, ".claude", "settings.json"), {
      hooks: {
        SessionStart: [{ matcher: "startup", hooks: [{ type: "command", command: 'python3 "$CLAUDE_PROJECT_DIR/.claude/hooks/start.py"' }] }],
        UserPromptSubmit: [{ hooks: [{ type: "command", command: "echo prompt", timeout: 2.5 }] }],
      },
    });
    settings(path.join(project, ".claude", "settings.local.json"), { hooks: { SessionEnd: [{ hooks: [{ type: "command", command: "echo bye" }] }] } });

    const report = json<ImportReport>(run(["--json"]));
    expect(report.sources.map((s) => [s.scope, s.found])).toEqual([
      ["user", true],
      ["project", true],
      ["local", true],
    ]);
    const byId = Object.fromEntries(report.imported.map((i) => [i.id, i]));
    expect(Object.keys(byId)).toEqual([
      "claude.pre_tool_use.env",
      "claude.pre_tool_use.echo",
      "claude.stop.echo",
      "claude.session_start.start",
      "claude.user_prompt_submit.echo",
      "claude.session_end.echo",
    ]);
    expect(byId["claude.pre_tool_use.env"]?.hook).toMatchObject({
      events: ["pre_tool_use"],
      tools: ["Bash", "Write"],
      command: ["sh", "-c", "/usr/bin/env true"],
      timeoutMs: 60_000,
      failMode: "open",
      enabled: true,
    });
    expect(byId["claude.pre_tool_use.echo"]?.hook).toMatchObject({ tools: ["mcp__github__*"], timeoutMs: 5_000 });
    expect(byId["claude.stop.echo"]?.hook).toMatchObject({ events: ["stop"], tools: "any", timeoutMs: 3_600_000 });
    expect(byId["claude.stop.echo"]?.notes).toContain("its 7200 s timeout is cut to Tama's longest, 3600 s");
    expect(byId["claude.user_prompt_submit.echo"]?.hook).toMatchObject({ timeoutMs: 2_500 });
    expect(byId["claude.session_start.start"]?.hook).toMatchObject({
      command: ["env", `CLAUDE_PROJECT_DIR=${project}`, "sh", "-c", 'python3 "$CLAUDE_PROJECT_DIR/.claude/hooks/start.py"'],
      timeoutMs: 30_000,
      // The matcher names why the session started: it runs for those only, as in Claude Code.
      when: ["startup"],
    });
    expect(byId["claude.session_start.start"]?.notes).toEqual([
      `Claude Code runs it only in ${project}; the registry is global, so it runs in every OMP session`,
      "no timeout: Tama's default 30 s applies (Claude Code's is longer)",
      `CLAUDE_PROJECT_DIR is set to ${project}`,
    ]);

    expect(report.notTranslated.map((u) => [u.claudeEvent, u.matcher ?? "", u.what, u.why])).toEqual([
      ["PreToolUse", "Notebook.*", "echo notebook", expect.stringMatching(/^the matcher is a regular expression; Tama matches names, Name\* prefixes/)],
      ["PreToolUse", "*", "prompt hook", "Tama runs command hooks only"],
      ["PostToolUse", "", "~/.claude/hooks/log.sh", "async: it runs in the background and cannot refuse; Tama waits for every hook"],
      ["Notification", "", "notify-send claude", "OMP gives Tama no Notification event"],
      ["PreCompact", "auto", "echo compact", "OMP gives Tama no PreCompact event"],
      ["SubagentStop", "", "echo subagent", "OMP gives Tama no SubagentStop event"],
    ]);

    // The registry is valid and holds exactly what was reported.
    const listed = json<{ hooks: { id: string }[] }>(tama(home, ["hooks", "list", "--json"]));
    expect(listed.hooks.map((h) => h.id)).toEqual(Object.keys(byId));

    // Importing again adds nothing: every hook is already there.
    const again = json<ImportReport>(run(["--json"]));
    expect(again.imported).toEqual([]);
    expect(again.existing.map((e) => e.id)).toEqual(Object.keys(byId));
  });

  it("prints a short report: what was imported, what was already there, what was not translated", () => {
    settings(path.join(user, ".claude", "settings.json"), USER_SETTINGS);
    const first = run([]);
    expect(first.code).toBe(0);
    const lines = first.stdout.split("\n");
    expect(lines[0]).toBe("Read ~/.claude/settings.json.");
    expect(lines[1]).toBe(`Imported 3 hooks into ${home.registry}:`);
    expect(lines[2]).toMatch(/^ {2}ID +EVENT +TOOLS +RUNS +TIMEOUT +FROM$/);
    expect(lines[3]).toMatch(/^ {2}claude\.pre_tool_use\.env +pre_tool_use +Bash,Write +sh -c '\/usr\/bin\/env true' +60 s +\S+settings\.json$/);
    expect(first.stdout).toContain("Not translated (6):\n  PreToolUse Notebook.*  echo notebook");
    expect(first.stdout).toMatch(/Engines adopt them at their next event; `tama hooks disable ID` turns one off\.\n$/);
    const second = run([]);
    expect(second.stdout).toContain(`Imported no new hook into ${home.registry}.`);
    expect(second.stdout).toContain("Already in the registry (not added again): claude.pre_tool_use.env, claude.pre_tool_use.echo, claude.stop.echo.");
  });

  it("an imported Claude Code hook runs in the engine as it ran in Claude Code", async () => {
    const script = path.join(project, ".claude", "hooks", "no-force-push.sh");
    writeFileSync(script, '#!/bin/sh\nif grep -q "push --force"; then echo "force pushes are not allowed" >&2; exit 2; fi\nexit 0\n', { mode: 0o755 });
    settings(path.join(project, ".claude", "settings.json"), {
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/no-force-push.sh', timeout: 10 }] }] },
    });
    expect(run([]).code).toBe(0);
    const engine = new EngineClient(home);
    try {
      await engine.ready();
      // From another directory: CLAUDE_PROJECT_DIR still names the project.
      const payload = (command: string) => ({ session_id: "s", cwd: home.dir, tool_input: { command } });
      const refused = resultOf(await engine.dispatch("pre_tool_use:bash", payload("git push --force origin main")));
      expect(refused).toMatchObject({ decision: "block", reason: "force pushes are not allowed" });
      expect(resultOf(await engine.dispatch("pre_tool_use:bash", payload("git push origin main"))).decision).toBe("pass");
      // The matcher is kept: a write is not the hook's business.
      const write = await engine.dispatch("pre_tool_use:write", { session_id: "s", cwd: home.dir, tool_input: { path: "a.txt", content: "push --force" } });
      expect(resultOf(write)).toMatchObject({ decision: "pass", results: [] });
    } finally {
      await engine.close();
    }
  });

  it("PostToolUse hooks run for calls that succeeded, PostToolUseFailure hooks for those that failed", async () => {
    const log = path.join(home.dir, "ran.log");
    const hook = (name: string) => ({ type: "command", command: `cat >/dev/null; echo ${name} >> '${log}'`, timeout: 10 });
    settings(path.join(project, ".claude", "settings.json"), {
      hooks: { PostToolUse: [{ matcher: "Bash", hooks: [hook("post")] }], PostToolUseFailure: [{ matcher: "Bash", hooks: [hook("failure")] }] },
    });
    const report = json<ImportReport>(run(["--json"]));
    expect(report.imported.map((i) => [i.claudeEvent, i.hook.events, i.hook.results])).toEqual([
      ["PostToolUse", ["post_tool_use"], "success"],
      ["PostToolUseFailure", ["post_tool_use"], "failure"],
    ]);
    // Imported again: both are there already.
    expect(json<ImportReport>(run(["--json"])).existing).toHaveLength(2);
    const engine = new EngineClient(home);
    try {
      await engine.ready();
      const result = (isError: boolean) => ({ session_id: "s", cwd: home.dir, tool_input: { command: "make" }, tool_response: { content: [{ type: "text", text: "x" }], isError }, is_error: isError });
      await engine.dispatch("post_tool_use:bash", result(false));
      expect(readFileSync(log, "utf8")).toBe("post\n");
      await engine.dispatch("post_tool_use:bash", result(true));
      expect(readFileSync(log, "utf8")).toBe("post\nfailure\n");
    } finally {
      await engine.close();
    }
  });

  it("a SessionStart or SessionEnd matcher names why the session started or ended: the hook runs for those only", async () => {
    const log = path.join(home.dir, "ran.log");
    const hook = (name: string) => ({ type: "command", command: `cat >/dev/null; echo ${name} >> '${log}'`, timeout: 10 });
    settings(path.join(project, ".claude", "settings.json"), {
      hooks: {
        SessionStart: [{ matcher: "startup|resume", hooks: [hook("fresh")] }, { matcher: "compact", hooks: [hook("compacted")] }, { hooks: [hook("always")] }],
        SessionEnd: [{ matcher: "clear", hooks: [hook("cleared")] }, { matcher: "other.*", hooks: [hook("never")] }],
      },
    });
    const report = json<ImportReport>(run(["--json"]));
    expect(report.imported.map((i) => [i.claudeEvent, i.hook.when])).toEqual([
      ["SessionStart", ["startup", "resume"]],
      ["SessionStart", ["compact"]],
      ["SessionStart", undefined],
      ["SessionEnd", ["clear"]],
    ]);
    expect(report.notTranslated.map((u) => [u.claudeEvent, u.matcher, u.why])).toEqual([["SessionEnd", "other.*", expect.stringMatching(/^the matcher is a regular expression/)]]);
    expect(tama(home, ["hooks", "list"]).stdout).toContain("session_start(startup|resume)");
    const engine = new EngineClient(home);
    try {
      await engine.ready();
      const ran = async (event: string, payload: Record<string, unknown>): Promise<string[]> => {
        writeFileSync(log, "");
        await engine.dispatch(event, { session_id: "s", cwd: home.dir, ...payload });
        return readFileSync(log, "utf8").split("\n").filter((l) => l.length > 0).sort();
      };
      expect(await ran("session_start", { source: "startup" })).toEqual(["always", "fresh"]);
      expect(await ran("session_start", { source: "compact" })).toEqual(["always", "compacted"]);
      expect(await ran("session_start", { source: "clear" })).toEqual(["always"]);
      expect(await ran("session_end", { reason: "clear" })).toEqual(["cleared"]);
      expect(await ran("session_end", { reason: "other" })).toEqual([]);
    } finally {
      await engine.close();
    }
    // when is for session hooks only: a registry that puts it elsewhere is refused by name.
    const bad = parseRegistry(JSON.stringify({ schema: 1, hooks: [{ id: "x", events: ["stop"], command: ["true"], when: ["startup"] }] }), "r.json");
    expect(bad.ok ? "" : bad.error).toContain("when (why a session started or ended) is for session_start and session_end hooks only");
  });

  it("a named file, --dry-run, --disabled and disableAllHooks", () => {
    const file = settings(path.join(home.dir, "elsewhere.json"), { hooks: { Stop: [{ hooks: [{ type: "command", command: "echo x" }] }] } });
    const dry = json<ImportReport>(run([file, "--dry-run", "--json"]));
    expect(dry).toMatchObject({ dryRun: true, sources: [{ file, scope: "file", found: true }], imported: [{ id: "claude.stop.echo" }] });
    expect(tama(home, ["hooks", "list"]).code).toBe(1);

    expect(json<ImportReport>(run([file, "--disabled", "--json"])).imported[0]?.hook).toMatchObject({ enabled: false });

    const off = settings(path.join(project, ".claude", "settings.local.json"), { disableAllHooks: true, hooks: { Stop: [{ hooks: [{ type: "command", command: "echo y" }] }] } });
    const report = json<ImportReport>(run([off, "--json"]));
    expect(report.sources).toEqual([{ file: off, scope: "local", found: true }]);
    expect(report.imported[0]?.hook).toMatchObject({ enabled: false });
    expect(report.notes).toEqual([
      `${off} sets disableAllHooks, so its hooks are imported disabled`,
      'imported hooks start when their event comes; a script that reads stdin before doing anything else can start earlier: import with --prestart, or set "prestart": true on the hook',
    ]);
  });

  it("--prestart marks the imported command hooks to start before their event, and says what that means", () => {
    const file = settings(path.join(home.dir, "pre.json"), { hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "echo x" }] }] } });
    const report = json<ImportReport>(run([file, "--prestart", "--json"]));
    expect(report.imported[0]?.hook).toMatchObject({ prestart: true });
    expect(report.notes).toEqual([
      "imported hooks are pre-started: each one's process starts before its event and waits on stdin, so whatever a script does before it reads stdin sees the state from before the event",
    ]);
  });

  it("says where it looked when there is nothing to import, and names a file that cannot be read", () => {
    const none = run([]);
    expect(none.code).toBe(1);
    expect(none.stderr).toBe(
      `tama hooks: no Claude Code settings at ~/.claude/settings.json, ${project}/.claude/settings.json, ${project}/.claude/settings.local.json; name the file: tama hooks import --from-claude PATH\n`,
    );
    const missing = run([path.join(home.dir, "nope.json")]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/reading .*nope\.json: ENOENT/);
    const broken = path.join(home.dir, "broken.json");
    writeFileSync(broken, "{");
    expect(run([broken]).stderr).toMatch(/parsing .*broken\.json: /);
    expect(tama(home, ["hooks", "import"]).code).toBe(2);
    expect(readFileSync(broken, "utf8")).toBe("{");
  });
});

describe("import outcomes", () => {
  it("exits 1 when nothing could be imported, with the count of what was not translated", () => {
    settings(path.join(user, ".claude", "settings.json"), {
      hooks: {
        Notification: [{ hooks: [{ type: "command", command: "notify-send claude" }] }],
        PreToolUse: [{ matcher: "Notebook.*", hooks: [{ type: "command", command: "echo notebook" }] }, { matcher: "*", hooks: [{ type: "prompt", prompt: "safe?" }] }],
      },
    });
    const text = run([]);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/Not translated \(3\):/);
    expect(text.stderr).toBe('tama hooks import: nothing was imported: none of the 3 hooks found could be translated (see "Not translated")\n');
    const machine = run(["--json"]);
    expect(machine.code).toBe(1);
    expect(json<ImportReport & { ok: boolean; exitCode: number; error: string }>(machine)).toMatchObject({ ok: false, exitCode: 1, error: expect.stringContaining("nothing was imported"), imported: [] });
  });

  it("--fail-mode closed sets the imported hooks' fail mode; a bad value is a usage error", () => {
    settings(path.join(user, ".claude", "settings.json"), { hooks: { Stop: [{ hooks: [{ type: "command", command: "echo x" }] }] } });
    const report = json<ImportReport>(run(["--fail-mode", "closed", "--json"]));
    expect(report.imported[0]?.hook).toMatchObject({ id: "claude.stop.echo", failMode: "closed" });
    const bad = run(["--fail-mode", "shut"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('tama hooks import: --fail-mode is open or closed, not "shut"\nRun `tama hooks import --help` for usage.\n');
  });

  it("lists each id once: a hook in two files, imported again, is one id in the report", () => {
    const hook = { hooks: { Stop: [{ hooks: [{ type: "command", command: "/usr/bin/env true" }] }] } };
    settings(path.join(user, ".claude", "settings.json"), hook);
    settings(path.join(project, ".claude", "settings.local.json"), hook);
    const first = json<ImportReport>(run(["--json"]));
    expect(first.imported.map((i) => i.id)).toEqual(["claude.stop.env"]);
    expect(first.existing).toEqual([]);
    const again = run([]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("Already in the registry (not added again): claude.stop.env.\n");
  });
});

describe("translateMatcher", () => {
  it.each([
    [undefined, "any"],
    ["", "any"],
    ["*", "any"],
    ["Bash", ["Bash"]],
    ["Edit|MultiEdit|Write", ["Edit", "MultiEdit", "Write"]],
    ["^Bash$", ["Bash"]],
    ["^(Edit|Write)$", ["Edit", "Write"]],
    ["^mcp__", ["mcp__*"]],
    ["mcp__memory__.*", ["mcp__memory__*"]],
    ["^Notebook.*", ["Notebook*"]],
  ])("%j → %j", (matcher, tools) => {
    expect(translateMatcher(matcher)).toEqual({ ok: true, tools });
  });

  it.each(["Notebook.*", "Bash$", "Web(Fetch|Search)", "Bash|", "[BW]rite"])("%j is a regex with no translation", (matcher) => {
    expect(translateMatcher(matcher)).toMatchObject({ ok: false });
  });
});
