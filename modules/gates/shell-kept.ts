// What OMP's bash keeps from one call to the next. OMP runs a session's bash calls in
// one shell process, so the functions, aliases and variables a call defines are there
// for every later call, while each call's cwd and `env` field are set afresh. Read one
// call at a time, `f() { cat "$@"; }` then `f .env`, or `X=.env` then `cat $X`, would
// pass. The adapter keeps, per session, what the calls it let run left in the shell
// (computed here) and hands it with each bash call (payload `shell_kept`); the walker
// reads the call with it in place (shell-walk.ts walkedCall).
//
// It is read as written, not run: a definition inside a subshell, a `bash -c` or a
// branch not taken is kept too, which can only make a later call read stricter.
import os from "node:os";
import path from "node:path";
import { SHELL_KEPT_MAX, shellKeptSize, type ShellKept } from "../protocol/engine.ts";
import { readScriptFile } from "./script-files.ts";
import { expandVars, functionsOf, isDynamic } from "./shell-walk.ts";
import { basename, parseShell } from "./shell-words.ts";

export const NOTHING_KEPT: ShellKept = Object.freeze({ functions: {}, aliases: {}, vars: {} });

/** Builtins whose `NAME=value` words set shell variables. */
const DECLARERS = new Set(["export", "declare", "typeset", "local", "readonly"]);
/** Files sourced within one call, and their own sources, are read this deep. */
const MAX_SOURCE_DEPTH = 4;

export type KeptAfter = { ok: true; kept: ShellKept } | { ok: false; error: string };

/**
 * What the shell holds after `command` ran with `kept` before it: its functions, aliases
 * and variables added, those it unsets removed. `at`: the call's directory (a sourced
 * file is read from it) and its own `env` field (seen by the line, not kept).
 */
export function keptAfter(kept: ShellKept, command: string, at: { cwd: string; env?: Readonly<Record<string, string>> }): KeptAfter {
  const next: ShellKept = { functions: { ...kept.functions }, aliases: { ...kept.aliases }, vars: { ...kept.vars } };
  read(next, command, at, 0);
  const size = shellKeptSize(next);
  if (size.names > SHELL_KEPT_MAX.names || size.chars > SHELL_KEPT_MAX.chars) {
    return {
      ok: false,
      error: `after this call OMP's shell would hold ${size.names} functions, aliases and variables (${size.chars} characters), past the ${SHELL_KEPT_MAX.names} (${SHELL_KEPT_MAX.chars}) Tama reads later calls with; unset some first, or start a new session`,
    };
  }
  return { ok: true, kept: next };
}

function read(next: ShellKept, script: string, at: { cwd: string; env?: Readonly<Record<string, string>> }, depth: number): void {
  for (const [name, body] of functionsOf(script)) next.functions[name] = body;
  for (const command of parseShell(script)) {
    // Values are kept as the line would expand them from what it and earlier calls set.
    const known = (): Map<string, string> => new Map([...Object.entries(next.vars), ...Object.entries(at.env ?? {})]);
    const program = command.argv[0];
    if (program === undefined || DECLARERS.has(program)) {
      for (const { name, value } of command.assignments) next.vars[name] = expandVars(value, known());
      for (const word of command.argv.slice(1)) {
        const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(word);
        if (match) next.vars[match[1] as string] = expandVars(match[2] as string, known());
      }
      continue;
    }
    const args = command.argv.slice(1);
    const operands = args.filter((word) => !word.startsWith("-"));
    if (program === "alias") {
      for (const word of args) {
        const match = /^([^=\s]+)=(.*)$/s.exec(word);
        if (match) next.aliases[match[1] as string] = match[2] as string;
      }
    } else if (program === "unalias") {
      if (args.includes("-a")) next.aliases = {};
      for (const name of operands) delete next.aliases[name];
    } else if (program === "unset") {
      // Plain `unset NAME` removes the variable, or the function when no variable has the name.
      const functionsOnly = args.includes("-f");
      const varsOnly = args.includes("-v");
      for (const name of operands) {
        if (!functionsOnly && (varsOnly || name in next.vars)) delete next.vars[name];
        else if (!varsOnly) delete next.functions[name];
      }
    } else if (program === "eval" && depth < MAX_SOURCE_DEPTH && args.every((word) => !isDynamic(word))) {
      read(next, args.join(" "), at, depth + 1);
    } else if ((program === "source" || program === ".") && depth < MAX_SOURCE_DEPTH && operands[0] !== undefined && !isDynamic(operands[0])) {
      const home = process.env.HOME || os.homedir();
      const file = readScriptFile(path.resolve(at.cwd, expandVars(operands[0], new Map([["HOME", home], ...known()])).replace(/^~(?=\/|$)/, home)));
      if ("text" in file) read(next, file.text, at, depth + 1);
    } else if (basename(program) === "trap") {
      // A trap's action runs in this shell later: what it defines is kept with it.
      const action = operands[0];
      if (action !== undefined && operands.length > 1 && !isDynamic(action) && depth < MAX_SOURCE_DEPTH) read(next, action, at, depth + 1);
    }
  }
}
