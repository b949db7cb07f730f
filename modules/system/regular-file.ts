// Reading a file a session's agent can replace: its repository's .git entries, project
// hook sources and their scripts, the contracts files, OMP's session file, a file a tool
// read. Opened without blocking and read only when it is a regular file: a FIFO opened
// for reading holds the thread until some writer comes (in the adapter that is OMP's
// whole process, in the engine every session's dispatches), and a device never ends.
import { closeSync, constants, fstatSync, openSync, readFileSync } from "node:fs";
import { open } from "node:fs/promises";

const READ_NOW = constants.O_RDONLY | constants.O_NONBLOCK;

/**
 * A descriptor for `file`, open for reading, when it is a regular file; the caller
 * closes it. A directory fails as reading one does (EISDIR, which callers tell apart);
 * anything else that is not a regular file fails as ENOTREG, naming the file.
 */
export function openRegularFile(file: string): number {
  const fd = openSync(file, READ_NOW);
  let stats;
  try {
    stats = fstatSync(fd);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  if (stats.isFile()) return fd;
  closeSync(fd);
  if (stats.isDirectory()) throw Object.assign(new Error("EISDIR: illegal operation on a directory, read"), { code: "EISDIR", errno: -21, syscall: "read" });
  throw Object.assign(new Error(`${file} is not a regular file`), { code: "ENOTREG", path: file });
}

/** `file`'s bytes, when it is a regular file (throws otherwise, as a read that failed). */
export function readRegularFileBytes(file: string): Buffer {
  const fd = openRegularFile(file);
  try {
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** `file`'s text (UTF-8), when it is a regular file (throws otherwise, as a read that failed). */
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
    if (stats.isDirectory()) throw Object.assign(new Error("EISDIR: illegal operation on a directory, read"), { code: "EISDIR", errno: -21, syscall: "read" });
    if (!stats.isFile()) throw Object.assign(new Error(`${file} is not a regular file`), { code: "ENOTREG", path: file });
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
