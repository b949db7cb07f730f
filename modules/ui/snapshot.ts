// What `tama ui` shows, read from the files Tama already keeps under $TAMA_HOME: the
// session records, the activity store, the running-hook and abandonment records and
// the registry. Read-only; a session's control key is never part of it.
import { statSync } from "node:fs";
import { readActivity, readActivityFile, type ActivityRead, type ActivityRecord } from "../engine/activity.ts";
import { readAbandonmentRecords } from "../engine/abandonments.ts";
import { readRecords } from "../engine/running-records.ts";
import type { Abandonment } from "../protocol/engine.ts";
import os from "node:os";
import { catalogOf, parseRegistry, RegistryStore, type RefreshOutcome } from "../registry/registry.ts";
import { HookSources } from "../sources/sources.ts";
import { listRecords, sessionsDirProblem } from "../session-control/records.ts";
import type { TamaPaths } from "../system/paths.ts";
import { readRegularFile } from "../system/regular-file.ts";

/** The newest records the page gets; latency and the slowest dispatch are over the same window. */
export const ACTIVITY_WINDOW = 1000;

export interface SessionView {
  session: string;
  ompPid: number;
  cwd: string;
  adapterDigest: string | null;
  enginePid: number | null;
  releaseId: string | null;
  catalogChecksum: string | null;
  startedAtMs: number;
  /** The registry's enabled hooks when the session's engine loaded this very catalog, else null. */
  gates: string[] | null;
  /** The session's project and its hooks as the engine would run them now; null outside a project with hook sources. */
  project: { root: string; trust: "trusted" | "untrusted" | "changed"; held: string[]; changes: string[] } | null;
}

export interface RunningView {
  session: string | null;
  event: string;
  hook: string;
  enginePid: number;
  /** Whether the engine that started it is gone (the hook may still run, unwatched). */
  engineGone: boolean;
  runningForMs: number;
}

export interface LatencyView {
  hook: string;
  count: number;
  p50: number;
  p95: number;
  /** The newest calls, oldest first: [answered at (ms since the epoch), ms]. */
  points: [number, number][];
}

export interface Snapshot {
  generatedAtMs: number;
  home: string;
  sessions: SessionView[];
  /** Why session records are not read (an unsafe directory), or null. */
  sessionsProblem: string | null;
  registry: { hooks: { id: string; enabled: boolean }[]; checksum: string | null; error: string | null };
  activity: ActivityRecord[];
  activityUnreadLines: number;
  running: RunningView[];
  abandonments: Abandonment[];
  latency: LatencyView[];
  slowest: ActivityRecord | null;
  unread: { file: string; error: string }[];
}

/** The q-th quantile (0..1) of ascending values, nearest rank. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1]!;
}

export function latencyByHook(records: readonly ActivityRecord[], points = 120): LatencyView[] {
  const byHook = new Map<string, [number, number][]>();
  for (const record of records) {
    for (const hook of record.hooks) {
      let list = byHook.get(hook.hook);
      if (list === undefined) byHook.set(hook.hook, (list = []));
      list.push([record.at, hook.ms]);
    }
  }
  return [...byHook.entries()]
    .map(([hook, calls]) => {
      const sorted = calls.map((c) => c[1]).sort((a, b) => a - b);
      return { hook, count: calls.length, p50: quantile(sorted, 0.5), p95: quantile(sorted, 0.95), points: calls.slice(-points) };
    })
    .sort((a, b) => a.hook.localeCompare(b.hook));
}

/**
 * The sessions' projects, read by the engine's own rules (discovery, Claude sources,
 * trust), so the page says what the session's next event would hold. One per view:
 * unchanged sources and scripts are not read again.
 */
export class ProjectReader {
  private readonly sources: HookSources;

  constructor(paths: TamaPaths, home = os.homedir()) {
    this.sources = new HookSources({ registry: new RegistryStore(paths.registry), tamaHome: paths.home, home });
  }

  projectOf(registry: RefreshOutcome | undefined, cwd: string): SessionView["project"] {
    if (registry === undefined) return null;
    const outcome = this.sources.selectFrom(registry, cwd);
    const project = outcome.ok ? outcome.project : undefined;
    return project === undefined ? null : { root: project.root, trust: project.trust, held: project.held, changes: project.changes };
  }
}

