// Which program a binary file is. The gates read a command by its program's name, so a
// copy of git under another name (`cp /usr/bin/git g`, then `./g commit -n` in a later
// call) would run unread. A copy keeps its ELF build id (appending bytes does not change
// it); a file with none is compared whole, byte for byte by hash, against the programs of
// the same size.
import { createHash } from "node:crypto";
import { closeSync, readSync, type Stats } from "node:fs";
import path from "node:path";
import { realpathOf, statOf } from "../system/disk-moment.ts";
import { openRegularFile, readOpened } from "../system/regular-file.ts";

/** What one file is known by: its build id, or its size (its hash is read only when a size matches). */
type Identity = { buildId: string } | { size: number };

/** The programs the gates read by name as found on PATH: by build id, and by size for those with none. */
interface KnownPrograms {
  byBuildId: Map<string, string>;
  bySize: Map<number, string[]>;
}

/** Files larger than this are not hashed whole (no program the gates read is). */
const MAX_HASHED = 256 * 1024 * 1024;
/** The ELF header and program headers sit at the start; notes lie within the first pages. */
const HEAD_BYTES = 64 * 1024;

const known = new Map<string, KnownPrograms>();
const hashes = new Map<string, { key: string; hash: string }>();
/** Files' identities, kept while their size, times and inode stay (a project binary runs call after call). */
const identities = new Map<string, { key: string; identity: Identity | undefined }>();
const KEPT = 64;

/** What a file's contents are known by between calls: its size, change times and inode. */
function fileKey(file: string): string | undefined {
  const stats = statOf(file);
  return stats === undefined ? undefined : `${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}:${stats.ino}`;
}

/** `entry` kept in `cache` under `file` (the oldest let go past KEPT). */
function keep<T>(cache: Map<string, { key: string } & T>, file: string, entry: { key: string } & T): void {
  if (cache.size >= KEPT) cache.delete(cache.keys().next().value as string);
  cache.set(file, entry);
}

/**
 * The system program `file` is a copy of, among `names` as `searchPath` finds them: its
 * real path, or undefined when it is none of them (or cannot be read). Built once per
 * PATH, on the first binary asked about.
 */
export function copiedProgram(file: string, names: () => Iterable<string>, searchPath: string = process.env.PATH ?? ""): string | undefined {
  const identity = identityOf(file);
  if (identity === undefined) return undefined;
  let programs = known.get(searchPath);
  if (programs === undefined) {
    programs = knownPrograms(names(), searchPath);
    known.set(searchPath, programs);
  }
  if ("buildId" in identity) return programs.byBuildId.get(identity.buildId);
  const sameSize = programs.bySize.get(identity.size);
  if (sameSize === undefined) return undefined;
  const hash = hashOf(file);
  return hash === undefined ? undefined : sameSize.find((program) => hashOf(program) === hash);
}

function knownPrograms(names: Iterable<string>, searchPath: string): KnownPrograms {
  const byBuildId = new Map<string, string>();
  const bySize = new Map<number, string[]>();
  const dirs = searchPath.split(":").filter((dir) => path.isAbsolute(dir));
  const seen = new Set<string>();
  for (const name of names) {
    for (const dir of dirs) {
      const stats = statOf(path.join(dir, name));
      if (stats === undefined || !stats.isFile()) continue;
      let real: string;
      try {
        real = realpathOf(path.join(dir, name));
      } catch {
        continue;
      }
      if (seen.has(real)) continue;
      seen.add(real);
      // Every directory's, not only the first: a version manager's shim (a script) may come before the program.
      const identity = identityOf(real);
      if (identity === undefined) continue;
      if ("buildId" in identity) {
        if (!byBuildId.has(identity.buildId)) byBuildId.set(identity.buildId, real);
      } else bySize.set(identity.size, [...(bySize.get(identity.size) ?? []), real]);
    }
  }
  return { byBuildId, bySize };
}

/**
 * `read` given a regular file opened without waiting (a FIFO or a device the agent put in
 * a program's place is never opened for reading, let alone waited on); undefined when it
 * is none or cannot be read.
 */
function withRegularFile<T>(file: string, read: (fd: number, stats: Stats) => T | undefined): T | undefined {
  let opened: { fd: number; stats: Stats };
  try {
    opened = openRegularFile(file);
  } catch {
    return undefined;
  }
  try {
    return read(opened.fd, opened.stats);
  } catch {
    return undefined;
  } finally {
    closeSync(opened.fd);
  }
}

