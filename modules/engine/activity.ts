// The activity store: one line per dispatch answered, in
// $TAMA_HOME/activity/<engine pid>.jsonl, for `tama ui` to read. It keeps the logs'
// allowlist (system/log.ts): names, ids, outcomes, durations and a hook's own
// reason, capped; never a prompt, a tool's input or output or a payload. Lines are
// gathered in memory and appended off the event loop; a failure to write turns the
// store off with one warning, and never reaches a dispatch.
import { appendFileSync, chmodSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { appendFile, chmod, mkdir, rename, stat } from "node:fs/promises";
import path from "node:path";
import { HookOutcome, Stage, StageTiming, type DispatchResult, type HookResult } from "../protocol/engine.ts";
import * as z from "../protocol/schema.ts";
import type { Logger } from "../system/log.ts";
import { tamaPaths } from "../system/paths.ts";
import type { DispatchRun } from "./dispatch-run.ts";
import { readRegularFile } from "../system/regular-file.ts";

export const ACTIVITY_SCHEMA_VERSION = 1;
/** A reason is kept in the hook's own words, up to this many characters. */
export const REASON_CAP = 300;
/** Names (session, tool, hook) are ids, not text: longer ones are cut. */
const NAME_CAP = 200;
/** One engine's current file is rotated to <pid>.1.jsonl past this size. */
export const FILE_CAP_BYTES = 1024 * 1024;
/** All activity files together; the oldest are removed past this. */
export const TOTAL_CAP_BYTES = 16 * 1024 * 1024;
/** Activity files kept at most (a one-event engine per hook call makes one file each). */
export const FILE_COUNT_CAP = 256;
/** Lines gathered before one append. */
const BATCH_MS = 200;
/** Lines held while the disk is slow; the oldest are dropped past this. */
const PENDING_CAP = 2000;

export const ActivityHook = z.strictObject({
  hook: z.string(),
  outcome: HookOutcome,
  reason: z.optional(z.string().check(z.maxLength(REASON_CAP))),
  ms: z.number(),
  builtin: z.optional(z.boolean()),
});
export type ActivityHook = z.infer<typeof ActivityHook>;

export const ActivityRecord = z.strictObject({
  v: z.literal(ACTIVITY_SCHEMA_VERSION),
  /** Wall-clock time the dispatch was answered (ms since the epoch). */
  at: z.number(),
  engine: z.int(),
  dispatch: z.union([z.string(), z.number()]),
  session: z.nullable(z.string()),
  event: z.string(),
  tool: z.nullable(z.string()),
  decision: z.enum(["pass", "block", "ask"]),
  hooks: z.array(ActivityHook),
  totalMs: z.number(),
  stages: z.partialRecord(Stage, StageTiming),
  slowestStage: z.nullable(Stage),
});
export type ActivityRecord = z.infer<typeof ActivityRecord>;

const cap = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/** The allowlisted record of one answered dispatch: every field is copied by name. */
export function activityRecord(run: DispatchRun, tool: string | undefined, results: readonly HookResult[], result: DispatchResult): ActivityRecord {
  const timings = run.timings();
  return {
    v: ACTIVITY_SCHEMA_VERSION,
    at: Date.now(),
    engine: process.pid,
    dispatch: typeof run.id === "string" ? cap(run.id, NAME_CAP) : run.id,
    session: run.session === null ? null : cap(run.session, NAME_CAP),
    event: cap(run.event.name, NAME_CAP),
    tool: tool === undefined ? null : cap(tool, NAME_CAP),
    decision: result.decision,
    hooks: results.map((r) => ({
      hook: cap(r.hook, NAME_CAP),
      outcome: r.outcome,
      ...(r.reason !== undefined ? { reason: cap(r.reason, REASON_CAP) } : {}),
      ms: r.ms,
      ...(r.builtin === true ? { builtin: true } : {}),
    })),
    totalMs: timings.totalMs,
    stages: timings.stages,
    slowestStage: timings.slowestStage,
  };
}

export class ActivityStore {
  private pending: string[] = [];
  private scheduled = false;
  private writing: Promise<void> = Promise.resolve();
  private off = false;
  private readonly file: string;
  private readonly rotated: string;
  private size: number | undefined;

  constructor(
    readonly dir: string,
    private readonly warn: (message: string) => void,
    private readonly limits: { fileBytes: number; totalBytes: number } = { fileBytes: FILE_CAP_BYTES, totalBytes: TOTAL_CAP_BYTES },
    pid: number = process.pid,
  ) {
    this.file = path.join(dir, `${pid}.jsonl`);
    this.rotated = path.join(dir, `${pid}.1.jsonl`);
  }

  get disabled(): boolean {
    return this.off;
  }

  add(record: ActivityRecord): void {
    if (this.off) return;
    this.pending.push(`${JSON.stringify(record)}\n`);
    if (this.pending.length > PENDING_CAP) this.pending.splice(0, this.pending.length - PENDING_CAP);
    if (this.scheduled) return;
    this.scheduled = true;
    setTimeout(() => {
      this.writing = this.writing.then(() => this.write());
    }, BATCH_MS).unref();
  }

  /** Every line added so far, on disk. */
  async flush(): Promise<void> {
    this.writing = this.writing.then(() => this.write());
    await this.writing;
  }

  /** At exit no timer runs: the lines still held are written synchronously (a one-event engine writes only here). */
  flushSync(): void {
    if (this.off || this.pending.length === 0) return;
    const lines = this.pending.join("");
    this.pending = [];
    try {
      if (this.size === undefined) {
        mkdirSync(this.dir, { recursive: true, mode: 0o700 });
        chmodSync(this.dir, 0o700);
        this.size = existsSync(this.file) ? statSync(this.file).size : 0;
        pruneActivity(this.dir, this.room(), new Set([this.file]));
      }
      appendFileSync(this.file, lines, { mode: 0o600 });
      this.size += Buffer.byteLength(lines);
    } catch (error) {
      this.fail(error);
    }
  }

  private async write(): Promise<void> {
    this.scheduled = false;
    if (this.off || this.pending.length === 0) return;
    const lines = this.pending.join("");
    this.pending = [];
    try {
      if (this.size === undefined) {
        await mkdir(this.dir, { recursive: true, mode: 0o700 });
        await chmod(this.dir, 0o700);
        this.size = await stat(this.file).then(
          (s) => s.size,
          () => 0,
        );
        pruneActivity(this.dir, this.room(), new Set([this.file]));
      }
      const bytes = Buffer.byteLength(lines);
      if (this.size > 0 && this.size + bytes > this.limits.fileBytes) {
        await rename(this.file, this.rotated);
        this.size = 0;
        pruneActivity(this.dir, this.room(), new Set([this.rotated]));
      }
      await appendFile(this.file, lines, { mode: 0o600 });
      if (this.size === 0) await chmod(this.file, 0o600);
      this.size += bytes;
    } catch (error) {
      this.fail(error);
    }
  }

  /** What the other files may take: the current one may still grow to its cap. */
  private room(): number {
    return Math.max(0, this.limits.totalBytes - this.limits.fileBytes);
  }

  private fail(error: unknown): void {
    if (this.off) return;
    this.off = true;
    this.pending = [];
    this.warn(`activity is not recorded: cannot write ${this.file}: ${(error as Error).message}`);
  }
}

/**
 * Remove the oldest activity files until the rest fit in `totalBytes` and leave room
 * for one more file under `maxFiles` (those in `keep` stay).
 */
export function pruneActivity(dir: string, totalBytes: number, keep: ReadonlySet<string>, maxFiles = FILE_COUNT_CAP): void {
  const files = activityFiles(dir)
    .map((file) => {
      try {
        const s = statSync(file);
        return { file, size: s.size, mtime: s.mtimeMs };
      } catch {
        return undefined;
      }
    })
    .filter((f): f is { file: string; size: number; mtime: number } => f !== undefined)
    .sort((a, b) => a.mtime - b.mtime);
  let total = files.reduce((sum, f) => sum + f.size, 0);
  let count = files.length;
  for (const f of files) {
    if (total <= totalBytes && count < maxFiles) break;
    if (keep.has(f.file)) continue;
    rmSync(f.file, { force: true });
    total -= f.size;
    count--;
  }
}

/** The activity files in a directory (each engine's current and rotated one). */
export function activityFiles(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((name) => /^\d+(\.1)?\.jsonl$/.test(name))
      .map((name) => path.join(dir, name));
  } catch {
    return [];
  }
}

