// The `tama` command: one table of subcommands, each in a file of its own.
import { contractsCommand } from "./contracts.ts";
import { CliError } from "./io.ts";
import { hookCommand, hooksCommand } from "./hooks/command.ts";
import { doctorCommand } from "./doctor/command.ts";
import { insideSessionRefusal, INSIDE_SESSION_EXIT_CODE } from "./guard.ts";
import { installCommand, uninstallCommand } from "./install.ts";
import { runHookCommand } from "./run-hook.ts";
import { sessionsCommand } from "./sessions.ts";
import { uiCommand } from "./ui.ts";

type Command = (argv: string[]) => Promise<number> | number;

const COMMANDS: Record<string, { run: Command; help: string }> = {
  "run-hook": { run: runHookCommand, help: "run-hook --serve omp | run-hook <event> <agent-id>   the engine" },
  hook: { run: hookCommand, help: "hook <id> < payload.json                   run one built-in gate" },
  hooks: { run: hooksCommand, help: "hooks list|add|remove|enable|disable|import|checksum|running|builtins  the registry and running hooks" },
  contracts: { run: contractsCommand, help: "contracts status --omp [--all]            sessions started before their contracts changed" },
  doctor: { run: doctorCommand, help: "doctor [--json]                           check the install, engine, registry, hooks, sessions" },
  install: { run: installCommand, help: "install --omp [--agent-dir DIR|--profile P] lay down release, adapter, registry, shell" },
  uninstall: { run: uninstallCommand, help: "uninstall --omp [--purge]                 remove what install wrote" },
  sessions: { run: sessionsCommand, help: "sessions list|status|reload|grant|revoke   live OMP sessions and their session control" },
  ui: { run: uiCommand, help: "ui [--port N] [--no-open]                 a live, read-only view on 127.0.0.1 (token in the URL)" },
};

function usage(): string {
  return ["usage: tama <command> [options]", "", ...Object.values(COMMANDS).map((c) => `  tama ${c.help}`)].join("\n");
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h" || name === "help") {
    process.stdout.write(`${usage()}\n`);
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`tama: unknown command ${JSON.stringify(name)}\n${usage()}\n`);
    return 2;
  }
  const refused = insideSessionRefusal(argv);
  if (refused !== undefined) {
    process.stderr.write(`${refused}\n`);
    return INSIDE_SESSION_EXIT_CODE;
  }
  try {
    return await command.run(rest);
  } catch (error) {
    if (error instanceof CliError) {
      process.stderr.write(`tama ${name}: ${error.message}\n`);
      return error.exitCode;
    }
    if (error instanceof TypeError && (error as NodeJS.ErrnoException).code?.startsWith("ERR_PARSE_ARGS")) {
      process.stderr.write(`tama ${name}: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}
