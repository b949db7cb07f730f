// OMP's interactive TUI, as a person sees it: OMP in a detached tmux session of its
// own (one tmux server per test, on its own socket), keys typed with send-keys and the
// screen read with capture-pane. Orderings, not sleeps: every read waits until the
// screen shows what the test expects, within a generous bound.
import { execFileSync } from "node:child_process";
import path from "node:path";
import type { OmpEnv } from "./omp-env.ts";
import { OMP_BIN, ompArgs } from "./omp-process.ts";

/** Settings that keep first-run screens (setup wizard, splash, update check) out of the way. */
export const TUI_CONFIG_YAML = "startup:\n  setupWizard: false\n  checkUpdate: false\n  showSplash: false\n  quiet: true\n";

export interface TuiSession {
  /** The visible screen, as text. */
  screen(): string;
  /** Type text and press Enter. */
  submit(text: string): void;
  /** Press keys by tmux's names (Down, Enter, Escape). */
  press(...keys: string[]): void;
  /** Wait until the screen matches; returns it. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  close(): void;
}

const PAUSE = new Int32Array(new SharedArrayBuffer(4));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function startTui(env: OmpEnv): TuiSession {
  const socket = path.join(env.scratch, "tmux.sock");
  const tmux = (args: string[]): string => execFileSync("tmux", ["-S", socket, ...args], { encoding: "utf8" });
  const tuiEnv = { ...env.env, TERM: "xterm-256color" };
  const envArgs = Object.entries(tuiEnv).flatMap(([key, value]) => ["-e", `${key}=${value}`]);
  tmux(["new-session", "-d", "-s", "omp", "-x", "180", "-y", "50", "-c", env.cwd, ...envArgs, OMP_BIN, ...ompArgs([], { env: tuiEnv, cwd: env.cwd })]);
  const screen = (): string => tmux(["capture-pane", "-p", "-t", "omp"]);
  return {
    screen,
    submit(text) {
      tmux(["send-keys", "-t", "omp", "-l", text]);
      tmux(["send-keys", "-t", "omp", "Enter"]);
    },
    press(...keys) {
      for (const key of keys) tmux(["send-keys", "-t", "omp", key]);
    },
    async waitFor(pattern, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const text = screen();
        if (pattern.test(text)) return text;
        if (Date.now() > deadline) throw new Error(`the TUI never showed ${pattern}; it shows:\n${text}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    close() {
      let pid: number | undefined;
      try {
        pid = Number(tmux(["display-message", "-p", "-t", "omp", "#{pane_pid}"]).trim());
        tmux(["kill-server"]);
      } catch {
        // already gone
      }
      // OMP (and the engine it started) still write their files for a moment: the
      // scratch dir is removed after they are gone.
      const deadline = Date.now() + 10_000;
      while (pid !== undefined && pid > 0 && alive(pid) && Date.now() < deadline) Atomics.wait(PAUSE, 0, 0, 50);
    },
  };
}
