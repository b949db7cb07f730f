// What git's index says of a work tree's files: which are tracked, and whether a file's
// bytes are the ones staged. A `git stash`, `git checkout -- .` or `git clean -f` changes
// a file only when it is changed against the index or untracked, so this is what tells a
// command that would throw away a person's uncommitted policy edit from one that would
// not. The index is read as git writes it (Documentation/gitformat-index.txt, versions
// 2 to 4); a file is compared by the object id git would give its bytes.
import { createHash } from "node:crypto";
import path from "node:path";
import { readlinkSync } from "node:fs";
import { lstatOf, statOf } from "../system/disk-moment.ts";
import { readRegularFileBytes } from "../system/regular-file.ts";

export interface GitIndex {
  /** Object id (hex) and mode of each tracked path, relative to the work tree, `/`-separated. */
  entries: ReadonlyMap<string, { id: string; mode: number }>;
  /** "sha1" or "sha256": the ids' hash. */
  hash: "sha1" | "sha256";
}

/** An index larger than this is not read (a monorepo's is tens of MB; the question is then left open). */
const MAX_INDEX_BYTES = 64 * 1024 * 1024;

const cache = new Map<string, { key: string; index: GitIndex }>();

/**
 * The index of the repository whose git directory is `gitDir`; undefined when there is
 * none, it cannot be read or its format is not one Tama reads (callers then treat every
 * file as changed). Kept while the file's size, time and inode stay the same.
 */
export function readGitIndex(gitDir: string, hash: "sha1" | "sha256" = "sha1"): GitIndex | undefined {
  const file = path.join(gitDir, "index");
  const seen = lstatOf(file);
  // A repository with nothing staged yet has no index: every file is untracked.
  if (seen === undefined) return lstatOf(gitDir)?.isDirectory() === true ? { entries: new Map(), hash } : undefined;
  if (!seen.isFile()) return undefined;
  const key = `${seen.size}:${seen.mtimeMs}:${seen.ino}:${hash}`;
  const kept = cache.get(file);
  if (kept !== undefined && kept.key === key) return kept.index;
  let index: GitIndex | undefined;
  try {
    index = parseGitIndex(readRegularFileBytes(file, MAX_INDEX_BYTES), hash);
  } catch {
    return undefined;
  }
  if (index === undefined) return undefined;
  if (cache.size >= 8) cache.delete(cache.keys().next().value as string);
  cache.set(file, { key, index });
  return index;
}

/** The entries of an index file's bytes; undefined when they are not an index Tama reads. */
export function parseGitIndex(bytes: Buffer, hash: "sha1" | "sha256" = "sha1"): GitIndex | undefined {
  if (bytes.length < 12 || bytes.toString("latin1", 0, 4) !== "DIRC") return undefined;
  const version = bytes.readUInt32BE(4);
  if (version < 2 || version > 4) return undefined;
  const count = bytes.readUInt32BE(8);
  const idBytes = hash === "sha1" ? 20 : 32;
  const entries = new Map<string, { id: string; mode: number }>();
  let at = 12;
  let previous = "";
  for (let n = 0; n < count; n++) {
    const start = at;
    // ctime, mtime (8 each), dev, ino, mode, uid, gid, size (4 each), the id, then flags.
    if (at + 40 + idBytes + 2 > bytes.length) return undefined;
    const mode = bytes.readUInt32BE(at + 24);
    const id = bytes.toString("hex", at + 40, at + 40 + idBytes);
    const flags = bytes.readUInt16BE(at + 40 + idBytes);
    at += 40 + idBytes + 2;
    // Version 3's extended flags (skip-worktree, intent-to-add) follow when flagged.
    if (version >= 3 && (flags & 0x4000) !== 0) at += 2;
    let name: string;
    if (version === 4) {
      // The name is the previous one less a number of bytes (a varint), then what follows to a NUL.
      let strip = 0;
      let byte: number;
      do {
        if (at >= bytes.length) return undefined;
        byte = bytes[at++] as number;
        strip = (strip << 7) | (byte & 0x7f);
        if ((byte & 0x80) !== 0) strip += 1;
      } while ((byte & 0x80) !== 0);
      const end = bytes.indexOf(0, at);
      if (end === -1 || strip > previous.length) return undefined;
      name = previous.slice(0, previous.length - strip) + bytes.toString("utf8", at, end);
      at = end + 1;
    } else {
      const end = bytes.indexOf(0, at);
      if (end === -1) return undefined;
      name = bytes.toString("utf8", at, end);
      // Entries are padded with NULs to a multiple of eight bytes.
      at = start + Math.ceil((end + 1 - start) / 8) * 8;
    }
    previous = name;
    // Stage 0 only: a path mid-merge has stages 1-3, and is changed either way.
    if (((flags >> 12) & 0x3) === 0) entries.set(name, { id, mode });
  }
  // Extensions follow, up to the trailing checksum. A split index (`link`) keeps most entries in another file: not read here.
  while (at + 8 <= bytes.length - idBytes) {
    const signature = bytes.toString("latin1", at, at + 4);
    if (signature === "link") return undefined;
    at += 8 + bytes.readUInt32BE(at + 4);
  }
  return { entries, hash };
}

