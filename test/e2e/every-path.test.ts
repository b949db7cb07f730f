// Every path OMP gives the agent to run a command or write a file reaches the gates:
// code execution (eval, write xd://eval, eval's tool bridge), OMP's bash `env` and
// `cwd`, the shell forms the git gate reads, bracketed paths, ast_edit and its
// xd://resolve confirmation. The session works in a repository whose pre-commit hook
// always fails, so a commit lands only when the hooks were skipped.
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useOmpFixture } from "../omp/fixture.ts";
import { defaultScript, lastUserText, trailingToolResults, type ModelServer, type Script } from "../omp/model-server.ts";
import type { OmpEnv } from "../omp/omp-env.ts";
import type { RpcSession } from "../omp/rpc-session.ts";
import { ROOT } from "../support/engine-client.ts";
import { writeExtension } from "../omp/test-files.ts";
import { installTama, type TamaInstall } from "./tama-omp.ts";

const omp = useOmpFixture();
const DENY_OUTSIDE = path.join(ROOT, "examples", "deny-writes-outside-repo.py");

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync("git", args, { cwd, encoding: "utf8", env: { ...process.env, HOME: cwd, GIT_CONFIG_NOSYSTEM: "1" } });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout.trim();
}

/** The session's cwd as a repository with one commit and a pre-commit hook that always fails. */
function guardedRepo(env: OmpEnv): { commits: () => number } {
  git(env.cwd, "init", "-q", "-b", "main");
  git(env.cwd, "config", "user.name", "t");
  git(env.cwd, "config", "user.email", "t@example.com");
  git(env.cwd, "commit", "-q", "--allow-empty", "-m", "first");
  const hook = path.join(env.cwd, ".git", "hooks", "pre-commit");
  writeFileSync(hook, "#!/bin/sh\necho 'pre-commit: always fails' >&2\nexit 1\n");
  chmodSync(hook, 0o755);
  // The guard works: a plain commit is stopped by the hook.
  const plain = spawnSync("git", ["commit", "--allow-empty", "-m", "plain"], { cwd: env.cwd, encoding: "utf8" });
  expect(plain.status).not.toBe(0);
  return { commits: () => Number(git(env.cwd, "rev-list", "--count", "HEAD")) };
}

/** A command hook that appends every input it gets to a JSON-lines log and passes. */
function logHook(env: OmpEnv, id: string, tools: unknown): { entry: Record<string, unknown>; read: () => Record<string, unknown>[] } {
  const log = path.join(env.scratch, `${id}.jsonl`);
  return {
    entry: { id, events: ["pre_tool_use"], tools, command: ["sh", "-c", `cat >> '${log}'; echo >> '${log}'`] },
    read: () =>
      existsSync(log)
        ? readFileSync(log, "utf8")
            .split("\n")
            .filter((line) => line.trim().length > 0)
            .map((line) => JSON.parse(line) as Record<string, unknown>)
        : [],
  };
}

function addHooks(tama: TamaInstall, hooks: Record<string, unknown>[]): void {
  const registry = tama.readRegistry();
  delete registry.checksum;
  // A command hook added here takes the place of a built-in gate of the same id (the example it was made from).
  const added = new Set(hooks.map((h) => h.id));
  registry.hooks = registry.hooks.filter((h) => !added.has(h.id as string));
  registry.hooks.push(...hooks);
  tama.writeRegistry(registry);
}

/** What the tool said to the model for the prompt just played. */
function lastToolText(server: ModelServer): string {
  const turns = server.requests.at(-1)?.turns ?? [];
  return turns.filter((t) => t.role === "tool").at(-1)?.text ?? "";
}

async function call(session: RpcSession, server: ModelServer, tool: string, input: unknown): Promise<string> {
  await session.prompt(`CALL ${tool} ${JSON.stringify(input)}`);
  return lastToolText(server);
}

const BYPASS = "git commit --allow-empty --no-verify -m bypassed";

