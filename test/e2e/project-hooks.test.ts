// Project hooks in real OMP: each repository's Claude Code hooks apply to its own
// sessions (and the user's to all), nothing of a repository runs before `tama trust`,
// a change after trust holds its hooks and refuses its tool calls, an edit of
// .claude/settings.json counts at the next event, and a broken source holds only itself.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useOmpFixture } from "../omp/fixture.ts";
import type { RpcSession } from "../omp/rpc-session.ts";
import { installTama } from "./tama-omp.ts";

const omp = useOmpFixture();

function write(file: string, body: unknown, mode = 0o644): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, typeof body === "string" ? body : JSON.stringify(body, null, 2), { mode });
}
const preToolUse = (command: string) => ({ hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command, timeout: 20 }] }] } });

function lastToolText(body: unknown): string {
  const messages = ((body as { messages?: { role: string; content: unknown }[] }).messages ?? []).filter((m) => m.role === "tool");
  const last = messages.at(-1);
  return typeof last?.content === "string" ? last.content : JSON.stringify(last?.content ?? "");
}

describe("project hooks in real OMP", () => {
  it("run per project, only once trusted, and hold with refusals when they change", async () => {
    const { server, env } = await omp.setup();
    const log = path.join(env.scratch, "hooks.log");
    const tama = installTama(env, { LOG_FILE: log });
    expect(tama.cli(["hooks", "claude-sources", "on"]).code).toBe(0);
    // The user's own Claude Code hook: it needs no trust and runs everywhere.
    write(path.join(env.home, ".claude", "settings.json"), preToolUse(`echo "user $PWD" >> "$LOG_FILE"`));

    const repo = (name: string): string => {
      const root = path.join(env.root, name);
      mkdirSync(path.join(root, ".git"), { recursive: true });
      return root;
    };
    // a: a relative python3 command, as Claude Code users write them.
    const a = repo("a");
    write(
      path.join(a, ".claude", "hooks", "pre_tool_use.py"),
      `import json, os, sys\nevent = json.load(sys.stdin)\nopen(os.environ["LOG_FILE"], "a").write("a " + os.getcwd() + " " + event["tool_name"] + "\\n")\n`,
    );
    write(path.join(a, ".claude", "settings.json"), preToolUse("python3 .claude/hooks/pre_tool_use.py"));
    // b: a script named through $CLAUDE_PROJECT_DIR.
    const b = repo("b");
    write(path.join(b, ".claude", "hooks", "check.sh"), `#!/bin/sh\necho "b $PWD $CLAUDE_PROJECT_DIR" >> "$LOG_FILE"\n`, 0o755);
    write(path.join(b, ".claude", "settings.json"), preToolUse(`"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh`));
    const c = repo("c");

    const logged = (): string[] => {
      try {
        return readFileSync(log, "utf8").split("\n").filter((l) => l.length > 0);
      } catch {
        return [];
      }
    };
    let seen = 0;
    const newLines = (): string[] => {
      const all = logged();
      const fresh = all.slice(seen);
      seen = all.length;
      return fresh;
    };
    const bash = async (session: RpcSession, word: string): Promise<string> => {
      const before = server.requests.length;
      await session.prompt(`CALL bash {"command":"echo ran-${word}"}`);
      return lastToolText(server.requests[before + 1]?.body);
    };

    // The first OMP makes the agent dir's settings database before the others open it:
    // OMP 17.3.5 creating it from two processes at once can fail on "table settings
    // already exists" (seen once in CI), which is OMP's race, not what is tested here.
    const inA = omp.rpc({ cwd: a });
    await inA.ready();
    const inB = omp.rpc({ cwd: b });
    const inC = omp.rpc({ cwd: c });
    await Promise.all([inB.ready(), inC.ready()]);

    // Before trust: nothing of either repository runs, and nothing is refused.
    expect(await bash(inA, "a1")).toMatch(/ran-a1/);
    expect(await bash(inB, "b1")).toMatch(/ran-b1/);
    expect(newLines()).toEqual([`user ${a}`, `user ${b}`]);
    // Each session is told once which project hooks are held and how to trust them; the third has none.
    const heldNotices = (session: RpcSession): string[] =>
      session.events.filter((f) => f.type === "extension_ui_request" && f.method === "notify" && /^Tama holds/.test(String(f.message))).map((f) => String(f.message));
    await bash(inA, "a1-again");
    newLines();
    expect(heldNotices(inA)).toHaveLength(1);
    expect(heldNotices(inA)[0]).toContain("tama trust");
    expect(heldNotices(inC)).toHaveLength(0);
    // The trust dialog is the TUI's alone: over RPC the other end may be a program.
    expect(inA.events.filter((f) => f.type === "extension_ui_request" && (f.method === "select" || f.method === "confirm"))).toEqual([]);

    expect(tama.cli(["trust", a]).code).toBe(0);
    expect(tama.cli(["trust", b]).code).toBe(0);
    expect(await bash(inA, "a2")).toMatch(/ran-a2/);
    expect(await bash(inB, "b2")).toMatch(/ran-b2/);
    expect(await bash(inC, "c2")).toMatch(/ran-c2/);
    // Each session runs the user's hook, then its own project's, in the project root.
    expect(newLines()).toEqual([`user ${a}`, `a ${a} Bash`, `user ${b}`, `b ${b} ${b}`, `user ${c}`]);

    // The script changes after trust (a pull, or the agent): a's hooks are held and its calls refused.
    write(path.join(a, ".claude", "hooks", "pre_tool_use.py"), "import sys\nsys.exit(0)\n");
    const refused = await bash(inA, "a3");
    expect(refused).toContain(`the hooks of project ${a} changed after they were trusted (.claude/hooks/pre_tool_use.py (changed))`);
    expect(refused).toContain(`tama trust ${a}`);
    expect(refused).not.toMatch(/ran-a3\n/);
    expect(await bash(inB, "b3")).toMatch(/ran-b3/);
    expect(await bash(inC, "c3")).toMatch(/ran-c3/);
    expect(newLines()).toEqual([`user ${b}`, `b ${b} ${b}`, `user ${c}`]);
    expect(tama.cli(["trust", a]).code).toBe(0);
    expect(await bash(inA, "a4")).toMatch(/ran-a4/);
    newLines();

    // An edit of b's settings, trusted, counts at the open session's next event (no import).
    write(path.join(b, ".claude", "settings.json"), preToolUse(`echo "b's new rule" >&2; exit 2`));
    expect(tama.cli(["trust", b]).code).toBe(0);
    expect(await bash(inB, "b4")).toContain("b's new rule");
    expect(newLines()).toEqual([`user ${b}`]);

    // A broken source holds only that source: b's settings.json still runs, the user's gates too.
    write(path.join(b, ".claude", "settings.json"), preToolUse(`"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh`));
    write(path.join(b, ".claude", "settings.local.json"), "{ not json");
    expect(tama.cli(["trust", b]).code).toBe(0);
    expect(await bash(inB, "b5")).toMatch(/ran-b5/);
    expect(newLines()).toEqual([`user ${b}`, `b ${b} ${b}`]);
    const before = server.requests.length;
    await inB.prompt('CALL bash {"command":"git commit --no-verify -m x"}');
    expect(lastToolText(server.requests[before + 1]?.body)).toMatch(/--no-verify/);
  });
});
