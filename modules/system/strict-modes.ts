// StrictModes: Tama trusts a file as policy (the registry, the adapter and its chunk,
// the release, trust and grant records) only when nobody but its owner — this user
// or root — can change it, and the same holds for every directory above it up to the
// user's home (or, outside the home, up to the root, where root-owned sticky
// directories such as /tmp are fine). Else another local user could plant a hook or
// an adapter that runs as this user.
import { fstatSync, realpathSync, statSync, type Stats } from "node:fs";
import os from "node:os";
import path from "node:path";

const octal = (mode: number): string => (mode & 0o7777).toString(8).padStart(4, "0");

/** Why `stats` (of `file`) cannot be trusted as policy, or undefined. */
export function modeProblem(file: string, stats: Stats, uid: number | undefined = process.getuid?.()): string | undefined {
  if (uid === undefined) return undefined; // no Unix owners on this platform
  const mode = stats.mode;
  if (stats.uid !== uid && stats.uid !== 0) {
    return `${file} belongs to uid ${stats.uid}, not to this user (uid ${uid}) or root, so Tama does not trust it as policy: run chown ${uid} ${file} if it is yours, or remove it`;
  }
  const sticky = stats.isDirectory() && (mode & 0o1000) !== 0 && stats.uid === 0;
  if ((mode & 0o022) !== 0 && !sticky) {
    return `${file} is writable by its group or by others (mode ${octal(mode)}), so Tama does not trust it as policy: run chmod go-w ${file}`;
  }
  return undefined;
}

/** The directories whose modes guard `file`: its parents up to the user's home, or up to / outside it. */
function guardingDirectories(file: string, home: string): string[] {
  const dirs: string[] = [];
  const stopAt = file.startsWith(`${home}${path.sep}`) ? home : path.parse(file).root;
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    dirs.push(dir);
    if (dir === stopAt || path.dirname(dir) === dir) break;
  }
  return dirs;
}

export interface TrustOptions {
  /** The user's home (the chain of parents stops there). */
  home?: string;
  /** An already-open descriptor of the file, so the check is of what was read. */
  fd?: number;
}

/**
 * Why `file` cannot be trusted as policy (its own mode and owner, then each
 * directory above it), or undefined. A missing file is no problem here: the caller
 * reports missing files its own way.
 */
export function trustProblem(file: string, options: TrustOptions = {}): string | undefined {
  // The directories that guard a file are those above where it really is (`current` is a link).
  let absolute = path.resolve(file);
  try {
    absolute = realpathSync(absolute);
  } catch {
    // missing: checked as named
  }
  let home = path.resolve(options.home ?? os.homedir());
  try {
    home = realpathSync(home);
  } catch {
    // no home: the chain goes up to the root
  }
  let stats: Stats;
  try {
    stats = options.fd !== undefined ? fstatSync(options.fd) : statSync(absolute);
  } catch {
    return undefined;
  }
  const own = modeProblem(absolute, stats);
  if (own !== undefined) return own;
  for (const dir of guardingDirectories(absolute, home)) {
    let dirStats: Stats;
    try {
      dirStats = statSync(dir);
    } catch {
      continue;
    }
    const problem = modeProblem(dir, dirStats);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** The first of `files` that cannot be trusted, with the reason. */
export function firstTrustProblem(files: readonly string[], options: TrustOptions = {}): string | undefined {
  for (const file of files) {
    const problem = trustProblem(file, options);
    if (problem !== undefined) return problem;
  }
  return undefined;
}
