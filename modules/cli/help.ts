// Every command's help: usage, what it does, options and an example. `tama help
// <command> [subcommand]`, `tama <command> [subcommand] --help` and `-h` print it;
// usage errors point here. One table, so no command goes without.

export interface Help {
  usage: string[];
  does: string;
  options?: [string, string][];
  examples: string[];
  /** Exit codes beyond 0 (done), 1 (failed) and 2 (usage). */
  exitCodes?: [string, string][];
}

const JSON_OPTION: [string, string] = ["--json", "machine-readable output on stdout; a failure is {\"ok\":false,\"exitCode\":N,\"error\":\"…\"}"];
const REGISTRY_OPTION: [string, string] = ["--registry FILE", "the registry to use (default: TAMA_REGISTRY, else $TAMA_HOME/hooks/registry.json)"];
const TARGET_OPTIONS: [string, string][] = [
  ["--omp", "the harness (required)"],
  ["--agent-dir DIR", "OMP's agent dir (default: PI_CODING_AGENT_DIR, else ~/.omp/agent)"],
  ["--profile NAME", "OMP's profile: ~/.omp/profiles/NAME/agent (default: OMP_PROFILE)"],
];
const SESSION_OPTIONS: [string, string][] = [["--session ID", "the session id, or a unique prefix of it (`tama sessions list`)"], JSON_OPTION];
const SESSION_EXITS: [string, string][] = [
  ["3", "unknown session (or a prefix naming several)"],
  ["4", "stale session: its OMP process is gone (its record was removed)"],
  ["5", "the session's shell cannot reload remotely"],
  ["6", "no answer within --timeout"],
  ["7", "the socket cannot be reached, or the session refused the request"],
  ["8", "$TAMA_HOME or sessions/ can be written by others: nothing in it is read"],
];

