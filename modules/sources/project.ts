// A session's project, found from the event's cwd. Claude Code sets
// CLAUDE_PROJECT_DIR to the directory it was started in and reads `.claude/settings*.json`
// there only, so started in `proj/sub` it silently loses `proj`'s hooks. Tama keeps
// Claude Code's answer wherever Claude Code has one and fixes that case: the project is
// the nearest directory at or above the cwd that holds a hook source
// (`.tama/hooks.json`, `.claude/settings.json`, `.claude/settings.local.json`); the
// walk stops at the repository's top (a directory holding `.git`), which is the project
// when nothing below it holds a source, and never takes the home directory (its
// `.claude/settings.json` is the user's own) or anything above it.
import { statSync } from "node:fs";
import path from "node:path";
import { ABSENT, keyOfStats } from "../system/stat-key.ts";

/** A project's hook sources, relative to its root, in the order their hooks run. */
export const PROJECT_SOURCE_FILES = [".tama/hooks.json", ".claude/settings.json", ".claude/settings.local.json"] as const;

export interface Project {
  root: string;
  /** Why this directory: it holds a source, or it is the repository's top. */
  found: "sources" | "repository";
}

/** `probed`: each path looked at and its stat key, for a caller that checks later whether the answer still holds. */
function exists(file: string, probed?: Map<string, string>): boolean {
  // throwIfNoEntry: false spares building an exception for the common miss.
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(file, { throwIfNoEntry: false });
  } catch (error) {
    // A cwd (or a part above it) that is a file holds no project either.
    if ((error as NodeJS.ErrnoException).code !== "ENOTDIR") throw error;
    stat = undefined;
  }
  probed?.set(file, stat === undefined ? ABSENT : keyOfStats(stat));
  return stat !== undefined;
}

/** The project of a cwd, or undefined when the cwd is in none (then only the user's hooks apply). */
export function findProject(cwd: string, home: string, probed?: Map<string, string>): Project | undefined {
  if (!path.isAbsolute(cwd)) return undefined;
  const stop = path.resolve(home);
  let dir = path.resolve(cwd);
  for (;;) {
    // The home directory and what lies above it are no project: ~/.claude is the user's.
    if (dir === stop || isInside(stop, dir)) return undefined;
    if (PROJECT_SOURCE_FILES.some((file) => exists(path.join(dir, file), probed))) return { root: dir, found: "sources" };
    if (exists(path.join(dir, ".git"), probed)) return { root: dir, found: "repository" };
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** Whether `inner` lies strictly below `outer`. */
export function isInside(inner: string, outer: string): boolean {
  const relative = path.relative(outer, inner);
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative);
}
