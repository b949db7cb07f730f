// The commands git runs beyond its own: command-valued settings (core.pager,
// core.editor, a diff driver's textconv, remote.*.uploadpack, …) however they are given
// (-c, --config-env, GIT_CONFIG_COUNT/KEY_n/VALUE_n, include.path from stdin, `git
// config`), the variables it runs (GIT_PAGER, GIT_EDITOR, …), an `ext::` URL, and the
// subcommands that run a command (`submodule foreach`, `bisect run`, `difftool -x`, …).
// The shell walker reads each as the command line git hands a shell.
import { shellLine } from "../tools/code-reading.ts";
import { envConfigEntries, normalizeKey, parseGitConfig } from "./git-config.ts";
import { STDIN_FILES } from "./stdin-files.ts";

/** git's own options that take the next word as their value, before its command (`git -C dir -c k=v commit`). */
const GIT_GLOBAL_VALUED: ReadonlySet<string> = new Set(["-C", "-c", "--config-env", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--attr-source"]);

/** Where git's command starts in its arguments, past git's own options and their values. */
export function gitCommandAt(args: readonly string[]): number {
  let at = 0;
  while (at < args.length && (args[at] as string).startsWith("-")) at += GIT_GLOBAL_VALUED.has(args[at] as string) ? 2 : 1;
  return at;
}


/** The last part of a setting whose value git runs as a command (core.pager, diff.<driver>.textconv, remote.<name>.uploadpack, …). */
const COMMAND_KEY_ENDS = new Set(["pager", "editor", "sshcommand", "fsmonitor", "askpass", "helper", "external", "command", "textconv", "clean", "smudge", "process", "driver", "program", "cmd", "difffilter", "gitproxy", "packobjectshook", "uploadpack", "receivepack", "proxy"]);

/** Sections whose every setting names a command (pager.log, pager.diff …). */
const COMMAND_SECTIONS = new Set(["pager"]);

/** Environment variables git runs as commands. */
const COMMAND_VARIABLES = ["GIT_PAGER", "PAGER", "GIT_EDITOR", "EDITOR", "VISUAL", "GIT_SEQUENCE_EDITOR", "GIT_SSH_COMMAND", "GIT_SSH", "GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "SSH_ASKPASS", "GIT_PROXY_COMMAND"];

/**
 * The environment the commands git runs (its pager, its editor) are read under: without
 * the variables that named them, as each would otherwise name itself again when read.
 */
export function runnerEnv(program: string | undefined, env: Map<string, string>): Map<string, string> {
  const named = (name: string): boolean => COMMAND_VARIABLES.includes(name) || /^GIT_CONFIG_(COUNT|KEY_\d+|VALUE_\d+|PARAMETERS)$/.test(name);
  if (program?.toLowerCase() !== "git" || ![...env.keys()].some(named)) return env;
  return new Map([...env].filter(([name]) => !named(name)));
}

function isCommandKey(key: string): boolean {
  const normalized = normalizeKey(key.trim());
  const section = normalized.slice(0, normalized.indexOf("."));
  const last = normalized.slice(normalized.lastIndexOf(".") + 1);
  return COMMAND_SECTIONS.has(section) || COMMAND_KEY_ENDS.has(last);
}

/** A setting's value as the command git runs: credential helpers and aliases mark a shell line with `!`. */
const commandValue = (value: string): string => (value.startsWith("!") ? value.slice(1) : value);

/** Options whose value is a command, by subcommand (fetch's --upload-pack, difftool's -x, filter-branch's filters, …). */
const SUBCOMMAND_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  difftool: ["-x", "--extcmd"],
  "filter-branch": ["--env-filter", "--tree-filter", "--index-filter", "--parent-filter", "--msg-filter", "--commit-filter", "--tag-name-filter"],
  fetch: ["--upload-pack"],
  pull: ["--upload-pack"],
  clone: ["-u", "--upload-pack"],
  "ls-remote": ["--upload-pack"],
  push: ["--receive-pack", "--exec"],
  archive: ["--exec"],
  "send-email": ["--to-cmd", "--cc-cmd", "--header-cmd", "--sendmail-cmd", "--smtp-server"],
  rebase: ["-x", "--exec"],
};

export function gitScripts(args: readonly string[], env: ReadonlyMap<string, string>, stdin: readonly string[]): string[] {
  const scripts: string[] = [];
  for (const variable of COMMAND_VARIABLES) {
    const value = env.get(variable);
    if (value !== undefined && value.length > 0) scripts.push(value);
  }
  const setting = (key: string, value: string): void => {
    if (isCommandKey(key)) scripts.push(commandValue(value));
    // `-c include.path=/dev/stdin`: settings read from the command's input.
    if (normalizeKey(key) === "include.path" && STDIN_FILES.has(value)) {
      for (const entry of stdin.flatMap((text) => parseGitConfig(text))) setting(entry.key, entry.value);
    }
  };
  for (const entry of envConfigEntries(env)) setting(entry.key, entry.value);
  let i = 0;
  for (; i < args.length && (args[i] as string).startsWith("-"); i++) {
    const arg = args[i] as string;
    const value = arg === "-c" ? args[++i] : arg.startsWith("-c") && arg.length > 2 ? arg.slice(2) : undefined;
    if (value !== undefined && value.includes("=")) setting(value.slice(0, value.indexOf("=")), value.slice(value.indexOf("=") + 1));
    else if (arg === "--config-env" || arg.startsWith("--config-env=")) {
      // `--config-env=KEY=VAR`: the setting's value is the variable's.
      const spec = arg === "--config-env" ? (args[++i] ?? "") : arg.slice("--config-env=".length);
      const at = spec.lastIndexOf("=");
      const fromEnv = at > 0 ? env.get(spec.slice(at + 1)) : undefined;
      if (fromEnv !== undefined) setting(spec.slice(0, at), fromEnv);
    } else if (["-C", "--git-dir", "--work-tree", "--namespace", "--exec-path"].includes(arg)) i++;
  }
  const subcommand = args[i];
  const rest = args.slice(i + 1);
  // The ext:: transport runs its URL as a command (with protocol.ext.allow).
  for (const word of rest) {
    if (!word.startsWith("ext::")) continue;
    // Its words are split at spaces, `% ` a space within one: `ext::sh -c git% commit…`.
    const command = word.slice("ext::".length).replace(/% /g, " ").replace(/%[%sSG]/g, "");
    scripts.push(command, ...(/^\S*sh\s+-c\s+(.*)$/s.exec(command)?.slice(1) ?? []));
  }
  if (subcommand === "config") scripts.push(...configSetting(rest));
  if (subcommand === "submodule") {
    const foreach = rest.indexOf("foreach");
    if (foreach !== -1) {
      const words = rest.slice(foreach + 1);
      const at = words.findIndex((w) => !w.startsWith("-"));
      if (at !== -1) scripts.push(words.slice(at).join(" "));
    }
  }
  if (subcommand === "bisect" && rest[0] === "run" && rest.length > 1) scripts.push(shellLine(rest.slice(1)));
  const options = subcommand === undefined ? undefined : SUBCOMMAND_OPTIONS[subcommand];
  for (let j = 0; options !== undefined && j < rest.length; j++) {
    const arg = rest[j] as string;
    const eq = arg.indexOf("=");
    const [name, glued] = arg.startsWith("--") && eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, undefined];
    if (!options.includes(name)) continue;
    const value = glued ?? rest[++j];
    if (value !== undefined) scripts.push(value);
  }
  return scripts;
}

/** `git config [scope] KEY VALUE`, `git config set KEY VALUE`, `--add`, `--replace-all`: a command-valued setting's new value. */
function configSetting(args: readonly string[]): string[] {
  const words = args.filter((w, k) => !w.startsWith("-") && !(["-f", "--file", "--blob", "--type", "--comment", "--value"].includes(args[k - 1] ?? "")));
  const [first, ...others] = words;
  const operands = first === "set" ? others : words;
  if (first === "get" || first === "unset" || first === "list" || first === "edit" || first === "rename-section" || first === "remove-section") return [];
  const [key, value] = operands;
  return key !== undefined && value !== undefined && isCommandKey(key) ? [commandValue(value)] : [];
}


/**
 * A command as a git command: git itself, a program named at run time (`$(echo git)`,
 * read as git), or one of git's own programs run by path (`git-push`,
 * `…/git-core/git-send-pack`, `"$(git --exec-path)/git-commit"`), read as `git push`, …, and hub.
 */
export function asGit<T extends { program: string | undefined; argv: string[]; dynamic: boolean; unknownBinary?: boolean }>(run: T): T | undefined {
  const own = run.program === undefined ? undefined : /^git-([a-z-]+)$/.exec(run.program)?.[1];
  if (own !== undefined) return { ...run, program: "git", dynamic: false, argv: ["git", own, ...run.argv.slice(1)] };
  // hub is git with GitHub's commands added: it runs git's own as git does.
  if (run.program === "hub") return { ...run, program: "git", argv: ["git", ...run.argv.slice(1)] };
  // A binary Tama does not know may be a copy of git changed to hide it.
  return run.program === "git" || run.dynamic || run.unknownBinary === true ? run : undefined;
}
