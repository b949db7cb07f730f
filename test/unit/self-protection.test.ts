// The self-protection gate on the forms an agent uses to change Tama's policy, and
// on look-alikes that only read it or write elsewhere.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, statfsSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { findSelfProtectionBreach, policyVerb, stampsMove } from "../../modules/gates/self-protection.ts";
import { RACY_MS } from "../../modules/system/stat-key.ts";
import type { GateContext } from "../../modules/gates/types.ts";
import type { HookInput } from "../../modules/protocol/hook-input.ts";
import { writeCallIn } from "../support/tool-calls.ts";

const root = mkdtempSync(path.join(os.tmpdir(), "tama-selfprot-"));
const home = path.join(root, "home");
const tamaHome = path.join(home, ".tama");
const registry = path.join(tamaHome, "hooks", "registry.json");
const hookScript = path.join(root, "hooks", "check.sh");
const repo = path.join(root, "repo");
for (const dir of [path.dirname(registry), path.dirname(hookScript), repo, path.join(tamaHome, "hooks-runtime", "current", "bin")]) mkdirSync(dir, { recursive: true });
writeFileSync(registry, "{}");
writeFileSync(hookScript, "#!/bin/sh\n");
symlinkSync(tamaHome, path.join(root, "link-to-tama"));

const context: GateContext = {
  tamaHome,
  registry,
  env: { HOME: home, TAMA_HOME: tamaHome, PI_CODING_AGENT_DIR: path.join(home, ".omp", "agent") },
  hookFiles: () => [hookScript],
};

const bash = (command: string): HookInput => ({
  hook_event_name: "PreToolUse",
  cwd: repo,
  tool_name: "Bash",
  tool_input: { command },
  omp: { tool_name: "bash", tool_input: { command } },
});
const write = (file: string, tool = "write"): HookInput => ({
  hook_event_name: "PreToolUse",
  cwd: repo,
  tool_name: tool === "write" ? "Write" : "Edit",
  tool_input: { file_path: path.resolve(repo, file), content: "x" },
  omp: { tool_name: tool, tool_input: { path: file }, target: path.resolve(repo, file) },
});
const evalCall = (code: string, language = "js"): HookInput => ({
  hook_event_name: "PreToolUse",
  cwd: repo,
  tool_name: "eval",
  tool_input: { language, code },
  omp: { tool_name: "eval", tool_input: { language, code } },
});

const refused = (input: HookInput) => findSelfProtectionBreach(input, context);

