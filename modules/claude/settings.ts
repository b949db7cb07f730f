// Claude Code's hook settings, translated into registry hooks. What has no faithful
// translation is reported with the reason, never imported as something else:
// a hook that silently ran on other events or tools than its author meant would
// be worse than one that is missing and named.
import os from "node:os";
import path from "node:path";
import * as z from "../protocol/schema.ts";
import { type EventKind } from "../protocol/engine.ts";
import { canonicalJson, DEFAULT_TIMEOUT_MS, HookEntry, type ToolMatcher } from "../registry/registry.ts";
import { ompCutsShort } from "../registry/omp-limits.ts";
import { describeSchemaError } from "../protocol/schema.ts";
import { readRegularFile } from "../system/regular-file.ts";

/** Claude Code's events that have an engine event, and the engine's name for each. */
export const CLAUDE_EVENTS: Readonly<Record<string, EventKind>> = {
  PreToolUse: "pre_tool_use",
  PostToolUse: "post_tool_use",
  // A failed call's result: the same engine event, read by hooks limited to failures.
  PostToolUseFailure: "post_tool_use",
  UserPromptSubmit: "user_prompt_submit",
  Stop: "stop",
  SessionStart: "session_start",
  SessionEnd: "session_end",
};

/** Claude's result events: PostToolUse runs for calls that succeeded, PostToolUseFailure for those that failed. */
const RESULTS: Readonly<Record<string, "success" | "failure">> = { PostToolUse: "success", PostToolUseFailure: "failure" };

/** A hook as written into the registry (defaults not spelled out). */
export type NewHook = z.input<typeof HookEntry>;

export type SettingsScope = "user" | "project" | "local" | "file";

export interface SettingsSource {
  file: string;
  scope: SettingsScope;
  /** The project a project or local file belongs to. */
  projectDir?: string;
}

export interface Candidate {
  /** The hook without its id: ids are chosen against the registry it goes into. */
  hook: Omit<NewHook, "id">;
  /** The base of its id, from the command. */
  slug: string;
  source: string;
  claudeEvent: string;
  matcher?: string;
  command: string;
  /** Where the translation differs from Claude Code's behaviour. */
  notes: string[];
}

export interface Untranslated {
  source: string;
  claudeEvent: string;
  matcher?: string;
  /** The command, or the hook's type when it has no command. */
  what: string;
  why: string;
}

export interface Translation {
  candidates: Candidate[];
  untranslated: Untranslated[];
  /** About a whole file, e.g. `disableAllHooks`. */
  notes: string[];
}

const ClaudeSettings = z.looseObject({
  hooks: z.optional(z.record(z.string(), z.unknown())),
  disableAllHooks: z.optional(z.boolean()),
});
const MatcherGroup = z.looseObject({ matcher: z.optional(z.string()), hooks: z.array(z.unknown()) });
const ClaudeHook = z.looseObject({
  type: z.string(),
  command: z.optional(z.string()),
  /** Seconds. */
  timeout: z.optional(z.number().check(z.positive())),
  shell: z.optional(z.string()),
  async: z.optional(z.boolean()),
  asyncRewake: z.optional(z.boolean()),
  once: z.optional(z.boolean()),
});

const MAX_TIMEOUT_MS = 3_600_000;
const NAME = /^[A-Za-z0-9_-]+$/;

/**
 * Claude's matcher as a tool matcher. `*`, empty or none is every tool; a name or
 * an `A|B` list of names is exact (as Claude reads it); `^Name`, `^Name.*` and
 * `mcp__server__.*` are name prefixes. Any other regex has no translation.
 */
