// A file's identity for "unchanged": inode, size, mtime and ctime (µs). Any write
// moves ctime (which no user call can set back), so an equal key means the bytes last
// read, once the file has been still a while (RACY_MS: the file clock is coarse). One stat costs a quarter of a read's system calls. The engine keys the files
// a dispatch's hooks came from; the adapter checks the same keys before it lets an
// event without hooks go on unanswered.
import { statSync, type Stats } from "node:fs";

/** What a path that is not there (or cannot be stat'ed) is keyed as. */
export const ABSENT = "absent";

export const keyOfStats = (stat: Stats): string => `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;

/**
 * How long after a file's last change its key is not taken to stand for its bytes.
 * The kernel stamps files from a coarse clock (a tick of a few ms; a file server's own
 * clock), so a second same-size write that soon can leave the key unchanged. Git
 * treats such a file as racily clean the same way: its bytes are read again.
 */
export const RACY_MS = 2_000;

let unsettledReads = 0;

/**
 * The key for bytes about to be read, from the stat taken just before: the file's key
 * once it has been still RACY_MS, `absent` when it is not there, else a key no stat and
 * no other read yields (`unsettled:…`), so a cache keyed by it never hits and a caller
 * checking it later never matches: the file is read again until it has been still.
 */
export function readKey(stat: Stats | undefined, readAtMs = Date.now()): string {
  if (stat === undefined) return ABSENT;
  const key = keyOfStats(stat);
  return Math.max(stat.mtimeMs, stat.ctimeMs) < readAtMs - RACY_MS ? key : `unsettled:${++unsettledReads}:${key}`;
}

/** A file's stat, undefined when it is not there or cannot be stat'ed. */
export function statOf(file: string): Stats | undefined {
  try {
    return statSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

export function statKey(file: string): string {
  const stat = statOf(file);
  return stat === undefined ? ABSENT : keyOfStats(stat);
}
