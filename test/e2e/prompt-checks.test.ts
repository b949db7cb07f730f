// A prompt whose check could not finish, in real OMP's TUI (the only mode where a
// person can submit the next prompt while the previous one's check still runs: OMP's
// `input` event): refused when a failMode-closed hook owed it a verdict, let through
// with a warning when only open hooks did.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { useOmpFixture } from "../omp/fixture.ts";
import { OMP_BIN } from "../omp/omp-process.ts";
import { FAKE_MODEL } from "../omp/omp-env.ts";
import type { ModelServer } from "../omp/model-server.ts";
import { processesMentioning, ROOT, settleProcesses } from "../support/engine-client.ts";
import { installTama, type TamaInstall } from "./tama-omp.ts";

const omp = useOmpFixture();
const FIX = path.join(ROOT, "test/fixtures/hooks");
/** The temp roots of this file's TUIs: everything OMP started there is ended after each test. */
const roots: string[] = [];
afterEach(async () => {
  // `script` puts OMP in a session of its own: its processes are found by the test's root.
  for (const root of roots.splice(0)) {
    for (const pid of processesMentioning(root)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone meanwhile
      }
    }
    expect(await settleProcesses(root, 15_000)).toEqual([]);
  }
});

let shown: () => string = () => "";

async function until(what: string, probe: () => boolean, timeoutMs = 150_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    // eslint-disable-next-line no-control-regex
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the screen ended: ${shown().replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "").slice(-1500)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const sent = (server: ModelServer): string => server.requests.map((r) => JSON.stringify(r.turns)).join("\n");

/** OMP's TUI on a pseudo-terminal (util-linux `script`), typed into. */
function startTui(env: Record<string, string>, cwd: string, root: string): { tui: ChildProcess; screen: () => string; type: (text: string) => void } {
  const command = `stty cols 160 rows 50; exec ${OMP_BIN} --model ${FAKE_MODEL} --no-title`;
  const tui = spawn("script", ["-qfec", command, "/dev/null"], { env, cwd, stdio: ["pipe", "pipe", "pipe"], detached: true });
  roots.push(root);
  let screen = "";
  tui.stdout?.on("data", (d: Buffer) => {
    screen += d.toString();
  });
  tui.stderr?.on("data", (d: Buffer) => (screen += d.toString()));
  return { tui, screen: () => screen, type: (text) => tui.stdin?.write(text) };
}

async function supersededPrompt(failMode: "open" | "closed"): Promise<{ server: ModelServer; tama: TamaInstall; screen: () => string }> {
  // The TUI's first-run setup wizard would take the keystrokes.
  const { server, env } = await omp.setup({ configYaml: "startup:\n  setupWizard: false\n  checkUpdate: false\n" });
  const fifo = path.join(env.scratch, "nobody-writes.fifo");
  execFileSync("mkfifo", [fifo]);
  const once = path.join(env.scratch, "held-once");
  const tama = installTama(env, { HOLD_FIFO: fifo, ONCE_FILE: once });
  tama.addHooks({ id: "prompt-guard", events: ["user_prompt_submit"], failMode, command: [path.join(FIX, "hold-first-prompt.sh")] });
  const { screen, type } = startTui(env.env, env.cwd, env.root);
  shown = screen;
  // the session started: its record is published
  await until("the TUI session", () => (JSON.parse(tama.cli(["sessions", "list", "--json"]).stdout) as { sessions: unknown[] }).sessions.length === 1);
  // the session record can be published before the TUI first draws: keys typed before
  // it reads the terminal may be lost, so the welcome box is waited for too
  await until("the TUI's first screen", () => screen().includes("Recent sessions"));
  type("NOTOOL the prompt\r");
  // its check runs: the hook read the prompt and holds on the fifo (every process of
  // the session has the fifo in its environment, so only the hook's own mark tells)
  await until("the prompt's check", () => existsSync(once));
  // submitted again while its check still runs: the second check supersedes the first's
  type("NOTOOL the prompt\r");
  await until("the prompt to reach the model", () => sent(server).includes("the prompt"));
  return { server, tama, screen };
}

/** How many times the prompt is in the conversation the model was sent last. */
const copies = (server: ModelServer): number => (server.requests.at(-1)?.turns ?? []).filter((t) => t.role === "user" && t.text.includes("NOTOOL the prompt")).length;

describe("a prompt whose check could not finish, in OMP's TUI", () => {
  it("is refused when a failMode-closed hook owed it a verdict; the prompt submitted after it runs once", async () => {
    const { server, screen } = await supersededPrompt("closed");
    await until("the refusal on screen", () => screen().includes("Tama refused this prompt: its check could not finish"));
    await until("the model's answer", () => server.requests.length >= 1);
    expect(copies(server)).toBe(1);
  }, 400_000);

  it("goes on with a warning when only open hooks owed it one", async () => {
    const { server, screen } = await supersededPrompt("open");
    await until("the warning on screen", () => screen().includes("Tama could not check this prompt"));
    // both submissions reached the model
    await until("both copies of the prompt", () => copies(server) === 2);
  }, 400_000);
});
