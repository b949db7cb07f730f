// Reading a file a session's agent can replace: its repository's .git entries, project
// hook sources and their scripts, the contracts files, OMP's session file, a file a tool
// read. Opened without blocking and read only when it is a regular file of a bounded
// size: a FIFO opened for reading holds the thread until some writer comes (in the
// adapter that is OMP's whole process, in the engine every session's dispatches), a
// device never ends, and a sparse file of gigabytes costs as much as one.
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";
import { open } from "node:fs/promises";

const READ_NOW = constants.O_RDONLY | constants.O_NONBLOCK;
/** The most a whole read takes: far above any config, settings or contracts file. */
export const READ_MAX_BYTES = 16 * 1024 * 1024;

/**
 * Why `stats` cannot be read as `file`'s content, as an error a read would throw; none
 * when it is a regular file of at most `maxBytes`. A directory fails as reading one does
 * (EISDIR, which callers tell apart); anything else not regular fails as ENOTREG.
 */
function unreadable(file: string, stats: Stats, maxBytes: number): Error | undefined {
  if (stats.isDirectory()) return Object.assign(new Error("EISDIR: illegal operation on a directory, read"), { code: "EISDIR", errno: -21, syscall: "read" });
  if (!stats.isFile()) return Object.assign(new Error(`${file} is not a regular file`), { code: "ENOTREG", path: file });
  if (stats.size > maxBytes) return Object.assign(new Error(`${file} is larger than ${maxBytes} bytes`), { code: "EFBIG", path: file });
  return undefined;
}

/** A descriptor for `file` open for reading, with its stats, when it is a regular file; the caller closes it. */
export function openRegularFile(file: string, maxBytes = Number.POSITIVE_INFINITY): { fd: number; stats: Stats } {
  const fd = openSync(file, READ_NOW);
  try {
    const stats = fstatSync(fd);
    const error = unreadable(file, stats, maxBytes);
    if (error !== undefined) throw error;
    return { fd, stats };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** Up to `size` bytes from the start of an open file: what its size said, no more (a file growing as it is read does not grow the read). */
export function readOpened(fd: number, size: number): Buffer {
  const buffer = Buffer.alloc(size);
  let filled = 0;
  while (filled < buffer.length) {
    const read = readSync(fd, buffer, filled, buffer.length - filled, filled);
    if (read === 0) break;
    filled += read;
  }
  return buffer.subarray(0, filled);
}

/** `file`'s bytes, when it is a regular file of at most `maxBytes` (throws otherwise, as a read that failed). */
export function readRegularFileBytes(file: string, maxBytes = READ_MAX_BYTES): Buffer {
  const { fd, stats } = openRegularFile(file, maxBytes);
  try {
    return readOpened(fd, stats.size);
  } finally {
    closeSync(fd);
  }
}

/** `file`'s text (UTF-8), when it is a regular file of at most READ_MAX_BYTES (throws otherwise, as a read that failed). */
export function readRegularFile(file: string): string {
  return readRegularFileBytes(file).toString("utf8");
}

/**
 * `file`'s bytes when it is a regular file of at most `maxBytes`; undefined when it is
 * larger, or grew while read. Fails as a read that failed otherwise (ENOENT, EISDIR,
 * ENOTREG): never waits for a FIFO's writer, never reads a device without end.
 */
export async function readRegularFileUpTo(file: string, maxBytes: number): Promise<Buffer | undefined> {
  const handle = await open(file, READ_NOW);
  try {
    const stats = await handle.stat();
    const error = unreadable(file, stats, Number.POSITIVE_INFINITY);
    if (error !== undefined) throw error;
    if (stats.size > maxBytes) return undefined;
    // One byte more than its size: filling it means the file grew as it was read.
    const buffer = Buffer.alloc(stats.size + 1);
    let filled = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) return buffer.subarray(0, filled);
      filled += bytesRead;
      if (filled === buffer.length) return undefined;
    }
  } finally {
    await handle.close();
  }
}
