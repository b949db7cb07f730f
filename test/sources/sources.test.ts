// Hook sources read per dispatch: project discovery, the scripts a command names,
// content-bound trust, and the selection of one dispatch's hooks from every source.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RegistryStore } from "../../modules/registry/registry.ts";
import { findProject } from "../../modules/sources/project.ts";
import { scriptsNamed, shellWords } from "../../modules/sources/scripts.ts";
import { HookSources, trustProject, type SourcesOutcome } from "../../modules/sources/sources.ts";
import { FileDigests, readTrust, removeTrust, trustFile, writeTrust } from "../../modules/sources/trust.ts";
import { RACY_MS, statKey } from "../../modules/system/stat-key.ts";

let dir: string;
let home: string;
let tamaHome: string;

function write(file: string, body: unknown): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, typeof body === "string" ? body : JSON.stringify(body, null, 2));
  return file;
}

const claudeSettings = (command: string, matcher = "Bash") => ({
  hooks: { PreToolUse: [{ matcher, hooks: [{ type: "command", command, timeout: 5 }] }] },
});

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "tama-sources-"));
  home = path.join(dir, "home");
  tamaHome = path.join(home, ".tama");
  mkdirSync(path.join(tamaHome, "hooks"), { recursive: true });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("a session's project", () => {
  it("is the nearest directory with a hook source, else the repository's top, never the home directory", () => {
    const repo = path.join(dir, "repo");
    mkdirSync(path.join(repo, ".git"), { recursive: true });
    mkdirSync(path.join(repo, "sub", "deeper"), { recursive: true });
    expect(findProject(path.join(repo, "sub", "deeper"), home)).toEqual({ root: repo, found: "repository" });
    write(path.join(repo, ".claude", "settings.json"), {});
    expect(findProject(path.join(repo, "sub"), home)).toEqual({ root: repo, found: "sources" });
    // A nested project with its own source is its own project.
    write(path.join(repo, "sub", ".tama", "hooks.json"), { schema: 1, hooks: [] });
    expect(findProject(path.join(repo, "sub", "deeper"), home)?.root).toBe(path.join(repo, "sub"));
    // Outside any repository and source: no project. The home's .claude is the user's own.
    mkdirSync(path.join(dir, "loose"), { recursive: true });
    expect(findProject(path.join(dir, "loose"), home)).toBeUndefined();
    write(path.join(home, ".claude", "settings.json"), {});
    mkdirSync(path.join(home, "notes"), { recursive: true });
    expect(findProject(path.join(home, "notes"), home)).toBeUndefined();
    expect(findProject("relative/dir", home)).toBeUndefined();
  });
});

describe("the scripts a command names", () => {
  it("finds relative, $CLAUDE_PROJECT_DIR and bare script words inside the project, not programs or outside paths", () => {
    const root = path.join(dir, "p");
    write(path.join(root, "hook.py"), "");
    expect(shellWords(`python3 "$CLAUDE_PROJECT_DIR"/.claude/hooks/a.sh 2>/dev/null && echo 'x y'`)).toEqual([
      "python3",
      "$CLAUDE_PROJECT_DIR/.claude/hooks/a.sh",
      "2",
      "/dev/null",
      "echo",
      "x y",
    ]);
    const found = scriptsNamed(
      [
        ["sh", "-c", "python3 .claude/hooks/pre.py --strict"],
        ["env", `CLAUDE_PROJECT_DIR=${root}`, "sh", "-c", `"$CLAUDE_PROJECT_DIR"/.claude/hooks/x.sh; \${CLAUDE_PROJECT_DIR}/y.sh`],
        ["python3", "hook.py", "echo"],
        ["/usr/bin/env", "../outside.sh"],
      ],
      root,
    );
    expect(found).toEqual([".claude/hooks/pre.py", ".claude/hooks/x.sh", "y.sh", "hook.py"].map((f) => path.join(root, f)));
  });
});