describe("code execution reaches the gates in real OMP", () => {
  it("refuses eval JS execSync, eval Python subprocess, write xd://eval and eval's tool bridge; a harmless eval runs", async () => {
    const { server, env } = await omp.setup();
    const repo = guardedRepo(env);
    installTama(env);
    const session = omp.rpc();
    await session.ready();

    const js = await call(session, server, "eval", { language: "js", code: `require('child_process').execSync('${BYPASS}')` });
    expect(js).toMatch(/eval code runs a command: git commit --no-verify skips/);
    const py = await call(session, server, "eval", { language: "py", code: `import subprocess\nsubprocess.run('${BYPASS}', shell=True)` });
    expect(py).toMatch(/git commit --no-verify skips/);
    const device = await call(session, server, "write", { path: "xd://eval", content: JSON.stringify({ language: "py", code: `import os\nos.system('${BYPASS}')` }) });
    expect(device).toMatch(/git commit --no-verify skips/);
    // eval's tool bridge calls go through OMP's own tool_call: the bash call inside is refused
    const bridged = await call(session, server, "eval", { language: "js", code: `const r = await tool.bash({ command: ${JSON.stringify(BYPASS)} }); return JSON.stringify(r)` });
    expect(bridged).toMatch(/--no-verify/);
    expect(repo.commits()).toBe(1);

    const harmless = await call(session, server, "eval", { language: "js", code: "return require('child_process').execSync('echo eval-control-ran').toString()" });
    expect(harmless).toMatch(/eval-control-ran/);
  });

  it("shows eval's write() to a write hook as Claude's Write, and a closed write hook can refuse code that writes unnamed files", async () => {
    const { server, env } = await omp.setup();
    const tama = installTama(env);
    const writes = logHook(env, "writes", "write");
    const denySecret = path.join(env.scratch, "deny-secret.py");
    writeFileSync(
      denySecret,
      [
        "import json, sys",
        "event = json.load(sys.stdin)",
        "target = (event.get('tool_input') or {}).get('file_path') or ''",
        "if target.endswith('/deploy.secret'):",
        "    print(target + ' holds secrets; do not write it', file=sys.stderr); sys.exit(2)",
        "if event.get('unnamed_writes') and 'strict' in sys.argv:",
        "    print('code that writes files no hook can name is not allowed here', file=sys.stderr); sys.exit(2)",
      ].join("\n"),
    );
    addHooks(tama, [writes.entry, { id: "deny-secret", events: ["pre_tool_use"], tools: "write", failMode: "closed", command: ["python3", denySecret] }]);
    // This test is about what a command write hook sees: the built-in secret-file gate would answer first.
    const withoutSecretGate = tama.readRegistry();
    withoutSecretGate.hooks = withoutSecretGate.hooks.filter((h) => h.id !== "protect-secret-files");
    tama.writeRegistry(withoutSecretGate);
    const session = omp.rpc();
    await session.ready();

    const refused = await call(session, server, "eval", { language: "js", code: "await write('deploy.secret', 'TOKEN=1'); return 'wrote'" });
    expect(refused).toMatch(/deploy\.secret holds secrets/);
    expect(existsSync(path.join(env.cwd, "deploy.secret"))).toBe(false);
    const allowed = await call(session, server, "eval", { language: "py", code: "write('notes.txt', 'hello')\nprint('py-wrote')" });
    expect(allowed).toMatch(/py-wrote/);
    expect(readFileSync(path.join(env.cwd, "notes.txt"), "utf8")).toBe("hello");

    const seen = writes.read();
    expect(seen.find((e) => e.tool_name === "Write" && (e.tool_input as Record<string, unknown>).file_path === path.join(env.cwd, "deploy.secret"))).toMatchObject({
      tool_input: { content: "TOKEN=1" },
      omp: { tool_name: "eval", kind: "write" },
    });
    expect(seen.find((e) => e.tool_name === "eval")).toMatchObject({ unnamed_writes: true, tool_input: { language: "python" } });

    // local:// (OMP's session sandbox): the hook is shown the very file OMP writes, from write and from eval
    await call(session, server, "write", { path: "local://plan.md", content: "from-write" });
    await call(session, server, "eval", { language: "js", code: "await write('local://eval-plan.md', 'from-eval'); return 'ok'" });
    for (const [name, content] of [["plan.md", "from-write"], ["eval-plan.md", "from-eval"]] as const) {
      const shown = writes.read().find((e) => e.tool_name === "Write" && String((e.tool_input as Record<string, unknown>).file_path).endsWith(`/local/${name}`));
      const file = String((shown?.tool_input as Record<string, unknown> | undefined)?.file_path);
      expect(readFileSync(file, "utf8")).toBe(content);
    }

    // the same hook, told to refuse code it cannot read for writes
    const registry = tama.readRegistry();
    const strict = registry.hooks.find((h) => h.id === "deny-secret") as { command: string[] };
    strict.command = ["python3", denySecret, "strict"];
    tama.writeRegistry(registry);
    const strictAnswer = await call(session, server, "eval", { language: "py", code: "print('should-not-run')" });
    expect(strictAnswer).toMatch(/code that writes files no hook can name is not allowed here/);
    expect(strictAnswer).not.toMatch(/should-not-run/);
  });
});

