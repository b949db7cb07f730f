// What OMP's bash keeps from one call to the next. OMP runs a session's bash calls in
// one shell process, so the functions, aliases and variables a call defines are there
// for every later call, while each call's cwd and `env` field are set afresh. Read one
// call at a time, `f() { cat "$@"; }` then `f .env`, or `X=.env` then `cat $X`, would
// pass. The adapter keeps, per session, what the calls it let run left in the shell
// (computed here) and hands it with each bash call (payload `shell_kept`); the walker
// reads the call with it in place (shell-walk.ts walkedCall).
//
// It is read as written, not run. A function or alias keeps every body a call gave it
// (one in quotes, a subshell or a branch not taken too), and nothing is taken back by
// `unset -f` or `unalias`: which definition the shell holds depends on what ran, and
// each is read where the name is used, which can only make a later call read stricter.
// A variable keeps the last value written for it; one set where Tama does not read the
// value (`read`, `printf -v`) is not kept, and a later use of it reads as built at run time.
import os from "node:os";
import path from "node:path";
import { SHELL_KEPT_MAX, shellKeptSize, type ShellKept } from "../protocol/engine.ts";
import { readScriptFile } from "./script-files.ts";
import { bothBodies, DEFAULT_ASSIGNED, expandVars, functionsOf, isDynamic, KEPT_POSITIONAL, positionalWords, setByBuiltin, withoutDefinitions } from "./shell-walk.ts";
import { shellLine } from "../tools/code-reading.ts";
import { programName, parseShell } from "./shell-words.ts";

export const NOTHING_KEPT: ShellKept = Object.freeze({ functions: {}, aliases: {}, vars: {} });