describe("trust records", () => {
  it("are private files under TAMA_HOME, read back, refused when others can write them, and revoked", () => {
    const root = path.join(dir, "p");
    const file = writeTrust(tamaHome, { schema: 1, project: root, trustedAtMs: 1, files: { ".claude/settings.json": null } });
    expect(file).toBe(trustFile(tamaHome, root));
    expect(file.startsWith(path.join(tamaHome, "trust"))).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(readTrust(tamaHome, root)).toMatchObject({ ok: true, record: { project: root } });
    expect(readTrust(tamaHome, path.join(dir, "other"))).toEqual({ ok: true, record: undefined });
    // A record others can write is never trusted as policy.
    chmodSync(file, 0o666);
    const read = readTrust(tamaHome, root);
    expect(read.ok).toBe(false);
    expect(!read.ok && read.error).toContain("writable by other users");
    expect(removeTrust(tamaHome, root)).toBe(true);
    expect(removeTrust(tamaHome, root)).toBe(false);
  });

  it("keys a script changed too recently as unsettled, so its bytes are digested again until it has been still", async () => {
    const digests = new FileDigests();
    const file = write(path.join(dir, "fresh.sh"), "one");
    expect(digests.digest(file)).not.toBeNull();
    expect(digests.keyOf(file)?.startsWith("unsettled:")).toBe(true);
    expect(digests.keyOf(file)?.endsWith(`:${statKey(file)}`)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, RACY_MS + 100));
    digests.digest(file);
    expect(digests.keyOf(file)).toBe(statKey(file));
  });

  it("digests a file again only when its stat moved", () => {
    const digests = new FileDigests();
    const file = write(path.join(dir, "s.sh"), "one");
    const first = digests.digest(file);
    expect(digests.digest(file)).toBe(first);
    write(file, "two");
    expect(digests.digest(file)).not.toBe(first);
    rmSync(file);
    expect(digests.digest(file)).toBeNull();
  });
});

