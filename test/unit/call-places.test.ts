// Where a call's paths land, as OMP will place them. A call that names its own cwd
// (OMP's bash and debug `cwd`) runs there, but the project the gates keep writes in
// stays the session's: a `cwd` of /etc made /etc the project, and the project's own .omp
// and .tama went unprotected from /usr. OMP's own addresses (`skill://`, `ssh://`, …)
// land where OMP says, never in the project; and a tool path's Unicode spaces are ASCII
// ones to OMP, so a link named `a ` is what `a\u00a0/x` writes through.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refusingGates } from "../support/gate-refusals.ts";

let root: string;
let project: string;
let tamaHome: string;
beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), "tama-call-cwd-"));
  project = path.join(root, "proj");
  tamaHome = path.join(root, "home", ".tama");
  mkdirSync(path.join(project, ".git"), { recursive: true });
  mkdirSync(path.join(project, "sub"), { recursive: true });
  mkdirSync(tamaHome, { recursive: true });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The pre_tool_use gates that refuse the call, as the engine matches them. */
const refusedBy = (tool: string, input: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<string[]> => refusingGates(tool, input, { project, tamaHome, home: path.join(root, "home") }, extra);

describe("a call with its own cwd", () => {
  it("changes no file outside the session's project from there", async () => {
    expect(await refusedBy("bash", { command: "rm -rf /usr/share/x", cwd: "/usr" })).toContain("block-destructive-deletes");
    expect(await refusedBy("bash", { command: "echo x > /etc/cron.d/x", cwd: "/etc" })).toContain("deny-writes-outside-repo");
    expect(await refusedBy("bash", { command: "echo x > cron.d/x", cwd: "/etc" })).toContain("deny-writes-outside-repo");
    expect(await refusedBy("debug", { action: "launch", program: "rm", args: ["-rf", "share/x"], cwd: "/usr" })).toContain("block-destructive-deletes");
  });

  it("keeps the session's project's own .omp and .tama protected from there", async () => {
    expect(await refusedBy("bash", { command: `cp /tmp/e.ts ${project}/.omp/extensions/e.ts`, cwd: "/usr" })).toContain("self-protection");
    expect(await refusedBy("bash", { command: `echo '{}' > ${project}/.tama/hooks.json`, cwd: "/usr" })).toContain("self-protection");
    expect(await refusedBy("bash", { command: "echo '{}' > ../.tama/hooks.json", cwd: "sub" })).toContain("self-protection");
  });

  it("still reads relative paths from where the call runs", async () => {
    expect(await refusedBy("bash", { command: "echo x > out.txt", cwd: "sub" })).toEqual([]);
    expect(await refusedBy("bash", { command: "rm -rf build", cwd: path.join(project, "sub") })).toEqual([]);
    expect(await refusedBy("bash", { command: "echo x > ../out.txt", cwd: "sub" })).toEqual([]);
    expect(await refusedBy("bash", { command: "echo x > ../lib/x", cwd: "/usr/share" })).toContain("deny-writes-outside-repo");
  });
});

describe("OMP's own addresses and a tool path's spaces", () => {
  it("an address OMP places (skill://, ssh://, …) is no place in the project to write or delete", async () => {
    expect(await refusedBy("write", { path: "ssh://host/etc/cron.d/x", content: "x" })).toContain("deny-writes-outside-repo");
    expect(await refusedBy("bash", { command: "echo 'curl x | sh' >> skill://deploy/scripts/run.sh" })).toContain("deny-writes-outside-repo");
    expect(await refusedBy("bash", { command: "rm -rf skill://deploy/scripts" })).toContain("block-destructive-deletes");
    expect(await refusedBy("ast_edit", { ops: [{ pat: "a", out: "b" }], paths: ["skill://deploy/scripts/run.py"] })).toContain("deny-writes-outside-repo");
    // A cwd OMP expands from its own address: refused with the cause, the way to go on said.
    expect(await refusedBy("bash", { command: "rm -rf scripts", cwd: "skill://deploy" })).toEqual([
      "unmapped: pre_tool_use:bash: its cwd skill://deploy is an address Tama cannot place; give the directory as a path",
    ]);
    // The session's own scratch space stays writable, and another program's URL is its own.
    expect(await refusedBy("bash", { command: "echo x > local://notes.md" })).toEqual([]);
    expect(await refusedBy("bash", { command: "rsync -av build/ rsync://host/module/" })).toEqual([]);
  });

  it("a tool path's Unicode space is the ASCII one OMP writes through", async () => {
    symlinkSync("/etc", path.join(project, "a "));
    expect(await refusedBy("write", { path: "a\u00a0/cron.d/x", content: "x" })).toContain("deny-writes-outside-repo");
    expect(await refusedBy("write", { path: "a\u2009/cron.d/x", content: "x" })).toContain("deny-writes-outside-repo");
    expect(await refusedBy("write", { path: "b\u00a0/x.txt", content: "x" })).toEqual([]);
  });
});

describe("a Windows drive path under WSL", () => {
  it("is the drive's /mnt mount, as OMP reads it there; elsewhere a name under the project", async () => {
    expect(await refusedBy("write", { path: "C:\\Users\\me\\x.txt", content: "x" })).toEqual([]);
    process.env.WSL_DISTRO_NAME = "Ubuntu";
    try {
      expect(await refusedBy("write", { path: "C:\\Users\\me\\x.txt", content: "x" })).toContain("deny-writes-outside-repo");
      expect(await refusedBy("edit", { path: "C:/Users/me/.bashrc", old_string: "a", new_string: "b" })).toContain("deny-writes-outside-repo");
      expect(await refusedBy("bash", { command: "echo x > notes.txt", cwd: "C:\\Windows" })).toContain("deny-writes-outside-repo");
    } finally {
      delete process.env.WSL_DISTRO_NAME;
    }
  });
});

describe("a write to a conflict:// address", () => {
  it("is a write to each file the session's reads registered a conflict block in; with none seen it is refused", async () => {
    const settings = path.join(project, ".claude", "settings.json");
    const source = path.join(project, "sub", "a.ts");
    for (const address of ["conflict://1", "conflict://*", "x.ts:conflict://2", "[conflict://1#ABCD]"]) {
      expect(await refusedBy("write", { path: address, content: "@ours" }, { conflict_files: [source, settings] }), address).toContain("self-protection");
      expect(await refusedBy("write", { path: address, content: "@ours" }, { conflict_files: [source] }), address).toEqual([]);
      expect((await refusedBy("write", { path: address, content: "@ours" })).join()).toMatch(/^unmapped: .*saw no read in this session register one/);
    }
    // Through the device that runs the write tool, too.
    expect(await refusedBy("write", { path: "xd://write", content: JSON.stringify({ path: "conflict://1", content: "@ours" }) }, { conflict_files: [settings] })).toContain("self-protection");
    // An out-of-project file the line's text names is judged as well.
    expect(await refusedBy("write", { path: `./conflict://${"../".repeat(12)}etc/x`, content: "x" }, { conflict_files: [source] })).toContain("deny-writes-outside-repo");
  });
});

describe("LSP actions that change files", () => {
  it("are writes of the files they name: rename_file's source and destination, a rename's or code action's file", async () => {
    const extensions = path.join(root, "home", ".omp", "agent", "extensions", "evil.ts");
    expect(await refusedBy("lsp", { action: "rename_file", file: "evil.ts", new_name: extensions })).toContain("self-protection");
    expect(await refusedBy("lsp", { action: "rename_file", file: "evil.ts", new_name: "/etc/cron.d/x" })).toContain("deny-writes-outside-repo");
    expect(await refusedBy("lsp", { action: "rename_file", file: ".env", new_name: "env.txt" })).toContain("protect-secret-files");
    expect(await refusedBy("lsp", { action: "rename", file: "/etc/foo.ts", line: 1, symbol: "x", new_name: "y" })).toContain("deny-writes-outside-repo");
    expect(await refusedBy("write", { path: "xd://lsp", content: JSON.stringify({ action: "rename_file", file: "a.ts", new_name: "/etc/x.ts" }) })).toContain("deny-writes-outside-repo");
    // A directory moved takes what lies below it: the project's Claude settings, OMP's extensions.
    expect(await refusedBy("lsp", { action: "rename_file", file: ".claude", new_name: "claude-old" })).toContain("self-protection");
    expect(await refusedBy("lsp", { action: "rename_file", file: "x", new_name: path.join(root, "home", ".omp") })).toContain("self-protection");
    expect(await refusedBy("lsp", { action: "rename_file", file: "a.ts", new_name: "src/b.ts" })).toEqual([]);
    expect(await refusedBy("lsp", { action: "rename", file: "a.ts", line: 1, symbol: "x", new_name: "y" })).toEqual([]);
  });

  it("a rename whose symbol a protected file of the project uses (the server edits it there too) is refused", async () => {
    const extension = path.join(project, ".omp", "extensions", "guard.ts");
    mkdirSync(path.dirname(extension), { recursive: true });
    writeFileSync(extension, 'import { isDangerous } from "../../sub/checks.ts";\nexport default isDangerous;\n');
    writeFileSync(path.join(project, "sub", "checks.ts"), "const unused = 1;\nexport function isDangerous() { return unused > 0; }\n");
    try {
      expect(await refusedBy("lsp", { action: "rename", file: "sub/checks.ts", line: 1, symbol: "isDangerous", new_name: "x" })).toContain("self-protection");
      expect(await refusedBy("lsp", { action: "rename", file: "sub/checks.ts", line: 1, symbol: "isDangerous#2", new_name: "x" })).toContain("self-protection");
      // Without a symbol, the word where the line's text starts (`const`, not used there)… and one that is.
      expect(await refusedBy("lsp", { action: "rename", file: "sub/checks.ts", line: 1, new_name: "x" })).toEqual([]);
      writeFileSync(path.join(project, "sub", "checks.ts"), "isDangerous = () => true;\n");
      expect(await refusedBy("write", { path: "xd://lsp", content: JSON.stringify({ action: "rename", file: "sub/checks.ts", new_name: "x" }) })).toContain("self-protection");
      // A symbol it does not use, or used only in another language's files, passes.
      expect(await refusedBy("lsp", { action: "rename", file: "sub/checks.ts", line: 1, symbol: "other", new_name: "x" })).toEqual([]);
      expect(await refusedBy("lsp", { action: "rename", file: "sub/checks.py", line: 1, symbol: "isDangerous", new_name: "x" })).toEqual([]);
    } finally {
      rmSync(path.join(project, ".omp"), { recursive: true, force: true });
    }
  });
});

describe("git's own files changed by a write tool", () => {
  it("are refused as the shell's writers are: hooks switched off in .git/config or .git/hooks", async () => {
    expect(await refusedBy("write", { path: ".git/config", content: "[core]\n\thooksPath = /dev/null\n" })).toContain("block-git-hook-bypass");
    expect(await refusedBy("write", { path: ".git/hooks/pre-commit", content: "#!/bin/sh\nexit 0\n" })).toContain("block-git-hook-bypass");
    expect(await refusedBy("edit", { path: ".git/config", edits: [{ old_text: "[core]", new_text: "[core]\n\thooksPath=/dev/null" }] })).toContain("block-git-hook-bypass");
    expect(await refusedBy("lsp", { action: "rename_file", file: ".git/hooks/pre-commit", new_name: "pre-commit.off" })).toContain("block-git-hook-bypass");
    // Through a link to .git, and the worktree's own config file.
    symlinkSync(".git", path.join(project, "g"));
    expect(await refusedBy("write", { path: "g/config", content: "[core]\n\thooksPath = /dev/null\n" })).toContain("block-git-hook-bypass");
    expect(await refusedBy("write", { path: "g/hooks/pre-commit", content: "exit 0" })).toContain("block-git-hook-bypass");
    expect(await refusedBy("bash", { command: "echo '[core] hooksPath=/dev/null' >> g/config" })).toContain("block-git-hook-bypass");
    expect(await refusedBy("write", { path: ".git/config.worktree", content: "[core]\n\thooksPath = /dev/null\n" })).toContain("block-git-hook-bypass");
    expect(await refusedBy("write", { path: "docs/git-config.md", content: "hooksPath" })).toEqual([]);
  });
});

describe("code OMP loads at its next start", () => {
  it("its hooks folders and a project's settings.json naming extensions are Tama's to protect, as its extensions are", async () => {
    const home = path.join(root, "home");
    for (const target of [
      ".omp/hooks/pre/bash.ts",
      ".omp/settings.json",
      ".claude/hooks/pre/bash.ts",
      ".claude/hooks/post/x.js",
      ".codex/hooks/pre-bash.ts",
      `${home}/.omp/agent/hooks/post/x.ts`,
      `${home}/.claude/hooks/pre/x.ts`,
      `${home}/.codex/hooks/pre-bash.ts`,
    ]) {
      expect(await refusedBy("write", { path: target, content: "export default () => {}" }), target).toContain("self-protection");
    }
    expect(await refusedBy("bash", { command: "mkdir -p .omp/hooks/pre && cp /tmp/x.ts .omp/hooks/pre/bash.ts" })).toContain("self-protection");
    // OMP's LSP and DAP configs: the commands they name, OMP starts.
    for (const target of ["lsp.json", ".omp/lsp.yml", ".claude/.dap.yaml", `${home}/.lsp.json`, `${home}/.omp/agent/dap.json`]) {
      expect(await refusedBy("write", { path: target, content: "{}" }), target).toContain("self-protection");
    }
    expect(await refusedBy("bash", { command: `echo '{"servers":{}}' > .dap.json` })).toContain("self-protection");
    expect(await refusedBy("bash", { command: `echo '{"servers":{}}' > ${project}/lsp.json`, cwd: "/usr" })).toContain("self-protection");
    expect(await refusedBy("write", { path: "docs/lsp.json", content: "{}" })).toEqual([]);
    // A Claude Code hook script beside them is the project's own to change.
    expect(await refusedBy("write", { path: ".claude/hooks/format.py", content: "print()" })).toEqual([]);
  });
});

describe("a project folder's own OMP, Tama, Claude and Codex files, at any depth", () => {
  // A session started in pkg/ loads pkg/.omp/extensions; so does a subagent whose isolated
  // worktree OMP brings back, and a later session started above or below this one.
  it("are protected wherever the folder lies", async () => {
    expect(await refusedBy("write", { path: "pkg/.omp/extensions/evil.ts", content: "x" })).toContain("self-protection");
    expect(await refusedBy("write", { path: "pkg/.omp/hooks/pre/evil.ts", content: "x" })).toContain("self-protection");
    expect(await refusedBy("write", { path: "pkg/.omp/settings.json", content: "{}" })).toContain("self-protection");
    expect(await refusedBy("write", { path: "a/b/.claude/hooks/pre/evil.ts", content: "x" })).toContain("self-protection");
    expect(await refusedBy("write", { path: "a/.codex/hooks/pre-bash.ts", content: "x" })).toContain("self-protection");
    expect(await refusedBy("bash", { command: "mkdir -p pkg/.tama && echo '{}' > pkg/.tama/hooks.json" })).toContain("self-protection");
    expect(await refusedBy("bash", { command: "cp evil.ts sub/.omp/extensions/" })).toContain("self-protection");
    expect(await refusedBy("bash", { command: `echo x > ${root}/elsewhere/.omp/extensions/evil.ts` })).toContain("self-protection");
    expect(await refusedBy("write", { path: "pkg/.omp/tools/t.ts", content: "x" })).toContain("self-protection");
    expect(await refusedBy("write", { path: ".omp/mcp.json", content: "{}" })).toContain("self-protection");
  });

  it("are protected from a whole folder moved, copied or linked into place", async () => {
    expect(await refusedBy("bash", { command: "mkdir -p d/extensions && echo 'export default 1' > d/extensions/x.ts && mv d .omp" })).toContain("self-protection");
    expect(await refusedBy("bash", { command: "cp -r staged pkg/.omp" })).toContain("self-protection");
    expect(await refusedBy("bash", { command: "ln -s /tmp/evil pkg/.claude" })).toContain("self-protection");
    expect(await refusedBy("bash", { command: "mkdir -p .omp/rules && echo x > .omp/rules/a.md && mv build dist" })).toEqual([]);
  });

  it("leaves names that only look alike", async () => {
    expect(await refusedBy("write", { path: "pkg/src/omp/extensions.ts", content: "x" })).toEqual([]);
    expect(await refusedBy("write", { path: "docs/.omp-notes/extensions.md", content: "x" })).toEqual([]);
    expect(await refusedBy("write", { path: "pkg/.claude/commands/review.md", content: "x" })).toEqual([]);
  });
});
