// self-protection: the agent may not change the policy that governs it. Refuses tool
// calls (shell, file writes, code execution) that write, move, delete or re-mode
// Tama's own state — TAMA_HOME, the hook registry, the scripts registered hooks run,
// the hook sources Tama reads, the shell in OMP's extensions dir and OMP's settings —
// and calls of `tama` with a verb that changes policy or consent. Reading stays
// allowed. What a static reading cannot see (obfuscation, code that detaches) is
// held by the CLI's own refusal and by the adapter digest check; the README says
// what remains.
import { readlinkSync, statfsSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { exists, lstatNow, lstatOf, namesIn, realpathOf, statOf } from "../system/disk-moment.ts";
import { ompAgentDir } from "../system/paths.ts";
import { foldName, foldedWithin } from "../system/name-case.ts";
import { escapeRegExp } from "../system/regexp.ts";
import { RACY_MS } from "../system/stat-key.ts";
import { readRegularFileBytes } from "../system/regular-file.ts";
import { callKind, codeOf, type CodeLanguage } from "../tools/declaration.ts";
import { searchGlobMayMatch, searchScope } from "../tools/path-lists.ts";
import { readCode } from "../tools/code-reading.ts";
import type { HookInput } from "../protocol/hook-input.ts";
import { globMatches, isLink, nameGlob, projectRoot, resolvedPath, sessionCwdOf, throughLinks, userHome } from "./paths.ts";
import { programName, commandTargets, isDynamic, walkCall, walkShell, type RunCommand, type Scope } from "./shell-walk.ts";
import { LISTED_IN_WORD, LISTED_PARENT, LISTED_VISIBLE, nameGlobMarks } from "./listed-token.ts";
import { isWriter, linkSources, writeTargets, type WriteTarget } from "./shell-writers.ts";
import { asGit } from "./git-commands.ts";
import { gitWorkTreeRewrite, patchTargets, rewrittenFiles } from "./git-worktree.ts";
import type { BuiltinGate, GateContext, GateVerdict } from "./types.ts";

export const SELF_PROTECTION_ID = "self-protection";

const PASS: GateVerdict = { decision: "pass" };
const ASK_PERSON = "If the change is wanted, ask the person to make it from their own terminal.";

// ---------------------------------------------------------------------------
// The verbs of `tama` that change policy or consent (the CLI refuses them too).

const POLICY_VERBS: Readonly<Record<string, readonly string[] | true>> = {
  hooks: ["add", "remove", "enable", "disable", "import"],
  sessions: ["grant", "revoke", "reload"],
  install: true,
  uninstall: true,
};

/**
 * OMP's own commands that change which extensions and plugins it loads: `omp config set
 * disabledExtensions …`, `omp plugin disable tama-hooks`, `omp install ./ext`. Reading them
 * (`omp config get`, `omp plugin list`) is not.
 */
const OMP_READS: Readonly<Record<string, readonly string[]>> = {
  config: ["list", "get", "path"],
  plugin: ["list", "doctor", "features", "discover"],
  plugins: ["list", "doctor", "features", "discover"],
};
const OMP_WRITES = new Set(["install", "setup"]);

/** `config set`, `plugin disable`, … when `args` (after `omp`) changes what OMP loads; else undefined. */
export function ompPolicyVerb(args: readonly string[]): string | undefined {
  const words = args.filter((arg) => !arg.startsWith("-"));
  const [command, sub] = words;
  if (command === undefined || args.some((arg) => arg === "--help" || arg === "-h")) return undefined;
  if (OMP_WRITES.has(command)) return command;
  const reads = OMP_READS[command];
  if (reads === undefined) return undefined;
  // Either command with no action lists.
  if (sub === undefined || reads.includes(sub)) return undefined;
  return `${command} ${sub}`;
}

/** `hooks disable`, `install`, … when `args` (after `tama`) changes policy or consent; else undefined. */
export function policyVerb(args: readonly string[]): string | undefined {
  const words = args.filter((arg) => !arg.startsWith("-"));
  const [command, sub] = words;
  if (command === undefined) return undefined;
  // Trusting or revoking a project is consent; listing and a dry run only read.
  if (command === "trust") return args.some((arg) => arg === "--list" || arg === "--dry-run" || arg === "--help" || arg === "-h") ? undefined : "trust";
  if (command === "hooks" && sub === "claude-sources" && (words[2] === "on" || words[2] === "off")) return "hooks claude-sources";
  const verbs = POLICY_VERBS[command];
  if (verbs === true) return command;
  if (verbs !== undefined && sub !== undefined && verbs.includes(sub)) return `${command} ${sub}`;
  return undefined;
}

// ---------------------------------------------------------------------------
// What is protected.

export interface ProtectedPath {
  /** Absolute, symbolic links resolved as far as the path exists. */
  path: string;
  /** What it is, for the refusal. */
  what: string;
  /** Everything below it is protected too. */
  tree: boolean;
  /** Only a write to it is refused: a program handed it reads it (`node --env-file=.env`, `git clean -e .env`). */
  writesOnly?: boolean;
}

/** The protected paths, resolved when first asked for (their checks cost a dozen lstat calls). */
interface ProtectedList {
  (): readonly ProtectedPath[];
  /** The session's cwd: its project's files are among them, wherever the call runs. */
  readonly projectCwd: string;
}

/** A path with the symbolic links of its longest existing prefix resolved. */
export function canonicalPath(file: string): string {
  return resolvedWithCheck(file).path;
}

/** OMP's LSP and DAP configs: the server and adapter commands its `lsp` and `debug` tools start. */
const PROGRAM_CONFIG = /^\.?(lsp|dap)\.(json|ya?ml)$/;

/**
 * A config whose commands OMP starts (lsp/config.ts, dap/config.ts): in the project,
 * its .omp, .claude, .codex and .gemini folders, the matching user folders, and the
 * home itself. Told by name and folder (about sixty places, no list to resolve), where
 * the target resolves to.
 */
function programConfigHit(absolute: string, context: GateContext, cwd: string): ProtectedPath | undefined {
  // Only a link at the name itself can give a target another name: anything else is told by its own.
  if (!PROGRAM_CONFIG.test(foldName(path.basename(absolute))) && !isLink(absolute)) return undefined;
  const canonical = canonicalPath(absolute);
  const name = foldName(path.basename(canonical));
  const service = PROGRAM_CONFIG.exec(name)?.[1];
  if (service === undefined) return undefined;
  const env = context.env ?? process.env;
  const home = env.HOME || os.homedir();
  const dirs = [
    cwd,
    ...[".omp", ".claude", ".codex", ".gemini"].map((dir) => path.join(cwd, dir)),
    ompAgentDir({}, env),
    path.join(home, ".claude"),
    ...(env.CLAUDE_CONFIG_DIR ? [path.resolve(env.CLAUDE_CONFIG_DIR)] : []),
    path.join(home, ".codex"),
    path.join(home, ".gemini"),
    home,
  ];
  const folder = foldName(path.dirname(canonical));
  if (!dirs.some((dir) => foldName(canonicalPath(dir)) === folder)) return undefined;
  return { path: canonical, what: `OMP's ${service === "lsp" ? "LSP servers' config (the commands its lsp tool starts)" : "debug adapters' config (the commands its debug tool starts)"}`, tree: false };
}

/**
 * What a resolution stood on: the deepest part of the path that existed (by its
 * identity, seen without following it) and the next part, absent then. A link made,
 * moved or replaced anywhere on the way changes one of them.
 */
interface ResolutionCheck {
  existing: string;
  key: string;
  next?: string;
  /**
   * The existing folder's stamp (mtime and ctime) when `next` was last seen absent, once
   * the folder had been still RACY_MS: making, linking or renaming a name in a folder
   * moves its ctime, which no call can set back, so while the stamp is the same `next`
   * is still absent and need not be looked at. About forty of a call's fifty looks were these.
   */
  settled?: string;
}

/** A path as a check sees it: its identity, and for a folder its stamp (settled: still RACY_MS). */
interface Look {
  identity: string;
  stamp?: string;
  settled?: boolean;
}

function lookAt(file: string): Look {
  // A name too long, a loop of links: nothing there the call can reach by it (absent).
  const stat = lstatOf(file);
  if (stat === undefined) return { identity: "absent" };
  const identity = `${stat.dev}:${stat.ino}:${stat.mode}`;
  if (!stat.isDirectory()) return { identity };
  return { identity, stamp: `${stat.mtimeMs}:${stat.ctimeMs}`, settled: Math.max(stat.mtimeMs, stat.ctimeMs) < Date.now() - RACY_MS };
}

/**
 * Linux file systems whose folders' ctime moves with every name made, linked, renamed or
 * removed in them (statfs magic numbers: ext2-4, xfs, btrfs, tmpfs, ramfs, zfs, f2fs,
 * bcachefs). A FUSE or network file system may not keep that promise, nor an overlay (a
 * name added to its lower layer leaves the upper folder as it was), so a folder on any
 * other is looked at name by name, as before.
 */
const STAMPING_FILE_SYSTEMS = new Set([0xef53, 0x58465342, 0x9123683e, 0x01021994, 0x858458f6, 0x2fc12fc1, 0xf2f52010, 0xca451a4e]);

/** Whether `folder`'s stamp moves with each name made in it. Asked (uncached) only as a stamp is kept, which is rare. */
export function stampsMove(folder: string): boolean {
  if (process.platform !== "linux") return false;
  try {
    return STAMPING_FILE_SYSTEMS.has(statfsSync(folder).type >>> 0);
  } catch {
    return false;
  }
}

const identityOf = (file: string): string => lookAt(file).identity;

/** Links followed on the way to a name that does not exist yet, at most (the kernel's own bound). */
const MAX_DANGLING_HOPS = 40;

function resolvedWithCheck(file: string, hops = 0): { path: string; check?: ResolutionCheck } {
  const resolved = path.resolve(file);
  let existing = resolved;
  let next: string | undefined;
  // exists does not throw: finding the existing prefix costs no exceptions.
  while (!exists(existing)) {
    // A link to a name not there yet (`x -> mcp.json`): a write through it creates that name.
    if (hops < MAX_DANGLING_HOPS && lstatOf(existing)?.isSymbolicLink() === true) {
      const target = readlinkOf(existing);
      if (target !== undefined) return resolvedWithCheck(path.join(throughParts(realpathOf(path.dirname(existing)), target, hops + 1), path.relative(existing, resolved)), hops + 1);
    }
    const parent = path.dirname(existing);
    if (parent === existing) return { path: resolved };
    next = existing;
    existing = parent;
  }
  // A link that points nowhere yet resolves elsewhere once its target appears: never kept.
  const check = next !== undefined && identityOf(next) !== "absent" ? undefined : { existing, key: identityOf(existing), ...(next !== undefined ? { next } : {}) };
  try {
    return { path: path.join(realpathOf(existing), path.relative(existing, resolved)), ...(check !== undefined ? { check } : {}) };
  } catch {
    return { path: resolved };
  }
}

/**
 * `relative` walked from the real folder `from` one name at a time, as the kernel walks it:
 * a link on the way is followed before a `..` after it (`s/../mcp.json` with `s` a link
 * leads to the parent of where `s` points, not back to `from`).
 */
function throughParts(from: string, relative: string, hops: number): string {
  let at = path.isAbsolute(relative) ? "/" : from;
  const parts = relative.split("/").filter((part) => part !== "" && part !== ".");
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as string;
    if (part === "..") {
      at = path.dirname(at);
      continue;
    }
    const next = path.join(at, part);
    const link = hops < MAX_DANGLING_HOPS && lstatOf(next)?.isSymbolicLink() === true ? readlinkOf(next) : undefined;
    if (link === undefined) {
      at = next;
      continue;
    }
    hops += 1;
    at = exists(next) ? realpathOf(next) : throughParts(at, link, hops);
  }
  return at;
}

