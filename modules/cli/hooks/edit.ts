// `tama hooks list|add|remove|enable|disable`: the registry without hand-editing JSON.
// Every change goes through registry-edit.ts (validated, checksum kept, atomic).
import { readFileSync } from "node:fs";
import os from "node:os";
import { ompCutsShort } from "../../registry/omp-limits.ts";
import path from "node:path";
import { parseArgs } from "node:util";
import { findProject } from "../../sources/project.ts";
import { parseSource, trustCommand, type LoadedSource } from "../../sources/sources.ts";
import { projectLines, projectOf, trustText, viewProject, type ProjectView } from "../trust.ts";
import * as z from "../../protocol/schema.ts";
import { CLAUDE_EVENTS, type NewHook } from "../../claude/settings.ts";
import { programsOf, resolveProgram } from "../../system/command-path.ts";
import { builtinGate } from "../../gates/index.ts";
import { EnvError, tamaPaths } from "../../system/paths.ts";
import { EVENT_KINDS, EventKind, isToolEvent } from "../../protocol/engine.ts";
import { editRegistry, hookIndex, readRegistry, RegistryEditError, UnknownHookError } from "../../registry/edit.ts";
import { HOOK_ID_PATTERN, type HookEntry, type ToolMatcher } from "../../registry/registry.ts";
import { HookSelection } from "../../engine/selection.ts";
import { eventsOf, runsOf, shellJoin, timeoutOf, toolsOf } from "./format.ts";
import { CliError, printJson, table } from "../io.ts";

export const REGISTRY_OPTIONS = {
  json: { type: "boolean" },
  registry: { type: "string" },
} as const;

/** The registry a command edits: --registry, else TAMA_REGISTRY, else $TAMA_HOME/hooks/registry.json. */
export function registryPath(option: string | undefined): string {
  return option ? path.resolve(option) : tamaPaths().registry;
}

/** Run a registry operation, turning its refusal into a CLI error. */
export function editing<T>(operation: () => T): T {
  try {
    return operation();
  } catch (error) {
    if (error instanceof UnknownHookError) throw new CliError(error.message, 2);
    if (error instanceof RegistryEditError || error instanceof EnvError) throw new CliError(error.message);
    throw error;
  }
}

export function listHooks(argv: string[]): number {
  const { values } = parseArgs({ args: argv, options: { ...REGISTRY_OPTIONS, project: { type: "string" } } });
  const file = registryPath(values.registry);
  const snapshot = editing(() => readRegistry(file, { missingOk: false }));
  const selection = editing(() => HookSelection.fromEnv());
  const selected = new Set(selection.filter(snapshot.file.hooks).map((h) => h.id));
  const hooks = snapshot.file.hooks.map((hook) => ({ ...hook, selected: selected.has(hook.id) }));
  const others = otherSources(snapshot.file.readClaudeSettings === true, values.project);
  if (values.json) {
    printJson({
      registry: file,
      release: snapshot.file.release,
      checksum: snapshot.checksum,
      checksumDeclared: snapshot.file.checksum !== undefined,
      hooks,
      claudeSources: snapshot.file.readClaudeSettings === true,
      ...(others.userClaude !== undefined ? { userClaude: others.userClaude } : {}),
      ...(others.project !== undefined ? { project: others.project } : {}),
    });
    return 0;
  }
  const lines = [`${file}  release ${snapshot.file.release?.id ?? "none"}  checksum ${snapshot.checksum.slice(0, 12)}`];
  if (hooks.length === 0) lines.push("No hooks. Add one with `tama hooks add` or `tama hooks import --from-claude`.");
  else {
    lines.push(
      table([
        ["ID", "EVENTS", "TOOLS", "RUNS", "TIMEOUT", "FAIL", "ENABLED"],
        ...hooks.map((h) => [h.id, eventsOf(h), toolsOf(h), runsOf(h), timeoutOf(h.timeoutMs), h.failMode, enabledText(h)]),
      ]),
    );
  }
  if (others.userClaude !== undefined) {
    const u = others.userClaude;
    lines.push("", `${u.file} (Claude Code, the user's: no trust needed): ${!u.present ? "none" : u.error !== undefined ? `broken, none of its hooks run: ${u.error}` : `${u.hooks.length} hooks`}`);
    if (u.hooks.length > 0) lines.push(table([["ID", "EVENTS", "TOOLS", "RUNS", "TIMEOUT"], ...u.hooks.map((h) => [h.id, eventsOf(h), toolsOf(h), runsOf(h), timeoutOf(h.timeoutMs)])]));
  }
  if (others.project !== undefined) {
    lines.push("", `Project ${others.project.root}: ${trustText(others.project)}`, ...projectLines(others.project));
    if (others.project.trust !== "trusted") lines.push(`  \`${trustCommand(others.project.root)}\` shows them and lets them run.`);
  }
  process.stdout.write(`${lines.join("\n")}\n`);
  return 0;
}

