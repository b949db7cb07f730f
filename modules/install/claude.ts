// `tama install --claude` / `tama uninstall --claude`: Claude Code hook entries in its
// user settings that call the installed release's `tama run-hook <Event>`, so the same
// registry and built-in gates hold in Claude Code sessions. An entry is Tama's when its
// command is exactly the one install writes; uninstall removes those and nothing else.
import { existsSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { writeFileAtomic } from "../system/atomic-write.ts";
import type { TamaPaths } from "../system/paths.ts";

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
export type ClaudeHookEvent = (typeof CLAUDE_HOOK_EVENTS)[number];

const TOOL_EVENTS = new Set<string>(["PreToolUse", "PostToolUse", "PostToolUseFailure"]);

/** Claude Code's config dir, as Claude resolves it: CLAUDE_CONFIG_DIR, else ~/.claude. */
export function claudeConfigDir(options: { claudeDir?: string } = {}, env: NodeJS.ProcessEnv = process.env): string {
  if (options.claudeDir) return path.resolve(options.claudeDir);
  if (env.CLAUDE_CONFIG_DIR) return path.resolve(env.CLAUDE_CONFIG_DIR);
  return path.join(env.HOME || os.homedir(), ".claude");
}

export function claudeSettingsFile(configDir: string): string {
  return path.join(configDir, "settings.json");
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The launcher the entries call: `current`, so an upgrade needs no new entries. */
export function claudeLauncher(paths: TamaPaths): string {
  return path.join(paths.current, "bin", "tama");
}

/**
 * The command of one event's entry. Claude runs it with sh; the agent id is
 * TAMA_AGENT_ID when the session sets one, else `claude-code`, so a run never lacks one.
 */
export function claudeHookCommand(paths: TamaPaths, event: ClaudeHookEvent): string {
  return `${shellQuote(claudeLauncher(paths))} run-hook ${event} "\${TAMA_AGENT_ID:-claude-code}"`;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export class ClaudeSettingsError extends Error {}

/** The settings file's object; a missing file is an empty one, anything else unreadable is refused by name. */
function readSettings(file: string): JsonObject {
  if (!existsSync(file)) return {};
  let parsed: Json;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8")) as Json;
  } catch (error) {
    throw new ClaudeSettingsError(`Claude Code's settings ${file} are not JSON (${(error as Error).message}); fix or move the file first`);
  }
  if (!isObject(parsed)) throw new ClaudeSettingsError(`Claude Code's settings ${file} are not a JSON object; fix or move the file first`);
  if (parsed.hooks !== undefined && !isObject(parsed.hooks)) {
    throw new ClaudeSettingsError(`Claude Code's settings ${file} have a "hooks" that is not an object; fix it first`);
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

export interface ClaudeState {
  settingsFile: string;
  /** Events whose Tama entry is there. */
  present: ClaudeHookEvent[];
  missing: ClaudeHookEvent[];
}

/** Which of Tama's entries the settings hold. Throws ClaudeSettingsError for a file that cannot be read. */
export function claudeState(paths: TamaPaths, configDir: string): ClaudeState {
  const settingsFile = claudeSettingsFile(configDir);
  const settings = readSettings(settingsFile);
  const hooks = isObject(settings.hooks) ? settings.hooks : {};
  const present = CLAUDE_HOOK_EVENTS.filter((event) => groupsOf(hooks, event).some((group) => hasCommand(group, claudeHookCommand(paths, event))));
  return { settingsFile, present, missing: CLAUDE_HOOK_EVENTS.filter((event) => !present.includes(event)) };
}

export interface ClaudeInstallReport {
  settingsFile: string;
  added: ClaudeHookEvent[];
  kept: ClaudeHookEvent[];
}

/** Add the entries the settings lack; every other key and hook is left as it was. */
export function installClaude(paths: TamaPaths, configDir: string): ClaudeInstallReport {
  const settingsFile = claudeSettingsFile(configDir);
  const settings = readSettings(settingsFile);
  const hooks: JsonObject = isObject(settings.hooks) ? settings.hooks : {};
  const added: ClaudeHookEvent[] = [];
  const kept: ClaudeHookEvent[] = [];
  for (const event of CLAUDE_HOOK_EVENTS) {
    const command = claudeHookCommand(paths, event);
    if (groupsOf(hooks, event).some((group) => hasCommand(group, command))) {
      kept.push(event);
      continue;
    }
    const list = Array.isArray(hooks[event]) ? (hooks[event] as Json[]) : [];
    // Tool events match every tool: which tools a hook reads is the registry's matcher.
    list.push({ ...(TOOL_EVENTS.has(event) ? { matcher: "*" } : {}), hooks: [{ type: "command", command }] });
    hooks[event] = list;
    added.push(event);
  }
  if (added.length > 0) {
    settings.hooks = hooks;
    writeFileAtomic(settingsFile, `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600, createDir: 0o700 });
  }
  return { settingsFile, added, kept };
}

export interface ClaudeUninstallReport {
  settingsFile: string;
  removed: ClaudeHookEvent[];
}

/** Remove exactly the entries install wrote; a group or event left empty by that goes too. */
export function uninstallClaude(paths: TamaPaths, configDir: string): ClaudeUninstallReport {
  const settingsFile = claudeSettingsFile(configDir);
  if (!existsSync(settingsFile)) return { settingsFile, removed: [] };
  const settings = readSettings(settingsFile);
  if (!isObject(settings.hooks)) return { settingsFile, removed: [] };
  const hooks = settings.hooks;
  const removed: ClaudeHookEvent[] = [];
  for (const event of CLAUDE_HOOK_EVENTS) {
    const list = hooks[event];
    if (!Array.isArray(list)) continue;
    const command = claudeHookCommand(paths, event);
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