export interface ActivityRead {
  records: ActivityRecord[];
  /** Lines that are not activity records, counted (a line cut by a crash, another version). */
  unreadLines: number;
  unread: { file: string; error: string }[];
}

/** One file's records; a line that is not a record is counted, never fatal. */
export function readActivityFile(file: string): ActivityRead {
  const out: ActivityRead = { records: [], unreadLines: 0, unread: [] };
  let text: string;
  try {
    text = readRegularFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") out.unread.push({ file, error: (error as Error).message });
    return out;
  }
  for (const line of text.split("\n")) {
    if (line.length === 0) continue;
    try {
      const parsed = ActivityRecord.safeParse(JSON.parse(line));
      if (parsed.success) out.records.push(parsed.data);
      else out.unreadLines++;
    } catch {
      out.unreadLines++;
    }
  }
  return out;
}

/** Every record on disk, oldest first. */
export function readActivity(dir: string, read: (file: string) => ActivityRead = readActivityFile): ActivityRead {
  const out: ActivityRead = { records: [], unreadLines: 0, unread: [] };
  for (const file of activityFiles(dir)) {
    const one = read(file);
    out.records.push(...one.records);
    out.unreadLines += one.unreadLines;
    out.unread.push(...one.unread);
  }
  out.records.sort((a, b) => a.at - b.at);
  return out;
}

/** The store of this engine process, by its directory (under TAMA_HOME); made on the first dispatch. */
const stores = new Map<string, ActivityStore>();
let exitHooked = false;
let warnedOnce = false;

function storeFor(logger: Logger): ActivityStore {
  const dir = tamaPaths().activity;
  let store = stores.get(dir);
  if (store === undefined) {
    store = new ActivityStore(dir, (message) => logger.warn({ note: message }, "activity store off"));
    stores.set(dir, store);
    if (!exitHooked) {
      exitHooked = true;
      process.on("exit", () => {
        for (const s of stores.values()) s.flushSync();
      });
    }
  }
  return store;
}

/** The engine's one call: record an answered dispatch. Never throws; a failure only turns the store off. */
export function recordActivity(logger: Logger, run: DispatchRun, tool: string | undefined, results: readonly HookResult[], result: DispatchResult): void {
  try {
    storeFor(logger).add(activityRecord(run, tool, results, result));
  } catch (error) {
    if (warnedOnce) return;
    warnedOnce = true;
    logger.warn({ note: `activity not recorded: ${(error as Error).message}` }, "activity store off");
  }
}
