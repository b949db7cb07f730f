// The walk of one call's shell, shared by the gates of a dispatch: each visitor sees
// the same commands in the same order, and nothing is kept past the input object.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { builtinGate } from "../../modules/gates/index.ts";
import { walkCall, type RunCommand } from "../../modules/gates/shell-walk.ts";
import { parseShell } from "../../modules/gates/shell-words.ts";
import type { HookInput } from "../../modules/protocol/hook-input.ts";

const scratch = mkdtempSync(path.join(os.tmpdir(), "tama-walk-"));
const repo = path.join(scratch, "repo");
mkdirSync(path.join(repo, ".git"), { recursive: true });
writeFileSync(path.join(repo, ".git", "HEAD"), "ref: refs/heads/topic\n");
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const bash = (command: string): HookInput => ({ hook_event_name: "PreToolUse", session_id: "s1", cwd: repo, tool_name: "Bash", tool_input: { command } }) as HookInput;

describe("walkCall", () => {
  it("hands every visitor of one input the same commands in the same order, and stops each where it refuses", () => {
    const input = bash("cd sub && git status; echo done | tee out.txt");
    const first: RunCommand[] = [];
    const second: RunCommand[] = [];
    expect(walkCall(input, (run) => void first.push(run))).toBeUndefined();
    expect(walkCall(input, (run) => void second.push(run))).toBeUndefined();
    expect(first.map((run) => run.argv)).toEqual([["cd", "sub"], ["git", "status"], ["echo", "done"], ["tee", "out.txt"]]);
    expect(second).toEqual(first);
    expect(second.every((run, i) => run === first[i])).toBe(true);
    // A visitor that refuses the second command sees no command after it.
    const seen: string[] = [];
    expect(walkCall(input, (run) => (seen.push(run.argv[0] as string), run.program === "git" ? "no git" : undefined))).toBe("no git");
    expect(seen).toEqual(["cd", "git"]);
  });

  it("walks a later call of the same text again, against the files as they are then", async () => {
    const gate = builtinGate("protect-branches");
    if (!gate) throw new Error("no protect-branches gate");
    const options = gate.parseOptions?.(undefined);
    const opts = options?.ok ? options.options : undefined;
    const command = "git pf origin topic";
    expect((await gate.evaluate(bash(command), { tamaHome: "/nonexistent" }, opts)).decision).toBe("pass");
    // The repository gains an alias between two calls with the same text.
    writeFileSync(path.join(repo, ".git", "config"), "[alias]\n\tpf = push --force\n");
    const verdict = await gate.evaluate(bash(command), { tamaHome: "/nonexistent" }, opts);
    expect(verdict.decision).toBe("block");
  });
});

describe("a script parsed once for every gate that reads it", () => {
  it("gives the same commands again, frozen, so no reader changes what the next one reads", () => {
    const script = 'cd /tmp && HUSKY=0 git commit -m "x" > out.txt <<EOF\nbody\nEOF';
    const first = parseShell(script);
    expect(parseShell(script)).toBe(first);
    expect(first.map((c) => c.argv)).toEqual([["cd", "/tmp"], ["git", "commit", "-m", "x"]]);
    expect(first[1]?.stdin).toEqual(["body"]);
    expect(() => (first[1]?.argv as string[]).push("--no-verify")).toThrow(TypeError);
    expect(() => {
      (first[1] as { piped: boolean }).piped = true;
    }).toThrow(TypeError);
    expect(parseShell(script)[1]?.argv).toEqual(["git", "commit", "-m", "x"]);
  });

  it("keeps only the newest scripts, and parses a long one each time", () => {
    const long = `echo ${"a".repeat(70 * 1024)}`;
    expect(parseShell(long)).not.toBe(parseShell(long));
    const old = parseShell("echo kept-then-dropped");
    for (let i = 0; i < 20; i++) parseShell(`echo ${i}`);
    const again = parseShell("echo kept-then-dropped");
    expect(again).not.toBe(old);
    expect(again).toEqual(old);
  });
});