export function snapshot(
  paths: TamaPaths,
  now = Date.now(),
  readFile: (file: string) => ActivityRead = readActivityFile,
  projects: ProjectReader = new ProjectReader(paths),
): Snapshot {
  const unread: { file: string; error: string }[] = [];
  const { view: registry, outcome } = readRegistryView(paths.registry);

  const sessionsProblem = sessionsDirProblem(paths.home, paths.sessions, false);
  const sessions: SessionView[] = [];
  const running: RunningView[] = [];
  let abandonments: Abandonment[] = [];
  // A directory others can write is not trusted, as `tama sessions` does not trust it.
  const dirMissing = sessionsProblem?.startsWith("cannot read") === true;
  if (sessionsProblem === undefined) {
    const listing = listRecords(paths.sessions);
    unread.push(...listing.unread);
    for (const r of listing.live) {
      sessions.push({
        session: r.session,
        ompPid: r.ompPid,
        cwd: r.cwd,
        adapterDigest: r.adapterDigest,
        enginePid: r.enginePid,
        releaseId: r.engineGeneration?.releaseId ?? null,
        catalogChecksum: r.engineGeneration?.catalogChecksum ?? null,
        startedAtMs: r.startedAtMs,
        gates:
          registry.checksum !== null && r.engineGeneration?.catalogChecksum === registry.checksum
            ? registry.hooks.filter((h) => h.enabled).map((h) => h.id)
            : null,
        project: projects.projectOf(outcome, r.cwd),
      });
    }
    const records = readRecords(paths.running);
    unread.push(...records.unread);
    for (const [gone, list] of [
      [false, records.live],
      [true, records.gone],
    ] as const) {
      for (const record of list) {
        for (const hook of record.hooks) {
          running.push({ session: hook.session, event: hook.event, hook: hook.hook, enginePid: record.corePid, engineGone: gone, runningForMs: now - hook.startedAtMs });
        }
      }
    }
    const read = readAbandonmentRecords(paths.sessions);
    unread.push(...read.unread);
    // Each session's last one.
    const last = new Map<string, Abandonment>();
    for (const a of read.abandoned) if ((last.get(a.session)?.abandonedAtMs ?? -1) < a.abandonedAtMs) last.set(a.session, a);
    abandonments = [...last.values()].sort((a, b) => b.abandonedAtMs - a.abandonedAtMs);
  }

  const activity = readActivity(paths.activity, readFile);
  unread.push(...activity.unread);
  const recent = activity.records.slice(-ACTIVITY_WINDOW);
  const slowest = recent.reduce<ActivityRecord | null>((best, r) => (best === null || r.totalMs > best.totalMs ? r : best), null);
  return {
    generatedAtMs: now,
    home: paths.home,
    sessions,
    sessionsProblem: sessionsProblem === undefined || dirMissing ? null : sessionsProblem,
    registry,
    activity: recent,
    activityUnreadLines: activity.unreadLines,
    running,
    abandonments,
    latency: latencyByHook(recent),
    slowest,
    unread,
  };
}

function readRegistryView(file: string): { view: Snapshot["registry"]; outcome?: RefreshOutcome } {
  let text: string;
  try {
    text = readRegularFile(file);
  } catch (error) {
    return { view: { hooks: [], checksum: null, error: (error as Error).message } };
  }
  const parsed = parseRegistry(text, file);
  if (!parsed.ok) return { view: { hooks: [], checksum: null, error: parsed.error } };
  const generation = { number: 0, file: parsed.file, catalog: catalogOf(parsed.file), checksum: parsed.checksum, releaseId: parsed.file.release?.id ?? null, loadedAtMs: 0 };
  return {
    view: { hooks: parsed.file.hooks.map((h) => ({ id: h.id, enabled: h.enabled })), checksum: parsed.checksum, error: null },
    outcome: { ok: true, generation, changed: false },
  };
}

/** A file reader that parses a file again only when its size or time changed (the view refreshes often). */
export function cachedActivityReader(): (file: string) => ActivityRead {
  const cache = new Map<string, { size: number; mtimeMs: number; read: ActivityRead }>();
  return (file) => {
    let size: number;
    let mtimeMs: number;
    try {
      ({ size, mtimeMs } = statSync(file));
    } catch {
      cache.delete(file);
      return readActivityFile(file);
    }
    const hit = cache.get(file);
    if (hit !== undefined && hit.size === size && hit.mtimeMs === mtimeMs) return hit.read;
    const read = readActivityFile(file);
    cache.set(file, { size, mtimeMs, read });
    return read;
  };
}
