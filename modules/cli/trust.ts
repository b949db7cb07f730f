// `tama trust [DIR]`, `tama trust --revoke [DIR]`, `tama trust --list`: the person's
// consent that a project's hooks may run, bound to the exact bytes of its hook sources
// and the in-repository scripts they name. Trusting shows what would run first.
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { readRegistry } from "../registry/edit.ts";
import { findProject, PROJECT_SOURCE_FILES } from "../sources/project.ts";
import { ProjectSources, trustCommand, type LoadedSource } from "../sources/sources.ts";
import { FileDigests, listTrust, removeTrust, writeTrust, type Manifest, type TrustState } from "../sources/trust.ts";
import { tamaPaths } from "../system/paths.ts";
import { eventsOf, runsOf, timeoutOf, toolsOf } from "./hooks/format.ts";
import { CliError, printJson, table } from "./io.ts";

const USAGE = `usage: tama trust [DIR] [--dry-run] [--json]     show what the project's hooks run, then trust that content
       tama trust --revoke [DIR] [--json]        run none of the project's hooks again
       tama trust --list [--json]                the trusted projects and whether their content still matches`;

/** Whether the user turned on Claude Code settings as live sources (false when the registry does not load). */
export function claudeSourcesOn(): boolean {
  try {
    return readRegistry(tamaPaths().registry, { missingOk: true }).file.readClaudeSettings === true;
  } catch {
    return false;
  }
}

export interface ProjectView {
  root: string;
  trust: TrustState;
  changes: string[];
  recordError?: string;
  claudeSources: boolean;
  sources: {
    label: string;
    file: string;
    present: boolean;
    /** Whether its hooks are read at all (Claude files need Claude sources on). */
    read: boolean;
    error?: string;
    hooks: LoadedSource["hooks"];
    untranslated: LoadedSource["untranslated"];
    notes: string[];
  }[];
  scripts: { file: string; digest: string | null }[];
  manifest: Manifest;
}

/** A project's sources, scripts and trust as the engine would read them now. */
export function viewProject(root: string, claudeSources = claudeSourcesOn()): ProjectView {
  const read = new ProjectSources(root, tamaPaths().home, new FileDigests()).read();
  const scripts = new Set(read.sources.flatMap((s) => s.scripts));
  return {
    root,
    trust: read.trust,
    changes: read.changes,
    ...(read.recordError !== undefined ? { recordError: read.recordError } : {}),
    claudeSources,
    sources: read.sources.map((s) => ({
      label: s.label,
      file: s.file,
      present: s.present,
      read: s.label === "project" || claudeSources,
      ...(s.error !== undefined ? { error: s.error } : {}),
      hooks: s.hooks,
      untranslated: s.untranslated,
      notes: s.notes,
    })),
    scripts: [...scripts].map((file) => ({ file, digest: read.manifest[path.relative(root, file)] ?? null })),
    manifest: read.manifest,
  };
}

/** The project a directory is in, by the engine's own rule, or a refusal saying why there is none. */
export function projectOf(dir: string): string {
  const resolved = path.resolve(dir);
  const found = findProject(resolved, os.homedir());
  if (found === undefined) {
    throw new CliError(
      `${resolved} is in no project: a project is the nearest directory holding ${PROJECT_SOURCE_FILES.join(", ")} or .git, below the home directory`,
    );
  }
  return found.root;
}

/** The lines that show one project: its sources, their hooks, the scripts and the trust. */
export function projectLines(view: ProjectView): string[] {
  const lines: string[] = [];
  for (const source of view.sources) {
    const rel = path.relative(view.root, source.file);
    if (!source.present) {
      lines.push(`  ${rel}: none`);
      continue;
    }
    if (source.error !== undefined) {
      lines.push(`  ${rel}: broken, none of its hooks run: ${source.error}`);
      continue;
    }
    const off = source.read ? "" : " (not read: Claude sources are off; `tama hooks claude-sources on`)";
    lines.push(`  ${rel}: ${source.hooks.length} hook${source.hooks.length === 1 ? "" : "s"}${off}`);
    if (source.hooks.length > 0) {
      lines.push(
        indent(
          table([
            ["ID", "EVENTS", "TOOLS", "RUNS", "TIMEOUT"],
            ...source.hooks.map((h) => [h.id, eventsOf(h), toolsOf(h), runsOf(h), timeoutOf(h.timeoutMs)]),
          ]),
          4,
        ),
      );
    }
    for (const u of source.untranslated) lines.push(`    not run: ${u.claudeEvent}${u.matcher !== undefined ? ` ${u.matcher}` : ""} ${u.what}: ${u.why}`);
    for (const note of source.notes) lines.push(`    note: ${note}`);
  }
  if (view.scripts.length > 0) {
    lines.push("  scripts the hooks run:");
    for (const script of view.scripts) {
      lines.push(`    ${path.relative(view.root, script.file)}  ${script.digest === null ? "MISSING (the hook will fail)" : `sha256 ${script.digest.slice(0, 16)}`}`);
    }
  }
  return lines;
}

