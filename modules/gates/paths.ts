// Where a path really is, for gates that judge places: the session's project (the
// nearest directory up from the cwd holding `.git`, as git finds its work tree; the
// cwd itself outside a repository), `~`/`$HOME` expanded as the shell would, and
// symlinks resolved through the nearest part of the path that exists, so a link
// inside the project that points out of it is outside.
import { existsSync, realpathSync } from "node:fs";
import os from "node:os";
import path from "node:path";

export function projectRoot(cwd: string): string {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, ".git"))) return dir;
    if (path.dirname(dir) === dir) return path.resolve(cwd);
  }
}

/** The real path of `target`, resolving links in the part that exists. */
export function realPath(target: string): string {
  const absolute = path.resolve(target);
  const rest: string[] = [];
  for (let dir = absolute; ; dir = path.dirname(dir)) {
    try {
      return path.join(realpathSync(dir), ...rest.reverse());
    } catch {
      if (path.dirname(dir) === dir) return absolute;
      rest.push(path.basename(dir));
    }
  }
}

/** A word as the shell would hand it to a program: `~`, `$HOME`, `${HOME}` expanded, relative to `cwd`. */
export function wordPath(word: string, cwd: string, env: ReadonlyMap<string, string> = new Map()): string {
  const home = env.get("HOME") ?? os.homedir();
  const expanded = word.replace(/^~(?=\/|$)/, home).replace(/^\$\{?HOME\}?(?=\/|$)/, home);
  return path.resolve(cwd, expanded);
}

export function isInside(root: string, target: string): boolean {
  const relative = path.relative(root, target);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

/** Whether `target` lies in one of `allowed` (each resolved like a target). */
export function isAllowed(target: string, allowed: readonly string[], cwd: string): boolean {
  return allowed.some((entry) => isInside(realPath(wordPath(entry, cwd)), target));
}

/** A glob word's directory part: `/*` → `/`, `build/**` → `build` (the shell expands the rest). */
export function globBase(word: string): string {
  const at = word.search(/[*?[]/);
  if (at === -1) return word;
  const head = word.slice(0, at);
  const slash = head.lastIndexOf("/");
  return slash === -1 ? "." : slash === 0 ? "/" : head.slice(0, slash);
}
