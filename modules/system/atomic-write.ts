// Every file Tama replaces is written beside itself and renamed over the old one, so a
// reader (an engine re-reading its registry, a CLI reading a session record, Bun
// importing an adapter copy) sees the old bytes or the new ones, never half of either.
import { randomBytes } from "node:crypto";
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";

export interface AtomicWriteOptions {
  /** The new file's mode (default 0644). */
  mode?: number;
  /** Create the parent directory first, with this mode. */
  createDir?: number;
}

/** A temporary name beside `file` that no other writer (process or call) uses. */
export function tempPathBeside(file: string): string {
  return `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
}

export function writeFileAtomic(file: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  if (options.createDir !== undefined) mkdirSync(path.dirname(file), { recursive: true, mode: options.createDir });
  const temp = tempPathBeside(file);
  try {
    writeFileSync(temp, data, { mode: options.mode ?? 0o644 });
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/** The same, off the event loop: for writers on a hot path (running-hook records). */
export async function writeFileAtomicAsync(file: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  if (options.createDir !== undefined) await mkdir(path.dirname(file), { recursive: true, mode: options.createDir });
  const temp = tempPathBeside(file);
  try {
    await writeFile(temp, data, { mode: options.mode ?? 0o644 });
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