export function trustText(view: ProjectView): string {
  switch (view.trust) {
    case "trusted":
      return "trusted at this content";
    case "changed":
      return `CHANGED since it was trusted (${view.changes.join(", ")}): its hooks are held and its tool calls refused`;
    case "untrusted":
      return view.recordError !== undefined ? `not trusted (${view.recordError})` : "not trusted: its hooks are held";
  }
}

function indent(text: string, by: number): string {
  return text
    .split("\n")
    .map((line) => `${" ".repeat(by)}${line}`)
    .join("\n");
}

export function trustCommandCli(argv: string[]): number {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { revoke: { type: "boolean" }, list: { type: "boolean" }, "dry-run": { type: "boolean" }, json: { type: "boolean" }, help: { type: "boolean", short: "h" } },
    allowPositionals: true,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (positionals.length > 1 || (values.list && (values.revoke || positionals.length > 0))) throw new CliError(USAGE, 2);
  if (values.list) return list(values.json === true);
  if (values.revoke) return revoke(positionals[0] ?? process.cwd(), values.json === true);
  return trust(positionals[0] ?? process.cwd(), values["dry-run"] === true, values.json === true);
}

function trust(dir: string, dryRun: boolean, json: boolean): number {
  const root = projectOf(dir);
  const view = viewProject(root);
  if (!view.sources.some((s) => s.present)) {
    throw new CliError(`project ${root} has no hook sources (${PROJECT_SOURCE_FILES.join(", ")}): there is nothing to trust`);
  }
  const home = tamaPaths().home;
  let file: string | undefined;
  if (!dryRun && view.trust !== "trusted") file = writeTrust(home, { schema: 1, project: root, trustedAtMs: Date.now(), files: view.manifest });
  const after = dryRun ? view.trust : "trusted";
  if (json) {
    printJson({ project: root, dryRun, before: view.trust, trust: after, changes: view.changes, record: file ?? null, sources: view.sources, scripts: view.scripts, files: view.manifest });
    return 0;
  }
  const lines = [`Project ${root}`, ...projectLines(view)];
  if (view.trust === "changed") lines.push(`Changed since it was last trusted: ${view.changes.join(", ")}.`);
  if (dryRun) lines.push(`Nothing was recorded (--dry-run); \`${trustCommand(root)}\` trusts this content.`);
  else if (view.trust === "trusted") lines.push("Already trusted at this content; nothing changed.");
  else {
    lines.push(
      `Trusted: the digests of ${Object.keys(view.manifest).length} files are recorded in ${file}. Its hooks run from the next event;`,
      "a change to any of these files holds them again (and refuses the project's tool calls) until you trust it again.",
    );
  }
  process.stdout.write(`${lines.join("\n")}\n`);
  return 0;
}

function revoke(dir: string, json: boolean): number {
  const resolved = path.resolve(dir);
  const home = tamaPaths().home;
  // A project whose files are gone is still revoked by its directory.
  let root = resolved;
  try {
    root = projectOf(resolved);
  } catch {
    // use the directory as named
  }
  let removed = removeTrust(home, root);
  if (!removed && root !== resolved && removeTrust(home, resolved)) {
    removed = true;
    root = resolved;
  }
  if (json) {
    printJson({ project: root, revoked: removed });
    return 0;
  }
  process.stdout.write(removed ? `Revoked: the hooks of ${root} run no more until \`${trustCommand(root)}\`.\n` : `${root} was not trusted; nothing to revoke.\n`);
  return 0;
}

function list(json: boolean): number {
  const { records, unread } = listTrust(tamaPaths().home);
  const claude = claudeSourcesOn();
  const rows = records.map((record) => {
    const view = viewProject(record.project, claude);
    return { project: record.project, trustedAtMs: record.trustedAtMs, trust: view.trust, changes: view.changes, files: Object.keys(record.files).length };
  });
  if (json) {
    printJson({ projects: rows, unread });
    return unread.length > 0 ? 1 : 0;
  }
  const lines: string[] = [];
  if (rows.length === 0) lines.push("No project is trusted. `tama trust DIR` shows a project's hooks and trusts them.");
  else {
    lines.push(
      table([
        ["PROJECT", "TRUSTED AT", "FILES", "NOW"],
        ...rows.map((r) => [r.project, new Date(r.trustedAtMs).toISOString(), String(r.files), r.trust === "trusted" ? "matches" : `changed: ${r.changes.join(", ")}`]),
      ]),
    );
  }
  for (const u of unread) lines.push(`unreadable: ${u.file}: ${u.error}`);
  process.stdout.write(`${lines.join("\n")}\n`);
  return unread.length > 0 ? 1 : 0;
}