export const COMMAND_HELP: Record<string, Help> = {
  install: {
    usage: ["tama install --omp [--agent-dir DIR | --profile NAME] [--json]", "tama install --claude [--claude-dir DIR] [--json]", "tama install --codex [--codex-dir DIR] [--json]"],
    does: "Lay down the release, the adapter, the default registry (when none exists) and the shell OMP loads. Installing again with a new build switches to it and keeps the registry. --claude / --codex: the release and registry, and one hook entry per gated event in Claude Code's settings.json / Codex's hooks.json (Codex runs them once you trust them in its /hooks).",
    options: [...TARGET_OPTIONS, JSON_OPTION],
    examples: ["tama install --omp", "tama install --omp --profile work"],
  },
  uninstall: {
    usage: [
      "tama uninstall --omp [--agent-dir DIR | --profile NAME] [--purge] [--json]",
      "tama uninstall --claude [--claude-dir DIR] [--json]",
      "tama uninstall --codex [--codex-dir DIR] [--json]",
    ],
    does: "Remove what install wrote: releases, current, the adapter and the shell. The registry and logs stay unless --purge. --claude / --codex: exactly the hook entries install wrote there.",
    options: [...TARGET_OPTIONS, ["--purge", "also remove the registry, session records, logs and activity"], JSON_OPTION],
    examples: ["tama uninstall --omp", "tama uninstall --omp --purge"],
  },
  ui: {
    usage: ["tama ui [--port N] [--no-open]"],
    does: "Serve a live, read-only view of sessions, decisions, running hooks and latencies on 127.0.0.1, behind a random token in the URL it prints. It changes nothing; stop it with Ctrl-C.",
    options: [["--port N", "listen on this port (default: a free one)"], ["--no-open", "print the URL only, do not open a browser"]],
    examples: ["tama ui", "tama ui --port 8765 --no-open"],
  },
  doctor: {
    usage: ["tama doctor [--agent-dir DIR | --profile NAME] [--project DIR] [--timeout-ms N] [--json]"],
    does: "Check the install, the engine, the registry, every hook's command as it will run, the environment Tama reads, and live sessions. Each check is ok, warning or error with its fix; exits 1 when any is an error.",
    options: [TARGET_OPTIONS[1]!, TARGET_OPTIONS[2]!, ["--project DIR", "where hooks' relative paths resolve, as in a session there (default: the cwd)"], ["--timeout-ms N", "how long the engine may take to answer (default 10000)"], JSON_OPTION],
    examples: ["tama doctor", "tama doctor --json | jq '.checks[] | select(.status != \"ok\")'"],
    exitCodes: [["1", "at least one check is an error"]],
  },
  hook: {
    usage: ["tama hook <id> < payload.json"],
    does: "Run one built-in gate on a Claude-shaped payload from stdin. A refusal is printed as Claude Code's decision JSON; a pass prints nothing.",
    examples: ["printf '%s' '{\"tool_name\":\"bash\",\"tool_input\":{\"command\":\"git commit --no-verify -m x\"}}' | tama hook block-git-hook-bypass"],
  },
  "run-hook": {
    usage: ["tama run-hook --serve omp [--registry FILE]", "tama run-hook <event> [<agent-id>] [--provider claude|codex] [--registry FILE] < payload.json"],
    does: "The engine: --serve answers the engine protocol (JSON lines) on stdin/stdout; otherwise one event, as Claude Code (default) or Codex calls a hook.",
    options: [
      ["--serve omp", "the persistent engine the OMP adapter starts"],
      ["--provider claude|codex", "the answer's shape (default: TAMA_PROVIDER, else claude)"],
      REGISTRY_OPTION,
    ],
    examples: ["printf '%s' '{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\"}}' | tama run-hook PreToolUse my-agent"],
    exitCodes: [["1", "TAMA_HOOK_INFRASTRUCTURE: no agent id, an unreadable env value, or a registry that cannot load"], ["2", "a block (Claude) or usage"]],
  },
  hooks: {
    usage: ["tama hooks <list|add|remove|enable|disable|import|claude-sources|checksum|running|builtins> [options]"],
    does: "The registry (list, edit, import from Claude Code, checksum), the built-in gates, and hooks still running.",
    examples: ["tama hooks list", "tama hooks add --help"],
  },
  "hooks list": {
    usage: ["tama hooks list [--project DIR] [--registry FILE] [--json]"],
    does: "The registry's hooks, one line each: id, events, tools, what runs, timeout, fail mode, enabled (and whether TAMA_*_HOOKS turn it on or off here); then ~/.claude/settings.json when Claude sources are on, and a project's sources, trusted or held.",
    options: [["--project DIR", "the project whose sources are listed (default: the cwd's, when it has any)"], REGISTRY_OPTION, JSON_OPTION],
    examples: ["tama hooks list", "tama hooks list --project ~/src/app"],
  },
  "hooks claude-sources": {
    usage: ["tama hooks claude-sources [on|off|status] [--json]"],
    does: "Whether Claude Code's settings files are read as live hook sources (the user registry's readClaudeSettings).",
    options: [JSON_OPTION],
    examples: ["tama hooks claude-sources on"],
  },
  "hooks add": {
    usage: [
      "tama hooks add --id ID --event EVENT [--tools shell|write|any|Name,Name]",
      "               (--command '[\"prog\",\"arg\"]' | --builtin ID | -- prog arg…)",
      "               [--timeout-ms N] [--fail-mode open|closed] [--description TEXT] [--disabled] [--prestart] [--registry FILE] [--json]",
    ],
    does: "Append a hook to the registry. Warns when the program cannot be found from here.",
    options: [
      ["--id ID", "unique: 1-128 letters, digits, '.', '_', ':' or '-'"],
      ["--event EVENT", "repeatable: pre_tool_use, post_tool_use, user_prompt_submit, stop, session_start, session_end, before_provider_request (or Claude's PreToolUse, …)"],
      ["--tools MATCH", "for tool events: shell, write, any (default), or tool names"],
      ["--command JSON", "the argv as a JSON array (or put it after --)"],
      ["--builtin ID", "a built-in gate (`tama hooks builtins`); alone it takes the gate's id and events"],
      ["--timeout-ms N", "default 30000"],
      ["--fail-mode open|closed", "what a hook that gives no verdict does (default open)"],
      ["--prestart", "start the hook's process before its event, blocked on stdin (only for scripts that do nothing before reading it)"],
      ["--description TEXT", "shown by list"],
      ["--disabled", "add it turned off"],
      REGISTRY_OPTION,
      JSON_OPTION,
    ],
    examples: ["tama hooks add --id block-rm-rf --event pre_tool_use --tools shell -- /home/me/hooks/block-rm-rf.sh", "tama hooks add --builtin block-open-todos"],
  },
  "hooks remove": {
    usage: ["tama hooks remove ID… [--registry FILE] [--json]"],
    does: "Take hooks out of the registry.",
    options: [REGISTRY_OPTION, JSON_OPTION],
    examples: ["tama hooks remove block-rm-rf"],
  },
  "hooks enable": {
    usage: ["tama hooks enable ID… [--registry FILE] [--json]"],
    does: "Turn hooks on.",
    options: [REGISTRY_OPTION, JSON_OPTION],
    examples: ["tama hooks enable review"],
  },
  "hooks disable": {
    usage: ["tama hooks disable ID… [--registry FILE] [--json]"],
    does: "Turn hooks off (they stay in the registry).",
    options: [REGISTRY_OPTION, JSON_OPTION],
    examples: ["tama hooks disable review"],
  },
  "hooks import": {
    usage: ["tama hooks import --from-claude [settings.json…] [--project DIR] [--fail-mode open|closed] [--dry-run] [--disabled] [--prestart] [--registry FILE] [--json]"],
    does: "Append Claude Code's command hooks to the registry (~/.claude/settings.json and the project's .claude/settings*.json, or the files named). What cannot be translated is listed with the reason. Exits 1 when nothing could be imported.",
    options: [
      ["--from-claude", "the source (required)"],
      ["--project DIR", "the project whose .claude/ is read (default: the cwd)"],
      ["--fail-mode open|closed", "the imported hooks' fail mode (default open, as Claude Code treats a failing hook)"],
      ["--dry-run", "show the result, write nothing"],
      ["--disabled", "import them turned off"],
      ["--prestart", "mark them to be started before their event (see tama hooks add --help)"],
      REGISTRY_OPTION,
      JSON_OPTION,
    ],
    examples: ["tama hooks import --from-claude --dry-run", "tama hooks import --from-claude ~/.claude/settings.json --fail-mode closed"],
    exitCodes: [["1", "no hook could be imported (none found, or none translatable), or a named file cannot be read"]],
  },
  "hooks checksum": {
    usage: ["tama hooks checksum [FILE] [--json]"],
    does: "The catalog checksum a registry may declare (its declared checksum left out).",
    options: [JSON_OPTION],
    examples: ["tama hooks checksum ~/.tama/hooks/registry.json"],
  },
  "hooks running": {
    usage: ["tama hooks running [--json]"],
    does: "Hooks still running (live engines and engines that are gone) and each session's last abandonment.",
    options: [JSON_OPTION],
    examples: ["tama hooks running"],
    exitCodes: [["1", "a record could not be read (it is named)"]],
  },
  "hooks builtins": {
    usage: ["tama hooks builtins [--json]"],
    does: "The built-in gates: id, events, rule.",
    options: [JSON_OPTION],
    examples: ["tama hooks builtins"],
  },
  contracts: {
    usage: ["tama contracts status --omp [--all] [--agent-dir DIR | --profile NAME] [--json]"],
    does: "Contracts (the marked block of APPEND_SYSTEM.md) and the OMP sessions that started before their contracts file was last written.",
    examples: ["tama contracts status --omp"],
  },
  "contracts status": {
    usage: ["tama contracts status --omp [--all] [--agent-dir DIR | --profile NAME] [--json]"],
    does: "The OMP sessions that started before their contracts file was last written: their system prompt holds the old block, and Tama gives their model requests the new one.",
    options: [...TARGET_OPTIONS, ["--all", "every session, not only those"], JSON_OPTION],
    examples: ["tama contracts status --omp --all"],
    exitCodes: [["1", "the agent dir does not exist or cannot be read"]],
  },
  trust: {
    usage: ["tama trust [DIR] [--dry-run] [--json]", "tama trust --revoke [DIR] [--json]", "tama trust --list [--json]"],
    does: "Show what a project's hooks run (its hook sources and the in-repository scripts they name) and trust that exact content; a change holds them again. --revoke runs none of them; --list shows each trusted project and whether it still matches.",
    options: [
      ["--dry-run", "show, record nothing"],
      ["--revoke", "remove the project's trust record"],
      ["--list", "the trusted projects"],
      JSON_OPTION,
    ],
    examples: ["tama trust", "tama trust ~/src/app", "tama trust --list"],
  },
  sessions: {
    usage: ["tama sessions <list|status|reload|grant|revoke> [options]"],
    does: "Live OMP sessions and their session control.",
    examples: ["tama sessions list", "tama sessions reload --help"],
    exitCodes: SESSION_EXITS,
  },
  "sessions list": {
    usage: ["tama sessions list [--json]"],
    does: "Live sessions: id, OMP pid, engine pid, loaded adapter, whether the installed one differs, start, cwd. Records of sessions that are gone are removed.",
    options: [JSON_OPTION],
    examples: ["tama sessions list"],
    exitCodes: [["1", "a record could not be read"], SESSION_EXITS[5]!],
  },
  "sessions status": {
    usage: ["tama sessions status --session ID [--timeout MS] [--json]"],
    does: "The adapter's and the engine's status in that session, the installed adapter, the session's grant.",
    options: [...SESSION_OPTIONS, ["--timeout MS", "default 10000"]],
    examples: ["tama sessions status --session 4f2a"],
    exitCodes: SESSION_EXITS,
  },
  "sessions reload": {
    usage: ["tama sessions reload --session ID [--timeout MS] [--json]"],
    does: "Adopt the installed adapter in that session (as /tama_reload_hook_runtime does) and print the receipt.",
    options: [...SESSION_OPTIONS, ["--timeout MS", "default 30000"]],
    examples: ["tama sessions reload --session 4f2a --json"],
    exitCodes: SESSION_EXITS,
  },
  "sessions grant": {
    usage: ["tama sessions grant --session ID [--timeout MS] [--json]"],
    does: "Let the session's hooks use its session control (TAMA_SESSION_CONTROL and its key), bound to the release and catalog its engine has loaded.",
    options: [...SESSION_OPTIONS, ["--timeout MS", "default 10000"]],
    examples: ["tama sessions grant --session 4f2a"],
    exitCodes: SESSION_EXITS,
  },
  "sessions revoke": {
    usage: ["tama sessions revoke --session ID [--json]"],
    does: "Take the grant back.",
    options: SESSION_OPTIONS,
    examples: ["tama sessions revoke --session 4f2a"],
    exitCodes: SESSION_EXITS,
  },
  help: {
    usage: ["tama help [<command> [<subcommand>]]"],
    does: "This help. `tama <command> --help` and `-h` print the same.",
    examples: ["tama help hooks import"],
  },
};