describe("a registry's toolKinds, in real OMP", () => {
  it("makes another extension's tool a shell tool: the git gate reads it and refuses the bypass", async () => {
    const { server, env } = await omp.setup();
    const repo = guardedRepo(env);
    const tama = installTama(env);
    const registry = tama.readRegistry();
    delete registry.checksum;
    registry.toolKinds = { run_it: "shell" };
    tama.writeRegistry(registry);
    const extension = writeExtension(
      env.scratch,
      "run-it",
      `import { spawnSync } from "node:child_process";
export default function (pi) {
  const z = pi.zod;
  pi.registerTool({
    name: "run_it",
    label: "run it",
    description: "runs a shell command",
    parameters: z.object({ command: z.string() }),
    loadMode: "essential",
    async execute(_id, params) {
      const r = spawnSync("sh", ["-c", params.command], { encoding: "utf8" });
      return { content: [{ type: "text", text: "run_it: " + r.stdout + r.stderr }] };
    },
  });
}
`,
    );
    const session = omp.rpc({ extensionPaths: [extension] });
    await session.ready();
    expect(await call(session, server, "run_it", { command: BYPASS })).toMatch(/git commit --no-verify skips/);
    expect(repo.commits()).toBe(1);
    expect(await call(session, server, "run_it", { command: "echo run-it-control-ran" })).toMatch(/run_it: run-it-control-ran/);
  });
});

describe("OMP's bash fields and the shell forms the git gate reads, in real OMP", () => {
  it("refuses bash env GIT_CONFIG_* core.hooksPath, env -S, a -c alias and setsid; the hook runs in bash's cwd", async () => {
    const { server, env } = await omp.setup();
    const repo = guardedRepo(env);
    const tama = installTama(env);
    const shell = logHook(env, "shell", "shell");
    addHooks(tama, [shell.entry]);
    const session = omp.rpc();
    await session.ready();

    const viaEnv = await call(session, server, "bash", {
      command: "git commit --allow-empty -m env-bypass",
      env: { GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "core.hooksPath", GIT_CONFIG_VALUE_0: "/dev/null" },
    });
    expect(viaEnv).toMatch(/GIT_CONFIG_KEY_0=core.hooksPath sets core.hooksPath/);
    expect(await call(session, server, "bash", { command: `env -S '${BYPASS}'` })).toMatch(/git commit --no-verify skips/);
    expect(await call(session, server, "bash", { command: "git -c alias.ci='commit --allow-empty --no-verify' ci -m alias" })).toMatch(
      /git ci is the alias "commit --allow-empty --no-verify"/,
    );
    expect(await call(session, server, "bash", { command: `setsid ${BYPASS}` })).toMatch(/git commit --no-verify skips/);
    // forms that hide the switch from a word-by-word reading: a variable, a function, an escape, braces
    expect(await call(session, server, "bash", { command: "g=git; $g commit --allow-empty --no-verify -m var" })).toMatch(/git commit --no-verify skips/);
    expect(await call(session, server, "bash", { command: 'f() { git "$@"; }; f commit --allow-empty --no-verify -m fn' })).toMatch(/git commit --no-verify skips/);
    expect(await call(session, server, "bash", { command: "git commit --allow-empty $'\\x2dn' -m escaped" })).toMatch(/git commit -n \(--no-verify\) skips/);
    expect(await call(session, server, "bash", { command: "git commit --allow-empty -m braces {-n,-q}" })).toMatch(/git commit -n \(--no-verify\) skips/);
    expect(repo.commits()).toBe(1);

    // bash's cwd field: the hook is told the directory OMP runs the command in
    const outside = path.join(env.scratch, "elsewhere");
    mkdirSync(outside);
    const ran = await call(session, server, "bash", { command: "pwd && echo cwd-control-ran", cwd: outside, env: { TAMA_PROBE: "1" } });
    expect(ran).toMatch(/cwd-control-ran/);
    const entry = shell.read().find((e) => (e.tool_input as Record<string, unknown>).command === "pwd && echo cwd-control-ran");
    expect(entry).toMatchObject({ cwd: outside, tool_name: "Bash", tool_input: { cwd: outside, env: { TAMA_PROBE: "1" } } });
    const relative = await call(session, server, "bash", { command: "echo relative-ran", cwd: "../scratch/elsewhere" });
    expect(relative).toMatch(/relative-ran/);
    expect(shell.read().at(-1)).toMatchObject({ cwd: outside });
  });
});