/** The user's Claude Code file (when Claude sources are on) and a project's sources (--project, else the cwd's when it has any). */
function otherSources(claude: boolean, projectOption: string | undefined): { userClaude?: LoadedSource; project?: ProjectView } {
  const out: { userClaude?: LoadedSource; project?: ProjectView } = {};
  if (claude) {
    const file = path.join(os.homedir(), ".claude", "settings.json");
    let text: string | undefined;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      text = undefined;
    }
    out.userClaude =
      text === undefined
        ? { label: "claude-user", file, present: false, digest: null, hooks: [], scripts: [], untranslated: [], notes: [] }
        : parseSource("claude-user", file, text, undefined);
  }
  const root = projectOption !== undefined ? projectOf(projectOption) : findProject(process.cwd(), os.homedir())?.root;
  if (root !== undefined) {
    const view = viewProject(root, claude);
    if (projectOption !== undefined || view.sources.some((s) => s.present)) out.project = view;
  }
  return out;
}

/** The registry's `enabled`, and what TAMA_ONLY_HOOK_ID / TAMA_*_HOOKS make of it here. */
function enabledText(hook: HookEntry & { selected: boolean }): string {
  const base = hook.enabled ? "yes" : "no";
  return hook.selected === hook.enabled ? base : `${base} (${hook.selected ? "on" : "off"} by env)`;
}

const Argv = z.array(z.string().check(z.minLength(1))).check(z.minLength(1));

function eventOf(name: string): EventKind {
  const kind = CLAUDE_EVENTS[name] ?? EventKind.safeParse(name).data;
  if (kind === undefined) {
    throw new CliError(`unknown event ${JSON.stringify(name)}: use one of ${EVENT_KINDS.join(", ")} (or Claude's names: ${Object.keys(CLAUDE_EVENTS).join(", ")})`, 2);
  }
  return kind;
}

function toolsOption(value: string): ToolMatcher {
  if (value === "any" || value === "shell" || value === "write") return value;
  const names = value.split(",").map((n) => n.trim()).filter((n) => n.length > 0);
  if (names.length === 0) throw new CliError(`--tools takes shell, write, any, or tool names separated by commas (e.g. Bash,Write)`, 2);
  return names;
}

function commandOption(json: string | undefined, afterDashes: string[]): string[] | undefined {
  if (json !== undefined && afterDashes.length > 0) throw new CliError("give the command once: --command '[\"prog\",\"arg\"]' or after --", 2);
  if (afterDashes.length > 0) return afterDashes;
  if (json === undefined) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    raw = undefined;
  }
  const argv = Argv.safeParse(raw);
  if (!argv.success) {
    throw new CliError(`--command takes the argv as a JSON array, e.g. --command '["python3","/home/me/hook.py"]'; or put the argv after --`, 2);
  }
  return argv.data;
}

/** Warnings for a command whose program cannot be found from here. */
export function commandWarnings(argv: readonly string[], failMode: "open" | "closed"): string[] {
  return programsOf(argv).flatMap((program) => {
    const found = resolveProgram(program);
    if (found.ok) return [];
    const effect = failMode === "closed" ? "refuses every call it matches" : "fails open (gives no verdict)";
    return [`${found.why}: until it can start, the hook ${effect}${found.relative ? "" : "; OMP's PATH may differ from this shell's"}`];
  });
}

