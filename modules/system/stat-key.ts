// A file's identity for "unchanged": inode, size, mtime and ctime (µs). Any write
// moves ctime (which no user call can set back), so an equal key means the bytes last
// read. One stat costs a quarter of a read's system calls. The engine keys the files
// a dispatch's hooks came from; the adapter checks the same keys before it lets an
// event without hooks go on unanswered.
import { fstatSync, statSync, type Stats } from "node:fs";

/** What a path that is not there (or cannot be stat'ed) is keyed as. */
export const ABSENT = "absent";

export const keyOfStats = (stat: Stats): string => `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;

export function statKey(file: string): string {
  try {
    const stat = statSync(file, { throwIfNoEntry: false });
    return stat === undefined ? ABSENT : keyOfStats(stat);
  } catch {
    return ABSENT;
  }
}

export function fstatKey(fd: number): string {
  try {
    return keyOfStats(fstatSync(fd));
  } catch {
    return ABSENT;
  }
}
