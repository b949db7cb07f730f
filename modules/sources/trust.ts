// Trust bound to content. A project's hooks run only once the person has trusted its
// hook sources and the in-repository scripts they name, at those exact bytes: the
// record ($TAMA_HOME/trust/<hash of the root>.json, 0600 in a 0700 directory) holds
// the SHA-256 of each of those files (null for one that was absent). Any difference
// between the record and the files now — a `git pull`, an edit, a checkout — holds
// the project's hooks again until the person re-trusts or revokes.
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import * as z from "../protocol/schema.ts";
import { describeSchemaError } from "../protocol/schema.ts";
import { ABSENT, readKey } from "../system/stat-key.ts";
import { readRegularFile, readRegularFileBytes } from "../system/regular-file.ts";

export const TRUST_SCHEMA_VERSION = 1;
/** The largest hook file digested: a compiled hook may be tens of MB; past this it reads as unreadable (held). */
const HOOK_FILE_MAX_BYTES = 256 * 1024 * 1024;

/** Project-relative path → SHA-256 (lower-case hex) of its bytes, or null when absent. */
export const Manifest = z.record(z.string(), z.nullable(z.string().check(z.regex(/^[0-9a-f]{64}$/))));
export type Manifest = z.infer<typeof Manifest>;

export const TrustRecord = z.strictObject({
  schema: z.literal(TRUST_SCHEMA_VERSION),
  project: z.string().check(z.minLength(1)),
  trustedAtMs: z.number(),
  files: Manifest,
});
export type TrustRecord = z.infer<typeof TrustRecord>;

export type TrustState = "untrusted" | "trusted" | "changed";

export const trustDir = (tamaHome: string): string => path.join(tamaHome, "trust");
export const trustFile = (tamaHome: string, root: string): string =>
  path.join(trustDir(tamaHome), `${createHash("sha256").update(root).digest("hex").slice(0, 32)}.json`);

export function sha256(bytes: string | Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** What makes a record unfit to be trusted: written by someone else, or writable by others. */
function privacyProblem(file: string): string | undefined {
  const uid = process.getuid?.();
  for (const target of [path.dirname(file), file]) {
    const stat = statSync(target);
    if (uid !== undefined && stat.uid !== uid) return `${target} belongs to another user`;
    if ((stat.mode & 0o022) !== 0) return `${target} is writable by other users`;
  }
  return undefined;
}

export type TrustRead = { ok: true; record: TrustRecord | undefined } | { ok: false; error: string };

/** Read a record; its absence is "never trusted", any other failure is named. */
export function readTrustText(file: string, text: string): TrustRead {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `parsing trust record ${file}: ${(error as Error).message}` };
  }
  const parsed = TrustRecord.safeParse(raw);
  if (!parsed.success) return { ok: false, error: `trust record ${file}: ${describeSchemaError(parsed.error, "the record")}` };
  const problem = privacyProblem(file);
  if (problem !== undefined) return { ok: false, error: `trust record ${file} is not trusted: ${problem}` };
  return { ok: true, record: parsed.data };
}

export function readTrust(tamaHome: string, root: string): TrustRead {
  const file = trustFile(tamaHome, root);
  let text: string;
  try {
    text = readRegularFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { ok: true, record: undefined };
    return { ok: false, error: `reading trust record ${file}: ${(error as Error).message}` };
  }
  const read = readTrustText(file, text);
  if (read.ok && read.record !== undefined && read.record.project !== root) {
    return { ok: false, error: `trust record ${file} names project ${read.record.project}, not ${root}` };
  }
  return read;
}

export function writeTrust(tamaHome: string, record: TrustRecord): string {
  const dir = trustDir(tamaHome);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = trustFile(tamaHome, record.project);
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  renameSync(temp, file);
  return file;
}

/** Remove a project's record; false when there was none. */
export function removeTrust(tamaHome: string, root: string): boolean {
  try {
    unlinkSync(trustFile(tamaHome, root));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

export function listTrust(tamaHome: string): { records: TrustRecord[]; unread: { file: string; error: string }[] } {
  const dir = trustDir(tamaHome);
  const records: TrustRecord[] = [];
  const unread: { file: string; error: string }[] = [];
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") unread.push({ file: dir, error: (error as Error).message });
  }
  for (const name of names.filter((n) => n.endsWith(".json")).sort()) {
    const file = path.join(dir, name);
    try {
      const read = readTrustText(file, readRegularFile(file));
      if (read.ok && read.record) records.push(read.record);
      else if (!read.ok) unread.push({ file, error: read.error });
    } catch (error) {
      unread.push({ file, error: (error as Error).message });
    }
  }
  return { records, unread };
}

/** The differences between a record and the files now, as project-relative paths. */
export function manifestChanges(recorded: Manifest, now: Manifest): string[] {
  const changes: string[] = [];
  for (const file of new Set([...Object.keys(recorded), ...Object.keys(now)])) {
    const before = recorded[file];
    const after = now[file];
    if (before === after) continue;
    if (before === undefined || before === null) changes.push(after === null || after === undefined ? `${file} (gone)` : `${file} (new)`);
    else if (after === undefined || after === null) changes.push(`${file} (gone)`);
    else changes.push(`${file} (changed)`);
  }
  return changes.sort();
}

export function trustStateOf(record: TrustRecord | undefined, now: Manifest): { state: TrustState; changes: string[] } {
  if (record === undefined) return { state: "untrusted", changes: [] };
  const changes = manifestChanges(record.files, now);
  return { state: changes.length === 0 ? "trusted" : "changed", changes };
}

/**
 * SHA-256 of a file's bytes, re-read only when its inode, size, mtime or ctime
 * moved: an unchanged script costs one stat per dispatch, and any write moves ctime.
 */
export class FileDigests {
  private readonly known = new Map<string, { key: string; digest: string | null }>();

  /** The stat key a file's digest was last taken under. */
  keyOf(file: string): string | undefined {
    return this.known.get(file)?.key;
  }

  digest(file: string): string | null {
    let key: string;
    try {
      const stat = statSync(file, { throwIfNoEntry: false });
      key = stat?.isFile() === true ? readKey(stat) : ABSENT;
    } catch {
      key = ABSENT;
    }
    const cached = this.known.get(file);
    if (cached !== undefined && cached.key === key) return cached.digest;
    let digest: string | null = null;
    if (key !== ABSENT) {
      try {
        digest = sha256(readRegularFileBytes(file, HOOK_FILE_MAX_BYTES));
      } catch {
        digest = null;
      }
    }
    if (this.known.size > 4096) this.known.clear();
    this.known.set(file, { key, digest });
    return digest;
  }
}