/** Builtins whose `NAME=value` words set shell variables. */
const DECLARERS = new Set(["export", "declare", "typeset", "local", "readonly"]);
/** Text without any of these defines nothing the shell keeps. */
const MAY_DEFINE = /[=(]|\b(?:alias|source|eval|trap|read|printf|mapfile|readarray|function|declare|typeset|export|local|readonly|shift|hash|shopt)\b|\bset[ \t]+--|(?:^|[\s;&|({])\.\s/;
/** Text that sources a file: read again once the call ran (the file may be one it wrote). */
export const SOURCES = /\bsource\b|(?:^|[\s;&|({])\.\s/;
/** Files sourced within one call, and their own sources, are read this deep. */
const MAX_SOURCE_DEPTH = 4;

export type KeptAfter = { ok: true; kept: ShellKept } | { ok: false; error: string };

/**
 * What the shell holds after `command` ran with `kept` before it: its functions, aliases
 * and variables added, those it unsets removed. `at`: the call's directory (a sourced
 * file is read from it) and its own `env` field (seen by the line, not kept).
 */
export function keptAfter(kept: ShellKept, command: string, at: { cwd: string; env?: Readonly<Record<string, string>> }): KeptAfter {
  // Most calls define nothing: no assignment, definition, alias, source, eval, trap or builtin that sets a variable.
  if (!MAY_DEFINE.test(command)) return { ok: true, kept };
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

/** A name defined again keeps every body (see bothBodies): nothing is taken back, for the same reason. */
function union(known: Record<string, string>, name: string, text: string): void {
  known[name] = bothBodies(known[name], text);
}

/**
 * A variable set again keeps its values (one per line, the newest last; eight at most):
 * the walker reads each, as a loop's (`X=.env` then `(X=ok)` must not hide `.env`). A
 * value of several lines is read as one value per line, which only reads more.
 */
function keepValue(vars: Record<string, string>, name: string, text: string): void {
  const values = [...(vars[name]?.split("\n") ?? []), ...text.split("\n")];
  vars[name] = values.filter((v, i) => values.lastIndexOf(v) === i).slice(-8).join("\n");
}

function read(next: ShellKept, script: string, given: { cwd: string; env?: Readonly<Record<string, string>> }, depth: number): void {
  let at = given;
  for (const [name, body] of functionsOf(script)) union(next.functions, name, body);
  const home = process.env.HOME || os.homedir();
  for (const command of parseShell(script)) {
    // Values are kept as the line would expand them from what it and earlier calls set, `~`, $HOME and $PWD included.
    const known = (): Map<string, string> => new Map([["HOME", home], ["PWD", at.cwd], ...Object.entries(next.vars), ...Object.entries(at.env ?? {})]);
    const value = (text: string): string => expandVars(text.replace(/(^|:)~(?=\/|:|$)/g, `$1${home}`), known());
    const program = command.argv[0];
    // `: ${X:=value}`: a default assigned where X is not set.
    for (const word of [...command.argv, ...command.assignments.map((assignment) => assignment.value)]) {
      for (const [, name, given] of word.matchAll(DEFAULT_ASSIGNED)) {
        if (next.vars[name as string] === undefined) keepValue(next.vars, name as string, value(given as string));
      }
    }
    if (program === undefined || DECLARERS.has(program)) {
      for (const assignment of command.assignments) keepValue(next.vars, assignment.name, value(assignment.value));
      for (const word of command.argv.slice(1)) {
        const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(word);
        if (match) keepValue(next.vars, match[1] as string, value(match[2] as string));
      }
      continue;
    }
    // `shopt -s dotglob` stays for later calls, whose `*` then matches dotfiles: kept as a GLOBIGNORE would be (protect-secret-files reads either).
    if (program === "shopt" && command.argv.includes("-s") && command.argv.includes("dotglob")) {
      keepValue(next.vars, "GLOBIGNORE", next.vars.GLOBIGNORE?.split("\n").at(-1) ?? "");
      continue;
    }
    // `read X <<< .env`, `printf -v X %s .env`: values set as the walker reads them on the line.
    if (program === "read" || program === "printf" || program === "mapfile" || program === "readarray") {
      const vars = new Map(Object.entries(next.vars));
      setByBuiltin(command.argv, command, vars);
      next.vars = Object.fromEntries(vars);
      continue;
    }
    const args = command.argv.slice(1);
    const operands = args.filter((word) => !word.startsWith("-"));
    // `hash -p /usr/bin/git h`: kept as an alias to that file is.
    if (program === "hash" && args.includes("-p") && operands.length >= 2) for (const name of operands.slice(1)) union(next.aliases, name, operands[0] as string);
    if (program === "alias") {
      for (const word of args) {
        const match = /^([^=\s]+)=(.*)$/s.exec(word);
        if (match) union(next.aliases, match[1] as string, match[2] as string);
      }
    } else if (program === "eval" && depth < MAX_SOURCE_DEPTH) {
      // Its words as text: `eval 'f() { "$@"; }'` defines f; a value built at run time defines nothing Tama can read.
      read(next, args.join(" "), at, depth + 1);
    } else if (program === "cd" && operands.length <= 1) {
      // `cd d && . ./a.sh`: a file sourced after a cd is read from there.
      const to = operands[0] === undefined ? home : value(operands[0]);
      if (!isDynamic(to)) at = { ...at, cwd: path.resolve(at.cwd, to) };
    } else if ((program === "source" || program === ".") && depth < MAX_SOURCE_DEPTH && operands[0] !== undefined && !isDynamic(operands[0])) {
      const file = readScriptFile(path.resolve(at.cwd, value(operands[0])));
      if ("text" in file) read(next, file.text, at, depth + 1);
    } else if (programName(program) === "trap" && depth < MAX_SOURCE_DEPTH) {
      // A trap's action runs in this shell later: what it defines is kept with it.
      if (operands[0] !== undefined && operands.length > 1) read(next, operands[0], at, depth + 1);
    }
  }
  keepPositional(next, script, at.cwd);
}

/**
 * `set -- a b`, `shift`: the shell's positional parameters, which a later call's `"$@"`
 * is. Read outside function bodies (a function's `shift` moves its own).
 */
function keepPositional(next: ShellKept, script: string, cwd: string): void {
  if (!/\bshift\b|\bset[ \t]+--/.test(script)) return;
  const home = process.env.HOME || os.homedir();
  for (const command of parseShell(withoutDefinitions(script))) {
    const [program, ...args] = command.argv;
    if (!((program === "set" && args[0] === "--") || program === "shift")) continue;
    const before = next.vars[KEPT_POSITIONAL];
    const given = before === undefined ? [] : positionalWords(before);
    const known = new Map([["HOME", home], ["PWD", cwd], ...Object.entries(next.vars)]);
    const words = program === "set" ? args.slice(1).map((word) => expandVars(word, known)) : given.slice(Number(args[0] ?? 1) || 1);
    next.vars[KEPT_POSITIONAL] = shellLine(words);
  }
}