/** A binary file's identity; undefined for a script, a folder, or what cannot be read. */
function identityOf(file: string): Identity | undefined {
  const key = fileKey(file);
  const kept = identities.get(file);
  if (key !== undefined && kept?.key === key) return kept.identity;
  const identity = readIdentity(file);
  if (key !== undefined) keep(identities, file, { key, identity });
  return identity;
}

function readIdentity(file: string): Identity | undefined {
  return withRegularFile(file, (fd, stats) => {
    const bytes = readOpened(fd, Math.min(HEAD_BYTES, stats.size));
    // A script is read as text where it runs; only a binary needs telling apart.
    const firstLine = bytes.subarray(0, 80);
    const newline = firstLine.indexOf(10);
    if (!(newline === -1 ? firstLine : firstLine.subarray(0, newline)).includes(0)) return undefined;
    const buildId = elfBuildId(fd, bytes);
    return buildId === undefined ? { size: stats.size } : { buildId };
  });
}

/** The GNU (or Go) build id in an ELF file's notes; `head`: its first bytes. */
export function elfBuildId(fd: number, head: Buffer): string | undefined {
  if (head.length < 64 || head.readUInt32BE(0) !== 0x7f454c46) return undefined;
  const wide = head[4] === 2;
  const little = head[5] === 1;
  const u16 = (buffer: Buffer, at: number): number => (little ? buffer.readUInt16LE(at) : buffer.readUInt16BE(at));
  const u32 = (buffer: Buffer, at: number): number => (little ? buffer.readUInt32LE(at) : buffer.readUInt32BE(at));
  const word = (buffer: Buffer, at: number): number => (wide ? Number(little ? buffer.readBigUInt64LE(at) : buffer.readBigUInt64BE(at)) : u32(buffer, at));
  const phoff = word(head, wide ? 32 : 28);
  const phentsize = u16(head, wide ? 54 : 42);
  const phnum = u16(head, wide ? 56 : 44);
  if (phnum > 256 || phentsize < (wide ? 56 : 32)) return undefined;
  const table = bytesAt(fd, head, phoff, phentsize * phnum);
  if (table === undefined) return undefined;
  for (let i = 0; i < phnum; i++) {
    const entry = i * phentsize;
    if (u32(table, entry) !== 4) continue; // PT_NOTE
    const offset = word(table, entry + (wide ? 8 : 4));
    const size = word(table, entry + (wide ? 32 : 16));
    const notes = size > HEAD_BYTES ? undefined : bytesAt(fd, head, offset, size);
    if (notes === undefined) continue;
    for (let at = 0; at + 12 <= notes.length; ) {
      const nameSize = u32(notes, at);
      const descSize = u32(notes, at + 4);
      const type = u32(notes, at + 8);
      const nameEnd = at + 12 + nameSize;
      const descAt = at + 12 + align4(nameSize);
      const next = descAt + align4(descSize);
      if (next > notes.length) break;
      const name = notes.subarray(at + 12, nameEnd).toString("latin1").replace(/\0+$/, "");
      // NT_GNU_BUILD_ID, and the Go toolchain's own build id note.
      if ((name === "GNU" && type === 3) || (name === "Go" && type === 4)) return `${name}:${notes.subarray(descAt, descAt + descSize).toString("hex")}`;
      at = next;
    }
  }
  return undefined;
}

const align4 = (n: number): number => (n + 3) & ~3;

function bytesAt(fd: number, head: Buffer, offset: number, length: number): Buffer | undefined {
  if (offset + length <= head.length) return head.subarray(offset, offset + length);
  const out = Buffer.alloc(length);
  return readSync(fd, out, 0, length, offset) === length ? out : undefined;
}

/** A file's SHA-256, kept while its size and change time stay. */
function hashOf(file: string): string | undefined {
  const stats = statOf(file);
  const key = fileKey(file);
  if (stats === undefined || key === undefined || stats.size > MAX_HASHED) return undefined;
  const kept = hashes.get(file);
  if (kept?.key === key) return kept.hash;
  const digest = withRegularFile(file, (fd) => {
    const hash = createHash("sha256");
    const chunk = Buffer.alloc(1024 * 1024);
    for (let read = readSync(fd, chunk); read > 0; read = readSync(fd, chunk)) hash.update(chunk.subarray(0, read));
    return hash.digest("hex");
  });
  if (digest === undefined) return undefined;
  keep(hashes, file, { key, hash: digest });
  return digest;
}