function readlinkOf(file: string): string | undefined {
  try {
    return readlinkSync(file);
  } catch {
    return undefined;
  }
}

/**
 * Whether a resolution still stands: at most two lstat calls, where resolving again is
 * one per part; one once its folder's stamp has settled. Entries share their existing
 * parts (the cwd, OMP's dir): each is looked at once.
 */
function stillHolds(check: ResolutionCheck | undefined, seen: Map<string, Look>): boolean {
  if (check === undefined) return false;
  const look = (file: string): Look => {
    let known = seen.get(file);
    if (known === undefined) seen.set(file, (known = lookAt(file)));
    return known;
  };
  const existing = look(check.existing);
  if (existing.identity !== check.key) return false;
  if (check.next === undefined) return true;
  if (check.settled !== undefined && existing.stamp === check.settled) return true;
  if (look(check.next).identity !== "absent") return false;
  // Kept only when `next` is seen absent, by the disk itself, after the folder's stamp was
  // read (that look may be an answer kept from earlier in the call): while the stamp
  // stands, it stays absent.
  if (existing.settled === true && lstatNow(check.next) === undefined && stampsMove(check.existing)) check.settled = existing.stamp;
  else delete check.settled;
  return true;
}

/** The files registered command hooks run: absolute program and script paths, and `sh -c /path/…`. */
export function hookFilesOf(hooks: readonly { command?: readonly string[] | undefined }[]): string[] {
  const files = new Set<string>();
  for (const hook of hooks) {
    const argv = hook.command ?? [];
    for (let i = 0; i < argv.length; i++) {
      const arg = argv[i] as string;
      if (arg === "-c" && argv[i + 1] !== undefined) {
        const first = (argv[i + 1] as string).trim().split(/\s+/)[0] ?? "";
        if (path.isAbsolute(first)) files.add(first);
      }
      if (!path.isAbsolute(arg)) continue;
      try {
        if (statSync(arg).isFile()) files.add(arg);
      } catch {
        // a missing file is not protected: there is nothing to change
      }
    }
  }
  return [...files];
}

/**
 * Resolved protected lists by what they are made of: resolving a dozen paths through
 * the file system on every tool call cost milliseconds. Each entry is kept with what
 * its resolution stood on and used only while that still holds: the agent can make a
 * link (a project's `.omp` pointing elsewhere) between two calls.
 */
const protectedCache = new Map<string, { list: ProtectedPath[]; checks: (ResolutionCheck | undefined)[] }>();
const PROTECTED_CACHE_SIZE = 64;

/** Everything the gate keeps out of an agent's reach, for a call made in `cwd`. */
export function protectedPaths(context: GateContext, cwd: string): ProtectedPath[] {
  const env = context.env ?? process.env;
  const hookFiles = context.hookFiles?.() ?? [];
  const key = [cwd, context.tamaHome, context.registry ?? "", env.HOME ?? "", env.CODEX_HOME ?? "", env.CLAUDE_CONFIG_DIR ?? "", env.PI_CODING_AGENT_DIR ?? "", env.PI_CONFIG_DIR ?? "", env.OMP_PROFILE ?? "", env.PI_PROFILE ?? "", ...hookFiles].join("\0");
  const cached = protectedCache.get(key);
  const seen = new Map<string, Look>();
  if (cached && cached.checks.every((check) => stillHolds(check, seen))) return cached.list;
  const resolved = resolveProtectedPaths(context, cwd, hookFiles);
  if (protectedCache.size >= PROTECTED_CACHE_SIZE) protectedCache.delete(protectedCache.keys().next().value as string);
  protectedCache.set(key, resolved);
  return resolved.list;
}