export function translateMatcher(matcher: string | undefined): { ok: true; tools: ToolMatcher } | { ok: false; why: string } {
  const text = (matcher ?? "").trim();
  if (text === "" || text === "*" || text === ".*") return { ok: true, tools: "any" };
  const start = text.startsWith("^");
  const end = text.endsWith("$");
  let body = text.slice(start ? 1 : 0, end ? -1 : undefined);
  if ((start || end) && /^\(.*\)$/.test(body)) body = body.slice(1, -1);
  const names: string[] = [];
  for (const token of body.split("|").map((t) => t.trim())) {
    const prefix = /^([A-Za-z0-9_-]+)\.\*$/.exec(token)?.[1];
    if (NAME.test(token) && !(end && !start)) names.push(start && !end ? `${token}*` : token);
    else if (prefix !== undefined && (start || prefix.startsWith("mcp__"))) names.push(`${prefix}*`);
    else {
      return {
        ok: false,
        why: `the matcher is a regular expression; Tama matches names, Name* prefixes, shell, write or any (\`tama hooks add --tools\`)`,
      };
    }
  }
  return { ok: true, tools: [...new Set(names)] };
}

/**
 * A SessionStart or SessionEnd matcher names why the session started or ended
 * (`startup|resume`): the hook runs only for those, as in Claude Code. Names only,
 * matched exactly (Claude's are case-sensitive); empty or `*` is every one.
 */
function sessionMatcher(matcher: string | undefined): { ok: true; when: string[] | undefined } | { ok: false; why: string } {
  const text = (matcher ?? "").trim();
  if (text === "" || text === "*" || text === ".*") return { ok: true, when: undefined };
  const names = text.replace(/^\^?\(?|\)?\$?$/g, "").split("|").map((t) => t.trim());
  if (names.some((n) => !/^[A-Za-z_-]+$/.test(n))) {
    return { ok: false, why: "the matcher is a regular expression; Tama reads a SessionStart/SessionEnd matcher as names (startup|resume|clear|compact, or SessionEnd's reasons)" };
  }
  return { ok: true, when: [...new Set(names)] };
}

/** Claude Code's own tool names: a matcher that differs from one only in case matches nothing there. */
const CLAUDE_TOOLS = ["Bash", "Read", "Write", "Edit", "MultiEdit", "Glob", "Grep", "WebFetch", "WebSearch", "Task", "Agent", "NotebookEdit", "TodoWrite", "LSP"];

/** A matcher token that is a Claude Code tool's name in another case: it matches nothing in Claude Code. */
function caseTwin(token: string): string | undefined {
  return CLAUDE_TOOLS.find((tool) => tool !== token && tool.toLowerCase() === token.toLowerCase());
}

/**
 * Claude Code's matchers are case-sensitive and Tama's names are not: the names that
 * match nothing in Claude Code are left out, so the hook runs where Claude runs it.
 */
function keepClaudeCase(tools: ToolMatcher): { tools: ToolMatcher; dropped: string[] } {
  if (!Array.isArray(tools)) return { tools, dropped: [] };
  const dropped = tools.filter((name) => caseTwin(name) !== undefined);
  return { tools: tools.filter((name) => caseTwin(name) === undefined), dropped };
}

const caseNote = (token: string): string =>
  `Claude Code's matchers are case-sensitive, so there ${JSON.stringify(token)} matches no tool (${caseTwin(token)} does); it is left out here too`;

/** A readable base for an id: the script's file name, else the command's first word. */
/** `<…/tama> run-hook …` (quoted or not, by any path): the one-event interface, as `tama install --claude` writes it. */
export function isTamaRunHook(command: string): boolean {
  const match = /^\s*(?:'([^']*)'|"([^"]*)"|(\S+))\s+run-hook(?:\s|$)/.exec(command);
  const program = match?.[1] ?? match?.[2] ?? match?.[3];
  return program !== undefined && /(?:^|\/)tama(?:\.js)?$/.test(program);
}