export function addHook(argv: string[]): number {
  const { values, tokens } = parseArgs({
    args: argv,
    options: {
      ...REGISTRY_OPTIONS,
      id: { type: "string" },
      event: { type: "string", multiple: true },
      tools: { type: "string" },
      command: { type: "string" },
      builtin: { type: "string" },
      "timeout-ms": { type: "string" },
      "fail-mode": { type: "string" },
      description: { type: "string" },
      disabled: { type: "boolean" },
      prestart: { type: "boolean" },
    },
    allowPositionals: true,
    tokens: true,
  });
  const terminator = tokens.find((t) => t.kind === "option-terminator")?.index ?? argv.length;
  const stray = tokens.find((t) => t.kind === "positional" && t.index < terminator);
  if (stray?.kind === "positional") throw new CliError(`unexpected argument ${JSON.stringify(stray.value)}: a command's argv goes after --`, 2);
  const command = commandOption(values.command, argv.slice(terminator + 1));
  if ((command === undefined) === (values.builtin === undefined)) {
    throw new CliError("name what the hook runs: --command '[\"prog\",\"arg\"]', the argv after --, or --builtin ID (see `tama hooks builtins`)", 2);
  }
  const gate = values.builtin === undefined ? undefined : builtinGate(values.builtin);
  if (values.builtin !== undefined && gate === undefined) {
    throw new CliError(`no built-in gate ${JSON.stringify(values.builtin)}; \`tama hooks builtins\` lists them`, 2);
  }
  const id = values.id ?? gate?.id;
  if (id === undefined) throw new CliError("give the hook an id: --id NAME (letters, digits, '.', '_', ':', '-')", 2);
  if (!HOOK_ID_PATTERN.test(id)) throw new CliError(`--id ${JSON.stringify(id)} is not a hook id: 1-128 letters, digits, '.', '_', ':' or '-', starting with a letter or digit`, 2);
  const eventNames = (values.event ?? []).flatMap((e) => e.split(",")).map((e) => e.trim());
  const events = [...new Set(eventNames.map(eventOf))];
  // Claude's result events name which results the hook reads; post_tool_use (or both) reads every one.
  const results = eventNames.includes("post_tool_use") || (eventNames.includes("PostToolUse") && eventNames.includes("PostToolUseFailure"))
    ? undefined
    : eventNames.includes("PostToolUseFailure") ? "failure" : eventNames.includes("PostToolUse") ? "success" : undefined;
  if (events.length === 0 && gate) events.push(...gate.events);
  if (events.length === 0) throw new CliError(`name the event(s): --event pre_tool_use (one of ${EVENT_KINDS.join(", ")})`, 2);
  if (values.tools !== undefined && !events.some(isToolEvent)) throw new CliError("--tools applies to pre_tool_use and post_tool_use hooks only", 2);
  const timeout = values["timeout-ms"];
  if (timeout !== undefined && !/^\d+$/.test(timeout)) throw new CliError(`--timeout-ms takes a whole number of milliseconds, not ${JSON.stringify(timeout)}`, 2);
  const failMode = values["fail-mode"];
  if (failMode !== undefined && failMode !== "open" && failMode !== "closed") throw new CliError("--fail-mode is open or closed", 2);
  if (values.prestart && command === undefined) throw new CliError("--prestart applies to command hooks: a built-in gate starts no process", 2);

  const hook: NewHook = {
    id,
    ...(values.description !== undefined ? { description: values.description } : {}),
    events,
    ...(values.tools !== undefined ? { tools: toolsOption(values.tools) } : {}),
    ...(results !== undefined ? { results } : {}),
    ...(command !== undefined ? { command } : { builtin: values.builtin }),
    ...(timeout !== undefined ? { timeoutMs: Number(timeout) } : {}),
    ...(failMode !== undefined ? { failMode } : {}),
    ...(values.disabled ? { enabled: false } : {}),
    ...(values.prestart ? { prestart: true } : {}),
  };
  const file = registryPath(values.registry);
  const outcome = editing(() =>
    editRegistry(file, (hooks) => {
      if (hooks.some((h) => h.id === id)) {
        throw new RegistryEditError(`a hook ${JSON.stringify(id)} is already in ${file}: choose another --id, or \`tama hooks remove ${id}\` first`);
      }
      return { hooks: [...hooks, hook], detail: undefined };
    }),
  );
  const added = outcome.file.hooks.find((h) => h.id === id);
  const warnings = [
    ...(command !== undefined ? commandWarnings(command, added?.failMode ?? "open") : []),
    ...(added ? ompCutsShort(added.events, added.timeoutMs).map((cut) => cut.text) : []),
  ];
  if (values.json) {
    printJson({ action: "added", registry: file, created: outcome.created, checksum: outcome.checksum, hook: added, warnings });
    return 0;
  }
  const runs = command !== undefined ? shellJoin(command) : `builtin ${values.builtin ?? ""}`;
  process.stdout.write(`Added ${id} (${events.join(",")}${added && events.some(isToolEvent) ? `, tools ${toolsOf(added)}` : ""}: ${runs}) to ${file}.\n`);
  for (const warning of warnings) process.stdout.write(`warning: ${warning}\n`);
  if (values.prestart) {
    process.stdout.write(
      "Pre-started: its process starts before its event and waits on stdin; anything it does before reading stdin sees the state from before the event.\n",
    );
  }
  process.stdout.write("Engines adopt it at their next event.\n");
  return 0;
}

