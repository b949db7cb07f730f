// Project hooks through a real engine over pipes: each project's hooks apply to its
// own sessions, in the project root with CLAUDE_PROJECT_DIR, only once trusted at
// their content; a change after trust holds them and refuses the project's tool calls.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tama } from "../cli/cli.ts";
import { EngineClient, makeTestHome, resultOf, type TestHome } from "../support/engine-client.ts";

let home: TestHome;
let engine: EngineClient;
let userHome: string;
let log: string;

function write(file: string, body: unknown, mode = 0o644): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, typeof body === "string" ? body : JSON.stringify(body, null, 2), { mode });
}

/** A repository whose Claude settings run a script that logs where and as whom it ran. */
function repo(name: string, command: (script: string) => string): string {
  const root = path.join(home.dir, name);
  mkdirSync(path.join(root, ".git"), { recursive: true });
  mkdirSync(path.join(root, "sub"), { recursive: true });
  write(
    path.join(root, ".claude", "hooks", "log.sh"),
    `#!/bin/sh\nprintf '%s %s %s\\n' "${name}" "$PWD" "$CLAUDE_PROJECT_DIR" >> "$LOG_FILE"\nexit 0\n`,
    0o755,
  );
  write(path.join(root, ".claude", "settings.json"), {
    hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: command(".claude/hooks/log.sh") }] }] },
  });
  return root;
}
const logged = (): string[] => {
  try {
    return readFileSync(log, "utf8").split("\n").filter((l) => l.length > 0);
  } catch {
    return [];
  }
};
const bash = (cwd: string) => engine.dispatch("pre_tool_use:bash", { session_id: "s", cwd, tool_input: { command: "ls" } });
const trust = (dir: string) => expect(tama(home, ["trust", dir], { env: { HOME: userHome } }).code).toBe(0);

beforeEach(async () => {
  home = makeTestHome();
  userHome = path.join(home.dir, "user");
  mkdirSync(userHome, { recursive: true });
  log = path.join(home.dir, "log.txt");
  home.writeRegistry({
    schema: 1,
    release: null,
    readClaudeSettings: true,
    hooks: [{ id: "user-log", events: ["pre_tool_use"], command: ["sh", "-c", `echo "user $PWD" >> "$LOG_FILE"`] }],
  });
  engine = new EngineClient(home, { HOME: userHome, LOG_FILE: log });
  await engine.ready();
});
afterEach(async () => {
  await engine.close();
  home.cleanup();
});

describe("project hooks in the engine", () => {
  it("run only in their own project, after trust, in the project root; a change holds them and refuses the project's calls", async () => {
    const a = repo("a", (script) => `sh ${script}`);
    const b = repo("b", (script) => `"$CLAUDE_PROJECT_DIR"/${script}`);
    const c = path.join(home.dir, "c");
    mkdirSync(path.join(c, ".git"), { recursive: true });

    const untrusted = resultOf(await bash(path.join(a, "sub")));
    expect(untrusted.decision).toBe("pass");
    expect(untrusted.held).toEqual({ project: a, trust: "untrusted", hooks: ["claude-project:pre_tool_use.log"], changes: [], command: `tama trust ${a}` });
    expect(logged()).toEqual([`user ${path.join(a, "sub")}`]);

    trust(a);
    trust(b);
    await bash(path.join(a, "sub"));
    await bash(b);
    const inC = resultOf(await bash(c));
    expect(inC.decision).toBe("pass");
    expect(inC.held).toBeUndefined();
    expect(logged().slice(1)).toEqual([`user ${path.join(a, "sub")}`, `a ${a} ${a}`, `user ${b}`, `b ${b} ${b}`, `user ${c}`]);

    // The script changes (a pull, an edit): a's hooks are held and its tool calls refused; b is untouched.
    write(path.join(a, ".claude", "hooks", "log.sh"), "#!/bin/sh\nexit 0\n", 0o755);
    const refused = resultOf(await bash(a));
    expect(refused.decision).toBe("block");
    expect(refused.reason).toBe(
      `Tama refused this tool call: the hooks of project ${a} changed after they were trusted (.claude/hooks/log.sh (changed)), so they are held and ` +
        `this project's tool calls are refused until the person reviews the change and runs \`tama trust ${a}\` (or \`tama trust --revoke ${a}\` to run none of them)`,
    );
    expect(refused.held).toMatchObject({ trust: "changed", changes: [".claude/hooks/log.sh (changed)"] });
    const own = resultOf(await engine.dispatch("pre_tool_use:bash", { session_id: "s", cwd: a, origin: "user", tool_input: { command: `tama trust ${a}` } }));
    expect(own.decision).toBe("pass");
    const prompt = resultOf(await engine.dispatch("user_prompt_submit", { session_id: "s", cwd: a, prompt: "hi" }));
    expect(prompt.decision).toBe("pass");
    expect(resultOf(await bash(b)).decision).toBe("pass");
    const status = await engine.request({ op: "status" });
    expect(status.state?.heldProjectHooks).toMatchObject({ count: 1, projects: [{ project: a, trust: "changed" }] });

    trust(a);
    expect(resultOf(await bash(a)).decision).toBe("pass");
    expect((await engine.request({ op: "status" })).state?.heldProjectHooks).toMatchObject({ count: 0, projects: [] });
  });

  it("takes an edit of .claude/settings.json at the next event, and a broken source holds only that source", async () => {
    const a = repo("a", (script) => `sh ${script}`);
    trust(a);
    await bash(a);
    expect(logged()).toEqual([`user ${a}`, `a ${a} ${a}`]);
    // Another hook appears in the settings: trusted again, it runs at the next event with no import.
    write(path.join(a, ".claude", "settings.json"), {
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "exit 2" }] }] },
    });
    trust(a);
    const blocked = resultOf(await bash(a));
    expect(blocked.decision).toBe("block");
    write(path.join(a, ".claude", "settings.local.json"), "{ not json");
    trust(a);
    const broken = resultOf(await bash(a));
    expect(broken.decision).toBe("block");
    expect(broken.brokenSources).toEqual([
      { source: "claude-local", file: path.join(a, ".claude", "settings.local.json"), error: expect.stringContaining("at line 1 column 2") },
    ]);
    expect(broken.results.map((r) => r.hook)).toEqual(["user-log", "claude-project:pre_tool_use.exit"]);
  });
});
