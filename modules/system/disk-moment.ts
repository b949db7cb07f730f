// One look at the disk per moment. The gates on one call ask the file system the same
// questions many times over (is there a `.git` here, where does this directory really
// lead, is there a package.json above): about a hundred system calls a bash call, a
// third of them different. Inside `withDiskMoment` each question is asked once; the
// answers are dropped at the next microtask checkpoint, so they never outlive the
// synchronous stretch that asked (nothing in this process writes between them, and
// a gate's await, a hook process or the next event all see the disk afresh).
import { existsSync, lstatSync, readdirSync, realpathSync, type Stats, statSync } from "node:fs";

/** What one question answered: its value, or what it threw, thrown again each time. */
type Answer<T> = { value: T } | { error: unknown };

interface Moment {
  exists: Map<string, boolean>;
  stat: Map<string, Stats | undefined>;
  lstat: Map<string, Stats | undefined>;
  realpath: Map<string, Answer<string>>;
  readdir: Map<string, Answer<readonly string[]>>;
  size: number;
}

/** Past this many answers a moment stops keeping new ones (a walk of a megabyte script asks many paths once). */
const MAX_ANSWERS = 4096;

let moment: Moment | undefined;
let depth = 0;

/** `run`, with the disk's answers kept for the rest of the synchronous stretch (gates on one call share them). */
export function withDiskMoment<T>(run: () => T): T {
  if (moment === undefined) {
    moment = { exists: new Map(), stat: new Map(), lstat: new Map(), realpath: new Map(), readdir: new Map(), size: 0 };
    queueMicrotask(() => {
      moment = undefined;
    });
  }
  depth += 1;
  try {
    return run();
  } finally {
    depth -= 1;
  }
}

const current = (): Moment | undefined => (depth > 0 ? moment : undefined);

function kept<T>(table: Map<string, T>, key: string, ask: () => T): T {
  const now = current();
  if (now === undefined) return ask();
  if (table.has(key)) return table.get(key) as T;
  const value = ask();
  if (now.size < MAX_ANSWERS) {
    table.set(key, value);
    now.size += 1;
  }
  return value;
}

function answered<T>(answer: Answer<T>): T {
  if ("error" in answer) throw answer.error;
  return answer.value;
}

function attempt<T>(ask: () => T): Answer<T> {
  try {
    return { value: ask() };
  } catch (error) {
    return { error };
  }
}

export function exists(file: string): boolean {
  const now = current();
  return now === undefined ? existsSync(file) : kept(now.exists, file, () => existsSync(file));
}

/** Stats of `file`, following a link or not; undefined when it is missing or cannot be reached. */
function askStats(file: string, follow: boolean): Stats | undefined {
  try {
    return (follow ? statSync : lstatSync)(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** `file`'s stats following links; undefined when it is missing or cannot be reached. */
export function statOf(file: string): Stats | undefined {
  const now = current();
  return now === undefined ? askStats(file, true) : kept(now.stat, file, () => askStats(file, true));
}

/** `file`'s own stats (a link is not followed); undefined when it is missing or cannot be reached. */
export function lstatOf(file: string): Stats | undefined {
  const now = current();
  return now === undefined ? askStats(file, false) : kept(now.lstat, file, () => askStats(file, false));
}

/** `file`'s own stats asked of the disk now, never an answer kept earlier in the moment. */
export function lstatNow(file: string): Stats | undefined {
  return askStats(file, false);
}

/** `realpathSync.native`: throws as it does. */
export function realpathOf(file: string): string {
  const now = current();
  return now === undefined ? realpathSync.native(file) : answered(kept(now.realpath, file, () => attempt(() => realpathSync.native(file))));
}

/** `readdirSync`'s names: throws as it does. */
export function namesIn(dir: string): readonly string[] {
  const now = current();
  return now === undefined ? readdirSync(dir) : answered(kept(now.readdir, dir, () => attempt(() => Object.freeze(readdirSync(dir)))));
}
