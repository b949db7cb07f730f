// Commands run by programs in their own languages, and OMP tools that start processes:
// each form below ran a refused command past every gate (found by trying them), and
// each plain use of the same program still passes.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toHookTargets } from "../../modules/claude/hook-input.ts";
import { commandsInText, runnerScripts } from "../../modules/gates/command-runners.ts";
import { runnerCommand } from "../../modules/gates/package-runners.ts";
import { parseEvent, type DispatchPayload } from "../../modules/protocol/engine.ts";
import { refusingGates } from "../support/gate-refusals.ts";

let root: string;
let project: string;
let tamaHome: string;
beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), "tama-runners-"));
  project = path.join(root, "proj");
  tamaHome = path.join(root, "home", ".tama");
  mkdirSync(path.join(project, ".git"), { recursive: true });
  writeFileSync(path.join(project, ".git", "HEAD"), "ref: refs/heads/topic\n");
  mkdirSync(tamaHome, { recursive: true });
  // An OMP home as OMP lays it out: what a recursive change of the home would reach.
  mkdirSync(path.join(root, "home", ".omp", "agent", "extensions"), { recursive: true });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The default pre_tool_use gates that refuse an OMP call (payload fields in `extra`), as the engine matches them. */
const refusedBy = (tool: string, input: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<string[]> =>
  refusingGates(tool, input, { project, tamaHome, home: path.join(root, "home"), defaultsOnly: true }, extra);

const bash = (command: string) => refusedBy("bash", { command });
const pwshEncoded = Buffer.from("git commit --no-verify -m x", "utf16le").toString("base64");

describe("a program that runs a command written in its own language", () => {
  it.each([
    ["gdb's shell", "gdb -batch -ex 'shell git commit --no-verify -m x'"],
    ["gdb's !", "gdb -batch -ex '!git commit --no-verify -m x'"],
    ["gdb's python", `gdb -q -batch -ex 'python import os; os.system("git commit --no-verify -m x")'`],
    ["gdb's pipe", "gdb -batch -ex 'pipe print 1 | git commit --no-verify -m x'"],
    ["gdb reading its commands from stdin", "gdb -batch <<< 'shell git commit --no-verify -m x'"],
    ["lldb's platform shell", "lldb -b -o 'platform shell git commit --no-verify -m x'"],
    ["vim's -c !", "vim -es -c '!git commit --no-verify -m x' -c q"],
    ["vi's +:!", "vi +':!git commit -n -m x' +q"],
    ["ed's ! from stdin", "ed -s /dev/null <<< '!git commit --no-verify -m x'"],
    ["awk's system()", `awk 'BEGIN{system("git commit --no-verify -m x")}'`],
    ["awk's pipe to a command", `awk 'BEGIN{print "x" | "git commit --no-verify -F -"}'`],
    ["sed's e flag", "echo | sed 's/.*/git commit --no-verify -m x/e'"],
    ["sed's e command", "sed '1e git commit --no-verify -m x' notes.txt"],
    ["sqlite3's .shell", "sqlite3 :memory: '.shell git commit --no-verify -m x'"],
    ["psql's \\!", "psql -c '\\! git commit --no-verify -m x'"],
    ["mysql's system", "mysql -e 'system git commit --no-verify -m x'"],
    ["emacs's shell-command", `emacs --batch --eval '(shell-command "git commit --no-verify -m x")'`],
    ["expect's spawn", "expect -c 'spawn git commit --no-verify -m x'"],
    ["tclsh's exec", "tclsh <<< 'exec git commit --no-verify -m x'"],
    ["lua's os.execute", `lua -e 'os.execute("git commit --no-verify -m x")'`],
    ["Rscript's system", `Rscript -e 'system("git commit --no-verify -m x")'`],
    ["tmux's new session", "tmux new -d 'git commit --no-verify -m x'"],
    ["tmux's send-keys", "tmux send-keys -t dev 'git commit --no-verify -m x' Enter"],
    ["screen's command", "screen -dm git commit --no-verify -m x"],
    ["screen's stuff", "screen -S dev -X stuff 'git commit --no-verify -m x\n'"],
    ["ssh's remote command", "ssh localhost 'git commit -n -m x'"],
    ["make reading its makefile from stdin", "make -f - <<'EOF'\nall:\n\tgit commit --no-verify -m x\nEOF"],
    ["PowerShell's -c", "pwsh -c git commit --no-verify -m x"],
    ["PowerShell's encoded command", `pwsh -EncodedCommand ${pwshEncoded}`],
    ["npx -c", "npx -c 'git commit --no-verify -m x'"],
    ["npm exec", "npm exec -- git commit --no-verify -m x"],
    ["pnpm's shell mode", "pnpm -c exec 'git commit --no-verify -m x'"],
    ["bun exec", "bun exec 'git commit --no-verify -m x'"],
    ["uv run", "uv run git commit --no-verify -m x"],
    ["nix-shell --run", "nix-shell -p git --run 'git commit --no-verify -m x'"],
    ["valgrind", "valgrind -q git commit --no-verify -m x"],
  ])("%s", async (_name, command) => {
    expect(await bash(command)).toContain("block-git-hook-bypass");
  });

  it("is read by every gate, not the git gate alone", async () => {
    expect(await bash(`awk 'BEGIN{system("rm -rf ~")}'`)).toEqual(expect.arrayContaining(["block-destructive-deletes", "self-protection"]));
    expect(await bash("lldb -b -o 'platform shell rm -rf ~/.omp'")).toContain("self-protection");
    expect(await bash("tmux new -d 'echo x > /etc/cron.d/job'")).toContain("deny-writes-outside-repo");
  });

  it.each([
    ["awk printing fields", "awk -F: '{print $1}' /etc/passwd"],
    ["awk reading a command's output", `awk 'BEGIN{while (("ls" | getline l) > 0) print l}'`],
    ["sed substituting text that names a refused command", "sed -i 's/git commit --no-verify/git commit/' docs.md"],
    ["sed printing lines", "sed -n '1,5p' notes.txt"],
    ["vim writing and quitting", "vim -c 'wq' notes.txt"],
    ["gdb running a program", "gdb -batch -ex run ./a.out"],
    ["sqlite3 and psql queries", "sqlite3 db.sqlite 'select 1' && psql -c 'select 1'"],
    ["tmux starting a dev server", "tmux new -d -s dev 'npm run dev' && tmux send-keys -t dev 'npm test' Enter"],
    ["screen starting a dev server", "screen -dmS dev npm run dev"],
    ["package runners", "npx prettier --write . && npm exec -- eslint . && pnpm -C pkg exec tsc -p . && uv run pytest -q && bundle exec rspec"],
    ["ssh", "ssh -p 22 host 'df -h'"],
    ["make", "make -j4 test"],
  ])("passes %s", async (_name, command) => {
    expect(await bash(command)).toEqual([]);
  });
});

describe("git's own ways to run a command", () => {
  it.each([
    ["a pager set for one command", "git -c core.pager='git commit --no-verify -m x' log -1"],
    ["an editor in the environment", "GIT_EDITOR='git commit --no-verify -m y' git rebase -i HEAD~2"],
    ["an exported pager", "export GIT_PAGER='git commit -n -m x'; git log -1"],
    ["an ssh command", "git -c core.sshCommand='git commit --no-verify -m x' fetch"],
    ["a pager configured for later", "git config core.pager 'git commit --no-verify -m x'"],
    ["a global editor configured for later", `git config --global core.editor "sh -c 'git commit -n -m x'"`],
    ["a credential helper", "git config credential.helper '!git commit --no-verify -m x'"],
    ["submodule foreach", "git submodule foreach 'git commit --no-verify -m x'"],
    ["bisect run", "git bisect run git commit --no-verify -m x"],
    ["difftool -x", "git difftool -x 'git commit --no-verify -m x' -y"],
    ["fetch --upload-pack", "git fetch --upload-pack='git commit --no-verify -m x' origin"],
  ])("%s", async (_name, command) => {
    expect(await bash(command)).toContain("block-git-hook-bypass");
  });

  it("passes the settings people use", async () => {
    expect(await bash("git -c core.pager=cat log && GIT_PAGER=cat git log && EDITOR=vim git commit")).toEqual([]);
    expect(await bash("git config core.pager less && git config user.name x && git submodule foreach git pull && git bisect run npm test")).toEqual([]);
  });
});

describe("OMP's debug tool", () => {
  it.each([
    ["a gdb REPL shell command", { action: "evaluate", expression: "shell git commit --no-verify -m x", context: "repl" }],
    ["an lldb REPL platform shell", { action: "evaluate", expression: "platform shell git commit --no-verify -m x", context: "repl" }],
    ["a call of system in an expression", { action: "evaluate", expression: 'call system("git commit --no-verify -m x")' }],
    ["a breakpoint condition that shells out", { action: "set_breakpoint", file: "main.c", line: 3, condition: '$_shell("git commit --no-verify -m x") == 0' }],
    ["a custom request's expression", { action: "custom_request", command: "evaluate", arguments: { expression: "shell git commit --no-verify -m x", context: "repl" } }],
  ])("%s", async (_name, input) => {
    expect(await refusedBy("debug", input)).toContain("block-git-hook-bypass");
  });

  it("passes inspection, plain breakpoints and plain expressions", async () => {
    expect(await refusedBy("debug", { action: "set_breakpoint", file: "main.c", line: 3 })).toEqual([]);
    expect(await refusedBy("debug", { action: "set_breakpoint", file: "main.c", line: 3, condition: "i == 3" })).toEqual([]);
    expect(await refusedBy("debug", { action: "evaluate", expression: "x + 1" })).toEqual([]);
    expect(await refusedBy("debug", { action: "stack_trace" })).toEqual([]);
  });
});

describe("OMP's hub tool", () => {
  it("reads a started process as the command it runs", async () => {
    expect(await refusedBy("hub", { op: "start", name: "p", application: "git", args: ["commit", "--no-verify", "-m", "x"] })).toContain("block-git-hook-bypass");
    expect(await refusedBy("hub", { op: "start", name: "p", application: "git", args: ["push", "--force", "origin", "HEAD:main"] })).toContain("protect-branches");
    expect(await refusedBy("hub", { op: "start", name: "p", application: "bash", args: ["-c", "rm -rf ~/.omp/agent/extensions"] })).toContain("self-protection");
    expect(await refusedBy("hub", { op: "start", name: "p", application: "git", args: ["commit", "-m", "x"], env: { HUSKY: "0" } })).toContain("block-git-hook-bypass");
    expect(await refusedBy("hub", { op: "start", name: "p", application: "rm", args: ["-rf", "share"], cwd: "/usr" })).toContain("block-destructive-deletes");
  });

  it("reads text typed into a process as a command line", async () => {
    expect(await refusedBy("hub", { op: "send", name: "sh", text: "git commit --no-verify -m x" })).toContain("block-git-hook-bypass");
  });

  it("passes a dev server, messages and inspection", async () => {
    expect(await refusedBy("hub", { op: "start", name: "dev", application: "npm", args: ["run", "dev"] })).toEqual([]);
    expect(await refusedBy("hub", { op: "send", name: "dev", text: "rs" })).toEqual([]);
    expect(await refusedBy("hub", { op: "send", to: "all", message: "git commit --no-verify is refused here" })).toEqual([]);
    expect(await refusedBy("hub", { op: "logs", name: "dev" })).toEqual([]);
  });
});

describe("the readers themselves", () => {
  it("find a shell escape on any line and after each !", () => {
    expect(commandsInText("print 1\nshell make test")).toContain("make test");
    expect(commandsInText("r !date")).toContain("date");
    expect(commandsInText("if a != b")).not.toContain("= b");
  });

  it("take a runner's command words and its shell lines apart", () => {
    expect(runnerCommand("npx", ["npx", "-y", "prettier", "--check", "."])).toEqual({ argv: ["prettier", "--check", "."], scripts: [] });
    expect(runnerCommand("npx", ["npx", "--call=make test"])).toEqual({ argv: [], scripts: ["make test"] });
    expect(runnerCommand("nix-shell", ["nix-shell", "-p", "git"])).toEqual({ argv: [], scripts: [] });
    expect(runnerCommand("ls", ["ls"])).toBeUndefined();
  });

  it("read sed's substitutions only when they run", () => {
    expect(runnerScripts("sed", ["sed", "s/a/b/g", "f"], [], new Map())).toEqual([]);
    expect(runnerScripts("sed", ["sed", "-e", "s|x|make test|e"], [], new Map())).toContain("make test");
  });
});

describe("OMP tools a person turns on that write or read files they name", () => {
  it("reach the write and secret gates", async () => {
    const home = path.join(root, "home");
    expect(await refusedBy("tts", { text: "hi", output_path: `${home}/.omp/agent/extensions/x.ts` })).toContain("self-protection");
    expect(await refusedBy("tts", { text: "hi", output_path: ".git/hooks/pre-commit" })).toContain("block-git-hook-bypass");
    expect(await refusedBy("security_scan", { action: "preflight", output_root: `${home}/.omp/agent/extensions` })).toContain("self-protection");
    expect(await refusedBy("security_scan", { action: "start", knowledge_base_paths: [".env"] })).toContain("protect-secret-files");
    expect(await refusedBy("generate_image", { prompt: "x", input: [{ path: ".env" }] })).toContain("protect-secret-files");
  });

  it("pass files in the project", async () => {
    expect(await refusedBy("tts", { text: "hi", output_path: "out/hello.mp3" })).toEqual([]);
    expect(await refusedBy("generate_image", { prompt: "x", input: [{ path: "img/a.png" }] })).toEqual([]);
  });
});

describe("a line typed into a hub process", () => {
  const send = (fields: Record<string, unknown>, typedLine?: string) => {
    const event = parseEvent("pre_tool_use:hub")!;
    return toHookTargets(event, { session_id: "s1", cwd: project, tool_name: "hub", tool_input: { op: "send", name: "sh", ...fields }, ...(typedLine !== undefined ? { typed_line: typedLine } : {}) } as DispatchPayload);
  };

  it("is read whole when earlier sends typed part of it", async () => {
    const mapped = send({ text: "erify -m x" }, "git commit --no-v");
    expect(mapped.ok && mapped.targets[0]?.input.tool_input).toEqual({ command: "git commit --no-verify -m x" });
  });

  it("is refused when keys or control characters edit, complete or recall it, or history expansion rewrites it", () => {
    for (const [fields, cause] of [
      [{ keys: ["UP", "ENTER"] }, /UP key/],
      [{ text: "git commit --no-ver", keys: ["TAB"] }, /TAB key/],
      [{ text: "git commit --no-verifyx\u007f" }, /control characters/],
      [{ text: "git commit -m x --no-verify\u001b[D\u001b[D" }, /control characters/],
      [{ text: "!?no-verify?" }, /history/],
      [{ text: "^commit -m^commit -n -m" }, /history/],
      [{ text: "fc -s verify" }, /history/],
    ] as const) {
      const mapped = send(fields as Record<string, unknown>);
      expect(mapped.ok, JSON.stringify(fields)).toBe(false);
      if (!mapped.ok) expect(mapped.error).toMatch(cause);
    }
  });

  it("is read as a REPL or debugger would run it", async () => {
    expect(await refusedBy("hub", { op: "send", name: "py", text: 'import os; os.system("git commit --no-verify -m x")' })).toContain("block-git-hook-bypass");
    expect(await refusedBy("hub", { op: "send", name: "gdb", text: "shell git commit --no-verify -m x" })).toContain("block-git-hook-bypass");
  });

  it("passes keys and text that type no command", async () => {
    expect(await refusedBy("hub", { op: "send", name: "dev", keys: ["CTRL_C"] })).toEqual([]);
    expect(await refusedBy("hub", { op: "send", name: "dev", text: "y", enter: false })).toEqual([]);
    expect(await refusedBy("hub", { op: "send", name: "sh", text: "echo done!" })).toEqual([]);
  });
});

describe("spellings a red-team pass found after the first cut", () => {
  const G = "git commit --no-verify -m x";
  it.each([
    `screen -dmS s ${G}`,
    `screen -L -Logfile l -dm ${G}`,
    `tmux -c '${G}'`,
    `tmux split-window -h '${G}'`,
    `tmux run -b '${G}'`,
    `tmux new -d ${G}`,
    `tmux source-file - <<< "run-shell '${G}'"`,
    `ssh -o ProxyCommand='${G}' host true`,
    `ssh -oProxyCommand='${G}' host true`,
    `ssh -Ai key localhost '${G}'`,
    `ssh localhost <<< '${G}'`,
    `rsync -e '${G}' a host:b`,
    `P='${G}' git --config-env=diff.external=P diff`,
    `GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=diff.external GIT_CONFIG_VALUE_0='${G}' git diff`,
    `git -c include.path=/dev/stdin diff <<< '[diff]\n\texternal = ${G}'`,
    `git -c protocol.ext.allow=always clone 'ext::sh -c git% commit% --no-verify% -m% x' d`,
    `git config remote.origin.uploadpack '${G}'`,
    `git submodule foreach -q '${G}'`,
    `gdb -batch -ex='shell ${G}'`,
    `gdb -batch -ex 'she ${G}'`,
    `gdb -batch -ex "python gdb.execute('shell ${G}')"`,
    `gdb -batch -x <(echo 'shell ${G}')`,
    `echo 'shell ${G}' > cmds.gdb; gdb -batch -x cmds.gdb`,
    `lldb -b -o 'pl sh ${G}'`,
    `sqlite3 :memory: '.sy ${G}'`,
    `vim -c 'ter ${G}'`,
    `ex -sc '!${G}'`,
    `LESSOPEN='|${G} %s' less notes.txt`,
    `psql -c '\\o |${G}'`,
    `mysql --pager='${G}' -e 'select 1'`,
    `echo x | sed 's/x/${G}/;e'`,
    `echo '${G}' | sed e`,
    `sed -n '1e${G}' notes.txt`,
    `sed '/re/e ${G}' notes.txt`,
    `sed -f /dev/stdin notes.txt <<< '1e ${G}'`,
    `awk -v c='${G}' 'BEGIN{system(c)}'`,
    `echo '${G}' | awk '{system($0)}'`,
    `tclsh <<< 'exec sh -c {${G}}'`,
    `nvim -c 'lua vim.system({"git","commit","--no-verify","-m","x"})'`,
    `emacs --batch --eval '(call-process "git" nil nil nil "commit" "--no-verify" "-m" "x")'`,
    `Rscript -e 'system2("git", c("commit", "--no-verify", "-m", "x"))'`,
    `mise exec node@20 -- ${G}`,
    `nix shell nixpkgs#git --command ${G}`,
    `nix run nixpkgs#git -- commit --no-verify -m x`,
    `npm --loglevel silent exec -- ${G}`,
    `yarn --cwd . exec ${G}`,
    `uv tool run ${G}`,
  ])("%s", async (command) => {
    expect(await bash(command)).toContain("block-git-hook-bypass");
  });

  it("a debugger's custom launch and cppdbg's -exec", async () => {
    expect(await refusedBy("debug", { action: "custom_request", command: "launch", arguments: { program: "/bin/sh", args: ["-c", G] } })).toContain("block-git-hook-bypass");
    expect(await refusedBy("debug", { action: "evaluate", expression: `-exec shell ${G}`, context: "repl" })).toContain("block-git-hook-bypass");
  });

  it("a name too long for the file system is refused or passed, never an error", async () => {
    // self-protection's lstat of such a name threw before; a gate that throws fails here.
    await expect(bash(`emacs --eval '(call-process ${'"a" '.repeat(3000)})'`)).resolves.toBeInstanceOf(Array);
  });
});

describe("a shell started through the hub keeps what earlier lines typed", () => {
  const send = (text: string, typedLine: string) => refusedBy("hub", { op: "send", name: "sh", text }, { typed_line: typedLine });

  it("its directory, variables and aliases", async () => {
    expect(await send("cp /tmp/x.ts .", `cd ${root}/home/.omp/agent/extensions\n`)).toContain("self-protection");
    expect(await send("$c", "c='git commit --no-verify -m x'\n")).toContain("block-git-hook-bypass");
    expect(await send("g -m x", "alias g='git commit --no-verify'\n")).toContain("block-git-hook-bypass");
    expect(await send("ls", "cd src\n")).toEqual([]);
  });

  it("refuses Escape, which starts a readline edit", () => {
    const event = parseEvent("pre_tool_use:hub")!;
    const mapped = toHookTargets(event, { session_id: "s1", cwd: project, tool_name: "hub", tool_input: { op: "send", name: "sh", text: "git commit -m x ", enter: false, keys: ["ESCAPE"] } } as DispatchPayload);
    expect(mapped.ok).toBe(false);
  });
});

describe("cases a review found", () => {
  const G = "git commit --no-verify -m x";
  it.each([
    `sed '1e true; ${G}' notes.txt`,
    `echo x | sed '1s/.*/${G}/e'`,
    `sed '1~2e ${G}' notes.txt`,
    `tclsh <<< 'set a 1; exec ${G}'`,
    `tclsh <<< 'puts [exec ${G}]'`,
    `expect -c 'set timeout 1; spawn ${G}'`,
  ])("%s", async (command) => {
    expect(await bash(command)).toContain("block-git-hook-bypass");
  });

  it("a git setting from the environment naming git itself is read once, not as too deep", async () => {
    expect(await bash("GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0='git log' git log")).toEqual([]);
  });

  it("a shell's history rules apply to shells: a REPL's `!` and `r` are its own", async () => {
    const send = (text: string, into: string) => {
      const event = parseEvent("pre_tool_use:hub")!;
      return toHookTargets(event, { session_id: "s1", cwd: project, tool_name: "hub", tool_input: { op: "send", name: "p", text }, typed_into: into } as DispatchPayload).ok;
    };
    expect(send("print('hello!')", "python3")).toBe(true);
    expect(send("r", "gdb")).toBe(true);
    expect(send("if (!x) y()", "node")).toBe(true);
    expect(send("!!", "bash")).toBe(false);
    expect(send("r", "zsh")).toBe(false);
  });
});