describe("one dispatch's hooks", () => {
  let store: RegistryStore;
  let sources: HookSources;
  const registryFile = () => path.join(tamaHome, "hooks", "registry.json");
  const userRegistry = (extra: Record<string, unknown> = {}) =>
    write(registryFile(), { schema: 1, hooks: [{ id: "user-gate", events: ["pre_tool_use"], command: ["/bin/true"] }], ...extra });

  beforeEach(() => {
    userRegistry({ readClaudeSettings: true });
    store = new RegistryStore(registryFile());
    sources = new HookSources({ registry: store, tamaHome, home });
  });

  // Each refresh in its own turn of the event loop, as separate dispatches would be.
  const refresh = async (cwd: string | undefined): Promise<Extract<SourcesOutcome, { ok: true }>> => {
    await new Promise((resolve) => setImmediate(resolve));
    const outcome = await sources.refresh(cwd);
    if (!outcome.ok) throw new Error(outcome.error);
    return outcome;
  };
  const ids = (outcome: Extract<SourcesOutcome, { ok: true }>) => outcome.hooks.map((h) => h.id);

  function project(name: string): string {
    const root = path.join(dir, name);
    mkdirSync(path.join(root, ".git"), { recursive: true });
    write(path.join(root, ".claude", "hooks", "check.py"), "print('ok')\n");
    write(path.join(root, ".claude", "settings.json"), claudeSettings("python3 .claude/hooks/check.py"));
    return root;
  }
  const trustNow = (root: string) => trustProject(tamaHome, root);

  it("orders user hooks before project hooks, and a project's hooks only in that project, once trusted", async () => {
    write(path.join(home, ".claude", "settings.json"), claudeSettings("echo user", "*"));
    const a = project("a");
    const b = project("b");
    write(path.join(a, ".tama", "hooks.json"), { schema: 1, hooks: [{ id: "lint", events: ["pre_tool_use"], command: ["./lint.sh"] }] });
    const third = path.join(dir, "c");
    mkdirSync(path.join(third, ".git"), { recursive: true });

    const before = await refresh(path.join(a, "src"));
    expect(ids(before)).toEqual(["user-gate", "claude-user:pre_tool_use.echo"]);
    expect(before.project).toMatchObject({ root: a, trust: "untrusted", held: ["project:lint", "claude-project:pre_tool_use.check"], command: `tama trust ${a}` });
    expect(before.refusal).toBeUndefined();

    trustNow(a);
    const after = await refresh(a);
    expect(ids(after)).toEqual(["user-gate", "claude-user:pre_tool_use.echo", "project:lint", "claude-project:pre_tool_use.check"]);
    const check = after.hooks.find((h) => h.id === "claude-project:pre_tool_use.check");
    expect(check?.origin).toMatchObject({ label: "claude-project", projectRoot: a });
    expect(after.project?.held).toEqual([]);

    const inB = await refresh(b);
    expect(ids(inB)).toEqual(["user-gate", "claude-user:pre_tool_use.echo"]);
    expect(inB.project?.trust).toBe("untrusted");
    const inThird = await refresh(third);
    expect(ids(inThird)).toEqual(["user-gate", "claude-user:pre_tool_use.echo"]);
    expect(inThird.project).toBeUndefined();
    expect(inThird.refusal).toBeUndefined();
  });

  it("holds a trusted project's hooks and refuses its tool calls when a script changes, until trusted again", async () => {
    const a = project("a");
    trustNow(a);
    expect((await refresh(a)).refusal).toBeUndefined();
    write(path.join(a, ".claude", "hooks", "check.py"), "import sys; sys.exit(0)\n");
    const changed = await refresh(a);
    expect(changed.project).toMatchObject({ trust: "changed", changes: [".claude/hooks/check.py (changed)"], held: ["claude-project:pre_tool_use.check"] });
    expect(ids(changed)).toEqual(["user-gate"]);
    expect(changed.refusal).toContain(`the hooks of project ${a} changed after they were trusted (.claude/hooks/check.py (changed))`);
    expect(changed.refusal).toContain(`tama trust ${a}`);
    // Deleting the settings file is a change too: a gate is never switched off silently.
    trustNow(a);
    rmSync(path.join(a, ".claude", "settings.json"));
    const gone = await refresh(a);
    expect(gone.project?.trust).toBe("changed");
    expect(gone.refusal).toContain(".claude/settings.json (gone)");
    // Revoked: held, with no refusal.
    removeTrust(tamaHome, a);
    // Consent covers what the person was shown: content changed since is not recorded.
    const shown = trustNow(a).read.manifest;
    removeTrust(tamaHome, a);
    write(path.join(a, ".claude", "settings.json"), claudeSettings("python3 .claude/hooks/check.py"));
    expect(trustProject(tamaHome, a, shown)).toMatchObject({ changedSinceShown: true });
    expect((await refresh(a)).project?.trust).toBe("untrusted");
    const revoked = await refresh(a);
    expect(revoked.refusal).toBeUndefined();
  });

  it("takes an edit of a source at the next dispatch, and a broken source holds only that source", async () => {
    const a = project("a");
    trustNow(a);
    expect(ids(await refresh(a))).toContain("claude-project:pre_tool_use.check");
    write(path.join(a, ".claude", "settings.local.json"), "{ broken");
    const broken = await refresh(a);
    // A broken file after trust is a change like any other.
    expect(broken.project?.trust).toBe("changed");
    trustNow(a);
    const retrusted = await refresh(a);
    expect(retrusted.refusal).toBeUndefined();
    expect(ids(retrusted)).toEqual(["user-gate", "claude-project:pre_tool_use.check"]);
    expect(retrusted.broken).toEqual([
      { source: "claude-local", file: path.join(a, ".claude", "settings.local.json"), error: expect.stringContaining("at line 1 column 2") },
    ]);
    // A broken user Claude file: only it is named and held.
    write(path.join(home, ".claude", "settings.json"), "[");
    const userBroken = await refresh(a);
    expect(ids(userBroken)).toEqual(["user-gate", "claude-project:pre_tool_use.check"]);
    expect(userBroken.broken.map((b) => b.source)).toEqual(["claude-user", "claude-local"]);
  });

  it("reads no Claude file unless the user registry turns them on, and honours disableAllHooks", async () => {
    const a = project("a");
    trustNow(a);
    userRegistry();
    const off = await refresh(a);
    expect(ids(off)).toEqual(["user-gate"]);
    userRegistry({ readClaudeSettings: true });
    write(path.join(a, ".claude", "settings.local.json"), { disableAllHooks: true });
    trustNow(a);
    expect(ids(await refresh(a))).toEqual(["user-gate"]);
  });

  it("refuses every dispatch when the user registry does not load, as before", async () => {
    write(registryFile(), "{");
    const outcome = await sources.refresh(dir);
    expect(outcome.ok).toBe(false);
  });
});
