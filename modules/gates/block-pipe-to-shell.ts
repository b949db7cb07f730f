// block-pipe-to-shell: refuses running what a download returns without reading it —
// `curl … | sh`, `wget -O- … | sudo bash`, `bash <(curl …)`, `sh -c "$(curl …)"`,
// `python3 <(wget -qO- …)`. Download to a file, read it, then run it.
import type { HookInput } from "../protocol/hook-input.ts";
import { parseShell } from "./shell-words.ts";
import { basename, walkCall, type RunCommand } from "./shell-walk.ts";
import type { BuiltinGate, GateVerdict } from "./types.ts";

const DOWNLOADERS = new Set(["curl", "wget", "fetch", "http", "https", "aria2c", "lwp-request", "GET"]);
const RUNNERS = new Set(["sh", "bash", "zsh", "dash", "ksh", "ash", "fish", "python", "python3", "perl", "ruby", "node", "bun", "deno", "php", "pwsh", "source", "."]);
const INSTEAD = "download it to a file, read it, then run that file";

const downloads = (script: string): boolean => parseShell(script).some((c) => c.argv[0] !== undefined && DOWNLOADERS.has(basename(c.argv[0])));

export const blockPipeToShell: BuiltinGate = {
  id: "block-pipe-to-shell",
  description: "Refuses running a download unread: curl … | sh, bash <(curl …), sh -c \"$(curl …)\".",
  events: ["pre_tool_use"],
  tools: "shell",
  onByDefault: true,
  evaluate(input: HookInput): GateVerdict {
    // Commands come in source order, so the one before a piped command is what feeds it.
    let previous: RunCommand | undefined;
    const reason = walkCall(input, (run) => {
      const found = check(run, previous);
      previous = run;
      return found;
    });
    return reason === undefined ? { decision: "pass" } : { decision: "block", reason };
  },
};

function check(run: RunCommand, previous: RunCommand | undefined): string | undefined {
  const runner = run.program !== undefined && (RUNNERS.has(run.program) || /^python3(\.\d+)?$/.test(run.program)) ? run.program : undefined;
  if (runner === undefined) return undefined;
  // `curl … | bash`: a runner reading its script from a download on stdin.
  const readsStdin = !run.argv.slice(1).some((w) => !w.startsWith("-"));
  if (run.command.piped && readsStdin && previous?.program !== undefined && DOWNLOADERS.has(previous.program)) {
    return `piping ${previous.program} into ${runner} runs whatever the download holds; ${INSTEAD}`;
  }
  for (const word of run.argv) {
    if ((word.startsWith("<(") || word.startsWith("$(") || word.startsWith("`")) && downloads(word.replace(/^[<$]\(|\)$|`/g, ""))) {
      return `${runner} would run a download it never saved (${word.slice(0, 60)}); ${INSTEAD}`;
    }
  }
  return undefined;
}
