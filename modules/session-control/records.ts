// Session records: what each OMP session's adapter publishes beside its control
// socket in $TAMA_HOME/sessions/, and the checks that make them trustworthy: a
// private directory, atomic writes, and a process that is still the one named.
import { createHash, randomBytes } from "node:crypto";
import { chmodSync, lstatSync, mkdirSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { isSafeFileComponent } from "../system/paths.ts";
import { processAlive, processStartTicks } from "../system/process-groups.ts";
import * as z from "../protocol/schema.ts";
import { describeSchemaError } from "../protocol/schema.ts";
import { ControlKey, Sha256 } from "../protocol/session-control.ts";
import { recordNames } from "../system/record-dir.ts";
import { writeFileAtomic } from "../system/atomic-write.ts";
import { readRegularFile } from "../system/regular-file.ts";

export const RECORD_SCHEMA_VERSION = 1;

/** The generation of the hook registry an engine had loaded, as the adapter saw it. */
export const LoadedGeneration = z.strictObject({
  releaseId: z.nullable(z.string()),
  catalogChecksum: z.nullable(Sha256),
});
export type LoadedGeneration = z.infer<typeof LoadedGeneration>;

export const SessionRecord = z.strictObject({
  schema: z.literal(RECORD_SCHEMA_VERSION),
  protocolVersion: z.int(),
  session: z.string().check(z.minLength(1), z.maxLength(512)),
  ompPid: z.int().check(z.positive()),
  /** The kernel's start time of the OMP process: a reused pid is another process. */
  ompStartTicks: z.optional(z.number()),
  enginePid: z.nullable(z.int().check(z.positive())),
  startedAtMs: z.number(),
  publishedAtMs: z.number(),
  cwd: z.string(),
  adapterDigest: z.nullable(Sha256),
  adapterReloadSupported: z.boolean(),
  socket: z.string().check(z.minLength(1)),
  /** The session control key: opens this session's socket and binds its grant. */
  key: ControlKey,
  /** Which adapter instance wrote it, so that one never removes its successor's record. */
  instance: z.string().check(z.minLength(1), z.maxLength(64)),
  /** The generation the session's engine had loaded when last seen (grants are rebound from it). */
  engineGeneration: z.nullable(LoadedGeneration),
  /** A subagent's session (OMP's `task`): the session that started it, in the same OMP process. */
  parent: z.optional(z.string().check(z.minLength(1), z.maxLength(512))),
});
export type SessionRecord = z.infer<typeof SessionRecord>;

/** The name a session's files go by: the id itself when it can name a file, else its hash. */
export function sessionFileKey(session: string): string {
  return isSafeFileComponent(session) && session.length <= 64 ? session : `h-${createHash("sha256").update(session).digest("hex").slice(0, 32)}`;
}

export const recordPath = (dir: string, session: string): string => path.join(dir, `session.${sessionFileKey(session)}.json`);
export const grantPath = (dir: string, session: string): string => path.join(dir, `grant.${sessionFileKey(session)}.json`);

/** Linux's sun_path holds 108 bytes with the terminating NUL. */
const MAX_SOCKET_PATH_BYTES = 107;

/** The socket path of a session; a hashed short name when the id would not fit. */
export function socketPath(dir: string, session: string): string {
  const plain = path.join(dir, `${sessionFileKey(session)}.sock`);
  if (Buffer.byteLength(plain) <= MAX_SOCKET_PATH_BYTES) return plain;
  const short = path.join(dir, `${createHash("sha256").update(session).digest("hex").slice(0, 16)}.sock`);
  if (Buffer.byteLength(short) <= MAX_SOCKET_PATH_BYTES) return short;
  throw new Error(`the session control socket path ${short} is longer than the ${MAX_SOCKET_PATH_BYTES} bytes a Unix socket may have; set TAMA_HOME to a shorter path`);
}

export function newKey(): string {
  return randomBytes(32).toString("hex");
}

/**
 * Why a directory cannot hold session control, or undefined when it can: it must be
 * a directory of this user that nobody else can write (else someone could swap a
 * socket or a record). With `tighten`, group and world access is removed.
 */
function directoryProblem(dir: string, options: { follow: boolean; tighten: boolean }): string | undefined {
  let stat;
  try {
    stat = options.follow ? statSync(dir) : lstatSync(dir);
  } catch (error) {
    return `cannot read ${dir}: ${(error as Error).message}`;
  }
  if (!stat.isDirectory()) return `${dir} is not a directory${stat.isSymbolicLink() ? " (a symbolic link)" : ""}`;
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) return `${dir} belongs to uid ${stat.uid}, not to this user (uid ${uid})`;
  const mode = stat.mode & 0o777;
  if ((mode & 0o022) !== 0) {
    return `${dir} is writable by its group or by others (mode ${mode.toString(8).padStart(4, "0")}); Tama serves and trusts session control only in a directory its owner alone can write: run chmod go-w ${dir}`;
  }
  if (options.tighten && (mode & 0o077) !== 0) chmodSync(dir, 0o700);
  return undefined;
}