export function slugOf(command: string): string {
  const words = command.trim().split(/\s+/);
  const word = words.find((w) => w.includes("/")) ?? words[0] ?? "hook";
  const base = path.basename(word.replace(/^["']|["']$/g, "")).replace(/\.[A-Za-z0-9]+$/, "");
  const slug = base.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^[^A-Za-z0-9]+/, "").slice(0, 48);
  return slug.length > 0 ? slug : "hook";
}

/** `sh -c COMMAND` (or the hook's `shell`), with CLAUDE_PROJECT_DIR set when the command uses it. */
function argvOf(command: string, shell: string, source: SettingsSource, notes: string[], live: boolean): string[] {
  const argv = [shell, "-c", command];
  // Read live, the engine sets CLAUDE_PROJECT_DIR for every hook, as Claude Code does.
  if (live || !command.includes("CLAUDE_PROJECT_DIR")) return argv;
  if (source.projectDir !== undefined) {
    notes.push(`CLAUDE_PROJECT_DIR is set to ${source.projectDir}`);
    return ["env", `CLAUDE_PROJECT_DIR=${source.projectDir}`, ...argv];
  }
  // A user-level hook serves every project: the session's cwd stands for the project.
  notes.push("CLAUDE_PROJECT_DIR is set to the session's cwd when OMP's environment has none");
  return [shell, "-c", `CLAUDE_PROJECT_DIR="\${CLAUDE_PROJECT_DIR:-$PWD}"; export CLAUDE_PROJECT_DIR\n${command}`];
}

function translateHook(
  raw: unknown,
  context: { source: SettingsSource; claudeEvent: string; kind: EventKind; matcher: string | undefined; tools: ToolMatcher | undefined; caseDropped: string[]; when: string[] | undefined; disabled: boolean; live: boolean },
): Candidate | Untranslated {
  const { source, claudeEvent, matcher } = context;
  const at = { source: source.file, claudeEvent, ...(matcher !== undefined && matcher !== "" ? { matcher } : {}) };
  const parsed = ClaudeHook.safeParse(raw);
  if (!parsed.success) return { ...at, what: JSON.stringify(raw).slice(0, 200), why: `not a hook: ${describeSchemaError(parsed.error, "the hook")}` };
  const hook = parsed.data;
  if (hook.type !== "command") {
    return { ...at, what: `${hook.type} hook`, why: "Tama runs command hooks only" };
  }
  const command = hook.command?.trim();
  if (!command) return { ...at, what: "command hook", why: "it has no command" };
  if (isTamaRunHook(command)) {
    return { ...at, what: command, why: "it is Tama's own entry (tama run-hook, as tama install --claude writes it): read as a hook, Tama would run itself again" };
  }
  if (hook.async || hook.asyncRewake) {
    return { ...at, what: command, why: "async: it runs in the background and cannot refuse; Tama waits for every hook" };
  }
  if (hook.once) return { ...at, what: command, why: "once: Claude runs it once per session; Tama would run it every time" };
  const shell = hook.shell ?? "sh";
  if (shell !== "sh" && shell !== "bash") return { ...at, what: command, why: `it names the shell ${JSON.stringify(shell)}; Tama translates sh and bash` };

  const notes: string[] = [];
  // Read live, a project's file applies to that project's sessions only; copied into the registry it applies everywhere.
  if (!context.live && (source.scope === "project" || source.scope === "local")) {
    notes.push(`Claude Code runs it only in ${source.projectDir ?? "its project"}; the registry is global, so it runs in every OMP session`);
  }
  let timeoutMs: number | undefined;
  if (hook.timeout === undefined) notes.push("no timeout: Tama's default 30 s applies (Claude Code's is longer)");
  else {
    timeoutMs = Math.max(1, Math.round(hook.timeout * 1000));
    if (timeoutMs > MAX_TIMEOUT_MS) {
      notes.push(`its ${hook.timeout} s timeout is cut to Tama's longest, 3600 s`);
      timeoutMs = MAX_TIMEOUT_MS;
    }
  }
  for (const cut of ompCutsShort([context.kind], timeoutMs ?? DEFAULT_TIMEOUT_MS)) notes.push(cut.text);
  notes.push(...context.caseDropped.map(caseNote));
  const argv = argvOf(command, shell, source, notes, context.live);
  return {
    hook: {
      description: `from Claude Code ${source.file}: ${claudeEvent}${at.matcher !== undefined ? ` ${at.matcher}` : ""}`,
      events: [context.kind],
      ...(context.tools !== undefined ? { tools: context.tools } : {}),
      ...(RESULTS[claudeEvent] !== undefined ? { results: RESULTS[claudeEvent] } : {}),
      ...(context.when !== undefined ? { when: context.when } : {}),
      command: argv,
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      // A Claude Code hook that crashes does not refuse: the same as failing open.
      failMode: "open",
      ...(context.disabled ? { enabled: false } : {}),
    },
    slug: slugOf(command),
    source: source.file,
    claudeEvent,
    ...(at.matcher !== undefined ? { matcher: at.matcher } : {}),
    command,
    notes,
  };
}

/** Translate one settings file's `hooks`. */
export function translateClaudeSettings(settings: unknown, source: SettingsSource, options: { disabled?: boolean; live?: boolean } = {}): Translation {
  const translation: Translation = { candidates: [], untranslated: [], notes: [] };
  const parsed = ClaudeSettings.safeParse(settings);
  if (!parsed.success) {
    translation.notes.push(`${source.file} is not Claude Code settings: ${describeSchemaError(parsed.error, "the file")}`);
    return translation;
  }
  const disabled = options.disabled === true || parsed.data.disableAllHooks === true;
  if (parsed.data.disableAllHooks) {
    translation.notes.push(`${source.file} sets disableAllHooks, so its hooks are ${options.live === true ? "off" : "imported disabled"}`);
  }
  for (const [claudeEvent, groups] of Object.entries(parsed.data.hooks ?? {})) {
    const kind = CLAUDE_EVENTS[claudeEvent];
    const list = z.array(z.unknown()).safeParse(groups);
    if (!list.success) {
      translation.untranslated.push({ source: source.file, claudeEvent, what: "hooks", why: `${claudeEvent} is not a list of matcher groups` });
      continue;
    }
    for (const rawGroup of list.data) {
      const group = MatcherGroup.safeParse(rawGroup);
      if (!group.success) {
        translation.untranslated.push({ source: source.file, claudeEvent, what: JSON.stringify(rawGroup).slice(0, 200), why: `not a matcher group: ${describeSchemaError(group.error, "the group")}` });
        continue;
      }
      const matcher = group.data.matcher;
      const at = { source: source.file, claudeEvent, ...(matcher ? { matcher } : {}) };
      const whatOf = (raw: unknown): string => ClaudeHook.safeParse(raw).data?.command ?? JSON.stringify(raw).slice(0, 200);
      if (kind === undefined) {
        for (const raw of group.data.hooks) {
          translation.untranslated.push({ ...at, what: whatOf(raw), why: `OMP gives Tama no ${claudeEvent} event` });
        }
        continue;
      }
      // Only tool events read a tool matcher; Claude ignores it on the others.
      const tools = kind === "pre_tool_use" || kind === "post_tool_use" ? translateMatcher(matcher) : ({ ok: true, tools: undefined } as const);
      if (!tools.ok) {
        for (const raw of group.data.hooks) translation.untranslated.push({ ...at, what: whatOf(raw), why: tools.why });
        continue;
      }
      const when = claudeEvent === "SessionStart" || claudeEvent === "SessionEnd" ? sessionMatcher(matcher) : { ok: true as const, when: undefined };
      if (!when.ok) {
        for (const raw of group.data.hooks) translation.untranslated.push({ ...at, what: whatOf(raw), why: when.why });
        continue;
      }
      const cased = tools.tools === undefined ? { tools: undefined, dropped: [] } : keepClaudeCase(tools.tools);
      if (Array.isArray(cased.tools) && cased.tools.length === 0) {
        for (const raw of group.data.hooks) translation.untranslated.push({ ...at, what: whatOf(raw), why: `it never runs in Claude Code: ${caseNote(cased.dropped[0]!)}` });
        continue;
      }
      for (const raw of group.data.hooks) {
        const result = translateHook(raw, { source, claudeEvent, kind, matcher, tools: cased.tools, caseDropped: cased.dropped, when: when.when, disabled, live: options.live === true });
        if ("hook" in result) addCandidate(translation.candidates, result);
        else translation.untranslated.push(result);
      }
    }
  }
  return translation;
}

/**
 * Claude Code runs an identical command once per event, however many of its matching
 * groups name it: such twins become one hook whose matcher takes either group's tools.
 */
function addCandidate(candidates: Candidate[], next: Candidate): void {
  const twin = candidates.find((c) => c.claudeEvent === next.claudeEvent && c.command === next.command);
  if (twin === undefined) {
    candidates.push(next);
    return;
  }
  const a = twin.hook.tools;
  const b = next.hook.tools;
  const tools = a === undefined || b === undefined || a === "any" || b === "any" || !Array.isArray(a) || !Array.isArray(b) ? "any" : [...new Set([...a, ...b])];
  const timeouts = [twin.hook.timeoutMs, next.hook.timeoutMs].filter((t): t is number => t !== undefined);
  // Session matchers join the same way: either group's reasons, or every one when either takes all.
  const whenA = twin.hook.when;
  const whenB = next.hook.when;
  const { when: _whenBefore, ...rest } = twin.hook;
  twin.hook = {
    ...rest,
    ...(twin.hook.tools !== undefined ? { tools } : {}),
    ...(timeouts.length > 0 ? { timeoutMs: Math.max(...timeouts) } : {}),
    ...(whenA !== undefined && whenB !== undefined ? { when: [...new Set([...whenA, ...whenB])] } : {}),
  };
  twin.notes.push(
    `the same command is in the ${JSON.stringify(next.matcher ?? "*")} group too; Claude Code runs it once when both match, so it is one hook matching either`,
  );
}

/** The files Claude Code reads hooks from: the user's, the project's, the project's local one. */
export function claudeSettingsFiles(projectDir: string, home: string = os.homedir()): SettingsSource[] {
  const sources: SettingsSource[] = [
    { file: path.join(home, ".claude", "settings.json"), scope: "user" },
    { file: path.join(projectDir, ".claude", "settings.json"), scope: "project", projectDir },
    { file: path.join(projectDir, ".claude", "settings.local.json"), scope: "local", projectDir },
  ];
  // Run from the home directory, the project file is the user file.
  return sources.filter((s, i) => sources.findIndex((o) => o.file === s.file) === i);
}

/** A file named on the command line: its scope read from where it sits. */
export function namedSettingsFile(file: string, home: string = os.homedir()): SettingsSource {
  const resolved = path.resolve(file);
  if (resolved === path.join(home, ".claude", "settings.json")) return { file: resolved, scope: "user" };
  const dir = path.dirname(resolved);
  if (path.basename(dir) !== ".claude") return { file: resolved, scope: "file" };
  const projectDir = path.dirname(dir);
  return { file: resolved, scope: path.basename(resolved) === "settings.local.json" ? "local" : "project", projectDir };
}

export function readSettingsFile(file: string): { ok: true; settings: unknown } | { ok: false; missing: boolean; error: string } {
  let text: string;
  try {
    text = readRegularFile(file);
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
    return { ok: false, missing, error: `reading ${file}: ${(error as Error).message}` };
  }
  try {
    return { ok: true, settings: JSON.parse(text) };
  } catch (error) {
    return { ok: false, missing: false, error: `parsing ${file}: ${(error as Error).message}` };
  }
}

/** What makes two hooks the same hook, whatever their ids: events, tools and command. */
export function hookIdentity(hook: Pick<NewHook, "events" | "tools" | "command" | "builtin" | "results" | "when">): string {
  return canonicalJson({ events: [...hook.events].sort(), tools: hook.tools ?? "any", command: hook.command, builtin: hook.builtin, results: hook.results, when: hook.when });
}

/** The identities under which a registry hook already covers a candidate: one for every result also covers each kind. */
export function coveredIdentities(hook: Pick<NewHook, "events" | "tools" | "command" | "builtin" | "results">): string[] {
  if (hook.results !== undefined || !hook.events.includes("post_tool_use")) return [hookIdentity(hook)];
  return [hookIdentity(hook), hookIdentity({ ...hook, results: "success" }), hookIdentity({ ...hook, results: "failure" })];
}

/** An id not in `taken`: `claude.<event>.<slug>`, with `-2`, `-3`… when needed. */
export function uniqueId(candidate: Candidate, taken: Set<string>): string {
  const base = `claude.${candidate.hook.events[0] ?? "hook"}.${candidate.slug}`.slice(0, 120);
  let id = base;
  for (let n = 2; taken.has(id); n += 1) id = `${base}-${n}`;
  taken.add(id);
  return id;
}
