// Tama in OMP's interactive TUI, read off the screen as a person would: the reload
// command's answer shows at once, /tama_status is a short summary, and a person's
// `!cmd` meets the same gates as the agent's bash.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { useOmpFixture } from "../omp/fixture.ts";
import { startTui, TUI_CONFIG_YAML, type TuiSession } from "../omp/tui-session.ts";
import { newerAdapter } from "./adapter-variants.ts";
import { installTama } from "./tama-omp.ts";
import { defaultRegistry } from "../../modules/registry/default.ts";

/** The gates a new install turns on. */
const GATES = defaultRegistry(null).hooks.length;

const omp = useOmpFixture();
let tui: TuiSession | undefined;
afterEach(() => {
  tui?.close();
  tui = undefined;
});

// .ci/run installs tmux; a machine without it cannot show OMP's TUI to a test.
const hasTmux = spawnSync("tmux", ["-V"]).status === 0;
if (!hasTmux) process.stderr.write("test/e2e/tui.test.ts: skipped, tmux is not installed (apt-get install tmux)\n");

describe.skipIf(!hasTmux)("Tama in OMP's TUI", () => {
  it("shows the reload's answer at once, a short status, and refuses a gated !cmd", async () => {
    const { env } = await omp.setup({ configYaml: TUI_CONFIG_YAML });
    const tama = installTama(env);
    tui = startTui(env);
    await tui.waitFor(new RegExp(`Tama: ${GATES} gates · engine \\d+`));

    tama.installAdapter(newerAdapter("tui", path.join(env.scratch, "events.log")));
    tui.submit("/tama_reload_hook_runtime");
    // no further turn: the answer is on screen right after the command
    const reloaded = await tui.waitFor(/Loaded the installed OMP adapter [0-9a-f]{64} in place of [0-9a-f]{64}/);
    expect(reloaded).toMatch(/Engine \d+ reloaded its registry/);

    tui.submit("/tama_status");
    const status = await tui.waitFor(/Full status: \/tama_status --json/);
    expect(status).toMatch(/Tama · adapter [0-9a-f]{12} · OMP pid \d+/);

    const marker = path.join(env.root, "person-ran");
    tui.submit(`!git commit --no-verify -m x; touch ${marker}`);
    await tui.waitFor(/Tama refused this command/);
    expect(existsSync(marker)).toBe(false);
  });

  it("offers a held project's hooks for trust in a dialog the person answers; the default trusts nothing", async () => {
    const { env, server } = await omp.setup({ configYaml: TUI_CONFIG_YAML });
    const log = path.join(env.scratch, "project-hook.log");
    /** Run one bash call and wait for the model to have its result (the request after the call). */
    const bashCall = async (session: TuiSession, word: string): Promise<void> => {
      const before = server.requests.length;
      session.submit(`CALL bash {"command":"echo ${word}"}`);
      const deadline = Date.now() + 180_000;
      while (server.requests.length < before + 2) {
        if (Date.now() > deadline) throw new Error(`the model never saw the result of ${word}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(JSON.stringify(server.requests[before + 1]?.body)).toContain(word);
    };
    const tama = installTama(env, { LOG_FILE: log });
    // The session's cwd is a repository with its own Tama hooks.
    mkdirSync(path.join(env.cwd, ".git"), { recursive: true });
    mkdirSync(path.join(env.cwd, ".tama"), { recursive: true });
    writeFileSync(
      path.join(env.cwd, ".tama", "hooks.json"),
      JSON.stringify({ schema: 1, hooks: [{ id: "logs-calls", events: ["pre_tool_use"], command: ["sh", "-c", 'cat >/dev/null; echo project-hook >> "$LOG_FILE"'] }] }),
    );
    const trusted = (): unknown[] => (JSON.parse(tama.cli(["trust", "--list", "--json"]).stdout) as { projects: unknown[] }).projects;
    const ran = (): boolean => existsSync(log) && readFileSync(log, "utf8").includes("project-hook");

    // A stray Enter keeps the hooks held: the first choice trusts nothing.
    tui = startTui(env);
    let dialog = await tui.waitFor(/Trust this content/, 120_000);
    expect(dialog).toContain(`project ${env.cwd} is not trusted yet`);
    expect(dialog).toMatch(/\.tama\/hooks\.json: pre_tool_use runs sh -c/);
    tui.press("Enter");
    await tui.waitFor(new RegExp(`Tama: ${GATES} gates`));
    expect(trusted()).toEqual([]);
    await bashCall(tui, "first-call");
    expect(ran()).toBe(false);
    tui.close();

    // The next session offers it again; choosing trust records it, and the hook runs from the next event.
    tui = startTui(env);
    dialog = await tui.waitFor(/Trust this content/, 120_000);
    tui.press("Down", "Enter");
    await tui.waitFor(/trusted at this content and run from the next event/, 120_000);
    expect(trusted()).toHaveLength(1);
    await bashCall(tui, "second-call");
    expect(ran()).toBe(true);
  }, 600_000);
});