/**
 * Make the sessions directory (0700) and check it and TAMA_HOME; the reason when
 * either is unsafe. `create` is for the adapter; the CLI and the engine only check.
 */
export function sessionsDirProblem(home: string, sessions: string, create: boolean): string | undefined {
  try {
    if (create) mkdirSync(sessions, { recursive: true, mode: 0o700 });
  } catch (error) {
    return `cannot make ${sessions}: ${(error as Error).message}`;
  }
  return directoryProblem(home, { follow: true, tighten: false }) ?? directoryProblem(sessions, { follow: false, tighten: create });
}

/** Write a JSON file readable by its owner only, atomically (a reader sees the old or the new one). */
export function writePrivateJson(file: string, value: unknown): void {
  writeFileAtomic(file, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
}

export type RecordRead = { ok: true; record: SessionRecord } | { ok: false; missing: boolean; error: string };

export function readRecordFile(file: string): RecordRead {
  let text: string;
  try {
    text = readRegularFile(file);
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
    return { ok: false, missing, error: `reading session record ${file}: ${(error as Error).message}` };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { ok: false, missing: false, error: `parsing session record ${file}: ${(error as Error).message}` };
  }
  const parsed = SessionRecord.safeParse(raw);
  if (!parsed.success) return { ok: false, missing: false, error: `session record ${file}: ${describeSchemaError(parsed.error, "the record")}` };
  return { ok: true, record: parsed.data };
}

/** Whether the OMP process a record names still runs (and is that process, not a reused pid). */
export function recordIsLive(record: SessionRecord): boolean {
  if (!processAlive(record.ompPid)) return false;
  return record.ompStartTicks === undefined || processStartTicks(record.ompPid) === record.ompStartTicks;
}

export interface RecordListing {
  live: SessionRecord[];
  stale: SessionRecord[];
  unread: { file: string; error: string }[];
}

/** Every record in the directory, sorted by start, split into live and stale. */
export function listRecords(dir: string): RecordListing {
  const out: RecordListing = { live: [], stale: [], unread: [] };
  for (const name of recordNames(dir, out.unread).filter((n) => /^session\..+\.json$/.test(n)).sort()) {
    const read = readRecordFile(path.join(dir, name));
    if (!read.ok) {
      if (!read.missing) out.unread.push({ file: path.join(dir, name), error: read.error });
      continue;
    }
    (recordIsLive(read.record) ? out.live : out.stale).push(read.record);
  }
  out.live.sort((a, b) => a.startedAtMs - b.startedAtMs);
  return out;
}

/** Remove what a session left: its record, its socket and its grant. */
export function removeSessionFiles(dir: string, record: SessionRecord): void {
  rmSync(recordPath(dir, record.session), { force: true });
  rmSync(grantPath(dir, record.session), { force: true });
  // Only a socket inside the sessions directory: a record never names what to delete elsewhere.
  if (path.dirname(path.resolve(record.socket)) === path.resolve(dir)) rmSync(record.socket, { force: true });
}
