// `tama hooks import --from-claude [settings.json…]`: Claude Code's command hooks
// into the registry, with their matchers and timeouts; what cannot be translated
// is listed with the reason. Importing again adds nothing already there.
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import {
  claudeSettingsFiles,
  coveredIdentities,
  hookIdentity,
  namedSettingsFile,
  readSettingsFile,
  translateClaudeSettings,
  uniqueId,
  type Candidate,
  type NewHook,
  type SettingsSource,
  type Untranslated,
} from "../../claude/settings.ts";
import { editRegistry } from "../../registry/edit.ts";
import { commandWarnings, editing, REGISTRY_OPTIONS, registryPath } from "./edit.ts";
import { eventsOf, runsOf, shorten, timeoutOf, toolsOf } from "./format.ts";
import { CliError, printJson, table } from "../io.ts";

interface Imported {
  id: string;
  hook: NewHook;
  source: string;
  claudeEvent: string;
  matcher?: string;
  notes: string[];
  warnings: string[];
}

/** `~/…` for paths under the home directory: shorter lines. */
function tilde(file: string): string {
  const home = os.homedir();
  return file.startsWith(`${home}${path.sep}`) ? `~${file.slice(home.length)}` : file;
}

export function importHooks(argv: string[]): number {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      ...REGISTRY_OPTIONS,
      "from-claude": { type: "boolean" },
      project: { type: "string" },
      "dry-run": { type: "boolean" },
      disabled: { type: "boolean" },
      prestart: { type: "boolean" },
      "fail-mode": { type: "string" },
    },
    allowPositionals: true,
  });
  if (!values["from-claude"]) throw new CliError("name the source: --from-claude", 2);
  const failMode = values["fail-mode"];
  if (failMode !== undefined && failMode !== "open" && failMode !== "closed") throw new CliError(`--fail-mode is open or closed, not ${JSON.stringify(failMode)}`, 2);
  const project = path.resolve(values.project ?? process.cwd());
  const named = positionals.length > 0;
  const sources: SettingsSource[] = named ? positionals.map((f) => namedSettingsFile(f)) : claudeSettingsFiles(project);

  const read: { source: SettingsSource; found: boolean; error?: string }[] = [];
  const candidates: Candidate[] = [];
  const untranslated: Untranslated[] = [];
  const notes: string[] = [];
  for (const source of sources) {
    const file = readSettingsFile(source.file);
    if (!file.ok) {
      // Absent default files are normal; a named file that cannot be read is not.
      if (file.missing && !named) read.push({ source, found: false });
      else throw new CliError(`${file.error}. Name a Claude Code settings file: tama hooks import --from-claude PATH`);
      continue;
    }
    read.push({ source, found: true });
    const translation = translateClaudeSettings(file.settings, source, { disabled: values.disabled === true });
    candidates.push(...translation.candidates);
    untranslated.push(...translation.untranslated);
    notes.push(...translation.notes);
  }
  if (!read.some((r) => r.found)) {
    throw new CliError(`no Claude Code settings at ${sources.map((s) => tilde(s.file)).join(", ")}; name the file: tama hooks import --from-claude PATH`);
  }

  const file = registryPath(values.registry);
  const outcome = editing(() =>
    editRegistry(
      file,
      (hooks, current) => {
        const known = new Map(current.hooks.flatMap((h) => coveredIdentities(h).map((identity) => [identity, h.id] as const)));
        const taken = new Set(current.hooks.map((h) => h.id));
        const imported: Imported[] = [];
        const existing: { id: string; source: string; command: string }[] = [];
        for (const candidate of candidates) {
          const identity = hookIdentity(candidate.hook);
          const already = known.get(identity);
          if (already !== undefined) {
            // Each id once: the same hook named again (by another file, or twice in one) adds nothing.
            if (!existing.some((e) => e.id === already) && !imported.some((i) => i.id === already)) {
              existing.push({ id: already, source: candidate.source, command: candidate.command });
            }
            continue;
          }
          const id = uniqueId(candidate, taken);
          known.set(identity, id);
          const hook: NewHook = { id, ...candidate.hook, ...(values.prestart ? { prestart: true } : {}), ...(failMode !== undefined ? { failMode } : {}) };
          imported.push({
            id,
            hook,
            source: candidate.source,
            claudeEvent: candidate.claudeEvent,
            ...(candidate.matcher !== undefined ? { matcher: candidate.matcher } : {}),
            notes: candidate.notes,
            warnings: commandWarnings(candidate.hook.command ?? [], failMode ?? "open"),
          });
        }
        return { hooks: [...hooks, ...imported.map((i) => i.hook)], detail: { imported, existing } };
      },
      { dryRun: values["dry-run"] === true },
    ),
  );
  const { imported, existing } = outcome.detail;
  if (imported.length > 0) {
    notes.push(
      values.prestart
        ? "imported hooks are pre-started: each one's process starts before its event and waits on stdin, so whatever a script does before it reads stdin sees the state from before the event"
        : "imported hooks start when their event comes; a script that reads stdin before doing anything else can start earlier: import with --prestart, or set \"prestart\": true on the hook",
    );
  }
  const dryRun = values["dry-run"] === true;
  // Nothing to import and nothing already there: the files held no hook Tama can run.
  const code = imported.length === 0 && existing.length === 0 ? 1 : 0;
  if (values.json) {
    printJson({
      registry: file,
      dryRun,
      checksum: outcome.checksum,
      sources: read.map((r) => ({ file: r.source.file, scope: r.source.scope, found: r.found })),
      imported: imported.map((i) => ({ ...i, hook: outcome.file.hooks.find((h) => h.id === i.id) })),
      existing,
      notTranslated: untranslated,
      notes,
      ...(code !== 0 ? { ok: false, exitCode: code, error: nothingImported(untranslated.length) } : {}),
    });
    return code;
  }
  process.stdout.write(`${report({ file, dryRun, read, imported, existing, untranslated, notes })}\n`);
  if (code !== 0) process.stderr.write(`tama hooks import: ${nothingImported(untranslated.length)}\n`);
  return code;
}

