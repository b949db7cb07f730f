// Whether git ignores a work-tree path: `git clean -f` leaves an ignored file alone
// (unless `-x`), so the self-protection gate asks this before calling a `git clean` the
// end of an untracked policy file (`.claude/settings.local.json` is usually ignored).
// Read as gitignore(5) says: the `.gitignore` of each directory from the root down, then
// `.git/info/exclude`, then `core.excludesFile`; the last matching pattern wins, a
// directory excluded excludes all below it.
import { homedir } from "node:os";
import path from "node:path";
import { readRegularFile } from "../system/regular-file.ts";

interface Pattern {
  regex: RegExp;
  negated: boolean;
  dirOnly: boolean;
  /** Matched against the path below the file's directory (it had a `/`), else against the name alone. */
  anchored: boolean;
  /** The directory the pattern's file lies in, relative to the work tree ("" at the root). */
  base: string;
}

/** A gitignore glob as a regular expression over a `/`-separated path. */
function globRegex(glob: string): RegExp {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i] as string;
    if (ch === "*" && glob[i + 1] === "*") {
      const before = i === 0 || glob[i - 1] === "/";
      const after = glob[i + 2] === "/" || i + 2 === glob.length;
      if (before && after) {
        // `**/` any leading directories, `/**` everything inside.
        out += glob[i + 2] === "/" ? "(?:.*/)?" : ".*";
        i += glob[i + 2] === "/" ? 2 : 1;
        continue;
      }
    }
    if (ch === "*") out += "[^/]*";
    else if (ch === "?") out += "[^/]";
    else if (ch === "\\" && i + 1 < glob.length) out += `\\${glob[++i] as string}`;
    else if (ch === "[") {
      const end = glob.indexOf("]", i + 2);
      if (end === -1) out += "\\[";
      else {
        const body = glob.slice(i + 1, end).replace(/^!/, "^").replace(/\\/g, "\\\\");
        out += `[${body}]`;
        i = end;
      }
    } else out += /[.+^${}()|/]/.test(ch) ? `\\${ch}` : ch;
  }
  return new RegExp(`^${out}$`);
}

function parsePatterns(text: string, base: string): Pattern[] {
  const patterns: Pattern[] = [];
  for (const raw of text.split("\n")) {
    let line = raw.replace(/\r$/, "");
    if (line.length === 0 || line.startsWith("#")) continue;
    // Trailing spaces go unless escaped (spaces only: a tab stays part of the pattern, as git keeps it).
    line = line.replace(/(?<!\\) +$/, "");
    const negated = line.startsWith("!");
    if (negated) line = line.slice(1);
    if (line.startsWith("\\")) line = line.slice(1);
    const dirOnly = line.endsWith("/");
    if (dirOnly) line = line.slice(0, -1);
    if (line.length === 0) continue;
    const anchored = line.includes("/");
    if (line.startsWith("/")) line = line.slice(1);
    try {
      patterns.push({ regex: globRegex(line), negated, dirOnly, anchored, base });
    } catch {
      // a pattern that makes no expression matches nothing, as a broken one does in git
    }
  }
  return patterns;
}

function readPatterns(file: string, base: string): Pattern[] {
  try {
    return parsePatterns(readRegularFile(file), base);
  } catch {
    return [];
  }
}

/** The verdict of the patterns on one path: true ignored, false re-included, undefined no match. */
function verdictOf(patterns: readonly Pattern[], relative: string, isDir: boolean): boolean | undefined {
  let verdict: boolean | undefined;
  for (const p of patterns) {
    if (p.dirOnly && !isDir) continue;
    if (p.base !== "" && !relative.startsWith(`${p.base}/`)) continue;
    const below = p.base === "" ? relative : relative.slice(p.base.length + 1);
    if (p.regex.test(p.anchored ? below : path.posix.basename(below))) verdict = !p.negated;
  }
  return verdict;
}

/**
 * Whether git ignores `relative` (a file, `/`-separated, below `root`), with the
 * excludes file `core.excludesFile` names (default: XDG's git/ignore). `from`: the
 * number of leading folders a search starts inside, whose own rules do not leave it
 * out (a search started in an ignored folder reads it; rules below still apply).
 */
export function isIgnored(root: string, gitDir: string, relative: string, excludesFile: string | undefined, env: ReadonlyMap<string, string>, from = 0): boolean {
  const home = env.get("HOME") ?? homedir();
  const globalFile = excludesFile !== undefined ? excludesFile.replace(/^~(?=\/)/, home) : path.join(env.get("XDG_CONFIG_HOME") ?? path.join(home, ".config"), "git", "ignore");
  // Lowest precedence first: the later verdict wins.
  const general = [...readPatterns(path.resolve(root, globalFile), ""), ...readPatterns(path.join(gitDir, "info", "exclude"), "")];
  const parts = relative.split("/");
  const local: Pattern[] = [];
  for (let depth = 0; depth < parts.length; depth++) {
    const dir = parts.slice(0, depth).join("/");
    local.push(...readPatterns(path.join(root, dir, ".gitignore"), dir));
    const here = parts.slice(0, depth + 1).join("/");
    const isDir = depth < parts.length - 1;
    if (depth < from) continue;
    const verdict = verdictOf(local, here, isDir) ?? verdictOf(general, here, isDir);
    // A directory ignored is not entered: nothing below it comes back.
    if (verdict === true) return true;
  }
  return false;
}

/** Whether rules given on the command line (`git clean -e PATTERN`, read as a .gitignore at the root) match `relative` or a folder above it. */
export function matchesRules(rules: readonly string[], relative: string): boolean {
  const patterns = parsePatterns(rules.join("\n"), "");
  const parts = relative.split("/");
  for (let depth = 0; depth < parts.length; depth++) {
    if (verdictOf(patterns, parts.slice(0, depth + 1).join("/"), depth < parts.length - 1) === true) return true;
  }
  return false;
}
