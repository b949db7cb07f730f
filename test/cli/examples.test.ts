// The hook scripts in examples/, each registered with `tama hooks add` as the README
// shows and run by the real engine on the events they are written for.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EngineClient, makeTestHome, resultOf, ROOT, type TestHome } from "../support/engine-client.ts";
import { tama } from "./cli.ts";

const example = (name: string) => path.join(ROOT, "examples", name);

let home: TestHome;
let engine: EngineClient;
let repo: string;
beforeAll(async () => {
  home = makeTestHome("tama-examples-");
  repo = path.join(home.dir, "repo");
  mkdirSync(path.join(repo, "src"), { recursive: true });
  const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { cwd: repo, stdio: "pipe" });
  git("init", "-q", "-b", "main");
  writeFileSync(path.join(repo, "README"), "x\n");
  git("add", "README");
  git("commit", "-q", "-m", "first commit");
  writeFileSync(path.join(repo, "src", "new.ts"), "");
  symlinkSync(home.dir, path.join(repo, "escape"));

  // Registered the way the README says, with the CLI.
  const add = (...args: string[]) => {
    const r = tama(home, ["hooks", "add", ...args]);
    expect(r.code, r.stderr).toBe(0);
  };
  add("--id", "deny-writes-outside-repo", "--event", "pre_tool_use", "--tools", "write", "--fail-mode", "closed", "--", "python3", example("deny-writes-outside-repo.py"));
  add("--id", "block-rm-rf", "--event", "pre_tool_use", "--tools", "shell", "--", example("block-rm-rf.sh"));
  add("--id", "require-tests", "--event", "post_tool_use", "--event", "stop", "--", "python3", example("require-tests-before-stop.py"));
  add("--id", "git-context", "--event", "user_prompt_submit", "--", example("add-git-context.sh"));
  // The stop example keeps its notes in the temp dir: the test's own.
  engine = new EngineClient(home, { TMPDIR: home.dir });
  await engine.ready();
});
afterAll(async () => {
  await engine.close();
  home.cleanup();
});

const at = (session: string, extra: Record<string, unknown>) => ({ session_id: session, cwd: repo, ...extra });

describe("examples/deny-writes-outside-repo.py", () => {
  it("denies a write outside the repository, through .. or a symlink, and passes one inside", async () => {
    for (const target of ["/etc/passwd", "../outside.txt", "escape/out.txt"]) {
      const r = resultOf(await engine.dispatch("pre_tool_use:write", at("w", { tool_input: { path: target, content: "x" } })));
      expect(r.decision, target).toBe("block");
      // Tama hands hooks Claude's file_path: absolute, resolved against the cwd.
      expect(r.reason).toBe(`${path.resolve(repo, target)} is outside the repository ${repo}; write inside it`);
    }
    for (const target of ["src/new.ts", path.join(repo, "README")]) {
      expect(resultOf(await engine.dispatch("pre_tool_use:write", at("w", { tool_input: { path: target, content: "x" } }))).decision, target).toBe("pass");
    }
    // OMP's edit in replace mode reaches it as Claude's Edit with file_path.
    const edit = await engine.dispatch("pre_tool_use:edit", at("w", { tool_input: { path: "/tmp/x.ts", old_string: "a", new_string: "b" } }));
    expect(resultOf(edit).decision).toBe("block");
  });

  it("sees eval's literal writes as Writes, and refuses code it cannot read only when asked to", async () => {
    const outside = await engine.dispatch("pre_tool_use:eval", at("w", { tool_input: { language: "py", code: "write('/etc/x.conf', 'y')" } }));
    expect(resultOf(outside)).toMatchObject({ decision: "block", reason: `/etc/x.conf is outside the repository ${repo}; write inside it` });
    const inside = await engine.dispatch("pre_tool_use:eval", at("w", { tool_input: { language: "js", code: "await write('src/ok.ts', '')" } }));
    expect(resultOf(inside).decision).toBe("pass");
    const run = (args: string[]) =>
      spawnSync("python3", [example("deny-writes-outside-repo.py"), ...args], {
        input: JSON.stringify({ cwd: repo, tool_name: "eval", tool_input: { code: "x", language: "python" }, unnamed_writes: true }),
        encoding: "utf8",
      });
    expect(run([]).status).toBe(0);
    expect(run(["--refuse-unnamed-writes"])).toMatchObject({ status: 2, stderr: expect.stringContaining("eval runs code that can write files outside the repository unseen") });
  });
});

describe("examples/block-rm-rf.sh", () => {
  it.each(["rm -rf build", "cd /tmp && rm -fr x", "sudo rm -Rf /", "rm -r -f dist", "rm --recursive --force node_modules"])("refuses %j", async (command) => {
    const r = resultOf(await engine.dispatch("pre_tool_use:bash", at("r", { tool_input: { command } })));
    expect(r).toMatchObject({ decision: "block", reason: "rm -rf is not allowed here: remove the files you mean by name, or ask the user to" });
  });

  it.each(["rm build/a.o", "git rm -r --cached dist", "ls -rf", "echo 'form -rf'"])("passes %j", async (command) => {
    expect(resultOf(await engine.dispatch("pre_tool_use:bash", at("r", { tool_input: { command } }))).decision).toBe("pass");
  });
});

describe("examples/require-tests-before-stop.py", () => {
  it("refuses to end the turn after a write until the tests ran", async () => {
    const session = "tests-1";
    expect(resultOf(await engine.dispatch("stop", at(session, {}))).decision).toBe("pass");
    await engine.dispatch("post_tool_use:write", at(session, { tool_input: { path: "src/a.ts", content: "x" }, tool_response: { content: [] } }));
    const refused = resultOf(await engine.dispatch("stop", at(session, {})));
    expect(refused.decision).toBe("block");
    expect(refused.reason).toBe(`Files changed since the tests last ran (${path.join(repo, "src/a.ts")}): run the tests (e.g. npm test), then finish.`);
    // Another session's writes are its own.
    expect(resultOf(await engine.dispatch("stop", at("tests-2", {}))).decision).toBe("pass");
    await engine.dispatch("post_tool_use:bash", at(session, { tool_input: { command: "npm test" }, tool_response: { content: [] } }));
    expect(resultOf(await engine.dispatch("stop", at(session, {}))).decision).toBe("pass");
  });
});

describe("examples/add-git-context.sh", () => {
  it("adds the repository's state to a prompt, and nothing outside a repository", async () => {
    const r = resultOf(await engine.dispatch("user_prompt_submit", at("p", { prompt: "fix the bug" })));
    expect(r).toMatchObject({ decision: "pass", additionalContext: "Repository context: branch main, 2 changed file(s), last commit: first commit." });
    const outside = resultOf(await engine.dispatch("user_prompt_submit", { session_id: "p", cwd: "/", prompt: "hi" }));
    expect(outside.decision).toBe("pass");
    expect(outside.additionalContext).toBeUndefined();
  });
});
