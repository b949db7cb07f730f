// The hook sources of one dispatch, read like the registry: every dispatch reads each
// file, unchanged bytes are not parsed again, and a source that does not load is a
// rejected replacement of that source only — the dispatch names it and runs none of
// its hooks, and the other sources keep working. The user registry stays what it was:
// when it does not load, the dispatch runs no hook at all.
//
// Order: the user's hooks (registry, then ~/.claude/settings.json), then the
// project's (.tama/hooks.json, .claude/settings.json, .claude/settings.local.json),
// each in its file's order. The user's gates come first because they are the policy
// the person set for every session; a project adds to it and cannot run before it.
import path from "node:path";
import { lineColumn, locateJsonError } from "../registry/json-error.ts";
import { parseRegistry, type Generation, type HookEntry, type RefreshOutcome, type RegistryStore } from "../registry/registry.ts";
import { translateClaudeSettings, uniqueId, type SettingsSource, type Untranslated } from "../claude/settings.ts";
import { HookEntry as HookEntrySchema } from "../registry/registry.ts";
import { findProject, PROJECT_SOURCE_FILES, type Project } from "./project.ts";
import { scriptsNamed } from "./scripts.ts";
import type { BrokenSource, HeldProject } from "../protocol/engine.ts";
import { ABSENT, readKey, statKey as statKeyOf, statOf } from "../system/stat-key.ts";
import { FileDigests, readTrustText, sha256, trustFile, trustStateOf, writeTrust, type Manifest, type TrustRead, type TrustState } from "./trust.ts";
import { readRegularFile } from "../system/regular-file.ts";

/** Where a hook comes from: the prefix of its id outside the user registry. */
export type SourceLabel = "registry" | "claude-user" | "project" | "claude-project" | "claude-local";

export const PROJECT_LABELS: Readonly<Record<(typeof PROJECT_SOURCE_FILES)[number], SourceLabel>> = {
  ".tama/hooks.json": "project",
  ".claude/settings.json": "claude-project",
  ".claude/settings.local.json": "claude-local",
};

export interface HookOrigin {
  label: SourceLabel;
  file: string;
  /** Set for a project's hooks: they run in the project root. */
  projectRoot?: string;
}

/** A hook as a dispatch runs it: its id qualified by its source (`claude-project:…`). */
export type SourcedHook = HookEntry & { origin: HookOrigin };

export interface LoadedSource {
  label: SourceLabel;
  file: string;
  present: boolean;
  /** SHA-256 of the bytes; null when the file is absent. */
  digest: string | null;
  hooks: SourcedHook[];
  /** The in-project files the hooks' commands name (project sources only). */
  scripts: string[];
  untranslated: Untranslated[];
  notes: string[];
  /** Set when the file is there but does not load: none of its hooks run. */
  error?: string;
  /** A Claude file's disableAllHooks, when it sets one. */
  disableAllHooks?: boolean;
}


export interface ProjectHooks {
  root: string;
  trust: TrustState;
  /** The files that differ from the trust record. */
  changes: string[];
  /** Hooks not run because the project is not trusted at this content. */
  held: string[];
  /** What the person runs to trust it. */
  command: string;
  /** A trust record that could not be read (the project is then held as untrusted). */
  recordError?: string;
}

export type SourcesOutcome =
  | { ok: false; error: string; generation: Generation | undefined }
  | {
      ok: true;
      generation: Generation;
      changed: boolean;
      /** What runs, in order, before the dispatch's own selection. */
      hooks: SourcedHook[];
      broken: BrokenSource[];
      project: ProjectHooks | undefined;
      /** The session's project root, with or without sources: CLAUDE_PROJECT_DIR for every hook. */
      projectRoot: string | undefined;
      /** Set when a trusted project's hook content changed: its tool calls are refused with this. */
      refusal: string | undefined;
      /** Every file this answer was read from (or probed for), with its stat key before the read. */
      files: [string, string][];
    };

