// Tama in OMP's interactive TUI, read off the screen as a person would: the reload
// command's answer shows at once, /tama_status is a short summary, and a person's
// `!cmd` meets the same gates as the agent's bash.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
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
});