function nothingImported(untranslated: number): string {
  return untranslated === 0
    ? "nothing was imported: the settings hold no command hooks"
    : `nothing was imported: none of the ${untranslated} hook${untranslated === 1 ? "" : "s"} found could be translated (see "Not translated")`;
}

function report(r: {
  file: string;
  dryRun: boolean;
  read: { source: SettingsSource; found: boolean }[];
  imported: Imported[];
  existing: { id: string; source: string; command: string }[];
  untranslated: Untranslated[];
  notes: string[];
}): string {
  const lines = [`Read ${r.read.filter((x) => x.found).map((x) => tilde(x.source.file)).join(", ")}.`];
  const verb = r.dryRun ? "Would import" : "Imported";
  if (r.imported.length === 0) lines.push(`${verb} no new hook into ${r.file}.`);
  else {
    lines.push(`${verb} ${r.imported.length} hook${r.imported.length === 1 ? "" : "s"} into ${r.file}:`);
    lines.push(
      indent(
        table([
          ["ID", "EVENT", "TOOLS", "RUNS", "TIMEOUT", "FROM"],
          ...r.imported.map((i) => [i.id, eventsOf(i.hook), toolsOf(i.hook), runsOf(i.hook), timeoutOf(i.hook.timeoutMs), tilde(i.source)]),
        ]),
      ),
    );
    for (const i of r.imported) for (const note of [...i.notes, ...i.warnings.map((w) => `warning: ${w}`)]) lines.push(`  ${i.id}: ${note}`);
  }
  if (r.existing.length > 0) {
    lines.push(`Already in the registry (not added again): ${r.existing.map((e) => e.id).join(", ")}.`);
  }
  if (r.untranslated.length > 0) {
    lines.push(`Not translated (${r.untranslated.length}):`);
    lines.push(
      indent(
        table(r.untranslated.map((u) => [`${u.claudeEvent}${u.matcher !== undefined ? ` ${u.matcher}` : ""}`, shorten(u.what, 40), `${u.why} (${tilde(u.source)})`])),
      ),
    );
  }
  for (const note of r.notes) lines.push(`Note: ${note}.`);
  if (r.dryRun) lines.push("Nothing was written (--dry-run).");
  else if (r.imported.length > 0) lines.push("Engines adopt them at their next event; `tama hooks disable ID` turns one off.");
  return lines.join("\n");
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => `  ${line}`)
    .join("\n");
}