/** The id git gives `file`'s content (a blob: a regular file's bytes, a link's target); undefined when it cannot be read. */
export function workTreeId(file: string, hash: "sha1" | "sha256"): string | undefined {
  return workTreeIds(file, hash)[0];
}

const blobId = (content: Buffer, hash: "sha1" | "sha256"): string => createHash(hash).update(`blob ${content.length}\0`).update(content).digest("hex");

/**
 * The ids git may give `file`'s content: its bytes as they are, and, where they hold
 * CRLF line ends, with LF ones (what `eol=crlf`, `text=auto` and `core.autocrlf` store).
 */
export function workTreeIds(file: string, hash: "sha1" | "sha256"): string[] {
  const seen = lstatOf(file);
  if (seen === undefined) return [];
  let content: Buffer;
  try {
    content = seen.isSymbolicLink() ? Buffer.from(readlinkSync(file)) : readRegularFileBytes(file);
  } catch {
    return [];
  }
  const ids = [blobId(content, hash)];
  if (!seen.isSymbolicLink() && content.includes("\r\n")) ids.push(blobId(Buffer.from(content.toString("latin1").replace(/\r\n/g, "\n"), "latin1"), hash));
  return ids;
}

/** How the work tree's `relative` stands against the index: missing, untracked, changed, as staged, or unknown (no index read). */
export function fileState(index: GitIndex | undefined, root: string, relative: string): "missing" | "untracked" | "changed" | "staged" | "unknown" {
  const file = path.join(root, relative);
  if (lstatOf(file) === undefined) return "missing";
  if (index === undefined) return "unknown";
  const entry = index.entries.get(relative);
  if (entry === undefined) return "untracked";
  return workTreeIds(file, index.hash).includes(entry.id) ? "staged" : "changed";
}

/** The repository around `file` (absolute): its work tree's root and git directory; undefined outside one. */
export function repositoryAround(file: string): { root: string; gitDir: string } | undefined {
  return repositoryAt(path.dirname(file));
}

/** The repository git finds from `dir`: the nearest `.git` directory, or a `gitdir:` file's (a linked worktree's). */
export function repositoryAt(start: string): { root: string; gitDir: string } | undefined {
  for (let dir = path.resolve(start); ; dir = path.dirname(dir)) {
    const dotGit = path.join(dir, ".git");
    const seen = statOf(dotGit);
    if (seen?.isDirectory() === true) return { root: dir, gitDir: dotGit };
    if (seen?.isFile() === true) {
      try {
        const pointer = /^gitdir:\s*(.+)$/m.exec(readRegularFileBytes(dotGit, 4096).toString("utf8"))?.[1]?.trim();
        if (pointer !== undefined) return { root: dir, gitDir: path.resolve(dir, pointer) };
      } catch {
        // not a gitdir file
      }
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** A git directory's common one: a linked worktree's `commondir`, else itself (refs, config and objects live there). */
export function commonDir(gitDir: string): string {
  try {
    const common = readRegularFileBytes(path.join(gitDir, "commondir"), 4096).toString("utf8").trim();
    return common.length > 0 ? path.resolve(gitDir, common) : gitDir;
  } catch {
    return gitDir;
  }
}
