// block-sudo (off by default): refuses running commands as another user — sudo, doas,
// su, pkexec, run0, runuser — however they are wrapped. An agent that needs root
// asks the person; off by default because many machines give agents a root shell.
import type { HookInput } from "../protocol/hook-input.ts";
import { programName, readableScripts, walkShell } from "./shell-walk.ts";
import type { BuiltinGate, GateVerdict } from "./types.ts";

const ELEVATORS = new Set(["sudo", "doas", "su", "pkexec", "run0", "runuser", "sg"]);

export const blockSudo: BuiltinGate = {
  id: "block-sudo",
  description: "Refuses sudo, doas, su, pkexec and the like (off by default).",
  events: ["pre_tool_use"],
  tools: "shell",
  onByDefault: false,
  evaluate(input: HookInput): GateVerdict {
    const call = readableScripts(input);
    if (call === undefined) return { decision: "pass" };
    for (const script of call.scripts) {
      // Wrappers are seen through by the walker, so look at each command as written too.
      const scope = { env: new Map(Object.entries(call.env ?? {})), cwd: input.cwd };
      const reason = walkShell(script, scope, (run) => {
        // The wrappers as written: the words before the command they end up running.
        const wrappers = run.command.argv.slice(0, run.command.argv.length - run.argv.length + (run.argv.length > 0 ? 1 : 0));
        const written = wrappers.map(programName).find((word) => ELEVATORS.has(word));
        return written === undefined ? undefined : `${written} runs the command as another user; ask the person to run it, or do it without ${written}`;
      });
      if (reason !== undefined) return { decision: "block", reason: call.prefix + reason };
    }
    return { decision: "pass" };
  },
};
