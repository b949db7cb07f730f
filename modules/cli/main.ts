// The `tama` command: one table of subcommands, each in a file of its own. Help,
// the version, usage errors (exit 2, one line and a pointer to --help) and --json
// failures ({"ok":false,"exitCode","error"} on stdout) are handled here, the same
// for every command.
import { contractsCommand } from "./contracts.ts";
import { CliError, printJson } from "./io.ts";
import { hookCommand, hooksCommand } from "./hooks/command.ts";
import { doctorCommand } from "./doctor/command.ts";
import { insideSessionRefusal, INSIDE_SESSION_EXIT_CODE } from "./guard.ts";
import { COMMAND_HELP, helpKey, helpText, overview, wantsHelp } from "./help.ts";
import { installCommand, uninstallCommand } from "./install.ts";
import { runHookCommand } from "./run-hook.ts";
import { sessionsCommand } from "./sessions.ts";
import { uiCommand } from "./ui.ts";
import { trustCommandCli } from "./trust.ts";

type Command = (argv: string[]) => Promise<number> | number;

declare const __TAMA_VERSION__: string | undefined;
/** The package version, written in by the build; a run from source has none. */
export const VERSION = typeof __TAMA_VERSION__ === "string" ? __TAMA_VERSION__ : "0.0.0-source";

const COMMANDS: Record<string, Command> = {
  "run-hook": runHookCommand,
  hook: hookCommand,
  hooks: hooksCommand,
  contracts: contractsCommand,
  doctor: doctorCommand,
  install: installCommand,
  uninstall: uninstallCommand,
  trust: trustCommandCli,
  sessions: sessionsCommand,
  ui: uiCommand,
};

/** parseArgs' messages, in one line, without its advice on positionals. */
function parseArgsMessage(error: NodeJS.ErrnoException): string {
  const option = /'(-[^' ]+)/.exec(error.message)?.[1];
  switch (error.code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return `unknown option ${option ?? error.message}`;
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      if (/argument missing|ambiguous/.test(error.message)) {
        return `${option ?? "an option"} needs a value${/ambiguous/.test(error.message) ? ` (a value starting with '-' is written ${option}=-…)` : ""}`;
      }
      return `${option ?? "an option"} takes no value`;
    case "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL":
      return `unexpected argument ${/'([^']*)'/.exec(error.message)?.[1] ?? ""}`.trim();
    default:
      return error.message.split("\n")[0] ?? error.message;
  }
}

function isParseArgsError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof TypeError && typeof (error as NodeJS.ErrnoException).code === "string" && (error as NodeJS.ErrnoException).code!.startsWith("ERR_PARSE_ARGS");
}

/** Whether --json was asked for (before any `--`). */
function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf("--");
  return (end < 0 ? argv : argv.slice(0, end)).includes("--json");
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === "--version" || name === "-V" || name === "version") {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (name === "--help" || name === "-h") {
    process.stdout.write(`${overview(VERSION)}\n`);
    return 0;
  }
  if (name === "help") {
    if (rest.length === 0) {
      process.stdout.write(`${overview(VERSION)}\n`);
      return 0;
    }
    const [command = "", ...sub] = rest;
    if (command === "--help" || command === "-h") {
      process.stdout.write(`${helpText("help")}\n`);
      return 0;
    }
    if (!COMMAND_HELP[command]) return usageError("help", `unknown command ${JSON.stringify(command)}`, false);
    process.stdout.write(`${helpText(helpKey(command, sub))}\n`);
    return 0;
  }
  if (!name) {
    process.stderr.write(`${overview(VERSION)}\n`);
    return 2;
  }
  const command = COMMANDS[name];
  if (!command) return usageError(undefined, `unknown command ${JSON.stringify(name)}`, wantsJson(rest));
  if (wantsHelp(rest)) {
    process.stdout.write(`${helpText(helpKey(name, rest))}\n`);
    return 0;
  }
  const refused = insideSessionRefusal(argv);
  if (refused !== undefined) {
    process.stderr.write(`${refused}\n`);
    return INSIDE_SESSION_EXIT_CODE;
  }
  const json = wantsJson(rest);
  const key = helpKey(name, rest);
  try {
    return await command(rest);
  } catch (error) {
    if (error instanceof CliError) {
      if (error.exitCode === 2) return usageError(key, error.message, json);
      if (json) printJson({ ok: false, exitCode: error.exitCode, error: error.message });
      process.stderr.write(`tama ${name}: ${error.message}\n`);
      return error.exitCode;
    }
    if (isParseArgsError(error)) return usageError(key, parseArgsMessage(error), json);
    if (json) printJson({ ok: false, exitCode: 1, error: error instanceof Error ? error.message : String(error) });
    throw error;
  }
}

/** A usage error: the cause in one line, where to read more, exit 2. */
function usageError(key: string | undefined, cause: string, json: boolean): number {
  const line = cause.split("\n")[0] ?? cause;
  if (json) printJson({ ok: false, exitCode: 2, error: line });
  process.stderr.write(`tama${key ? ` ${key}` : ""}: ${line}\nRun \`tama ${key ? `${key} ` : ""}--help\` for usage.\n`);
  return 2;
}