export function removeHooks(argv: string[]): number {
  const { values, positionals } = parseArgs({ args: argv, options: REGISTRY_OPTIONS, allowPositionals: true });
  if (positionals.length === 0) throw new CliError("name the hook(s) to remove: tama hooks remove ID [ID…] (`tama hooks list` shows them)", 2);
  const file = registryPath(values.registry);
  const outcome = editing(() =>
    editRegistry(file, (hooks) => {
      for (const id of positionals) hookIndex(hooks, id, file);
      return { hooks: hooks.filter((h) => !positionals.includes(h.id)), detail: undefined };
    }),
  );
  if (values.json) printJson({ action: "removed", registry: file, checksum: outcome.checksum, removed: positionals });
  else process.stdout.write(`Removed ${positionals.join(", ")} from ${file}.\n`);
  return 0;
}

export function setEnabled(argv: string[], enabled: boolean): number {
  const { values, positionals } = parseArgs({ args: argv, options: REGISTRY_OPTIONS, allowPositionals: true });
  const verb = enabled ? "enable" : "disable";
  if (positionals.length === 0) throw new CliError(`name the hook(s): tama hooks ${verb} ID [ID…] (\`tama hooks list\` shows them)`, 2);
  const file = registryPath(values.registry);
  const outcome = editing(() =>
    editRegistry(file, (hooks, current) => {
      const changed: string[] = [];
      for (const id of positionals) {
        const index = hookIndex(hooks, id, file);
        if (current.hooks[index]?.enabled === enabled) continue;
        hooks[index] = { ...hooks[index], id, enabled };
        changed.push(id);
      }
      return { hooks, detail: changed };
    }),
  );
  const changed = outcome.detail;
  const unchanged = positionals.filter((id) => !changed.includes(id));
  if (values.json) {
    printJson({ action: enabled ? "enabled" : "disabled", registry: file, checksum: outcome.checksum, changed, unchanged });
    return 0;
  }
  const done = enabled ? "Enabled" : "Disabled";
  const lines = [];
  if (changed.length > 0) lines.push(`${done} ${changed.join(", ")} in ${file}.`);
  if (unchanged.length > 0) lines.push(`Already ${enabled ? "enabled" : "disabled"}: ${unchanged.join(", ")}.`);
  const overridden = editing(() => HookSelection.fromEnv()).filter(outcome.file.hooks.filter((h) => positionals.includes(h.id)));
  const byEnv = positionals.filter((id) => overridden.some((h) => h.id === id) !== enabled);
  if (byEnv.length > 0) lines.push(`Note: TAMA_ONLY_HOOK_ID / TAMA_ENABLED_HOOKS / TAMA_DISABLED_HOOKS in this environment ${enabled ? "keep" : "turn"} ${byEnv.join(", ")} ${enabled ? "off" : "on"}.`);
  process.stdout.write(`${lines.join("\n")}\n`);
  return 0;
}