describe("self-protection refuses", () => {
  const commands = [
    `tama hooks disable block-git-hook-bypass`,
    `$TAMA_HOME/hooks-runtime/current/bin/tama hooks disable block-git-hook-bypass`,
    `${tamaHome}/hooks-runtime/current/bin/tama hooks remove self-protection`,
    `node ${tamaHome}/hooks-runtime/current/bin/tama.js hooks disable x`,
    `node ./dist/bin/tama.js sessions grant --session abc`,
    `npx tama hooks enable x`,
    `npx -y @acme/tama@1.2 sessions revoke --session s`,
    `npm exec tama -- install --omp`,
    `tama sessions reload --session s`,
    `tama install --omp`,
    `tama uninstall --omp --purge`,
    `tama hooks import --from-claude`,
    `tama hooks add --id x --event stop -- /bin/true`,
    // OMP's other settings files, its plugins and plugin overrides, and its own commands that change what it loads.
    `mkdir -p .gemini && echo '{"disabledExtensions":["extension-module:omp-shared-hooks"]}' > .gemini/settings.json`,
    `echo '{"disabledExtensions":["x"]}' > opencode.json`,
    `echo '{}' > .opencode/opencode.jsonc`,
    `mkdir -p .cursor && echo '{"extensions":["./e.js"]}' > .cursor/settings.json`,
    `echo '{"disabled":["tama-hooks"]}' > .omp/plugin-overrides.json`,
    `mkdir -p .omp/plugins/node_modules/tama-hooks && echo '{}' > .omp/plugins/package.json`,
    `echo 'export default () => {}' > .gemini/extensions/e.js`,
    `echo '{}' > sub/.codex/settings.json`,
    `echo '{}' > ~/.gemini/settings.json`,
    `python3 -c "open('.gemini/settings.json','w').write('{}')"`,
    `perl -e 'open F,">",".claude/settings.json"; print F "{}"'`,
    `python3 -c "f=open('.claude/settings.json',mode='w')"`,
    // Bun reads these into OMP's process where OMP starts: a preload runs code there, a variable moves Tama's home.
    `printf 'preload = ["./p.ts"]\\n' > bunfig.toml`,
    `cp /tmp/evil.toml packages/app/bunfig.toml`,
    `echo TAMA_REGISTRY=/tmp/empty.json >> .env`,
    `echo PI_CODING_AGENT_DIR=/tmp/a > .env.local`,
    `mv /tmp/e .env.development`,
    `prettier --write bunfig.toml`,
    // Files OMP starts processes or imports code from, with no question asked, when a session starts in that folder.
    `echo '{"mcpServers":{"x":{"command":"sh"}}}' > .mcp.json`,
    `echo '{}' > packages/api/.mcp.json`,
    `echo '{}' > .cursor/mcp.json`,
    `echo '{}' > .vscode/mcp.json`,
    `echo '{}' > .windsurf/mcp_config.json`,
    `echo '{}' > .claude/.mcp.json`,
    `echo '[mcp_servers.x]' >> .codex/config.toml`,
    `mkdir -p .claude/tools && echo 'export default () => ({})' > .claude/tools/t.ts`,
    `mkdir -p .claude/commands/x && echo 'export default () => ({})' > .claude/commands/x/index.ts`,
    `cp -r /tmp/staged .gemini/commands/x`,
    `cp -r /tmp/staged .claude/commands`,
    `echo 'export PATH=/tmp/bin:$PATH' >> ~/.bashrc`,
    `echo '{}' > ~/.claude/plugins/installed_plugins.json`,
    `echo 'providers: {}' > ~/.omp/agent/models.yml`,
    `node -e "require('fs').writeFileSync('.codex/tools/t.js', 'x')"`,
    // Perl's and PHP's rename, link and symlink builtins, and the rename programs.
    `perl -e 'rename "evil.json", ".mcp.json"'`,
    `perl -e 'rename "evil.json", ".claude/settings.json"'`,
    `perl -e 'symlink("/tmp/e", ".claude/settings.local.json")'`,
    `php -r 'rename("x", ".mcp.json");'`,
    `rename s/evil/.mcp/ evil.json`,
    `rename 's/main/index/' .claude/commands/w/main.ts`,
    `rename.ul evil settings .claude/evil.json`,
    // A rename whose new names are not worked out here (code, escapes, names from stdin) may make any name.
    `rename 's/x/"."/e' xmcp.json`,
    `rename 's{x}{.}' xmcp.json`,
    `rename '$_ = ".mcp.json"' xmcp.json`,
    `ls | rename 's/x/./'`,
    `perl -e 'CORE::rename "x", ".mcp.json"'`,
    `perl -e 'rename "x" => ".claude/settings.json" if 1'`,
    `perl -MFile::Copy -e 'copy "x", ".claude/settings.json"'`,
    `php -r 'RENAME("x", ".mcp.json");'`,
    // xargs's --replace takes no value of its own: the word after it is the command.
    `echo .claude/settings.json | xargs --replace cp /tmp/e {}`,
    `python3 -c "open('bunfig.toml','w').write('preload=[1]')"`,
    `omp config set disabledExtensions '["extension-module:omp-shared-hooks"]'`,
    `omp config reset`,
    `omp plugin disable tama-hooks`,
    `omp plugin uninstall tama-hooks`,
    `omp install ./ext`,
    `tar cf x.tar --transform 's,^stage,.omp/extensions,' stage`,
    `python3 -c "import pathlib;pathlib.Path('.claude','settings.json').write_text('{}')"`,
    `tar xf x.tar --transform 's,^stage,.omp/extensions,'`,
    `env FOO=1 sudo -u me tama hooks disable x`,
    `sh -c 'tama hooks disable x'`,
    `bash -c "cd /tmp && tama hooks disable x"`,
    `echo $(tama hooks disable x)`,
    `sed -i 's/"enabled": true/"enabled": false/' ${registry}`,
    `sed -i.bak -e s/a/b/ ~/.tama/hooks/registry.json`,
    `echo '{}' > $TAMA_HOME/hooks/registry.json`,
    `d=$TAMA_HOME; cp /dev/null "$d/hooks/registry.json"`,
    `export R="\${TAMA_HOME}/hooks"; printf '{}' > $R/registry.json`,
    `echo x >> "\${TAMA_HOME}/hooks/registry.json"`,
    `cat /tmp/evil.json | tee ${registry}`,
    `cp /tmp/evil.json ${registry}`,
    `cp -t ${path.dirname(registry)} /tmp/registry.json`,
    `mv ${registry} /tmp/gone`,
    `rm -rf ${tamaHome}`,
    `rm -rf ${home}`,
    `rm ~/.tama/shared-hooks/omp/adapter.js`,
    `chmod 666 ${registry}`,
    `chmod -R go+w ${home}`,
    `chown nobody ${registry}`,
    `ln -sf /tmp/evil ${registry}`,
    `truncate -s 0 ${registry}`,
    `dd if=/dev/zero of=${registry} count=1`,
    `install -m 644 /tmp/x ${registry}`,
    `rsync -a /tmp/evil/ ${tamaHome}/`,
    // A copy into the project may make its .omp/extensions, though it is not there yet.
    // find's -name globs match a leading dot, as the shell's do not.
    `find ${home} -name '?tama' -prune -exec rm -rf {} +`,
    `find ${home} -maxdepth 1 -name '*' -delete`,
    "cp -r staged/. .",
    "rsync -a staged/ ./",
    `touch ${tamaHome}/hooks-runtime/current/bin/tama`,
    `cd ${tamaHome} && rm -rf hooks`,
    `cd ~/.tama/hooks; echo {} > registry.json`,
    `rm -rf ${root}/link-to-tama/hooks`,
    `rm -f ${tamaHome}/hooks/*.json`,
    `echo 'exit 0' > ${hookScript}`,
    `echo x > ${path.join(home, ".omp", "agent", "extensions", "omp-shared-hooks.js")}`,
    `echo 'disabledExtensions: [omp-shared-hooks]' >> ~/.omp/agent/config.yml`,
    `echo '{}' > .tama/hooks.json`,
    `echo '{}' > ~/.claude/settings.json`,
    `echo '{}' > ~/.codex/hooks.json`,
    `printf 'approval_policy = "never"\n' >> ~/.codex/config.toml`,
    `find ${tamaHome} -name '*.json' -delete`,
    `python3 -c "open('${registry}', 'w').write('{}')"`,
    `node -e "require('fs').writeFileSync(process.env.TAMA_HOME + '/hooks/registry.json', '{}')"`,
    `perl -pi -e 's/true/false/' ${registry}`,
    `nohup timeout 5 rm -f ${registry}`,
    `x=1; sudo env TAMA_X=1 chmod 0777 ${path.dirname(registry)}`,
    // Shell forms that hide the target: groups, pushd, links made in the same command, braces, escapes, names built at run time.
    `(echo '{}') > ${registry}`,
    `{ echo '{}'; } > ${registry}`,
    `pushd ${path.dirname(registry)} && echo '{}' > registry.json`,
    `ln -s ${tamaHome} t; echo '{}' > t/hooks/registry.json`,
    `ln ${registry} r && echo '{}' > r`,
    `cp -r payload/.tama ${home}`,
    `t=tama; $t hooks disable x`,
    `$(echo tama) hooks disable x`,
    `echo '{}' | tee {${registry},/dev/null}`,
    `echo '{}' > $'${registry.replaceAll("/", "\\x2f")}'`,
    `f() { rm -f "$1"; }; f ${registry}`,
    `for f in ${registry} x; do cp /dev/null "$f"; done`,
    `cd "$(echo ~/.tama)" && echo '{}' > hooks/registry.json`,
    `chmod -x ${hookScript}`,
    `chattr +i ${registry}`,
    `find ${home} -name 'registry.json' -delete`,
    `find ${home} -name '*.json' -delete`,
    `find ${path.dirname(hookScript)} -name x -o -type f -delete`,
    `vim -c 'normal dd' -c wq ${registry}`,
    `git clone https://example.com/x ${tamaHome}/hooks-runtime/evil`,
  ];
  for (const command of commands) {
    it(command, () => {
      const reason = refused(bash(command));
      expect(reason).toMatch(/^Tama refused this (call|code)/);
      expect(reason).toMatch(/terminal/);
    });
  }

  it("writes and edits of the registry, the adapter and hook scripts", () => {
    expect(refused(write(registry))).toMatch(/Tama's hook registry/);
    expect(refused(write(registry, "edit"))).toMatch(/Tama's hook registry/);
    expect(refused(write(path.join(tamaHome, "shared-hooks", "omp", "adapter.js")))).toMatch(/Tama's home/);
    expect(refused(write(hookScript))).toMatch(/a script a registered hook runs/);
    expect(refused(write(".tama/hooks.json"))).toMatch(/project's Tama hooks/);
    expect(refused(write(path.join(home, ".codex", "hooks.json"), "edit"))).toMatch(/Codex's hooks/);
    expect(refused(write("bunfig.toml"))).toMatch(/`preload` runs code inside OMP/);
    expect(refused(write("web/.env.production", "edit"))).toMatch(/move Tama's home, its registry or OMP's agent dir/);
  });

  it("code that names Tama's state and changes files, or runs tama with a policy verb", () => {
    expect(refused(evalCall(`require("fs").writeFileSync("${registry}", "{}")`))).toMatch(/Tama refused this (call|code): it writes .*Tama.s hook registry|Tama refused this code/);
    expect(refused(evalCall(`import os\nos.remove(os.environ["TAMA_HOME"] + "/hooks/registry.json")`, "py"))).toMatch(/Tama refused/);
    expect(refused(evalCall(`require("child_process").execFileSync("tama", ["hooks", "disable", "x"])`))).toMatch(/tama hooks disable/);
    expect(refused(evalCall(`import subprocess\nsubprocess.run("rm -rf ${tamaHome}", shell=True)`, "py"))).toMatch(/removes/);
  });

  it("reads the policy verbs the CLI refuses", () => {
    expect(policyVerb(["hooks", "disable", "x"])).toBe("hooks disable");
    expect(policyVerb(["sessions", "--json", "grant"])).toBe("sessions grant");
    expect(policyVerb(["install", "--omp"])).toBe("install");
    expect(policyVerb(["hooks", "list"])).toBeUndefined();
    expect(policyVerb(["trust", "/repo"])).toBe("trust");
    expect(policyVerb(["trust", "--revoke"])).toBe("trust");
    expect(policyVerb(["trust", "--list"])).toBeUndefined();
    expect(policyVerb(["trust", "--dry-run", "/repo"])).toBeUndefined();
    expect(policyVerb(["hooks", "claude-sources", "on"])).toBe("hooks claude-sources");
    expect(policyVerb(["hooks", "claude-sources"])).toBeUndefined();
    expect(policyVerb(["sessions", "list"])).toBeUndefined();
    expect(policyVerb(["doctor"])).toBeUndefined();
  });
});

describe("self-protection lets through", () => {
  const commands = [
    `find . -type f -name '*.pyc' -delete`,
    // Branches that act only on names no policy file has; the others only prune or print.
    `find . -name node_modules -prune -o -name '*.tmp' -print -delete`,
    `find . -path ./node_modules -prune -o -name '*.log' -exec rm {} +`,
    `find . \\( -name '*.tmp' -o -name '*.bak' \\) -delete`,
    `find . -type f \\( -name '*.orig' -o -name '*.rej' \\) -delete`,
    `find . -not -path './node_modules/*' -name '*.log' -delete`,
    // A recursive change of the project reaches its .omp/extensions only where that is there (here it is not).
    `find . -type d -empty -delete`,
    "chmod -R u+w .",
    "rm -rf .[!.]*cache",
    `cd src 2>/dev/null; echo x > notes.txt`,
    `ln -s ../shared shared`,
    `cat ${registry}`,
    `ls -la ${tamaHome}`,
    `grep enabled ~/.tama/hooks/registry.json`,
    `cp ${registry} /tmp/registry-copy.json`,
    `tama hooks list`,
    `tama doctor`,
    `omp config get disabledExtensions`,
    `tar -cf src.tar --transform 's,^,proj/,' src`,
    `omp config`,
    `omp plugin list`,
    `omp --help`,
    `cat .gemini/settings.json`,
    `echo '{}' > package.json`,
    `cat bunfig.toml .env`,
    `echo 'API_URL=' > .env.example`,
    `echo x > bunfig.toml.md`,
    // A program handed a .env file reads it; only a write to one is refused.
    `node --env-file=.env app.js`,
    // A markdown command is a prompt; folders named tools or commands elsewhere are the project's.
    `mkdir -p .claude/commands && echo 'Review the diff' > .claude/commands/review.md`,
    `echo x > tools/build.ts`,
    `echo x > src/commands/deploy/index.ts`,
    `cat .mcp.json`,
    `perl -e 'rename "a.txt", "b.txt"'`,
    `rename 's/\\.jpeg$/.jpg/' *.jpeg`,
    `rename -n s/evil/.mcp/ evil.json`,
    `rename .jpeg .jpg *.jpeg`,
    `perl -e 'rename "a.txt", "b.txt" if -e "a.txt"'`,
    // find running a program that only reads what it is named changes nothing.
    `find . -name '*.json' -exec cat {} +`,
    `find . -name '*.json' -exec grep -l version {} +`,
    `find . -name '*.json' | xargs cat`,
    `find . -name '*.ts' | xargs sed -i s/a/b/`,
    `docker compose --env-file .env.local up -d`,
    `perl -e 'open F, "<", "x.txt"; print <F>'`,
    `tama sessions list --json`,
    `${tamaHome}/hooks-runtime/current/bin/tama hooks running`,
    `echo hello > /tmp/out.txt`,
    `sed -i s/a/b/ src/file.ts`,
    `sed s/true/false/ ${registry}`,
    `rm -rf build dist`,
    `chmod +x scripts/run.sh`,
    `echo "tama hooks disable x"`,
    `git commit -m "tama hooks disable x"`,
    `mv a.txt b.txt`,
    `echo x 2>&1 >/dev/null`,
    `node scripts/build.mjs`,
    `python3 -c "print(open('${registry}').read())"`,
    `diff ${registry} /tmp/other.json > /tmp/diff.txt`,
  ];
  for (const command of commands) {
    it(command, () => {
      expect(refused(bash(command))).toBeUndefined();
    });
  }

  it("writes elsewhere and code that only reads", () => {
    expect(refused(write("src/index.ts"))).toBeUndefined();
    expect(refused(write("docs/bunfig.md"))).toBeUndefined();
    expect(refused(write("/tmp/notes.md"))).toBeUndefined();
    expect(refused(evalCall(`console.log(require("fs").readFileSync("${registry}", "utf8"))`))).toBeUndefined();
    expect(refused(evalCall(`require("fs").writeFileSync("/tmp/out.txt", "x")`))).toBeUndefined();
    expect(refused({ hook_event_name: "PreToolUse", cwd: repo, tool_name: "Read", tool_input: { file_path: registry }, omp: { tool_name: "read", tool_input: { path: registry } } })).toBeUndefined();
  });
});

describe("a link the agent makes between two calls", () => {
  /** A write tool call of a file in `project`, named relative to it. */
  it("is followed at the next call: the project's OMP extensions stay protected through it and where it points", () => {
    const project = path.join(root, "linked-project");
    const elsewhere = path.join(project, "elsewhere");
    mkdirSync(path.join(elsewhere, "extensions"), { recursive: true });
    const at = writeCallIn(project);
    // The first call resolves the protected paths while .omp is absent.
    expect(findSelfProtectionBreach(at("notes.md"), context)).toBeUndefined();
    symlinkSync("elsewhere", path.join(project, ".omp"));
    expect(findSelfProtectionBreach(at(".omp/extensions/x.ts"), context)).toMatch(/the project's OMP extensions/);
    expect(findSelfProtectionBreach(at("elsewhere/extensions/y.ts"), context)).toMatch(/the project's OMP extensions/);
  });

  it("is followed in a folder that had been still: a name made there moves the folder's stamp", async () => {
    const project = path.join(root, "settled-project");
    mkdirSync(path.join(project, "elsewhere", "extensions"), { recursive: true });
    mkdirSync(path.join(project, "sub"), { recursive: true });
    // Past RACY_MS: the checks now keep the folder's stamp instead of looking at each absent name.
    await new Promise((resolve) => setTimeout(resolve, RACY_MS + 200));
    const at = writeCallIn(project);
    for (let i = 0; i < 3; i++) expect(findSelfProtectionBreach(at("notes.md"), context)).toBeUndefined();
    symlinkSync("elsewhere", path.join(project, ".omp"));
    expect(findSelfProtectionBreach(at("elsewhere/extensions/y.ts"), context)).toMatch(/the project's OMP extensions/);
    // A rename into place moves the stamp as well.
    mkdirSync(path.join(project, "sub", "staged", "extensions"), { recursive: true });
    execFileSync("mv", [path.join(project, "sub", "staged"), path.join(project, ".codex")]);
    expect(findSelfProtectionBreach(at(".codex/hooks/pre.ts"), context)).toMatch(/Codex hooks/);
  }, 20_000);

  it("keeps folder stamps only on file systems whose folders' ctime moves with each name (not procfs, FUSE, a network one or an overlay)", () => {
    if (process.platform !== "linux") return;
    expect(stampsMove("/proc")).toBe(false);
    // ext4 and tmpfs, where test folders usually are, do; an overlay does not (its lower layer changes under it).
    const type = statfsSync(root).type >>> 0;
    if (type === 0xef53 || type === 0x01021994) expect(stampsMove(root)).toBe(true);
    if (type === 0x794c7630) expect(stampsMove(root)).toBe(false);
  });

  it("a link to a name not there yet is judged by that name: a write through it creates it", () => {
    const project = path.join(root, "dangling-project");
    mkdirSync(path.join(project, ".claude", "commands"), { recursive: true });
    symlinkSync(".mcp.json", path.join(project, "notes.json"));
    symlinkSync(".claude/commands/w/index.ts", path.join(project, "helper.ts"));
    symlinkSync(".claude/commands", path.join(project, "cmds"));
    const inProject = (command: string): HookInput => ({ ...bash(command), cwd: project });
    expect(refused(inProject("echo '{}' > notes.json"))).toMatch(/notes\.json \(.*\/\.mcp\.json\), which is a list of MCP servers/);
    expect(refused(inProject("cp /tmp/x.ts helper.ts"))).toMatch(/a TypeScript slash command OMP imports/);
    expect(refused(inProject("cp -r /tmp/staged cmds/q"))).toMatch(/a folder of TypeScript slash commands/);
    expect(refused(inProject("echo 'Review' > cmds/review.md"))).toBeUndefined();
    // A link through a link, then `..`: where the kernel's walk ends, not where the text's does.
    mkdirSync(path.join(project, "src"), { recursive: true });
    mkdirSync(path.join(project, "lnk"), { recursive: true });
    symlinkSync(path.join(project, "src"), path.join(project, "lnk", "s"));
    symlinkSync("s/../.mcp.json", path.join(project, "lnk", "x"));
    expect(refused(inProject("echo '{}' > lnk/x"))).toMatch(/lnk\/x \(.*dangling-project\/\.mcp\.json\), which is a list of MCP servers/);
    // Into a commands folder that is there, a prompt lands under its own name.
    expect(refused(inProject("cp docs/review.md .claude/commands/"))).toBeUndefined();
  });
});

describe("what find selects", () => {
  it("handed by xargs to a writer changes as with -exec; handed to a reader, or -exec of one, changes nothing", () => {
    const project = path.join(root, "find-project");
    mkdirSync(path.join(project, ".claude"), { recursive: true });
    writeFileSync(path.join(project, ".claude", "settings.json"), "{}");
    const inProject = (command: string): HookInput => ({ ...bash(command), cwd: project });
    expect(refused(inProject("find . -name '*.json' | xargs sed -i s/a/b/"))).toMatch(/changes files under .*settings\.json/);
    expect(refused(inProject("find . -name '*.json' -print0 | xargs -0 sed -i s/a/b/"))).toMatch(/changes files under .*settings\.json/);
    expect(refused(inProject("find . -name '*.json' -exec sed -i s/a/b/ {} +"))).toMatch(/changes files under .*settings\.json/);
    expect(refused(inProject("find . -name '*.json' -exec cat {} +"))).toBeUndefined();
    expect(refused(inProject("find . -name '*.json' | xargs cat"))).toBeUndefined();
    expect(refused(inProject("find . -name '*.ts' | xargs sed -i s/a/b/"))).toBeUndefined();
    // The names are what cp copies from and tar packs, not what they write.
    expect(refused(inProject("find . -name '*.json' | xargs cp -t /tmp/out"))).toBeUndefined();
    expect(refused(inProject("find . -name '*.json' | xargs tar czf /tmp/a.tgz"))).toBeUndefined();
    // A program named by a path may be anything, `./cat` too.
    expect(refused(inProject("find . -name '*.json' -exec ./cat {} +"))).toMatch(/changes files under .*settings\.json/);
  });
});

describe("what OMP imports or starts, however it is put in place", () => {
  it("code copying or linking a commands folder, git apply of a patch making an MCP list, and OpenCode plugins", () => {
    expect(refused(bash(`python3 -c "import shutil; shutil.copytree('/tmp/c', '.claude/commands', dirs_exist_ok=True)"`))).toMatch(/a folder of TypeScript slash commands/);
    expect(refused(evalCall(`require("fs").cpSync("/tmp/c", ".claude/commands", { recursive: true })`))).toMatch(/a folder of TypeScript slash commands/);
    expect(refused(evalCall(`import os\nos.symlink("/tmp/c/x", ".codex/commands/q")`, "python"))).toMatch(/a folder of TypeScript slash commands/);
    expect(refused(bash(`python3 -c "import shutil; shutil.copytree('src', 'build')"`))).toBeUndefined();
    const patch = path.join(root, "new-mcp.patch");
    writeFileSync(patch, "diff --git a/.mcp.json b/.mcp.json\nnew file mode 100644\n--- /dev/null\n+++ b/.mcp.json\n@@ -0,0 +1 @@\n+{}\n");
    const gitRepo = path.join(root, "git-project");
    mkdirSync(gitRepo, { recursive: true });
    execFileSync("git", ["init", "-q", gitRepo]);
    const inRepo = (command: string): HookInput => ({ ...bash(command), cwd: gitRepo });
    expect(refused(inRepo(`git apply ${patch}`))).toMatch(/it patches .*\/\.mcp\.json, which is a list of MCP servers/);
    expect(refused(inRepo(`git apply --check ${patch}`))).toBeUndefined();
    expect(refused(inRepo(`git apply < ${patch}`))).toMatch(/it patches .*\/\.mcp\.json/);
    expect(refused(bash("echo 'export default {}' > .opencode/plugins/p.ts"))).toMatch(/OpenCode plugins/);
    // A program handed an MCP list reads it; an example mcp.json of an MCP server's own is its project's.
    expect(refused(bash("npx @modelcontextprotocol/inspector --config .mcp.json"))).toBeUndefined();
    expect(refused(bash(`echo '{"mcpServers":{}}' > examples/mcp.json`))).toBeUndefined();
    expect(refused(bash(`echo '{}' > mcp.json`))).toMatch(/a list of MCP servers/);
  });
});
