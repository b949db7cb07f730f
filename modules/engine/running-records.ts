// Records of the hooks each engine process runs, kept on disk so that they can be
// named (`tama hooks running`) and ended after the engine that started them is gone.
import { rmSync } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";

import * as z from "../protocol/schema.ts";
import { orphanedHookProcesses, processAlive, processStartTicks, reapRecordedGroup } from "../system/process-groups.ts";
import { writeFileAtomicAsync } from "../system/atomic-write.ts";
import { recordNames } from "../system/record-dir.ts";
import { describeSchemaError } from "../protocol/schema.ts";
import { readRegularFile } from "../system/regular-file.ts";

export const RecordedHook = z.object({
  session: z.nullable(z.string()),
  event: z.string(),
  hook: z.string(),
  processGroup: z.nullable(z.number()),
  startedAtMs: z.number(),
  startTicks: z.optional(z.number()),
  /** Pre-started and still waiting for its event, not running one. */
  prestarted: z.optional(z.boolean()),
});
export type RecordedHook = z.infer<typeof RecordedHook>;

export const EngineRecord = z.object({
  corePid: z.number(),
  coreStartTicks: z.optional(z.number()),
  updatedAtMs: z.number(),
  hooks: z.array(RecordedHook),
  /** The engine's bounds on pre-started processes and how many it holds. */
  prestart: z.optional(z.object({ mode: z.string(), perSession: z.number(), total: z.number(), held: z.number(), queued: z.optional(z.number()), rssKb: z.number() })),
});
export type EngineRecord = z.infer<typeof EngineRecord>;

const RECORD = /^engine\.(\d+)\.json$/;
/** How long starts and ends are gathered into one write of the record. */
const RECORD_BATCH_MS = 25;

export function recordPath(dir: string, pid: number): string {
  return path.join(dir, `engine.${pid}.json`);
}

/**
 * Writes this engine's record. Bursts of starts and ends coalesce into one write,
 * done off the event loop so a dispatch never waits on the disk; writes are
 * serialized so the newest snapshot always lands last.
 */
export class RunningRecordWriter {
  private scheduled = false;
  private writing: Promise<void> = Promise.resolve();
  private readonly file: string;
  private readonly startTicks = processStartTicks(process.pid);
  private failed = false;

  constructor(
    dir: string,
    private readonly snapshot: () => RecordedHook[],
    private readonly warn: (line: string) => void,
    private readonly prestart?: () => NonNullable<EngineRecord["prestart"]>,
  ) {
    this.file = recordPath(dir, process.pid);
  }

  /**
   * The set of running hooks changed. Writes are batched over a short window: a hook
   * that ends within it never costs a write. Nothing is decided by this delay — the
   * records only name hooks; ending the hooks of an engine that is gone goes by the
   * TAMA_HOOK_RUN mark each hook process carries from its fork on.
   */
  changed(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setTimeout(() => {
      this.writing = this.writing.then(async () => {
        this.scheduled = false;
        await this.write(this.snapshot());
      });
    }, RECORD_BATCH_MS).unref();
  }

  private async write(hooks: RecordedHook[]): Promise<void> {
    try {
      if (hooks.length === 0) {
        await rm(this.file, { force: true });
        return;
      }
      const prestart = this.prestart?.();
      const record: EngineRecord = {
        corePid: process.pid,
        coreStartTicks: this.startTicks,
        updatedAtMs: Date.now(),
        hooks,
        ...(prestart !== undefined && prestart.held > 0 ? { prestart } : {}),
      };
      await writeFileAtomicAsync(this.file, JSON.stringify(record), { mode: 0o600, createDir: 0o700 });
      this.failed = false;
    } catch (error) {
      if (!this.failed) this.warn(`tama: cannot write the running-hook record ${this.file}: ${(error as Error).message}`);
      this.failed = true;
    }
  }

  /** The last write, once every pending one has landed (at shutdown). */
  async flush(): Promise<void> {
    this.writing = this.writing.then(() => this.write(this.snapshot()));
    await this.writing;
  }
}

export interface RecordsRead {
  /** Records of engines still running (other than the reader). */
  live: EngineRecord[];
  /** Records of engines that are gone: their hooks may still run. */
  gone: EngineRecord[];
  /** Records that could not be read, by file, with why. */
  unread: { file: string; error: string }[];
}

function engineStillRuns(record: EngineRecord): boolean {
  if (!processAlive(record.corePid)) return false;
  // A reused pid is another process, not this engine.
  return record.coreStartTicks === undefined || processStartTicks(record.corePid) === record.coreStartTicks;
}

export function readRecords(dir: string, exceptPid?: number): RecordsRead {
  const out: RecordsRead = { live: [], gone: [], unread: [] };
  for (const name of recordNames(dir, out.unread)) {
    const match = RECORD.exec(name);
    if (!match || Number(match[1]) === exceptPid) continue;
    const file = path.join(dir, name);
    let raw: unknown;
    try {
      raw = JSON.parse(readRegularFile(file));
    } catch (error) {
      out.unread.push({ file, error: (error as Error).message });
      continue;
    }
    const parsed = EngineRecord.safeParse(raw);
    if (!parsed.success) {
      out.unread.push({ file, error: `not a running-hook record: ${describeSchemaError(parsed.error, "the record")}` });
      continue;
    }
    (engineStillRuns(parsed.data) ? out.live : out.gone).push(parsed.data);
  }
  return out;
}

/**
 * End the hooks that engines which are gone left running (an engine killed by
 * SIGKILL cannot end them itself): those its records name, and every process still
 * marked with its TAMA_HOOK_RUN; then drop the records.
 */
export function reapGoneEngines(dir: string, homeTag: string): { hook: string; processGroup: number; pids: number[] }[] {
  const ended: { hook: string; processGroup: number; pids: number[] }[] = [];
  for (const record of readRecords(dir, process.pid).gone) {
    for (const hook of record.hooks) {
      if (hook.processGroup === null) continue;
      const pids = reapRecordedGroup(hook.processGroup, hook.startTicks);
      if (pids.length > 0) ended.push({ hook: hook.hook, processGroup: hook.processGroup, pids });
    }
    try {
      rmSync(recordPath(dir, record.corePid), { force: true });
    } catch {
      // a read-only sessions dir: the record stays, and its groups are ended again next time
    }
  }
  const unrecorded = orphanedHookProcesses(homeTag);
  for (const orphan of unrecorded) {
    try {
      process.kill(orphan.pid, "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
  if (unrecorded.length > 0) ended.push({ hook: "(unrecorded)", processGroup: 0, pids: unrecorded.map((o) => o.pid) });
  return ended;
}