/** Commands whose first argument is a subcommand. */
export function subcommandsOf(command: string): string[] {
  const prefix = `${command} `;
  return Object.keys(COMMAND_HELP)
    .filter((key) => key.startsWith(prefix))
    .map((key) => key.slice(prefix.length));
}

/** The help key for argv after the command name: `hooks add`, or `hooks` alone. */
export function helpKey(command: string, rest: readonly string[]): string {
  const sub = rest.find((arg) => !arg.startsWith("-"));
  return sub !== undefined && COMMAND_HELP[`${command} ${sub}`] ? `${command} ${sub}` : command;
}

/** Whether argv asks for help: --help or -h before any `--`. */
export function wantsHelp(argv: readonly string[]): boolean {
  for (const arg of argv) {
    if (arg === "--") return false;
    if (arg === "--help" || arg === "-h") return true;
  }
  return false;
}

export function helpText(key: string): string {
  const help = COMMAND_HELP[key];
  if (!help) throw new Error(`no help for ${key}`);
  const lines = [`usage: ${help.usage[0]}`, ...help.usage.slice(1).map((u) => `       ${u}`), "", help.does];
  const subs = subcommandsOf(key);
  if (subs.length > 0) {
    lines.push("", "Commands:");
    for (const sub of subs) lines.push(`  ${sub.padEnd(10)}${COMMAND_HELP[`${key} ${sub}`]!.does.split(". ")[0]!.replace(/\.$/, "")}`);
    lines.push(`Run \`tama ${key} <command> --help\` for each.`);
  }
  const options = help.options ?? [];
  const width = Math.max("-h, --help".length, ...options.map(([flag]) => flag.length));
  lines.push("", "Options:", ...options.map(([flag, what]) => `  ${flag.padEnd(width)}  ${what}`), `  ${"-h, --help".padEnd(width)}  this help`);
  lines.push("", `Example${help.examples.length > 1 ? "s" : ""}:`, ...help.examples.map((e) => `  ${e}`));
  const exits: [string, string][] = [["0", "done"], ["1", "failed (the message says why)"], ["2", "usage: a wrong or missing option or argument"], ...(help.exitCodes ?? [])];
  const merged = new Map(exits);
  lines.push("", "Exit codes:", ...[...merged].map(([code, what]) => `  ${code}  ${what}`));
  return lines.join("\n");
}

/** `tama --help`: every command, one line each. */
export function overview(version: string): string {
  const top = Object.keys(COMMAND_HELP).filter((key) => !key.includes(" "));
  const width = Math.max(...top.map((c) => c.length));
  return [
    `tama ${version}: one set of policy hooks for coding agents (OMP first).`,
    "",
    "usage: tama <command> [options]",
    "",
    "Commands:",
    ...top.map((c) => `  ${c.padEnd(width)}  ${COMMAND_HELP[c]!.does.split(". ")[0]!.replace(/\.$/, "")}`),
    "",
    "Options:",
    "  -h, --help     help (also after any command: tama hooks add --help)",
    "  -V, --version  the version",
    "",
    "Examples:",
    "  tama install --omp",
    "  tama doctor",
    "  tama help hooks add",
  ].join("\n");
}