describe("paths as OMP resolves them, in real OMP", () => {
  it("a closed deny-writes-outside-repo hook sees bracketed write targets as the files OMP writes", async () => {
    const { server, env } = await omp.setup();
    guardedRepo(env);
    const tama = installTama(env);
    addHooks(tama, [{ id: "deny-writes-outside-repo", events: ["pre_tool_use"], tools: "write", failMode: "closed", command: ["python3", DENY_OUTSIDE] }]);
    const session = omp.rpc();
    await session.ready();

    const outside = path.join(path.dirname(env.cwd), "outside.txt");
    const bracketed = await call(session, server, "write", { path: `[${env.cwd}/../outside.txt]`, content: "x" });
    expect(bracketed).toMatch(/outside the repository/);
    const tagged = await call(session, server, "write", { path: "[../outside.txt#ABCD]", content: "x" });
    expect(tagged).toMatch(/outside the repository/);
    expect(existsSync(outside)).toBe(false);

    // inside the repository the same form is written where OMP puts it: the unwrapped path
    const inside = await call(session, server, "write", { path: "[inside.txt]", content: "in" });
    expect(inside).not.toMatch(/outside the repository/);
    expect(readFileSync(path.join(env.cwd, "inside.txt"), "utf8")).toBe("in");

    // local:// is the session's own sandbox, outside the repository: the hook is shown that file
    const local = await call(session, server, "write", { path: "local://plan.md", content: "p" });
    expect(local).toMatch(/local\/plan\.md is outside the repository|plan\.md is outside the repository/);
    const shown = /^(\S+) is outside the repository/m.exec(local)?.[1] ?? "";
    expect(shown).toMatch(/\/local\/plan\.md$/);
    expect(shown.startsWith(env.agentDir)).toBe(true);
  });

  it("replace-mode edit with a bracketed path outside the repository is refused", async () => {
    const { server, env } = await omp.setup({ configYaml: "edit:\n  mode: replace" });
    guardedRepo(env);
    const tama = installTama(env);
    addHooks(tama, [{ id: "deny-writes-outside-repo", events: ["pre_tool_use"], tools: "write", failMode: "closed", command: ["python3", DENY_OUTSIDE] }]);
    const outside = path.join(path.dirname(env.cwd), "victim.txt");
    writeFileSync(outside, "original\n");
    writeFileSync(path.join(env.cwd, "mine.txt"), "original\n");
    const session = omp.rpc();
    await session.ready();

    const refused = await call(session, server, "edit", { path: "[../victim.txt]", old_string: "original", new_string: "changed" });
    expect(refused).toMatch(/outside the repository/);
    expect(readFileSync(outside, "utf8")).toBe("original\n");
    const allowed = await call(session, server, "edit", { path: "[mine.txt]", old_string: "original", new_string: "changed" });
    expect(allowed).not.toMatch(/outside the repository/);
    expect(readFileSync(path.join(env.cwd, "mine.txt"), "utf8")).toBe("changed\n");
  });
});

describe("ast_edit with Tama installed, in real OMP", () => {
  it("shows each target to an Edit|Write guard as Edit with file_path, and xd://resolve applies the staged rewrite", async () => {
    // The model answers OMP's "PREVIEW — finalize now" reminder the way OMP asks: a plain-text write to xd://resolve.
    const script: Script = (req, index) =>
      trailingToolResults(req.turns).length === 0 && /PREVIEW — no files changed/.test(lastUserText(req.turns))
        ? { toolCalls: [{ name: "write", arguments: { path: "xd://resolve", content: "apply the rewrite" } }] }
        : defaultScript(req, index);
    const { server, env } = await omp.setup({ script });
    const tama = installTama(env);
    const guard = logHook(env, "edit-guard", ["Edit", "Write"]);
    const every = logHook(env, "every-call", "any");
    addHooks(tama, [guard.entry, every.entry]);
    writeFileSync(path.join(env.cwd, "a.ts"), "const x = 1;\n");
    const session = omp.rpc();
    await session.ready();

    await session.prompt(`CALL ast_edit ${JSON.stringify({ ops: [{ pat: "const x = 1", out: "const x = 2" }], paths: ["a.ts"] })}`);
    const tools = (server.requests.at(-1)?.turns ?? []).filter((t) => t.role === "tool").map((t) => t.text);
    expect(tools.join("\n")).toMatch(/Staged as a proposal/);
    expect(tools.join("\n")).not.toMatch(/Tama/);
    expect(readFileSync(path.join(env.cwd, "a.ts"), "utf8")).toBe("const x = 2\n");
    // the confirmation reached the hooks as what it is: the resolve device, read as text
    expect(every.read().find((e) => e.tool_name === "resolve")).toMatchObject({ tool_input: { device: "resolve", text: "apply the rewrite" } });
    expect(guard.read()).toEqual([expect.objectContaining({ tool_name: "Edit", tool_input: expect.objectContaining({ file_path: path.join(env.cwd, "a.ts") }) })]);
  });
});
