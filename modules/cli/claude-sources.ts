// Whether Tama reads Claude Code's settings files as live hook sources: a setting of
// the user registry (`readClaudeSettings`). `tama hooks claude-sources on|off` sets it;
// `tama install` offers it when it finds Claude Code settings, and says what would run.
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { editRegistry, readRegistry } from "../registry/edit.ts";
import { parseSource } from "../sources/sources.ts";
import { tamaPaths } from "../system/paths.ts";
import { editing } from "./hooks/edit.ts";
import { eventsOf, runsOf } from "./hooks/format.ts";
import { CliError, printJson } from "./io.ts";

export function setClaudeSources(file: string, on: boolean): { changed: boolean } {
  const outcome = editing(() =>
    editRegistry(file, (hooks, current) => ({ hooks, detail: { changed: (current.readClaudeSettings === true) !== on }, settings: { readClaudeSettings: on } })),
  );
  return outcome.detail;
}

/** The user's Claude Code hooks, as they would run live; undefined when there is no such file. */
export function userClaudeHooks(): { file: string; runs: string[]; error?: string } | undefined {
  const file = path.join(os.homedir(), ".claude", "settings.json");
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  const source = parseSource("claude-user", file, text, undefined);
  return { file, runs: source.hooks.map((h) => `${eventsOf(h)}: ${runsOf(h)}`), ...(source.error !== undefined ? { error: source.error } : {}) };
}

/** What `tama install` says about Claude sources: the change it made, or the offer. */
export function installClaudeSources(option: string | undefined): string[] {
  const file = tamaPaths().registry;
  if (option !== undefined) {
    if (option !== "on" && option !== "off") throw new CliError("--claude-sources takes on or off", 2);
    setClaudeSources(file, option === "on");
    return [`Claude sources: ${option} (readClaudeSettings in ${file}).`];
  }
  let on: boolean | undefined;
  try {
    on = readRegistry(file, { missingOk: true }).file.readClaudeSettings;
  } catch {
    return [];
  }
  if (on !== undefined) return [`Claude sources: ${on ? "on" : "off"}.`];
  const found = userClaudeHooks();
  if (found === undefined) return [];
  return [
    `Found Claude Code settings at ${found.file}${found.error !== undefined ? ` (it does not load: ${found.error})` : ""}.`,
    "Tama can read Claude Code's settings files live — yours, and each project's .claude/settings.json and",
    ".claude/settings.local.json once you `tama trust` that project — instead of a copy made by `tama hooks import`.",
    found.runs.length > 0 ? `From yours it would run, in every session:\n${found.runs.map((r) => `  ${r}`).join("\n")}` : "Yours holds no hook Tama can run.",
    "Turn it on with `tama hooks claude-sources on` (or `tama install --omp --claude-sources on`); `--claude-sources off` stops this offer.",
  ];
}

export function claudeSourcesCommand(argv: string[]): number {
  const json = argv.includes("--json");
  const [value] = argv.filter((a) => a !== "--json");
  const file = tamaPaths().registry;
  if (value === undefined || value === "status") {
    const on = editing(() => readRegistry(file, { missingOk: true })).file.readClaudeSettings === true;
    if (json) printJson({ registry: file, claudeSources: on });
    else process.stdout.write(`Claude sources: ${on ? "on" : "off"} (readClaudeSettings in ${file}).\n`);
    return 0;
  }
  if (value !== "on" && value !== "off") throw new CliError("usage: tama hooks claude-sources [on|off|status] [--json]", 2);
  const { changed } = setClaudeSources(file, value === "on");
  if (json) printJson({ registry: file, claudeSources: value === "on", changed });
  else {
    process.stdout.write(
      value === "on"
        ? `Claude sources: on. Engines read ~/.claude/settings.json, and a trusted project's .claude/settings.json and .claude/settings.local.json, from their next event.\n`
        : "Claude sources: off. Claude Code's settings files are not read (imported copies in the registry still run).\n",
    );
  }
  return 0;
}
