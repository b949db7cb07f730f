// block-pipe-to-shell: refuses running what a download returns without reading it —
// `curl … | sh`, `wget -O- … | sudo bash`, `bash <(curl …)`, `sh -c "$(curl …)"`,
// `python3 <(wget -qO- …)`. Download to a file, read it, then run it.
import type { HookInput } from "../protocol/hook-input.ts";
import { parseShell } from "./shell-words.ts";
import { basename, walkCall, type RunCommand } from "./shell-walk.ts";
import type { BuiltinGate, GateVerdict } from "./types.ts";
import { STDIN_FILES } from "./stdin-files.ts";

const DOWNLOADERS = new Set(["curl", "wget", "fetch", "http", "https", "aria2c", "lwp-request", "GET"]);
const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "fish"]);
const RUNNERS = new Set([...SHELLS, "python", "python3", "perl", "ruby", "node", "bun", "deno", "php", "pwsh", "source", ".", "eval", "parallel"]);
const INSTEAD = "download it to a file, read it, then run that file";

const downloads = (script: string): boolean => parseShell(script).some((c) => c.argv[0] !== undefined && DOWNLOADERS.has(basename(c.argv[0])));

export const blockPipeToShell: BuiltinGate = {
  id: "block-pipe-to-shell",
  description: "Refuses running a download unread: curl … | sh, bash <(curl …), sh -c \"$(curl …)\".",
  events: ["pre_tool_use"],
  memoryless: true,
  tools: "shell",
  onByDefault: true,
  evaluate(input: HookInput): GateVerdict {
    // Commands come in source order; a piped command reads what the pipeline before it wrote,
    // so a download anywhere upstream (`curl … | tee log | sh`) feeds it.
    let upstream: string | undefined;
    const reason = walkCall(input, (run) => {
      const feeding = run.command.piped ? upstream : undefined;
      const found = check(run, feeding);
      upstream = run.program !== undefined && DOWNLOADERS.has(run.program) ? run.program : feeding;
      return found;
    });
    return reason === undefined ? { decision: "pass" } : { decision: "block", reason };
  },
};

/** Operands that make a runner read its script from stdin anyway. */

function readsStdin(run: RunCommand): boolean {
  const args = run.argv.slice(1);
  // `bash -s ARGS`: -s reads the script from stdin and passes ARGS to it.
  if (SHELLS.has(run.program ?? "") && args.some((w) => /^-[A-Za-z]*s[A-Za-z]*$/.test(w))) return true;
  const first = args.find((w) => !w.startsWith("-") || STDIN_FILES.has(w));
  return first === undefined || STDIN_FILES.has(first) || /\$\(\s*cat\s*\)/.test(first);
}

function check(run: RunCommand, feeding: string | undefined): string | undefined {
  const known = run.program !== undefined && (RUNNERS.has(run.program) || /^python3(\.\d+)?$/.test(run.program));
  // A runner named at run time (`| $SHELL`) may be any shell.
  const runner = known || run.dynamic ? (run.program ?? "a program") : undefined;
  if (runner === undefined) return undefined;
  // `curl … | bash`: a runner reading its script from a download on stdin.
  if (feeding !== undefined && readsStdin(run)) {
    return `piping ${feeding} into ${runner} runs whatever the download holds; ${INSTEAD}`;
  }
  // The script it runs — its first operand, its `-c`/`-e` code, all of eval's words, a here-string — being a download.
  const args = run.argv.slice(1);
  const code = args.findIndex((w) => /^-[A-Za-z]*[ceEr]$/.test(w));
  const scripts = run.program === "eval" ? args : [args.find((w) => !w.startsWith("-")), code === -1 ? undefined : args[code + 1]].filter((w): w is string => w !== undefined);
  for (const text of [...scripts, ...run.command.stdin]) {
    const fromDownload = [...text.matchAll(/<\(|\$\(|`/g)].some((m) => downloads(text.slice((m.index ?? 0) + m[0].length).replace(/\)[^)]*$|`[^`]*$/, "")));
    if (fromDownload) {
      return `${runner} would run a download it never saved (${text.slice(0, 60)}); ${INSTEAD}`;
    }
  }
  return undefined;
}
