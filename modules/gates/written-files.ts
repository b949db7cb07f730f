// The files a call's command lines wrote before the command being read, with what each
// held after each write: `echo 'cmd' > s.sh; sh s.sh` runs what the line put there, and
// `base64 -d > s.sh; sh s.sh` runs text no reader can know.
import { lstatOf } from "../system/disk-moment.ts";
import { foldName } from "../system/name-case.ts";
import { realPath } from "./paths.ts";

/** What the line left in a file: text it knows, or text it cannot know. */
export type WrittenState = { text: string } | { opaque: true };

interface Entry {
  at: number;
  state: WrittenState;
  /** The name it was written under. */
  spelled: string;
}

/**
 * What a read of `key` finds of a write under `entry`'s name. Another spelling of the same
 * name (`RUN.SH` for `run.sh`) is the same file where the file system folds case and
 * another where it keeps case: with a file under `key` on disk, which of the two a later
 * read finds no reader can know; with none, the read finds what was written or nothing
 * (`> Makefile`, then make looking for `makefile` first), and is read as what was written.
 */
const seenAs = (entry: Entry | undefined, key: string): WrittenState | undefined => {
  if (entry === undefined || entry.spelled === key) return entry?.state;
  return lstatOf(key) === undefined ? entry.state : { opaque: true };
};

/**
 * Written files, kept so that a view taken at one command sees them as they stood when
 * that command ran, in constant time and without a copy: a gate that walks on from a
 * command after the whole line was read (a git alias it expands) must not read what
 * later commands wrote. What a walk started from a view writes stays in that view.
 */
export class WrittenFiles {
  /** By name folded (name-case.ts): `echo … > RUN.SH; sh run.sh` runs what was written, or the run.sh on disk (seenAs). */
  private readonly history = new Map<string, Entry[]>();
  /** Each written key by its real path, so that a file named through a link on disk is matched (`d/x.sh` with d a link to `.`). */
  private readonly byReal = new Map<string, string>();
  private now = 0;
  private firstAt: number | undefined;

  private constructor(
    private readonly base?: WrittenFiles,
    private readonly until = 0,
  ) {}

  static empty(): WrittenFiles {
    return new WrittenFiles();
  }

  /** These files as they stand now, for a walk that starts from here. */
  view(): WrittenFiles {
    return new WrittenFiles(this, this.now);
  }

  /** Nothing written (a command that reads files pays nothing for matching them through links). */
  isEmpty(): boolean {
    return this.firstAt === undefined && (this.base === undefined || this.base.emptyAt(this.until));
  }

  /** What the line left in `key`, as stood then; undefined when the line did not write it. */
  state(key: string): WrittenState | undefined {
    return seenAs(this.history.get(foldName(key))?.at(-1), key) ?? this.base?.stateAt(key, this.until);
  }

  /** `file` (through the line's links already) as it is kept: the key it was written under, when a link on disk leads there. */
  keyFor(file: string): string {
    if (this.isEmpty() || this.state(file) !== undefined) return file;
    return this.keyOfReal(realPath(file)) ?? file;
  }

  private keyOfReal(real: string): string | undefined {
    return this.byReal.get(foldName(real)) ?? this.base?.keyOfReal(real);
  }

  record(key: string, state: WrittenState): void {
    this.now += 1;
    const entries = this.history.get(foldName(key));
    if (entries !== undefined) entries.push({ at: this.now, state, spelled: key });
    else {
      this.history.set(foldName(key), [{ at: this.now, state, spelled: key }]);
      this.byReal.set(foldName(realPath(key)), key);
    }
    this.firstAt ??= this.now;
  }

  private emptyAt(time: number): boolean {
    return (this.firstAt === undefined || this.firstAt > time) && (this.base === undefined || this.base.emptyAt(this.until));
  }

  private stateAt(key: string, time: number): WrittenState | undefined {
    const entries = this.history.get(foldName(key));
    if (entries !== undefined) {
      for (let i = entries.length - 1; i >= 0; i--) if ((entries[i] as Entry).at <= time) return seenAs(entries[i], key);
    }
    return this.base?.stateAt(key, this.until);
  }
}