function resolveProtectedPaths(context: GateContext, cwd: string, hookFiles: readonly string[]): { list: ProtectedPath[]; checks: (ResolutionCheck | undefined)[] } {
  const env = context.env ?? process.env;
  const home = env.HOME || os.homedir();
  const agentDir = ompAgentDir({}, env);
  const list: { raw: string; what: string; tree: boolean; writesOnly?: boolean }[] = [];
  const add = (raw: string, what: string, tree: boolean, writesOnly = false): void => {
    list.push({ raw, what, tree, ...(writesOnly ? { writesOnly } : {}) });
  };
  add(context.tamaHome, "Tama's home (its release, registry, adapter, session and grant records)", true);
  if (context.registry !== undefined) add(context.registry, "Tama's hook registry", false);
  add(path.join(agentDir, "extensions"), "OMP's extensions directory, where Tama's shell is installed", true);
  for (const name of ["config.yml", "config.yaml", "settings.json"]) add(path.join(agentDir, name), "OMP's settings (which extensions it loads)", false);
  add(path.join(cwd, ".omp", "extensions"), "the project's OMP extensions", true);
  for (const name of ["config.yml", "config.yaml"]) add(path.join(cwd, ".omp", name), "the project's OMP settings", false);
  add(path.join(cwd, ".tama"), "the project's Tama hooks", true);
  // Code OMP itself loads at its next start, as extensions are: its hooks directories,
  // a project's settings.json naming extensions, and the Claude and Codex hook folders
  // its discovery reads (pre/, post/; Codex's pre-<tool>.ts).
  add(path.join(agentDir, "hooks"), "OMP's hooks, code OMP loads", true);
  add(path.join(agentDir, "tools"), "OMP's custom tools, code OMP loads", true);
  for (const name of ["mcp.json", ".mcp.json"]) add(path.join(agentDir, name), "OMP's MCP servers (commands OMP starts)", false);
  add(path.join(cwd, ".omp", "hooks"), "the project's OMP hooks, code OMP loads", true);
  add(path.join(cwd, ".omp", "settings.json"), "the project's OMP settings (which extensions it loads)", false);
  // OMP's user Claude folder follows CLAUDE_CONFIG_DIR; its user Codex hooks are ~/.codex's whatever CODEX_HOME says.
  const claudeDirs = [...new Set([path.join(home, ".claude"), ...(env.CLAUDE_CONFIG_DIR ? [path.resolve(env.CLAUDE_CONFIG_DIR)] : [])])];
  for (const type of ["pre", "post"]) {
    add(path.join(cwd, ".claude", "hooks", type), "the project's Claude hooks OMP loads as code", true);
    for (const dir of claudeDirs) add(path.join(dir, "hooks", type), "Claude hooks OMP loads as code", true);
  }
  add(path.join(home, ".claude", "settings.json"), "Claude Code settings Tama reads hooks from", false);
  for (const name of ["settings.json", "settings.local.json"]) add(path.join(cwd, ".claude", name), "Claude Code settings Tama reads hooks from", false);
  // Codex's hook file holds Tama's entries (`tama install --codex`); its config.toml, the person's trust in them.
  const codexHome = env.CODEX_HOME || path.join(home, ".codex");
  add(path.join(codexHome, "hooks.json"), "Codex's hooks, where Tama's entries are", false);
  add(path.join(codexHome, "config.toml"), "Codex's settings (which hooks it trusts)", false);
  for (const dir of new Set([codexHome, path.join(home, ".codex")])) add(path.join(dir, "hooks"), "Codex hooks OMP loads as code", true);
  add(path.join(cwd, ".codex", "hooks"), "the project's Codex hooks OMP loads as code", true);
  // Every settings file OMP merges into a session's settings (disabledExtensions, extensions, its bash's
  // shellPath), in the project and the home: its own folders', Gemini's, Cursor's and OpenCode's; the
  // extensions those folders hold; and the plugins and plugin overrides it loads Tama as a plugin by.
  for (const base of [cwd, home]) {
    for (const dir of [".omp", ".claude", ".codex", ".gemini"]) {
      add(path.join(base, dir, "settings.json"), "settings OMP reads (which extensions it loads)", false);
      add(path.join(base, dir, "extensions"), "extensions OMP loads", true);
      add(path.join(base, dir, "plugin-overrides.json"), "OMP's plugin overrides (which plugins it loads)", false);
    }
    add(path.join(base, ".cursor", "settings.json"), "settings OMP reads (which extensions it loads)", false);
    for (const name of ["opencode.json", "opencode.jsonc"]) add(path.join(base, ".opencode", name), "settings OMP reads (which extensions it loads)", false);
  }
  for (const name of ["opencode.json", "opencode.jsonc"]) {
    add(path.join(cwd, name), "settings OMP reads (which extensions it loads)", false);
    add(path.join(env.XDG_CONFIG_HOME || path.join(home, ".config"), "opencode", name), "settings OMP reads (which extensions it loads)", false);
  }
  add(path.join(cwd, ".omp", "plugins"), "the project's OMP plugins, code OMP loads (a plugin here stands in for one of the same name)", true);
  for (const dir of new Set([path.join(agentDir, "plugins"), path.join(path.dirname(agentDir), "plugins")])) add(dir, "OMP's plugins and their lock file (which plugins it loads)", true);
  // Committed in many projects: the git rules guard these as they guard the project's settings.
  add(path.join(cwd, "bunfig.toml"), BUNFIG, false);
  // Programs handed one read it (an MCP inspector's --config, a validator).
  for (const file of [".mcp.json", "mcp.json", ".cursor/mcp.json", ".vscode/mcp.json", ".claude/.mcp.json", ".claude/mcp.json", ".windsurf/mcp_config.json"]) add(path.join(cwd, file), MCP_SERVERS, false, true);
  add(path.join(cwd, ".codex", "config.toml"), "Codex's settings in the project, which OMP reads (the MCP servers it starts)", false);
  for (const dir of [".claude", ".codex"]) add(path.join(cwd, dir, "tools"), "the project's custom tools, code OMP imports", true);
  add(path.join(env.XDG_CONFIG_HOME || path.join(home, ".config"), "opencode", "plugins"), "OpenCode plugins, which OMP imports as extensions", true);
  // Claude plugins the registry names for a project: their MCP servers, hooks and tools load with no question asked.
  for (const dir of claudeDirs) add(path.join(dir, "plugins"), "Claude plugins OMP loads (their MCP servers, hooks and tools)", true);
  // The shell startup file OMP's bash runs as a session's first bash call starts (utils/shell-snapshot.ts).
  for (const name of [".bashrc", ".zshrc", ".profile"]) add(path.join(home, name), "your shell's startup file, which OMP's bash runs when a session's first bash call starts", false);
  // Its `!command` API keys and headers are run by a shell.
  for (const name of ["models.yml", "models.yaml", "models.json"]) add(path.join(agentDir, name), "OMP's model settings (a `!command` value there is run)", false);
  for (const file of hookFiles) add(file, "a script a registered hook runs", false);
  const resolved = list.map(({ raw, what, tree, writesOnly }) => ({ ...resolvedWithCheck(raw), what, tree, writesOnly }));
  return { list: resolved.map(({ path: file, what, tree, writesOnly }) => ({ path: file, what, tree, ...(writesOnly ? { writesOnly } : {}) })), checks: resolved.map((r) => r.check) };
}

// ---------------------------------------------------------------------------
// Words to paths.

