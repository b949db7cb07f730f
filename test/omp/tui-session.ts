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
  /** Wait until the screen matches; returns it. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  close(): void;
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
      try {
        tmux(["kill-server"]);
      } catch {
        // already gone
      }
    },
  };
}
