// `tama install --claude|--codex` / `tama uninstall --claude|--codex`: hook entries in
// the harness's own hook file (Claude Code's user settings.json, Codex's hooks.json —
// the same shape: event → groups → command hooks) that call the installed release's
// `tama run-hook <Event>`, so the same registry and built-in gates hold in its sessions.
// An entry is Tama's when its command is exactly the one install writes; uninstall
// removes those and nothing else.
import { existsSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { writeFileAtomic } from "../system/atomic-write.ts";
import type { TamaPaths } from "../system/paths.ts";

/** A harness whose hooks call `tama run-hook`: where its hook file is and what an entry says. */
export interface HookHarness {
  /** The install flag and doctor check name. */
  id: "claude" | "codex";
  /** As the person knows it. */
  title: string;
  /** Every event Tama gates, as the harness names it. */
  events: readonly string[];
  /** The hook file in the harness's config dir. */
  file: (configDir: string) => string;
  /** The agent id when the session sets no TAMA_AGENT_ID. */
  agentId: string;
  /** Words after the agent id (Codex's answer is its own). */
  extraArgs: string;
  /** The matcher of a tool event's group ("*" in Claude Code; Codex matches all without one). */
  toolMatcher: string | undefined;
}

/** Every Claude Code event Tama gates, as Claude names it. */
export const CLAUDE_HOOK_EVENTS = [
  "SessionStart",
  "UserPromptSubmit",
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "Stop",
  "SessionEnd",
] as const;

/** Codex's events Tama gates (Codex has no PostToolUseFailure: a failed call's result is a PostToolUse). */
export const CODEX_HOOK_EVENTS = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"] as const;

export const CLAUDE: HookHarness = {
  id: "claude",
  title: "Claude Code",
  events: CLAUDE_HOOK_EVENTS,
  file: (configDir) => path.join(configDir, "settings.json"),
  agentId: "claude-code",
  extraArgs: "",
  toolMatcher: "*",
};

export const CODEX: HookHarness = {
  id: "codex",
  title: "Codex",
  events: CODEX_HOOK_EVENTS,
  file: (configDir) => path.join(configDir, "hooks.json"),
  agentId: "codex",
  extraArgs: " --provider codex",
  toolMatcher: undefined,
};

const TOOL_EVENTS = new Set<string>(["PreToolUse", "PostToolUse", "PostToolUseFailure"]);

/** Claude Code's config dir, as Claude resolves it: CLAUDE_CONFIG_DIR, else ~/.claude. */
export function claudeConfigDir(options: { claudeDir?: string } = {}, env: NodeJS.ProcessEnv = process.env): string {
  if (options.claudeDir) return path.resolve(options.claudeDir);
  if (env.CLAUDE_CONFIG_DIR) return path.resolve(env.CLAUDE_CONFIG_DIR);
  return path.join(env.HOME || os.homedir(), ".claude");
}

/** Codex's home, as Codex resolves it: CODEX_HOME, else ~/.codex. */
export function codexHomeDir(options: { codexDir?: string } = {}, env: NodeJS.ProcessEnv = process.env): string {
  if (options.codexDir) return path.resolve(options.codexDir);
  if (env.CODEX_HOME) return path.resolve(env.CODEX_HOME);
  return path.join(env.HOME || os.homedir(), ".codex");
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The launcher the entries call: `current`, so an upgrade needs no new entries. */
export function hookLauncher(paths: TamaPaths): string {
  return path.join(paths.current, "bin", "tama");
}

/**
 * The command of one event's entry. The harness runs it with sh; the agent id is
 * TAMA_AGENT_ID when the session sets one, else the harness's, so a run never lacks one.
 */
export function hookCommand(paths: TamaPaths, harness: HookHarness, event: string): string {
  return `${shellQuote(hookLauncher(paths))} run-hook ${event} "\${TAMA_AGENT_ID:-${harness.agentId}}"${harness.extraArgs}`;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export class HookFileError extends Error {}

/** The hook file's object; a missing file is an empty one, anything else unreadable is refused by name. */
function readSettings(harness: HookHarness, file: string): JsonObject {
  if (!existsSync(file)) return {};
  let parsed: Json;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8")) as Json;
  } catch (error) {
    throw new HookFileError(`${harness.title}'s hook file ${file} is not JSON (${(error as Error).message}); fix or move the file first`);
  }
  if (!isObject(parsed)) throw new HookFileError(`${harness.title}'s hook file ${file} is not a JSON object; fix or move the file first`);
  if (parsed.hooks !== undefined && !isObject(parsed.hooks)) {
    throw new HookFileError(`${harness.title}'s hook file ${file} has a "hooks" that is not an object; fix it first`);
  }
  return parsed;
}

/** The groups of one event's list, each with its command hooks. */
function groupsOf(hooks: JsonObject, event: string): JsonObject[] {
  const list = hooks[event];
  return Array.isArray(list) ? list.filter(isObject) : [];
}

function hasCommand(group: JsonObject, command: string): boolean {
  return Array.isArray(group.hooks) && group.hooks.some((hook) => isObject(hook) && hook.command === command);
}

export interface HookEntriesState {
  settingsFile: string;
  /** Events whose Tama entry is there. */
  present: string[];
  missing: string[];
  /** Where each present entry sits: event → [group index, hook index] (Codex keys its trust by it). */
  positions: Record<string, [number, number]>;
}

/** Which of Tama's entries the hook file holds. Throws HookFileError for a file that cannot be read. */
export function hookEntriesState(paths: TamaPaths, harness: HookHarness, configDir: string): HookEntriesState {
  const settingsFile = harness.file(configDir);
  const settings = readSettings(harness, settingsFile);
  const hooks = isObject(settings.hooks) ? settings.hooks : {};
  const positions: Record<string, [number, number]> = {};
  for (const event of harness.events) {
    const command = hookCommand(paths, harness, event);
    const list = hooks[event];
    if (!Array.isArray(list)) continue;
    list.forEach((group, g) => {
      if (positions[event] !== undefined || !isObject(group) || !Array.isArray(group.hooks)) return;
      const h = group.hooks.findIndex((hook) => isObject(hook) && hook.command === command);
      if (h >= 0) positions[event] = [g, h];
    });
  }
  const present = harness.events.filter((event) => positions[event] !== undefined);
  return { settingsFile, present, missing: harness.events.filter((event) => !present.includes(event)), positions };
}

export interface HookInstallReport {
  settingsFile: string;
  added: string[];
  kept: string[];
}

/** Add the entries the hook file lacks; every other key and hook is left as it was. */
export function installHookEntries(paths: TamaPaths, harness: HookHarness, configDir: string): HookInstallReport {
  const settingsFile = harness.file(configDir);
  const settings = readSettings(harness, settingsFile);
  const hooks: JsonObject = isObject(settings.hooks) ? settings.hooks : {};
  const added: string[] = [];
  const kept: string[] = [];
  for (const event of harness.events) {
    const command = hookCommand(paths, harness, event);
    if (groupsOf(hooks, event).some((group) => hasCommand(group, command))) {
      kept.push(event);
      continue;
    }
    const list = Array.isArray(hooks[event]) ? (hooks[event] as Json[]) : [];
    // Tool events match every tool: which tools a hook reads is the registry's matcher.
    const matcher = TOOL_EVENTS.has(event) ? harness.toolMatcher : undefined;
    list.push({ ...(matcher !== undefined ? { matcher } : {}), hooks: [{ type: "command", command }] });
    hooks[event] = list;
    added.push(event);
  }
  if (added.length > 0) {
    settings.hooks = hooks;
    writeFileAtomic(settingsFile, `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600, createDir: 0o700 });
  }
  return { settingsFile, added, kept };
}

export interface HookUninstallReport {
  settingsFile: string;
  removed: string[];
}

/** Remove exactly the entries install wrote; a group or event left empty by that goes too. */
export function uninstallHookEntries(paths: TamaPaths, harness: HookHarness, configDir: string): HookUninstallReport {
  const settingsFile = harness.file(configDir);
  if (!existsSync(settingsFile)) return { settingsFile, removed: [] };
  const settings = readSettings(harness, settingsFile);
  if (!isObject(settings.hooks)) return { settingsFile, removed: [] };
  const hooks = settings.hooks;
  const removed: string[] = [];
  for (const event of harness.events) {
    const list = hooks[event];
    if (!Array.isArray(list)) continue;
    const command = hookCommand(paths, harness, event);
    let changed = false;
    const next = list.flatMap((group): Json[] => {
      if (!isObject(group) || !Array.isArray(group.hooks) || !hasCommand(group, command)) return [group];
      changed = true;
      const rest = group.hooks.filter((hook) => !(isObject(hook) && hook.command === command));
      return rest.length > 0 ? [{ ...group, hooks: rest }] : [];
    });
    if (!changed) continue;
    removed.push(event);
    if (next.length > 0) hooks[event] = next;
    else delete hooks[event];
  }
  if (removed.length > 0) {
    if (Object.keys(hooks).length === 0) delete settings.hooks;
    writeFileAtomic(settingsFile, `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600, createDir: 0o700 });
  }
  return { settingsFile, removed };
}

/** Codex's event name in its trust keys (`PreToolUse` → `pre_tool_use`). */
function snakeCase(event: string): string {
  return event.replace(/[A-Z]/g, (c, at: number) => `${at > 0 ? "_" : ""}${c.toLowerCase()}`);
}

/**
 * Tama's Codex entries that Codex has no trust record for. Codex keeps the person's
 * review in its config.toml as `[hooks.state."<hooks.json>:<event>:<group>:<hook>"]`
 * with a `trusted_hash`; it skips an entry without one. Only the record's presence is
 * read here: whether its hash still matches is Codex's to say (/hooks).
 */
export function codexUntrusted(state: HookEntriesState, codexHome: string): string[] {
  let config = "";
  try {
    config = readFileSync(path.join(codexHome, "config.toml"), "utf8");
  } catch {
    // no config.toml: nothing is trusted
  }
  const trusted = new Set<string>();
  let key: string | undefined;
  for (const line of config.split("\n")) {
    const header = /^\s*\[\s*hooks\.state\.("(?:[^"\\]|\\.)*")\s*\]\s*$/.exec(line);
    if (header?.[1] !== undefined) key = JSON.parse(header[1]) as string;
    else if (/^\s*\[/.test(line)) key = undefined;
    else if (key !== undefined && /^\s*trusted_hash\s*=/.test(line)) trusted.add(key);
  }
  return state.present.filter((event) => {
    const at = state.positions[event];
    return at === undefined || !trusted.has(`${state.settingsFile}:${snakeCase(event)}:${at[0]}:${at[1]}`);
  });
}