/** A word with `~`, $HOME, $TAMA_HOME and $PWD expanded; undefined when other expansions remain. */
function expandWord(word: string, cwd: string, context: GateContext, commandEnv?: ReadonlyMap<string, string>): string | undefined {
  const env = context.env ?? process.env;
  const home = env.HOME || os.homedir();
  const vars: Record<string, string> = { HOME: home, TAMA_HOME: context.tamaHome, PWD: cwd, ...Object.fromEntries(commandEnv ?? []) };
  let text = word.replace(/^~(?=\/|$)/, home).replace(/^~([A-Za-z_][\w.-]*)(?=\/|$)/, (whole, user: string) => userHome(user) ?? whole);
  // Twice: a script's own variable may hold another reference (`d=$TAMA_HOME`).
  for (let pass = 0; pass < 2; pass++) {
    text = text.replace(/\$\{(\w+)\}|\$(\w+)/g, (whole, braced: string | undefined, plain: string | undefined) => vars[(braced ?? plain) as string] ?? whole);
  }
  if (/[$`]/.test(text)) return undefined;
  return text;
}

const GLOB = /[*?[]/;

interface Hit {
  target: string;
  protectedPath: ProtectedPath;
}

/**
 * Code and policy OMP (and Tama, Claude Code, Codex through it) load from a project
 * folder, at any depth and in any folder: a session started there loads them, as does a
 * subagent whose isolated worktree OMP brings back into the project, and a session's
 * own project may lie above where it started. Told by name, on the resolved target.
 */
const MCP_SERVERS = "a list of MCP servers OMP starts when a session starts in that folder (their commands run outside every gate)";
const TS_COMMAND = "a TypeScript slash command OMP imports (when a session starts, and again each time a subagent starts)";
/** `<folder>/.claude/commands/<name>/index.ts`: OMP imports it; a `<name>.md` beside it is a prompt and stays the agent's to write. */
const COMMAND_MODULE = /^(.*\/\.(?:omp|claude|codex|gemini)\/commands\/[^/]+\/index\.(?:ts|js|mjs|cjs))$/;

const BUNFIG = "Bun's settings for a folder, read into OMP's process when OMP starts there (its `preload` runs code inside OMP)";

const FOLDER_POLICY: readonly { pattern: RegExp; what: string; tree: boolean; writesOnly?: boolean }[] = [
  { pattern: /^(.*\/\.omp(?:\/profiles\/[^/]+)?(?:\/agent)?\/(?:extensions|hooks))(?:\/|$)/, what: "OMP extensions or hooks of a project folder (code OMP loads when a session starts there)", tree: true },
  { pattern: /^(.*\/\.omp(?:\/profiles\/[^/]+)?(?:\/agent)?\/tools)(?:\/|$)/, what: "OMP custom tools of a project folder (code OMP loads when a session starts there)", tree: true },
  { pattern: /^(.*\/\.omp(?:\/profiles\/[^/]+)?(?:\/agent)?\/\.?mcp\.json)$/, what: "OMP's MCP servers of a project folder (commands OMP starts)", tree: false },
  { pattern: /^(.*\/\.omp\/(?:settings\.json|config\.ya?ml))$/, what: "a project folder's OMP settings (which extensions it loads)", tree: false },
  { pattern: /^(.*\/(?:\.omp|\.claude|\.codex|\.gemini|\.cursor)\/settings\.json|.*\/(?:\.opencode\/)?opencode\.jsonc?)$/, what: "settings OMP reads in a project folder (which extensions it loads)", tree: false },
  { pattern: /^(.*\/(?:\.omp|\.claude|\.codex|\.gemini)\/plugin-overrides\.json)$/, what: "OMP's plugin overrides of a project folder (which plugins it loads)", tree: false },
  { pattern: /^(.*\/(?:\.claude|\.codex|\.gemini)\/extensions|.*\/\.omp\/plugins)(?:\/|$)/, what: "extensions or plugins OMP loads from a project folder (code OMP loads when a session starts there)", tree: true },
  { pattern: /^(.*\/\.tama)(?:\/|$)/, what: "a project folder's Tama hooks", tree: true },
  { pattern: /^(.*\/\.claude\/settings(?:\.local)?\.json)$/, what: "Claude Code settings Tama reads hooks from", tree: false },
  { pattern: /^(.*\/\.claude\/hooks\/(?:pre|post))(?:\/|$)/, what: "Claude hooks OMP loads as code", tree: true },
  { pattern: /^(.*\/\.codex\/hooks)(?:\/|$)/, what: "Codex hooks OMP loads as code", tree: true },
  // MCP servers OMP starts from the folder it starts in, with no question asked (mcp.enableProjectConfig):
  // their commands, and `!command` values in their env and headers, run outside every gate.
  // A bare mcp.json is often an MCP server's own example: only the project's (protectedPaths) is guarded.
  { pattern: /^(.*\/\.mcp\.json|.*\/\.(?:cursor|vscode|claude)\/mcp\.json|.*\/\.windsurf\/mcp_config\.json)$/, what: MCP_SERVERS, tree: false, writesOnly: true },
  { pattern: /^(.*\/\.opencode\/plugins)(?:\/|$)/, what: "OpenCode plugins of a project folder, which OMP imports as extensions", tree: true },
  { pattern: /^(.*\/\.codex\/config\.toml)$/, what: "Codex's settings in a project folder, which OMP reads (the MCP servers it starts, and settings it merges into the session's)", tree: false },
  { pattern: /^(.*\/\.(?:claude|codex|gemini)\/tools)(?:\/|$)/, what: "custom tools OMP loads from a project folder (code it imports at its start, even with --no-extensions)", tree: true },
  { pattern: COMMAND_MODULE, what: TS_COMMAND, tree: false },
  // OMP runs on Bun, which reads these from the folder it starts in before OMP's first line
  // (https://bun.sh/docs/runtime/env): a `preload` runs code inside OMP, and a variable can
  // move TAMA_HOME, the registry or OMP's agent dir, where the gates come from.
  { pattern: /^(.*\/bunfig\.toml)$/, what: BUNFIG, tree: false },
  { pattern: /^(.*\/\.env(?:\.(?:local|development|production|test)(?:\.local)?)?)$/, what: "a .env file Bun loads into OMP's environment when OMP starts in that folder (a variable there can move Tama's home, its registry or OMP's agent dir)", tree: false, writesOnly: true },
];

/** Folders OMP and Tama load code and policy from, by name: a folder moved, copied, linked or unpacked there brings its contents. */
const POLICY_FOLDERS = new Set([".omp", ".claude", ".codex", ".tama"]);
/** Shell writers' effects that put a whole tree at their target (shell-writers.ts). */
const BRINGS_TREE = /^(copies over|installs over|syncs over|moves a file over|links over|clones into|extracts into)$/;

/** `mv d .omp`, `ln -s /tmp/x sub/.claude`, `cp -r d pkg/.omp`: a tree put in place of a policy folder. */
function treeInPlaceOf(absolute: string, effect: string): ProtectedPath | undefined {
  // Code's writes (`shutil.copytree`, `cpSync`, `os.symlink`) may put a whole tree there too.
  const brings = BRINGS_TREE.test(effect);
  if (!brings && effect !== "writes") return undefined;
  // Told by the name it lands under; resolved only then (most targets are not such a folder).
  if (brings && POLICY_FOLDERS.has(foldName(path.basename(absolute)))) return { path: canonicalPath(absolute), what: "a folder OMP or Tama loads code and policy from (its extensions, hooks and settings), put in place whole", tree: true };
  // A commands or tools folder, or one command's folder, brings the modules OMP imports from it:
  // told by the names it is written under, and by those it resolves to (a link to the folder).
  const codeFolder = codeFolderOf(absolute) ?? (foldName(path.basename(absolute)).endsWith(".md") ? undefined : codeFolderOf(canonicalPath(absolute)));
  if (codeFolder === undefined) return undefined;
  // `cp review.md .claude/commands/`: into a folder that is there, a shell writer puts what it brings
  // inside it, judged by the name it lands under. Code (`copytree(…, dirs_exist_ok=True)`) may merge into it.
  const name = foldName(path.basename(absolute));
  if (brings && (name === "commands" || name === "tools") && statOf(absolute)?.isDirectory() === true) return undefined;
  return { path: canonicalPath(absolute), what: codeFolder === "tools" ? "a folder of custom tools OMP imports, put in place whole" : "a folder of TypeScript slash commands OMP imports (when a session starts, and again each time a subagent starts), put in place whole", tree: true };
}

/** `.claude/commands`, `.claude/tools` or `.claude/commands/<name>` (not a `.md` prompt): which of the two it is. */
function codeFolderOf(file: string): "commands" | "tools" | undefined {
  const folded = foldName(file);
  const name = path.basename(folded);
  const parent = path.basename(path.dirname(folded));
  if ((name === "commands" || name === "tools") && CODE_FOLDERS.has(parent)) return name;
  if (parent === "commands" && !name.endsWith(".md") && CODE_FOLDERS.has(path.basename(path.dirname(path.dirname(folded))))) return "commands";
  return undefined;
}

/** Folders whose `commands/` and `tools/` OMP imports modules from. */
const CODE_FOLDERS = new Set([".omp", ".claude", ".codex", ".gemini"]);

/** A policy place by its names, folded (the patterns are spelled in lower case). */
function folderPolicyHit(full: string): ProtectedPath | undefined {
  const folded = foldName(full);
  for (const { pattern, what, tree, writesOnly } of FOLDER_POLICY) {
    const match = pattern.exec(folded);
    if (match) return { path: spelledAs(full, folded, match[1] as string), what, tree, ...(writesOnly ? { writesOnly } : {}) };
  }
  return undefined;
}

/** The start of `full` that `part` (a start of its folded form `folded`) is, as `full` spells it: by names, which folding keeps. */
function spelledAs(full: string, folded: string, part: string): string {
  if (folded.length === full.length) return full.slice(0, part.length);
  return full.split("/").slice(0, part.split("/").length).join("/");
}

/** A protected path as names are compared (name-case.ts), kept with the cached list it belongs to. */
const foldedPaths = new WeakMap<ProtectedPath, string>();
function foldedOf(p: ProtectedPath): string {
  let folded = foldedPaths.get(p);
  if (folded === undefined) foldedPaths.set(p, (folded = foldName(p.path)));
  return folded;
}

/** `p`'s name `depth` names below the root (`/a/b`: a is 1), as it is spelled. */
const nameAt = (p: ProtectedPath, depth: number): string => p.path.split("/")[depth] as string;
const depthOf = (folder: string): number => (folder === "/" ? 0 : folder.split("/").length - 1);

/**
 * The protected path `target` (absolute) changes, if any. Names are compared folded
 * (`.TAMA/hooks.json` is `.tama/hooks.json` where the file system folds case); a glob is
 * matched as the shell matches it, against the names as they are spelled.
 */
function hitOf(target: string, reachesBelow: boolean, protectedList: readonly ProtectedPath[], names?: readonly string[], creates = false, visibleOnly = false): ProtectedPath | undefined {
  const glob = GLOB.exec(target);
  // A glob changes whatever it matches: anything that starts with the text before it.
  const prefix = glob ? target.slice(0, glob.index) : undefined;
  const canonical = canonicalPath(prefix === undefined ? target : path.dirname(prefix + "x"));
  const full = prefix === undefined ? canonical : path.join(canonical, path.basename(prefix + "x").slice(0, -1));
  const fullKey = foldName(full);
  // The most specific first: the registry itself before the home it lies in.
  const exact = protectedList.find((p) => prefix === undefined && fullKey === foldedOf(p));
  if (exact) return exact;
  // A glob starting a name (`*.out`, `?x`) does not match a name starting with `.`, as the shell's does not.
  const atNameStart = prefix !== undefined && path.basename(prefix + "x") === "x";
  for (const p of protectedList) {
    const key = foldedOf(p);
    if (prefix !== undefined) {
      if (p.tree && fullKey.startsWith(`${key}/`)) return p;
      // A glob in the last name only (`rm -rf .[!.]*cache`): what it matches in its directory, as the shell matches it.
      const dir = canonicalPath(path.dirname(target));
      if (!target.slice(glob?.index ?? 0).includes("/") && key.startsWith(`${foldName(dir)}/`)) {
        const component = nameAt(p, depthOf(dir) + 1);
        if (nameGlob(path.basename(target)).test(component) && lstatOf(path.join(dir, component)) !== undefined) return p;
        continue;
      }
      // A glob in an earlier name (`[h]/extensions`, `h*/x`): the protected path's name there must match it, as the shell's glob would.
      const namePrefix = path.basename(prefix + "x").slice(0, -1);
      const parent = atNameStart ? full.replace(/\/$/, "") : path.dirname(full);
      const component = key.startsWith(`${foldName(parent)}/`) ? nameAt(p, depthOf(parent) + 1) : undefined;
      if (component !== undefined && nameGlob(namePrefix + (target.slice(glob?.index ?? 0).split("/")[0] as string)).test(component)) return p;
      continue;
    }
    if (p.tree && fullKey.startsWith(`${key}/`)) return p;
    // Removing, moving or re-moding a directory changes what lies below it — what exists there (a
    // project's `.omp/extensions` that is not there is not changed by `chmod -R u+w .`; a copy or
    // an extraction into it may make it), and for `find -name GLOB` only a name the glob matches
    // (a protected directory's files have any name).
    if (
      reachesBelow &&
      (key.startsWith(`${fullKey}/`) || full === "/") &&
      (creates || lstatOf(p.path) !== undefined) &&
      (names === undefined || namesReach(full, p, names)) &&
      // A listing that skips hidden names (rg, fd) never reaches `.claude/settings.json` below the folder it lists.
      !(visibleOnly && p.path.split("/").slice(depthOf(full) + 1).some((part) => part.startsWith(".")))
    ) return p;
  }
  return folderPolicyHit(full);
}


/**
 * Whether a change of only the names `globs` match below `full` (`find … -name G -exec`, a
 * listing's globs) reaches protected path `p`: its own name or a folder's on the way to it
 * matches (`-name '.claude' -exec rm -rf`), or, for a protected tree, a file in it does.
 */
function namesReach(full: string, p: ProtectedPath, globs: readonly string[]): boolean {
  const patterns = globs.map((glob) => nameGlob(glob, { leadingDot: true }));
  const parts = p.path.split("/").slice(depthOf(full) + 1);
  if (parts.some((part) => patterns.some((pattern) => pattern.test(part)))) return true;
  return p.tree === true && treeHoldsName(p.path, globs);
}

/** Entries looked at in a protected tree for a name a glob takes in; past them, it is taken to hold one. */
const TREE_LOOK_LIMIT = 2_000;

/**
 * Whether a protected tree (a project's `.tama/`, `.omp/extensions/`) holds a file whose
 * name one of `globs` matches: a change of only such names (`find . -name '*.ts' -exec
 * sed -i`, `git ls-files '*.ts' | xargs sed -i`) reaches it only then. A tree too large
 * to look through, or one that cannot be read, is taken to hold one.
 */
function treeHoldsName(tree: string, globs: readonly string[]): boolean {
  const patterns = globs.map((glob) => nameGlob(glob, { leadingDot: true }));
  const folders = [tree];
  let looked = 0;
  for (let folder = folders.shift(); folder !== undefined; folder = folders.shift()) {
    let names: readonly string[];
    try {
      names = namesIn(folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ENOTDIR") continue;
      return true;
    }
    for (const name of names) {
      if (++looked > TREE_LOOK_LIMIT || patterns.some((pattern) => pattern.test(name))) return true;
      const entry = path.join(folder, name);
      if (lstatOf(entry)?.isDirectory() === true) folders.push(entry);
    }
  }
  return false;
}

function refusalFor(effect: string, hit: Hit): string {
  const shown = hit.target === hit.protectedPath.path ? hit.target : `${hit.target} (${hit.protectedPath.path})`;
  return `Tama refused this call: it ${effect} ${shown}, which is ${hit.protectedPath.what}. An agent may not change the policy that governs it; reading it is fine. ${ASK_PERSON}`;
}

function tamaRefusal(verb: string): string {
  return `Tama refused this call: \`tama ${verb}\` changes Tama's policy or consent, which an agent may not do from inside its session. Ask the person to run it from their own terminal.`;
}

// ---------------------------------------------------------------------------
// The shell.

const SCRIPT_RUNNERS = new Set(["node", "nodejs", "bun", "deno", "sh", "bash", "zsh", "dash"]);
const PACKAGE_RUNNERS = new Set(["npx", "bunx", "pnpx"]);

const runtimeDirs = new Map<string, string>();

/** The release directory of a TAMA_HOME, links resolved once per process. */
function runtimeDirOf(home: string): string {
  let dir = runtimeDirs.get(home);
  if (dir === undefined) {
    dir = canonicalPath(path.join(home, "hooks-runtime"));
    if (runtimeDirs.size < PROTECTED_CACHE_SIZE) runtimeDirs.set(home, dir);
  }
  return dir;
}

function isTamaProgram(word: string, context: GateContext, cwd: string): boolean {
  // `/usr/local/bin/tam?`: the shell runs what the glob matches.
  if (/[*?[]/.test(word) && !/[$`]/.test(word)) return globMatches(word, cwd).some((match) => !/[*?[]/.test(match) && isTamaProgram(match, context, cwd));
  const name = programName(word);
  // A package spec too (`@acme/tama@1.2`): package runners (command-runners.ts) hand it on as the command.
  if (name === "tama" || name === "tama.js" || /^tama@[^/]*$/.test(name)) return true;
  const expanded = expandWord(word, cwd, context);
  if (expanded === undefined || !expanded.includes("/")) return false;
  const runtime = runtimeDirOf(context.tamaHome);
  const file = canonicalPath(path.resolve(cwd, expanded));
  return foldedWithin(file, runtime) && foldName(file) !== foldName(runtime);
}

/** The arguments `tama` gets when `argv` runs it (by name, release path, `node …/tama.js`, npx); else undefined. */
function tamaArgs(argv: readonly string[], context: GateContext, cwd: string): string[] | undefined {
  const first = argv[0];
  if (first === undefined) return undefined;
  if (isTamaProgram(first, context, cwd)) return argv.slice(1);
  const program = programName(first);
  if (SCRIPT_RUNNERS.has(program)) {
    const at = argv.findIndex((arg, i) => i > 0 && !arg.startsWith("-"));
    if (at > 0 && isTamaProgram(argv[at] as string, context, cwd)) return argv.slice(at + 1);
    return undefined;
  }
  let rest = argv.slice(1);
  if (program === "npm" || program === "pnpm" || program === "yarn") {
    const verb = rest.findIndex((arg) => !arg.startsWith("-"));
    if (verb === -1 || !["exec", "x", "dlx"].includes(rest[verb] as string)) return undefined;
    rest = rest.slice(verb + 1);
  } else if (!PACKAGE_RUNNERS.has(program)) {
    return undefined;
  }
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] as string;
    if (arg === "--") continue;
    if (arg === "-p" || arg === "--package") {
      i++;
      continue;
    }
    if (arg.startsWith("-")) continue;
    return /(^|\/)tama(@[^/]*)?$/.test(arg) ? rest.slice(i + 1) : undefined;
  }
  return undefined;
}

/**
 * Why a shell script (with the scope it runs under) changes Tama's policy: each
 * command it runs, through every wrapper, nested shell and inline code the shell
 * walker reads, is checked for `tama` policy verbs and for writers aimed at what is
 * protected. Later commands run where `cd` left them.
 */
function visitor(cwd: string, context: GateContext, protectedList: ProtectedList, depth: number): (run: RunCommand) => string | undefined {
  return (run) => {
    const here = run.scope.cwd ?? cwd;
    // A program whose name is built at run time may be tama itself.
    const args = run.dynamic ? run.argv.slice(1) : tamaArgs(run.argv, context, here);
    const verb = args === undefined ? undefined : policyVerb(args);
    if (verb !== undefined) return tamaRefusal(verb);
    const omp = run.program === "omp" ? ompPolicyVerb(run.argv.slice(1)) : undefined;
    if (omp !== undefined) {
      return `Tama refused this call: \`omp ${omp}\` changes which extensions and plugins OMP loads, Tama's among them. An agent may not change the policy that governs it. ${ASK_PERSON}`;
    }
    for (const { code, language, fromFile } of run.code) {
      const reason = checkCode(code, language, here, context, protectedList, depth + 1, fromFile === true);
      if (reason !== undefined) return reason;
    }
    // `find DIR -exec rm {} +` changes what lies under DIR, though the walker reads the command it runs.
    const raw = run.command.argv;
    const finds = raw[0] !== undefined && programName(raw[0]) === "find" && run.program !== "find" ? writeTargets({ ...run.command, redirects: [] }, raw) : [];
    const targets = commandTargets(run, [...finds, ...intoDirectory(run.argv, here, homeOf(context)), ...linkSources(run.argv)]);
    if (run.scope.unknownCwd !== undefined) {
      // After `cd $(…)` a relative target's place is unknown; refused when the directory names Tama's state.
      const relative = targets.find((t) => !path.isAbsolute(t.word) && !/^[~$]/.test(t.word));
      if (relative !== undefined && mentionsProtected(run.scope.unknownCwd, context, protectedList)) {
        return `Tama refused this call: it ${relative.effect} ${relative.word} after \`cd ${run.scope.unknownCwd}\`, a directory built at run time that names Tama's own state. An agent may not change the policy that governs it. ${ASK_PERSON}`;
      }
    }
    return checkTargets(targets, here, context, protectedList, run.env, run.scope.links) ?? handedProtected(run, here, context, protectedList) ?? gitRewrites(run, here, context, protectedList) ?? patchProgram(run, here, context, protectedList);
  };
}

// ---------------------------------------------------------------------------
// git commands that overwrite or delete work-tree files by their state (git-worktree.ts):
// `git stash` or `git checkout -- .` throws away a person's uncommitted edit of a hook
// source, `git clean -f` deletes an untracked one.

/** Files below a protected folder looked at, at most (a hooks folder holds a few). */
const MAX_TREE_FILES = 256;

function filesOf(protectedPath: ProtectedPath): string[] {
  const seen = lstatOf(protectedPath.path);
  if (seen === undefined) return [];
  if (!seen.isDirectory()) return [protectedPath.path];
  const files: string[] = [];
  const pending = [protectedPath.path];
  while (pending.length > 0 && files.length < MAX_TREE_FILES) {
    const dir = pending.pop() as string;
    for (const name of namesIn(dir)) {
      const file = path.join(dir, name);
      if (lstatOf(file)?.isDirectory() === true) pending.push(file);
      else files.push(file);
      if (files.length >= MAX_TREE_FILES) break;
    }
  }
  return files;
}

/**
 * `patch -p1 < fix.diff`, `patch -i fix.diff`: the files the patch names, judged as writes;
 * a patch no reader saw (`curl … | patch -p1`) may undo any uncommitted change, as `git
 * apply` of one may.
 */
function patchProgram(run: RunCommand, here: string, context: GateContext, protectedList: ProtectedList): string | undefined {
  if (run.program !== "patch") return undefined;
  const args = run.argv.slice(1);
  if (args.some((a) => a === "--dry-run" || a === "-C" || a === "--check")) return undefined;
  const valueOf = (short: string, long: string): string | undefined => {
    const at = args.findIndex((a) => a === short || a === long || a.startsWith(`${long}=`) || (a.startsWith(short) && a.length > short.length && !a.startsWith("--")));
    if (at === -1) return undefined;
    const arg = args[at] as string;
    return arg === short || arg === long ? args[at + 1] : arg.startsWith(`${long}=`) ? arg.slice(long.length + 1) : arg.slice(short.length);
  };
  const given = valueOf("-p", "--strip");
  const dir = path.resolve(here, valueOf("-d", "--directory") ?? ".");
  const input = valueOf("-i", "--input") ?? run.command.redirects.find((r) => r.op === "<")?.target;
  const read = (strip: number): string[] | undefined => (input === undefined || isDynamic(input) ? undefined : patchTargets([path.resolve(here, input)], strip));
  // Without -p, GNU patch takes a git diff's `a/` off itself, and otherwise the bare name: each is read.
  const targets = given !== undefined ? read(Number(given)) : read(0)?.flatMap((t) => [t, t.split("/").slice(1).join("/"), path.basename(t)]).filter((t) => t !== "");
  if (targets !== undefined) return checkTargets(targets.map((t) => ({ word: path.resolve(dir, t), effect: "patches", reachesBelow: false })), here, context, protectedList, run.env, run.scope.links);
  return gitRewrites({ ...run, argv: ["git", "apply"], program: "git" }, dir, context, protectedList);
}

function gitRewrites(run: RunCommand, here: string, context: GateContext, protectedList: ProtectedList): string | undefined {
  const git = asGit(run);
  if (git === undefined) return undefined;
  // `git apply < fix.patch`: the patch is that file, read as an operand is.
  const patchIn = run.command.redirects.find((r) => r.op === "<")?.target;
  const args = git.argv.slice(1);
  const readsStdin = patchIn !== undefined && !isDynamic(patchIn) && args.find((arg) => !arg.startsWith("-")) === "apply" && args.slice(args.indexOf("apply") + 1).every((arg) => arg.startsWith("-"));
  const rewrite = gitWorkTreeRewrite(readsStdin ? [...args, path.resolve(here, patchIn)] : args, here, run.env, 0, run.unreadArgs);
  if (rewrite === undefined) return undefined;
  // Files it writes by name are judged as any writer's, a new one too (`git apply` of a patch making .mcp.json).
  const written = rewrite.writes === undefined ? undefined : checkTargets(rewrite.writes.map((file) => ({ word: file, effect: "patches", reachesBelow: false })), here, context, protectedList, run.env, run.scope.links);
  if (written !== undefined) return written;
  // The policy files there now, each with the protected path it belongs to; the repository is read once for all of them.
  // Keyed folded: the work tree may be named in another case than the protected paths (`git -C ~/PROJ stash`).
  const owner = new Map<string, { file: string; p: ProtectedPath }>();
  for (const p of protectedList()) {
    if (!foldedWithin(p.path, rewrite.root)) continue;
    for (const file of filesOf(p)) {
      // Spelled below the root as the root is, for git's paths relative to it.
      const under = path.join(rewrite.root, file.split("/").slice(depthOf(rewrite.root) + 1).join("/"));
      if (!owner.has(foldName(under))) owner.set(foldName(under), { file: under, p });
    }
  }
  if (owner.size === 0) return undefined;
  for (const hit of rewrittenFiles(rewrite, [...owner.values()].map(({ file }) => file))) {
    const p = owner.get(foldName(path.join(rewrite.root, hit.relative)))?.p;
    if (p === undefined) continue;
    const file = path.join(rewrite.root, hit.relative);
    const what = hit.overwritten === true
      ? `overwrites the untracked ${file} with what ${rewrite.touches.overwritesFrom ?? "that revision"} holds there`
      : rewrite.touches.records === true
        ? `records the person's uncommitted ${hit.state === "untracked" ? "new file" : "change to"} ${file}, which is theirs to commit`
        : hit.state === "untracked"
        ? `deletes the untracked ${file}`
        : hit.state === "changed"
          ? `throws away the uncommitted changes to ${file}`
          : hit.state === "unknown"
            ? `may overwrite or delete ${file} (its repository's index could not be read)`
            : rewrite.touches.any === true
              ? `may overwrite ${file}`
              : `throws away the staged, uncommitted changes to ${file}`;
    const shown = file === p.path ? "" : ` (${p.path})`;
    return `Tama refused this call: \`${rewrite.command}\` ${what}${shown}, which is ${p.what}. An agent may not change the policy that governs it. Name the paths you mean and leave it out (\`-- . ':!${path.relative(here, file) || "."}'\`), or ask the person to commit or set aside that change from their own terminal.`;
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// A protected file named to a program Tama cannot tell only reads it. Writers are read
// by their argv and their languages (shell-writers.ts, language-writes.ts), but any
// program may write a file it is told of (`scp host:f DIR`, `ffmpeg … OUT`, a script
// given the path as an argument); self-protection does not let an unread program be
// the way around it. Reading stays allowed through the programs that only read.

/** Programs that only read the files they are named (their redirects are read as writes). */
const READS_ONLY = new Set([
  "cat", "tac", "head", "tail", "less", "more", "bat", "batcat", "grep", "egrep", "fgrep", "rg", "ag", "ack", "ls", "dir", "vdir", "stat", "file",
  "wc", "diff", "cmp", "comm", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "md5sum", "b2sum", "cksum", "sum", "readlink",
  "realpath", "dirname", "basename", "test", "[", "[[", "echo", "printf", "jq", "du", "od", "hexdump", "strings", "nl", "cut", "column",
  "fold", "fmt", "pr", "expand", "unexpand", "paste", "join", "look", "cd", "pushd", "popd", "source", ".", "type", "which", "command", "true",
  "false", "tama", "lsattr", "getfacl", "namei", "sed", "find", "xxd", "sort", "uniq", "zcat", "zgrep", "zless", "bzcat", "xzcat", "shellcheck",
  "shasum", "md5", "sha1", "sha256", "eza", "exa", "lsd", "tree", "fd", "fdfind", "delta", "colordiff", "jless", "fx", "gron",
  // The shell's own words and builtins: what they name is read by the walker where it runs.
  "for", "while", "until", "if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "in", "select", "function", "!", "{", "}", ":",
  "export", "local", "declare", "typeset", "readonly", "set", "unset", "shift", "return", "exit", "break", "continue", "wait", "trap", "let",
  "read", "mapfile", "readarray", "getopts", "hash", "alias", "unalias", "shopt", "pwd", "dirs", "jobs", "times", "eval",
]);

/** git subcommands that only read the paths they are given. */
const GIT_READS = new Set(["status", "log", "show", "diff", "blame", "annotate", "ls-files", "ls-tree", "cat-file", "grep", "describe", "shortlog", "check-ignore", "check-attr", "rev-parse", "whatchanged", "add", "commit", "hash-object"]);

/** Interpreters whose first operand is the script they run (running a hook script to try it reads it). */
const SCRIPT_OPERAND = /^(?:node|nodejs|bun|deno|python[\d.]*|pypy3?|ruby|perl|php|lua[\d.]*|bash|sh|dash|zsh|ksh|fish|tsx|ts-node)$/;

/** The path-like pieces of a word: itself, and what lies between its quotes, spaces and separators (`-o/x`, `of=x`, `"x"`). */
function pathPieces(word: string): string[] {
  const pieces = new Set([word]);
  for (const piece of word.split(/[\s'"=:,;(){}<>|&[\]]+/).slice(0, 64)) {
    if (piece.length > 0) pieces.add(piece.replace(/^-[A-Za-z](?=[/~.])/, ""));
  }
  return [...pieces];
}

/** Whether `dir` lies in a folder whose files are protected, told from its text (no file is read: it runs on most commands). */
function inProtectedFolder(dir: string, context: GateContext): boolean {
  const env = context.env ?? process.env;
  const inside = (root: string | undefined): boolean => root !== undefined && root.length > 0 && foldedWithin(dir, root);
  return folderPolicyHit(`${dir}/x`) !== undefined || [context.tamaHome, ompAgentDir({}, env), env.CLAUDE_CONFIG_DIR, env.CODEX_HOME].some((root) => inside(root === undefined ? undefined : path.resolve(root)));
}

function handedProtected(run: RunCommand, here: string, context: GateContext, protectedList: ProtectedList): string | undefined {
  const program = run.program;
  // A shell function's arguments reach the commands of its body, which the walker reads as such.
  if (program === undefined || run.shellFunction || READS_ONLY.has(program) || (isWriter(program) && program !== "git")) return undefined;
  let args = run.argv.slice(1);
  if (program === "git") {
    const sub = args.findIndex((arg, i) => !arg.startsWith("-") && !["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env"].includes(args[i - 1] ?? ""));
    if (sub !== -1 && GIT_READS.has(args[sub] as string) && !args.some((arg) => arg.startsWith("--output"))) return undefined;
  }
  if (SCRIPT_OPERAND.test(program)) {
    // The script operand is read, not written; what follows it is handed to the script.
    // A shell's `-c` line is walked as the commands it runs (and so is read there).
    const script = args.findIndex((arg) => !arg.startsWith("-"));
    const shellLine = /^(?:bash|sh|dash|zsh|ksh|fish)$/.test(program) && args.some((arg) => /^-[A-Za-z]*c[A-Za-z]*$/.test(arg));
    const inline = !shellLine && args.some((arg) => /^-(?:[ceEr]|-eval|-command|-print|p)$/.test(arg));
    if (script !== -1 && !inline) args = [...args.slice(0, script), ...args.slice(script + 1)];
  }
  let insideProtected: boolean | undefined;
  // Inline code is read as code (checkCode): what it writes, not every path it names.
  const code = new Set(run.code.map((c) => c.code));
  for (const word of args.slice(0, 256)) {
    if (code.has(word)) continue;
    for (const piece of pathPieces(word)) {
      // bunfig.toml is policy by its bare name, wherever it lies.
      // A name a listing prints may be any path under the place listed. Handed to a program the agent may have
      // placed (`git ls-files | xargs ./fmt`) it is judged so; a program found on PATH (`… | xargs npx eslint`) is
      // the person's tool, each of whose named files would still be refused.
      const listed = LISTED_IN_WORD.test(piece);
      if (listed && !(run.argv[0] ?? "").includes("/") && run.unknownBinary !== true) continue;
      const pathLike = /[/~$]/.test(piece) || piece.startsWith(".") || piece === "bunfig.toml" || listed;
      // An option (`--version`) names no file, even in a protected folder.
      if (!pathLike && piece.startsWith("-")) continue;
      // In a protected folder every name is a path there (`cd ~/.omp/agent/extensions; prog x.js`).
      if (!pathLike && !(insideProtected ??= inProtectedFolder(here, context))) continue;
      // A glob names what it matches in its folder: told by that folder (`prog ~/.tama/*`), not by what lies below the text before it.
      const glob = listed ? -1 : piece.search(/[*?[]/);
      const named = glob === -1 ? piece : `${piece.slice(0, glob)}x`;
      const reason = checkTargets([{ word: named, effect: `hands ${program}`, reachesBelow: false }], here, context, protectedList, run.env, run.scope.links);
      if (reason !== undefined) return `${reason.replace(/\. An agent may not/, `, a program Tama cannot tell only reads it. An agent may not`)}`;
    }
  }
  return undefined;
}

/** `cp -r x/.tama ~`: a copy or move into a directory writes each source's name inside it. */
function intoDirectory(argv: readonly string[], cwd: string, home: string): WriteTarget[] {
  const program = argv[0] === undefined ? undefined : programName(argv[0]);
  if (program !== "cp" && program !== "mv" && program !== "rsync" && program !== "install") return [];
  const words = argv.slice(1).filter((a) => !a.startsWith("-"));
  const dest = words.at(-1);
  if (dest === undefined || words.length < 2) return [];
  const intoDir = dest.endsWith("/") || words.length > 2 || isDirectory(path.resolve(cwd, dest.replace(/^~(?=\/|$)/, home)));
  if (!intoDir) return [];
  // rsync's `src/` copies what is inside src: anything may land below the destination.
  return words.slice(0, -1).map((source) =>
    program === "rsync" && source.endsWith("/") ? { word: dest, effect: "syncs into", reachesBelow: true, creates: true } : { word: path.join(dest, path.basename(source)), effect: "copies over", reachesBelow: true, creates: true },
  );
}

function isDirectory(file: string): boolean {
  return statOf(file)?.isDirectory() === true;
}

/** `ln TARGET LINK` (hard or symbolic, also `cp -l`/`-s`): a link to a protected file is a way to change it. */

function checkScript(script: string, cwd: string, context: GateContext, protectedList: ProtectedList, depth: number): string | undefined {
  const scope: Scope = { env: new Map(), cwd, home: homeOf(context) };
  return walkShell(script, scope, visitor(cwd, context, protectedList, depth), depth);
}

function homeOf(context: GateContext): string {
  return (context.env ?? process.env).HOME || os.homedir();
}

function checkTargets(
  targets: readonly WriteTarget[],
  cwd: string,
  context: GateContext,
  protectedList: ProtectedList,
  commandEnv?: ReadonlyMap<string, string>,
  links?: ReadonlyMap<string, string>,
): string | undefined {
  for (const target of targets.map(listedUnder)) {
    const expanded = expandWord(target.word, cwd, context, commandEnv);
    if (expanded === undefined) {
      // A target built by an expansion Tama does not perform: refused when it names Tama's state.
      if (mentionsProtected(target.word, context, protectedList)) {
        return `Tama refused this call: it ${target.effect} ${target.word}, a path built at run time that names Tama's own state. An agent may not change the policy that governs it. ${ASK_PERSON}`;
      }
      continue;
    }
    const absolute = throughLinks(resolvedPath(cwd, expanded, links), links);
    const hit = hitOf(absolute, target.reachesBelow, protectedList(), target.names, target.creates === true, target.visibleOnly === true) ?? programConfigHit(absolute, context, protectedList.projectCwd) ?? treeInPlaceOf(absolute, target.effect);
    if (hit && !(hit.writesOnly === true && target.effect.startsWith("hands "))) return refusalFor(target.effect, { target: absolute, protectedPath: hit });
  }
  return undefined;
}

/**
 * A name a listing printed (`git ls-files | xargs sed -i …`, `ls .claude | while read f;
 * do cp x ".claude/$f"`) may be any name under the place listed: the write reaches every
 * file there, as `find DIR -exec` does, and is judged by what is there.
 */
function listedUnder(target: WriteTarget): WriteTarget {
  const parts = target.word.split("/");
  const at = parts.findIndex((part) => LISTED_IN_WORD.test(part));
  if (at === -1) return target;
  const part = parts[at] as string;
  const marks = (LISTED_IN_WORD.exec(part)?.[1] ?? "").split(":").slice(1);
  // The listed name may be several folders deep, or `..` (`ls -a`): each `..` after it may climb back out, one more with `..` listed.
  const after = parts.slice(at + 1).filter((p) => p !== "" && p !== ".");
  const climbs = after.filter((p) => p === "..").length + (marks.includes(LISTED_PARENT) ? 1 : 0);
  let word = at === 0 ? "." : parts.slice(0, at).join("/") || "/";
  for (let i = 0; i < climbs; i++) word = path.join(word, "..");
  // Text around the listed name (`settings{}json`), or a name after it (`$f/settings.json`): the names it makes; else the listing's own globs.
  const around = part.replace(LISTED_IN_WORD, "*");
  const last = after.filter((p) => p !== "..").at(-1);
  const globs = after.length > 0 ? (last !== undefined && !marks.includes(LISTED_PARENT) ? [last] : []) : around !== "*" ? [around] : nameGlobMarks(marks);
  return {
    ...target,
    word,
    effect: `${target.effect} what a listing names under`,
    reachesBelow: true,
    ...(globs.length > 0 ? { names: globs } : {}),
    ...(marks.includes(LISTED_VISIBLE) && after.length === 0 && climbs === 0 ? { visibleOnly: true } : {}),
  };
}

/** Whether `text` names Tama's state: a protected path (absolute or `~/…`), Tama's home, or (`byVariable`) the TAMA_HOME variable. */
/** Names of policy places in text, however the code reaches the home before them (`homedir() + '/.omp/agent/extensions'`). */
const POLICY_TEXT =
  /\.omp\/(?:agent\/)?(?:extensions|hooks|tools|plugins|settings\.json|config\.ya?ml|\.?mcp\.json|plugin-overrides\.json)|\.tama\/|\.claude\/(?:settings(?:\.local)?\.json|hooks)|\.codex\/(?:hooks|config\.toml)|\.(?:gemini|cursor|codex)\/settings\.json|\.(?:claude|codex|gemini)\/(?:extensions|plugin-overrides\.json)|opencode\.jsonc?|bunfig\.toml|\.(?:cursor|vscode|claude)\/\.?mcp\.json|mcp_config\.json|\.(?:claude|codex|gemini)\/tools\//;

function mentionsProtected(text: string, context: GateContext, protectedList: ProtectedList, byVariable = true): boolean {
  if (byVariable && text.includes("TAMA_HOME")) return true;
  // Folded: a path spelled in another case reaches the same file where the file system folds case.
  const folded = foldName(text);
  if (POLICY_TEXT.test(folded)) return true;
  const home = foldName((context.env ?? process.env).HOME || os.homedir());
  return protectedList().some((p) => {
    const key = foldedOf(p);
    if (folded.includes(key)) return true;
    return key.startsWith(`${home}/`) && folded.includes(`~/${key.slice(home.length + 1)}`);
  }) || [context.tamaHome, path.resolve(context.tamaHome)].some((h) => folded.includes(foldName(h)));
}

// ---------------------------------------------------------------------------
// Code: OMP's eval (JavaScript, Python) and interpreters' inline code. No gate can
// read a program; this reads what it names: a string that is a shell command is
// checked as one, `tama` with a policy verb is refused, and code that names Tama's
// state and calls a file-changing or process-starting API is refused.

const WRITE_API = new RegExp(
  [
    String.raw`\b(writeFile|writeFileSync|appendFile|appendFileSync|createWriteStream|rename|renameSync|unlink|unlinkSync|rmSync|rmdir|rmdirSync|chmod|chmodSync|chown|chownSync|lchown|symlink|symlinkSync|linkSync|copyFile|copyFileSync|cpSync|truncate|truncateSync|ftruncate|mkdirSync|writeSync|write_text|write_bytes|removedirs|makedirs|rmtree|copyfile|copytree|copy2|popen|spawn|spawnSync|execSync|execFile|execFileSync|Popen|check_call|check_output|getoutput|writeTextFile)\s*\(`,
    String.raw`\b(fs|fsp|promises|os|shutil|Deno)\s*\.\s*(rm|cp|remove|replace|link|system|exec\w*|spawn\w*|move|copy)\s*\(`,
    String.raw`\.\s*(touch|unlink|rename|replace|chmod|write_text|write_bytes|symlink_to|hardlink_to)\s*\(`,
    String.raw`\bBun\s*\.\s*(write|spawn|spawnSync|\$)`,
    String.raw`\bopen\s*\((?:[^()]|\([^()]{0,512}\)){0,512},\s*['"][^'"]*[wax+]`,
    String.raw`\b(shutil|subprocess|child_process)\b`,
  ].join("|"),
);
const TAMA_CALL = /\btama(?:\.js)?\b[\s,[\]'"`]+(hooks[\s,'"`]+(?:add|remove|enable|disable|import)|sessions[\s,'"`]+(?:grant|revoke|reload)|install|uninstall)\b/;
const STRING_LITERAL = /'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\]|\\.)*)`/g;

function checkCode(code: string, language: CodeLanguage, cwd: string, context: GateContext, protectedList: ProtectedList, depth: number, fromFile = false): string | undefined {
  // `TAMA hooks disable`: a shell on a file system that folds case finds tama by it.
  const call = TAMA_CALL.exec(foldName(code));
  if (call) return tamaRefusal(call[1]?.replace(/['"`,\s]+/g, " ").trim() ?? "");
  const reading = readCode(code, language);
  // The files the code writes by name, and the command lines it hands to processes.
  const written = checkTargets(reading.writes.map((w) => ({ word: w.path, effect: "writes", reachesBelow: false })), cwd, context, protectedList);
  if (written !== undefined) return written;
  // A script file's strings are its messages and data: only what it hands a process is a command line.
  const lines = [...reading.commands, ...(reading.startsProcesses && !fromFile ? reading.literals : [])];
  for (const match of fromFile ? [] : code.matchAll(STRING_LITERAL)) {
    const literal = match[1] ?? match[2] ?? match[3] ?? "";
    if (/\s/.test(literal)) lines.push(literal);
  }
  for (const line of lines) {
    const reason = checkScript(line, cwd, context, protectedList, depth + 1);
    if (reason !== undefined) return reason;
  }
  // A program on disk that passes TAMA_HOME on (a test harness, a benchmark) does not name this home's state.
  if (mentionsProtected(code, context, protectedList, !fromFile) && WRITE_API.test(code)) {
    return `Tama refused this code: it names Tama's own state (${protectedList()[0]?.path ?? context.tamaHome} and the files it protects) and calls an API that changes files or starts processes. An agent may not change the policy that governs it; reading it with the read tool or cat is fine. ${ASK_PERSON}`;
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// The gate.

/** The file a write call changes: OMP's resolved target, else Claude's file_path. */
function writeTargetOf(input: HookInput): string | undefined {
  if (typeof input.omp?.target === "string" && !input.omp.target.startsWith("xd://")) return input.omp.target;
  const filePath = input.tool_input?.file_path;
  return typeof filePath === "string" ? filePath : undefined;
}

/** Largest policy file read for a renamed symbol; a larger one is taken to hold it. */
const RENAME_SCAN_BYTES = 1024 * 1024;

/**
 * OMP's LSP `rename` applies the language server's edit to every file that uses the
 * symbol, wherever it is: a protected file (an OMP extension, a hook script) that names
 * it is changed too. The symbol is `symbol` (`name#N` picks an occurrence), or else the
 * word where the line's text starts, as OMP's lsp tool finds it. The first protected file
 * that holds it as a word, or undefined.
 */
function lspRenameHit(input: HookInput, list: ProtectedList): { file: string; protectedPath: ProtectedPath } | undefined {
  const request = input.tool_input as Record<string, unknown> | undefined;
  if (input.tool_name !== "LSP" || typeof request?.action !== "string" || request.action.trim().toLowerCase() !== "rename") return undefined;
  const name = renamedSymbol(request, input.cwd);
  if (name === undefined || typeof request.file !== "string") return undefined;
  const word = new RegExp(`(?<![\\w$])${escapeRegExp(name)}(?![\\w$])`);
  // The server edits its own language's files in the workspace: the project's.
  const family = languageFamily(request.file);
  const project = projectRoot(list.projectCwd);
  for (const protectedPath of list()) {
    if (!foldedWithin(protectedPath.path, project)) continue;
    for (const file of protectedPath.tree ? filesOf(protectedPath) : [protectedPath.path]) {
      if (languageFamily(file) !== family) continue;
      let text: string;
      try {
        text = readRegularFileBytes(file, RENAME_SCAN_BYTES).toString("utf8");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
        return { file, protectedPath };
      }
      if (word.test(text)) return { file, protectedPath };
    }
  }
  return undefined;
}

/** A file's language as a language server groups them: JavaScript's and TypeScript's together, else the extension. */
function languageFamily(file: string): string {
  const extension = path.extname(file).toLowerCase();
  return /^\.(?:[cm]?[jt]sx?|d\.ts)$/.test(extension) ? "js" : extension;
}

/** The identifier a rename changes: its `symbol`, else the first word of its `line` (1 by default) in `file`. */
function renamedSymbol(request: Record<string, unknown>, cwd: string | undefined): string | undefined {
  if (typeof request.symbol === "string" && request.symbol.trim().length > 0) return request.symbol.trim().replace(/#\d+$/, "");
  if (typeof request.file !== "string" || cwd === undefined) return undefined;
  try {
    const line = readRegularFileBytes(resolvedPath(cwd, request.file), RENAME_SCAN_BYTES).toString("utf8").split("\n")[(typeof request.line === "number" ? request.line : 1) - 1];
    return /^\s*([\w$]+)/.exec(line ?? "")?.[1];
  } catch {
    return undefined;
  }
}

const isAstEdit = (input: HookInput): boolean => (input.omp?.tool_name ?? input.tool_name)?.toLowerCase() === "ast_edit";

/**
 * OMP's ast_edit rewrites every file its path takes in: a folder's at any depth, and a
 * glob's matches, hidden names too (its native glob is not the shell's). The protected
 * path a file it may rewrite belongs to, or undefined.
 */
function astEditHit(absolute: string, protectedList: readonly ProtectedPath[]): ProtectedPath | undefined {
  const { base, glob } = searchScope(absolute);
  if (glob === undefined) return hitOf(absolute, statOf(absolute)?.isDirectory() === true, protectedList);
  const root = resolvedPath("/", base);
  for (const p of protectedList) {
    if (p.tree && foldedWithin(root, p.path) && foldName(root) !== foldedOf(p)) return p;
    if (!foldedWithin(p.path, root)) continue;
    // It rewrites files that are there: a protected name not made yet is not one of them.
    if ([...(lstatOf(p.path) === undefined ? [] : [p.path]), ...filesOf(p)].some((file) => searchGlobMayMatch(glob, path.relative(root, file)))) return p;
  }
  return undefined;
}

/** Why `input`'s tool call would change Tama's policy, or undefined. */
export function findSelfProtectionBreach(input: HookInput, context: GateContext): string | undefined {
  const toolName = input.tool_name ?? input.omp?.tool_name;
  if (toolName === undefined) return undefined;
  const cwd = input.cwd;
  const kind = input.omp?.kind ?? callKind(toolName, input.tool_input);
  let resolved: readonly ProtectedPath[] | undefined;
  // Resolved on first need: most calls name no path to check it against.
  // The project's own files are the session's project's, wherever the call runs.
  const projectCwd = sessionCwdOf(input);
  const list: ProtectedList = Object.assign(() => (resolved ??= protectedPaths(context, projectCwd)), { projectCwd });
  if (kind === "write") {
    const renamed = lspRenameHit(input, list);
    if (renamed !== undefined) return refusalFor("renames a symbol the language server also changes in", { target: renamed.file, protectedPath: renamed.protectedPath });
    const target = writeTargetOf(input);
    if (target === undefined) return undefined;
    const absolute = resolvedPath(cwd, target);
    // A move takes what lies below it along (a directory above a protected path).
    const hit = (isAstEdit(input) ? astEditHit(absolute, list()) : hitOf(absolute, input.moves === true, list())) ?? programConfigHit(absolute, context, projectCwd) ?? (input.moves === true ? treeInPlaceOf(absolute, "moves a file over") : undefined);
    return hit ? refusalFor("writes", { target: absolute, protectedPath: hit }) : undefined;
  }
  if (kind !== "shell" && kind !== "code") return undefined;
  // The command lines the call runs (a shell call's, or those readable in code), walked.
  const walked = walkCall(input, visitor(cwd, context, list, 0), homeOf(context));
  if (walked !== undefined) return walked;
  if (kind === "code") {
    const code = codeOf(toolName, input.tool_input) ?? (input.omp ? codeOf(input.omp.tool_name, input.omp.tool_input) : undefined);
    if (code !== undefined) return checkCode(code.code, code.language, cwd, context, list, 0);
  }
  return undefined;
}

export const selfProtection: BuiltinGate = {
  id: SELF_PROTECTION_ID,
  description: "Refuses tool calls that change Tama's own policy: writes, moves, deletes or mode changes of TAMA_HOME, the registry, hook scripts, hook sources, OMP's extensions and settings, and `tama` policy or consent verbs.",
  events: ["pre_tool_use"],
  memoryless: true,
  // Every tool: shell, write and code execution all can change a file.
  tools: "any",
  evaluate(input: HookInput, context: GateContext): GateVerdict {
    const reason = findSelfProtectionBreach(input, context);
    return reason === undefined ? PASS : { decision: "block", reason };
  },
};