const shellWord = (word: string): string => (/^[A-Za-z0-9_./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

export function trustCommand(root: string): string {
  return `tama trust ${shellWord(root)}`;
}

function jsonError(text: string, file: string, fallback: string): string {
  const site = locateJsonError(text);
  if (!site) return `parsing ${file}: ${fallback}`;
  const { line, column } = lineColumn(text, site.offset);
  return `parsing ${file}: ${site.message} at line ${line} column ${column}`;
}

const qualify = (label: SourceLabel, id: string): string => (label === "registry" ? id : `${label}:${id}`);

/** Parse one source's text (never the user registry, which its store owns). */
export function parseSource(label: SourceLabel, file: string, text: string, projectRoot: string | undefined): LoadedSource {
  const base: LoadedSource = { label, file, present: true, digest: sha256(text), hooks: [], scripts: [], untranslated: [], notes: [] };
  const origin: HookOrigin = { label, file, ...(projectRoot !== undefined ? { projectRoot } : {}) };
  if (label === "project") {
    const parsed = parseRegistry(text, file);
    if (!parsed.ok) return { ...base, error: parsed.error };
    if (parsed.file.readClaudeSettings !== undefined) {
      return { ...base, error: `hook registry ${file}: readClaudeSettings is the user's setting (in $TAMA_HOME/hooks/registry.json), not a project's` };
    }
    base.hooks = parsed.file.hooks.map((hook) => ({ ...hook, id: qualify(label, hook.id), origin }));
  } else {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      return { ...base, error: jsonError(text, file, (error as Error).message) };
    }
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return { ...base, error: `${file} is not Claude Code settings: not a JSON object` };
    const scope = label === "claude-user" ? "user" : label === "claude-local" ? "local" : "project";
    const source: SettingsSource = { file, scope, ...(projectRoot !== undefined ? { projectDir: projectRoot } : {}) };
    const translation = translateClaudeSettings(raw, source, { live: true });
    const taken = new Set<string>();
    for (const candidate of translation.candidates) {
      // Live ids drop the import's `claude.` prefix: the source label already says it.
      const shaped = HookEntrySchema.safeParse({ id: uniqueId(candidate, taken).replace(/^claude\./, ""), ...candidate.hook });
      if (!shaped.success) {
        translation.untranslated.push({ source: file, claudeEvent: candidate.claudeEvent, what: candidate.command, why: "its translation is not a valid hook" });
        continue;
      }
      base.hooks.push({ ...shaped.data, id: qualify(label, shaped.data.id), origin });
    }
    base.untranslated = translation.untranslated;
    base.notes = translation.notes;
    const disable = (raw as { disableAllHooks?: unknown }).disableAllHooks;
    if (typeof disable === "boolean") base.disableAllHooks = disable;
  }
  if (projectRoot !== undefined) base.scripts = scriptsNamed(base.hooks.map((h) => h.command ?? []), projectRoot);
  return base;
}

/** A file's stat key (modules/system/stat-key.ts), undefined when it is not there. */
export function statKey(file: string): string | undefined {
  const key = statKeyOf(file);
  return key === ABSENT ? undefined : key;
}

/** One file checked on every call; read again only when its stat moved, parsed again only when its bytes changed. */
class SourceFile {
  private lastKey: string | undefined;
  private lastText: string | undefined;
  private last: LoadedSource | undefined;
  /** The stat key taken before the last read (ABSENT when the file was not there). */
  key = ABSENT;

  constructor(
    readonly label: SourceLabel,
    readonly file: string,
    readonly projectRoot: string | undefined,
  ) {}

  read(): LoadedSource {
    const key = readKey(statOf(this.file));
    this.key = key;
    if (key !== ABSENT && key === this.lastKey && this.last !== undefined) return this.last;
    this.lastKey = key;
    let text: string;
    try {
      text = readRegularFile(this.file);
    } catch (error) {
      this.lastText = undefined;
      this.lastKey = undefined;
      const missing = (error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ENOTDIR";
      this.last = {
        label: this.label,
        file: this.file,
        present: !missing,
        digest: null,
        hooks: [],
        scripts: [],
        untranslated: [],
        notes: [],
        ...(missing ? {} : { error: `reading ${this.file}: ${(error as Error).message}` }),
      };
      return this.last;
    }
    if (this.last !== undefined && text === this.lastText) return this.last;
    this.lastText = text;
    this.last = parseSource(this.label, this.file, text, this.projectRoot);
    return this.last;
  }
}

export interface ProjectRead {
  sources: LoadedSource[];
  manifest: Manifest;
  trust: TrustState;
  changes: string[];
  recordError?: string;
}

/** A project's sources and its trust record, read on every dispatch for that project. */
export class ProjectSources {
  readonly files: SourceFile[];
  private trustText: string | undefined;
  private trustKey: string | undefined;
  /** The trust record's path and its stat key at the last read. */
  trustWatch: [string, string] | undefined;
  private last: { read: ProjectRead; record: TrustRead; scripts: string[]; digests: (string | null)[] } | undefined;
  private trustRead: TrustRead = { ok: true, record: undefined };

  constructor(
    readonly root: string,
    private readonly tamaHome: string,
    private readonly digests: FileDigests,
  ) {
    this.files = PROJECT_SOURCE_FILES.map((rel) => new SourceFile(PROJECT_LABELS[rel], path.join(root, rel), root));
  }

  /** The sources, the manifest of what they run, and how it stands against the trust record. */
  read(): ProjectRead {
    const sources = this.files.map((file) => file.read());
    const scripts = sources.flatMap((source) => source.scripts);
    const digests = scripts.map((script) => this.digests.digest(script));
    const record = this.readRecord();
    // Same sources, same script digests, same record: the last answer stands (no manifest built, no comparison).
    const last = this.last;
    if (
      last !== undefined &&
      last.record === record &&
      last.read.sources.every((source, i) => source === sources[i]) &&
      last.digests.length === digests.length &&
      last.digests.every((digest, i) => digest === digests[i] && last.scripts[i] === scripts[i])
    ) {
      return last.read;
    }
    const manifest = manifestOf(this.root, sources, this.digests);
    let read: ProjectRead;
    if (!record.ok) read = { sources, manifest, trust: "untrusted", changes: [], recordError: record.error };
    else {
      const { state, changes } = trustStateOf(record.record, manifest);
      read = { sources, manifest, trust: state, changes };
    }
    this.last = { read, record, scripts, digests };
    return read;
  }

  private readRecord(): TrustRead {
    const file = trustFile(this.tamaHome, this.root);
    const key = statKey(file) ?? ABSENT;
    this.trustWatch = [file, key];
    if (key === this.trustKey) return this.trustRead;
    this.trustKey = key;
    let text: string | undefined;
    try {
      text = readRegularFile(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") return { ok: false, error: `reading trust record ${file}: ${(error as Error).message}` };
    }
    if (text === this.trustText) return this.trustRead;
    this.trustText = text;
    if (text === undefined) this.trustRead = { ok: true, record: undefined };
    else {
      const read = readTrustText(file, text);
      this.trustRead =
        read.ok && read.record !== undefined && read.record.project !== this.root
          ? { ok: false, error: `trust record ${file} names project ${read.record.project}, not ${this.root}` }
          : read;
    }
    return this.trustRead;
  }
}

/**
 * Record the person's trust in a project at its content now. Called by `tama trust`
 * and by a dialog the person answers (never on the agent's word).
 */
export function trustProject(tamaHome: string, root: string, shown?: Manifest): { file: string; read: ProjectRead } | { changedSinceShown: true; read: ProjectRead } {
  const read = new ProjectSources(root, tamaHome, new FileDigests()).read();
  // Consent covers what the person saw: content that changed since is not trusted.
  if (shown !== undefined && !sameManifest(read.manifest, shown)) return { changedSinceShown: true, read };
  const file = writeTrust(tamaHome, { schema: 1, project: root, trustedAtMs: Date.now(), files: read.manifest });
  return { file, read };
}

function sameManifest(a: Manifest, b: Manifest): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && a[key] === b[key]);
}

/** Every project source (present or not) and every script they name, by digest. */
export function manifestOf(root: string, sources: readonly LoadedSource[], digests: FileDigests): Manifest {
  const manifest: Manifest = {};
  for (const source of sources) manifest[path.relative(root, source.file)] = source.digest;
  for (const source of sources) for (const script of source.scripts) manifest[path.relative(root, script)] = digests.digest(script);
  return manifest;
}

export interface HookSourcesOptions {
  registry: RegistryStore;
  tamaHome: string;
  /** The user's home: ~/.claude/settings.json, and where project discovery stops. */
  home: string;
  /**
   * The harness is Claude Code, which runs its own settings files' hooks itself: read
   * them here too and every such hook would run twice.
   */
  harnessRunsClaudeSettings?: boolean;
}

/**
 * Selects the hooks of one dispatch from every source. Dispatches handled in one
 * turn of the event loop share one read per cwd, as the registry store does.
 */
export class HookSources {
  private readonly userClaude: SourceFile;
  private readonly projects = new Map<string, ProjectSources>();
  private readonly digests = new FileDigests();
  private readonly sameTurn = new Map<string, Promise<SourcesOutcome>>();
  private registryHooks: { generation: Generation; hooks: SourcedHook[] } | undefined;
  /** The last outcome per project root, for the engine's state. */
  readonly lastByProject = new Map<string, ProjectHooks>();
  readonly lastBroken = new Map<string, BrokenSource>();

  constructor(private readonly options: HookSourcesOptions) {
    this.userClaude = new SourceFile("claude-user", path.join(options.home, ".claude", "settings.json"), undefined);
  }

  refresh(cwd: string | undefined): Promise<SourcesOutcome> {
    const key = cwd ?? "";
    let pending = this.sameTurn.get(key);
    if (pending === undefined) {
      pending = this.options.registry.refresh().then((registry) => this.selectFrom(registry, cwd));
      this.sameTurn.set(key, pending);
      if (this.sameTurn.size === 1) {
        setImmediate(() => {
          this.sameTurn.clear();
        });
      }
    }
    return pending;
  }

  project(root: string): ProjectSources {
    let project = this.projects.get(root);
    if (project === undefined) {
      if (this.projects.size > 256) this.projects.clear();
      project = new ProjectSources(root, this.options.tamaHome, this.digests);
      this.projects.set(root, project);
    }
    return project;
  }

  /** The hooks of a dispatch in cwd under this registry outcome (the live view asks it too, without dispatching). */
  selectFrom(registry: RefreshOutcome, cwd: string | undefined): SourcesOutcome {
    if (!registry.ok || registry.generation === undefined) {
      return { ok: false, error: registry.ok ? "no hook registry is loaded" : registry.error, generation: registry.generation };
    }
    const generation = registry.generation;
    const claude = generation.file.readClaudeSettings === true && this.options.harnessRunsClaudeSettings !== true;
    const origin: HookOrigin = { label: "registry", file: this.options.registry.path };
    const userClaude = claude ? [this.userClaude.read()] : [];
    const files = new Map<string, string>([[this.options.registry.path, this.options.registry.lastKey]]);
    if (claude) files.set(this.userClaude.file, this.userClaude.key);
    const found: Project | undefined = cwd !== undefined ? findProject(cwd, this.options.home, files) : undefined;
    const projectFiles = found !== undefined ? this.project(found.root) : undefined;
    const read = projectFiles?.read();
    if (projectFiles !== undefined && read !== undefined) {
      for (const file of projectFiles.files) files.set(file.file, file.key);
      if (projectFiles.trustWatch !== undefined) files.set(...projectFiles.trustWatch);
      for (const script of read.sources.flatMap((source) => source.scripts)) files.set(script, this.digests.keyOf(script) ?? ABSENT);
    }
    // A project's own registry is always read; its Claude files when the user turned Claude sources on.
    const projectSources = read?.sources.filter((s) => s.label === "project" || claude) ?? [];

    // Claude Code merges its files, and the last one that sets disableAllHooks decides for all of them.
    const claudeFiles = [...userClaude, ...projectSources.filter((s) => s.label !== "project")];
    const disabled = [...claudeFiles].reverse().find((s) => s.disableAllHooks !== undefined)?.disableAllHooks === true;
    const runs = (hook: SourcedHook): boolean => !(disabled && hook.origin.label !== "registry" && hook.origin.label !== "project");

    const broken: BrokenSource[] = [];
    // Sources not read now (Claude sources turned off) are no longer broken ones.
    if (!claude) for (const file of this.lastBroken.keys()) if (this.lastBroken.get(file)?.source.startsWith("claude")) this.lastBroken.delete(file);
    for (const source of [...userClaude, ...projectSources]) {
      if (source.error === undefined) {
        this.lastBroken.delete(source.file);
        continue;
      }
      const entry: BrokenSource = { source: source.label, file: source.file, error: source.error };
      broken.push(entry);
      this.lastBroken.set(source.file, entry);
    }

    // The registry's hooks keep one object each per generation: the runner caches per entry.
    if (this.registryHooks?.generation !== generation) {
      this.registryHooks = { generation, hooks: generation.file.hooks.map((hook) => ({ ...hook, origin })) };
    }
    const hooks: SourcedHook[] = [
      ...this.registryHooks.hooks,
      ...userClaude.flatMap((s) => s.hooks).filter(runs),
    ];
    let project: ProjectHooks | undefined;
    let refusal: string | undefined;
    if (found !== undefined && read !== undefined) {
      const projectHooks = projectSources.flatMap((s) => s.hooks).filter(runs);
      if (projectSources.some((s) => s.present) || read.trust === "changed") {
        project = {
          root: found.root,
          trust: read.trust,
          changes: read.changes,
          held: read.trust === "trusted" ? [] : projectHooks.filter((h) => h.enabled).map((h) => h.id),
          command: trustCommand(found.root),
          ...(read.recordError !== undefined ? { recordError: read.recordError } : {}),
        };
        this.lastByProject.set(found.root, project);
      } else this.lastByProject.delete(found.root);
      if (read.trust === "trusted") hooks.push(...projectHooks);
      if (read.trust === "changed") {
        refusal =
          `the hooks of project ${found.root} changed after they were trusted (${read.changes.join(", ")}), so they are held and ` +
          `this project's tool calls are refused until the person reviews the change and runs \`${trustCommand(found.root)}\` ` +
          `(or \`tama trust --revoke ${shellWord(found.root)}\` to run none of them)`;
      }
    }
    return { ok: true, generation, changed: registry.changed, hooks, broken, project, projectRoot: found?.root, refusal, files: [...files] };
  }

  /** Held hooks across the projects this engine served, and the sources that do not load, for its state. */
  heldState(): { count: number; projects: HeldProject[]; broken: BrokenSource[] } {
    const projects = [...this.lastByProject.values()].map(heldProject).filter((p): p is HeldProject => p !== undefined);
    return { count: projects.reduce((n, p) => n + p.hooks.length, 0), projects, broken: [...this.lastBroken.values()] };
  }
}

/** A project's hooks as the dispatch result and the state report them, when any are held. */
export function heldProject(project: ProjectHooks | undefined): HeldProject | undefined {
  if (project === undefined || project.trust === "trusted") return undefined;
  return { project: project.root, trust: project.trust, hooks: project.held, changes: project.changes, command: project.command };
}

/**
 * Where and with what a hook runs. Claude Code runs hooks in its own working
 * directory, the directory it started in, which is CLAUDE_PROJECT_DIR: a project's
 * hooks run in the project root, so relative commands resolve as their authors
 * wrote them; the user's hooks run in the session's cwd. Every hook gets
 * CLAUDE_PROJECT_DIR: the session's project, else its cwd.
 */
export function runContextOf(hook: { origin?: HookOrigin }, cwd: string, projectRoot: string | undefined): { cwd: string; env: Record<string, string> } {
  return { cwd: hook.origin?.projectRoot ?? cwd, env: { CLAUDE_PROJECT_DIR: projectRoot ?? cwd } };
}
