// The abandonment register: the last time the harness stopped waiting for hooks
// that still ran, per session, kept in the engine's memory (status reports it) and
// as abandoned.<session>.json in the session-control directory, which
// `tama hooks running` reads after the engine is gone. This file owns that name.
import { readdirSync } from "node:fs";
import path from "node:path";
import { Abandonment } from "../protocol/engine.ts";
import { describeSchemaError } from "../protocol/schema.ts";
import { writeFileAtomic } from "../system/atomic-write.ts";
import type { Logger } from "../system/log.ts";
import { isSafeFileComponent } from "../system/paths.ts";
import { round, type ActiveHook } from "./dispatch-run.ts";
import { readRegularFile } from "../system/regular-file.ts";

const RECORD_FILE = /^abandoned\..+\.json$/;

/** The record of one session's last abandonment in the sessions directory. */
export function abandonmentFile(sessionsDir: string, session: string): string {
  return path.join(sessionsDir, `abandoned.${session}.json`);
}

export class Abandonments {
  private readonly last = new Map<string, Abandonment>();

  constructor(
    private readonly sessionsDir: string,
    private readonly stderr: (line: string) => void,
    private readonly logger: Logger,
  ) {}

  /** Every session's last abandonment in this engine's life. */
  list(): Abandonment[] {
    return [...this.last.values()];
  }

  /**
   * Name hooks the harness stopped waiting for: one sentence on stderr with the
   * signal that proved it, then the record in memory and on disk.
   */
  record(session: string | null, signal: string, hooks: readonly ActiveHook[]): void {
    if (hooks.length === 0) return;
    const now = performance.now();
    const clauses = hooks.map((hook) => `${hook.hook} (${hook.run.event.name}, ${Math.round(now - hook.startedAt)} ms)`);
    const text = `tama: ${signal}; still running in Tama: ${clauses.join(", ")}`;
    this.stderr(text);
    this.logger.warn({ session, hooks: hooks.map((h) => h.hook), note: "abandoned" }, "hooks abandoned: the harness stopped waiting");
    if (session === null) return;
    const record: Abandonment = {
      session,
      reason: signal,
      abandonedAtMs: Date.now(),
      corePid: process.pid,
      hooks: hooks.map((hook) => ({
        hook: hook.hook,
        event: hook.run.event.name,
        processGroup: hook.pgid,
        ranForMs: round(now - hook.startedAt),
      })),
      text,
    };
    this.last.set(session, record);
    if (!isSafeFileComponent(session)) {
      this.stderr(`tama: session id ${JSON.stringify(session)} cannot name a file, so its abandonment is kept in this engine's memory only`);
      return;
    }
    try {
      writeFileAtomic(abandonmentFile(this.sessionsDir, session), JSON.stringify(record, null, 2), { mode: 0o600, createDir: 0o700 });
    } catch (error) {
      this.stderr(`tama: cannot write the abandonment record of session ${session}: ${(error as Error).message}`);
    }
  }
}

/** The abandonment records on disk, by file name; a record that cannot be read is named with why. */
export function readAbandonmentRecords(sessionsDir: string): { abandoned: Abandonment[]; unread: { file: string; error: string }[] } {
  const abandoned: Abandonment[] = [];
  const unread: { file: string; error: string }[] = [];
  let names: string[] = [];
  try {
    names = readdirSync(sessionsDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") unread.push({ file: sessionsDir, error: (error as Error).message });
  }
  for (const name of names.filter((n) => RECORD_FILE.test(n)).sort()) {
    const file = path.join(sessionsDir, name);
    try {
      const parsed = Abandonment.safeParse(JSON.parse(readRegularFile(file)));
      if (parsed.success) abandoned.push(parsed.data);
      else unread.push({ file, error: `not an abandonment record: ${describeSchemaError(parsed.error, "the record")}` });
    } catch (error) {
      unread.push({ file, error: (error as Error).message });
    }
  }
  return { abandoned, unread };
}
