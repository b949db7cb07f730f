// `tama hooks list|add|remove|enable|disable`: real CLI processes editing a real
// registry, and a real engine adopting each edit at its next dispatch.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EngineClient, makeTestHome, resultOf, ROOT, type TestHome } from "../support/engine-client.ts";
import { json, tama, tamaAsync } from "./cli.ts";

const DENY_RM = path.join(ROOT, "test/fixtures/hooks/deny-bash-rm.py");

let home: TestHome;
beforeEach(() => {
  home = makeTestHome("tama-cli-");
});
afterEach(() => home.cleanup());

const registryText = () => readFileSync(home.registry, "utf8");
const registry = () => JSON.parse(registryText()) as { checksum?: string; release: unknown; hooks: Record<string, unknown>[] };
const leftovers = () => readdirSync(path.dirname(home.registry)).filter((n) => n !== "registry.json");

describe("tama hooks add/disable/enable/remove", () => {
  it("each edit is adopted by a running engine at its next dispatch", async () => {
    const added = tama(home, ["hooks", "add", "--id", "no-rm", "--event", "pre_tool_use", "--tools", "shell", "--fail-mode", "closed", "--", DENY_RM]);
    expect(added.stderr).toBe("");
    expect(added.code).toBe(0);
    expect(added.stdout).toContain(`Added no-rm (pre_tool_use, tools shell: ${DENY_RM}) to ${home.registry}.`);
    // A registry the CLI starts names no release it would have to make up.
    expect(registry()).toEqual({ schema: 1, release: null, hooks: [{ id: "no-rm", events: ["pre_tool_use"], tools: "shell", command: [DENY_RM], failMode: "closed" }] });

    const engine = new EngineClient(home);
    try {
      await engine.ready();
      const rm = { session_id: "s1", cwd: home.dir, tool_input: { command: "rm -rf build" } };
      expect(resultOf(await engine.dispatch("pre_tool_use:bash", rm))).toMatchObject({ decision: "block", reason: "rm -rf is not allowed here" });

      expect(tama(home, ["hooks", "disable", "no-rm"]).stdout).toBe(`Disabled no-rm in ${home.registry}.\n`);
      expect(resultOf(await engine.dispatch("pre_tool_use:bash", rm)).decision).toBe("pass");

      expect(tama(home, ["hooks", "enable", "no-rm"]).code).toBe(0);
      expect(resultOf(await engine.dispatch("pre_tool_use:bash", rm)).decision).toBe("block");

      const removed = tama(home, ["hooks", "remove", "no-rm", "--json"]);
      expect(json(removed)).toMatchObject({ action: "removed", registry: home.registry, removed: ["no-rm"] });
      expect(resultOf(await engine.dispatch("pre_tool_use:bash", rm)).decision).toBe("pass");
      expect(registry().hooks).toEqual([]);
    } finally {
      await engine.close();
    }
    expect(leftovers()).toEqual([]);
  });

  it("--command takes the argv as JSON, the same as after --; a built-in takes its id and events from the gate", () => {
    tama(home, ["hooks", "add", "--id", "a", "--event", "stop", "--command", '["sh","-c","echo hi"]']);
    tama(home, ["hooks", "add", "--id", "b", "--event", "Stop", "--timeout-ms", "1500", "--", "sh", "-c", "echo hi"]);
    const builtin = json(tama(home, ["hooks", "add", "--builtin", "block-open-todos", "--json"]));
    expect(builtin).toMatchObject({ action: "added", created: false, hook: { id: "block-open-todos", events: ["stop"], builtin: "block-open-todos", enabled: true } });
    const hooks = registry().hooks;
    expect(hooks[0]).toEqual({ id: "a", events: ["stop"], command: ["sh", "-c", "echo hi"] });
    expect(hooks[1]).toEqual({ id: "b", events: ["stop"], command: ["sh", "-c", "echo hi"], timeoutMs: 1500 });
  });

  it("Claude's PostToolUse and PostToolUseFailure name which results the hook reads; post_tool_use (or both) reads every one", () => {
    const add = (id: string, event: string) => tama(home, ["hooks", "add", "--id", id, "--event", event, "--", "true"]);
    expect(add("on-failure", "PostToolUseFailure").stdout).toContain("Added on-failure (post_tool_use, tools any: true)");
    expect(add("on-success", "PostToolUse").code).toBe(0);
    expect(add("on-both", "PostToolUse,PostToolUseFailure").code).toBe(0);
    expect(add("on-every", "post_tool_use").code).toBe(0);
    expect(registry().hooks.map((h) => [h.id, h.events, h.results])).toEqual([
      ["on-failure", ["post_tool_use"], "failure"],
      ["on-success", ["post_tool_use"], "success"],
      ["on-both", ["post_tool_use"], undefined],
      ["on-every", ["post_tool_use"], undefined],
    ]);
    expect(tama(home, ["hooks", "list"]).stdout).toMatch(/on-failure +post_tool_use\(failure\)/);
  });

  it("--prestart marks a command hook to start before its event; a built-in gate is refused it", () => {
    const added = tama(home, ["hooks", "add", "--id", "pre", "--event", "pre_tool_use", "--prestart", "--", "sh", "-c", "cat >/dev/null"]);
    expect(added.code).toBe(0);
    expect(added.stdout).toContain("Pre-started: its process starts before its event and waits on stdin");
    expect(registry().hooks[0]).toEqual({ id: "pre", events: ["pre_tool_use"], command: ["sh", "-c", "cat >/dev/null"], prestart: true });
    const refused = tama(home, ["hooks", "add", "--builtin", "block-open-todos", "--prestart"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--prestart applies to command hooks");
  });

  it("keeps a declared checksum true, and the file's own layout", () => {
    home.writeRegistry({ schema: 1, release: { id: "r1" }, checksum: "0".repeat(64), hooks: [] });
    const declared = tama(home, ["hooks", "checksum"]).stdout.trim();
    home.writeRegistry({ schema: 1, release: { id: "r1" }, checksum: declared, hooks: [] });
    expect(tama(home, ["hooks", "add", "--id", "x", "--event", "session_end", "--", "true"]).code).toBe(0);
    const after = registry();
    expect(Object.keys(after)).toEqual(["schema", "release", "checksum", "hooks"]);
    expect(after.checksum).not.toBe(declared);
    expect(after.checksum).toBe(tama(home, ["hooks", "checksum"]).stdout.trim());
    expect(json(tama(home, ["hooks", "list", "--json"]))).toMatchObject({ checksum: after.checksum, checksumDeclared: true });
  });

  it("refuses an edit that would make the registry invalid, and leaves the file as it was", () => {
    tama(home, ["hooks", "add", "--id", "x", "--event", "stop", "--", "true"]);
    const before = registryText();
    const cases: { args: string[]; code: number; message: RegExp }[] = [
      { args: ["--id", "x", "--event", "stop", "--", "true"], code: 1, message: /a hook "x" is already in .*registry\.json: choose another --id, or `tama hooks remove x` first/ },
      { args: ["--id", "bad id", "--event", "stop", "--", "true"], code: 2, message: /--id "bad id" is not a hook id: 1-128 letters/ },
      { args: ["--id", "y", "--event", "pre_tool", "--", "true"], code: 2, message: /unknown event "pre_tool": use one of session_start, .*PreToolUse/ },
      { args: ["--id", "y", "--builtin", "nope"], code: 2, message: /no built-in gate "nope"; `tama hooks builtins` lists them/ },
      { args: ["--id", "y", "--event", "stop", "--command", "python3 x.py"], code: 2, message: /--command takes the argv as a JSON array/ },
      { args: ["--id", "y", "--event", "stop", "stray", "--", "true"], code: 2, message: /unexpected argument "stray": a command's argv goes after --/ },
      { args: ["--id", "y", "--event", "stop"], code: 2, message: /name what the hook runs/ },
      { args: ["--id", "y", "--event", "stop", "--tools", "shell", "--", "true"], code: 2, message: /--tools applies to pre_tool_use and post_tool_use hooks only/ },
      { args: ["--id", "y", "--event", "stop", "--fail-mode", "maybe", "--", "true"], code: 2, message: /--fail-mode is open or closed/ },
    ];
    for (const c of cases) {
      const r = tama(home, ["hooks", "add", ...c.args]);
      expect({ args: c.args, code: r.code }).toEqual({ args: c.args, code: c.code });
      expect(r.stderr).toMatch(c.message);
    }
    // An id the registry does not hold is a usage error, as a malformed one is.
    const unknown = tama(home, ["hooks", "disable", "nope"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no hook "nope" in .*; `tama hooks list` shows the ids there are/);
    expect(registryText()).toBe(before);
    expect(leftovers()).toEqual([]);
  });

  it("does not edit a registry that does not load, and says how to fix it", () => {
    home.writeRegistry({ schema: 1, release: null, checksum: "a".repeat(64), hooks: [] });
    const before = registryText();
    const r = tama(home, ["hooks", "add", "--id", "x", "--event", "stop", "--", "true"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/checksum mismatch: expected a{64}, actual [0-9a-f]{64}\. Fix the file first .*`tama hooks checksum .*registry\.json` prints the checksum/);
    expect(registryText()).toBe(before);
    home.writeRegistry('{"schema": 1,\n  "hooks": [\n');
    expect(tama(home, ["hooks", "list"]).stderr).toMatch(/parsing hook registry .*registry\.json: .* at line 3 column 0/);
  });

  it("edits side by side all land (they take turns on the registry's lock)", async () => {
    const ids = Array.from({ length: 8 }, (_, i) => `h${i}`);
    const runs = await Promise.all(ids.map((id) => tamaAsync(home, ["hooks", "add", "--id", id, "--event", "stop", "--", "true"])));
    expect(runs.map((r) => r.code)).toEqual(ids.map(() => 0));
    expect(registry().hooks.map((h) => h.id).sort()).toEqual(ids);
    expect(leftovers()).toEqual([]);
  });

  it("warns when a command cannot start from here, naming what its fail mode then does", () => {
    const r = tama(home, ["hooks", "add", "--id", "gone", "--event", "pre_tool_use", "--fail-mode", "closed", "--", "/nonexistent/hook.sh"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("warning: /nonexistent/hook.sh does not exist: until it can start, the hook refuses every call it matches");
    const onPath = tama(home, ["hooks", "add", "--id", "np", "--event", "stop", "--", "no-such-program-xyz"]);
    expect(onPath.stdout).toContain("warning: no-such-program-xyz is not on PATH: until it can start, the hook fails open (gives no verdict); OMP's PATH may differ from this shell's");
  });
});

describe("tama hooks list", () => {
  beforeEach(() => {
    home.writeRegistry({
      schema: 1,
      release: { id: "r7" },
      hooks: [
        { id: "block-git-hook-bypass", events: ["pre_tool_use"], tools: "shell", builtin: "block-git-hook-bypass", timeoutMs: 5000, failMode: "closed" },
        { id: "no-rm", events: ["pre_tool_use", "post_tool_use"], tools: ["Bash", "mcp__x*"], command: ["/bin/echo", "--flag with space"], timeoutMs: 2500 },
        { id: "review", events: ["stop"], command: ["/bin/true"], enabled: false },
      ],
    });
  });

  it("prints one aligned row per hook", () => {
    const r = tama(home, ["hooks", "list"]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(new RegExp(`^${home.registry.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}  release r7  checksum [0-9a-f]{12}$`));
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(/^ID +EVENTS +TOOLS +RUNS +TIMEOUT +FAIL +ENABLED$/),
      expect.stringMatching(/^block-git-hook-bypass +pre_tool_use +shell +builtin block-git-hook-bypass +5 s +closed +yes$/),
      expect.stringMatching(/^no-rm +pre_tool_use,post_tool_use +Bash,mcp__x\* +\/bin\/echo '--flag with space' +2500 ms +open +yes$/),
      expect.stringMatching(/^review +stop +- +\/bin\/true +30 s +open +no$/),
    ]);
    // Aligned: every column starts at the same offset on every row.
    const header = lines[1] ?? "";
    expect(lines.slice(2).map((l) => l.search(/ (yes|no)$/) + 1)).toEqual(lines.slice(2).map(() => header.indexOf("ENABLED")));
  });

  it("--json gives every hook with its defaults, and what the environment turns on or off", () => {
    const r = tama(home, ["hooks", "list", "--json"], { env: { TAMA_DISABLED_HOOKS: "no-rm", TAMA_ENABLED_HOOKS: "review" } });
    const listed = json<{ registry: string; release: unknown; hooks: Record<string, unknown>[] }>(r);
    expect(listed.registry).toBe(home.registry);
    expect(listed.release).toEqual({ id: "r7" });
    expect(listed.hooks.map((h) => [h.id, h.enabled, h.selected, h.failMode])).toEqual([
      ["block-git-hook-bypass", true, true, "closed"],
      ["no-rm", true, false, "open"],
      ["review", false, true, "open"],
    ]);
    const text = tama(home, ["hooks", "list"], { env: { TAMA_DISABLED_HOOKS: "no-rm" } }).stdout;
    expect(text).toMatch(/no-rm .* yes \(off by env\)\n/);
  });

  it("--registry names another file; a missing one says how to make one", () => {
    const other = path.join(home.dir, "other.json");
    const r = tama(home, ["hooks", "list", "--registry", other]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`tama hooks: there is no hook registry at ${other}: run \`tama install --omp\`, or \`tama hooks add\` to start one\n`);
    expect(tama(home, ["hooks", "add", "--registry", other, "--id", "x", "--event", "stop", "--", "true"]).code).toBe(0);
    expect(json<{ hooks: unknown[] }>(tama(home, ["hooks", "list", "--registry", other, "--json"])).hooks).toHaveLength(1);
  });

  it("`tama hooks` alone names the commands in one line, points to --help, and exits 2", () => {
    const r = tama(home, ["hooks"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("tama hooks: name a command: list, add, remove, enable, disable, import, claude-sources, checksum, running, builtins\nRun `tama hooks --help` for usage.\n");
  });
});
