// Where a path really is, for gates that judge places: the session's project (the
// nearest directory up from the cwd holding `.git`, as git finds its work tree; the
// cwd itself outside a repository), `~`/`$HOME` expanded as the shell would, and
// symlinks resolved through the nearest part of the path that exists, so a link
// inside the project that points out of it is outside.
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { exists, lstatOf, namesIn, realpathOf } from "../system/disk-moment.ts";

/** projectRoot, each cwd looked up once in `known` (one walk of one call). */
export function projectRootIn(known: Map<string, string>, cwd: string): string {
  let root = known.get(cwd);
  if (root === undefined) {
    root = projectRoot(cwd);
    known.set(cwd, root);
  }
  return root;
}

/**
 * OMP's own addresses that name files by other means than a path: those its bash
 * expands in commands and cwds (tools/bash-skill-urls.ts) and those its file tools
 * route (tools/path-utils.ts, `ssh://` and `vault://` writable). `local://` is the
 * session's own scratch space, and not among them.
 */
const OMP_ADDRESS = /^["']?(agent|artifact|attachment|mcp|memory|plan|rule|security|skill|ssh|vault):\/\//i;

/** The scheme of an OMP address (where it lands is OMP's to say: a gate cannot tell it is inside the project). */
export function ompAddress(word: string): string | undefined {
  return OMP_ADDRESS.exec(word)?.[1]?.toLowerCase();
}

/**
 * The session's cwd, whose project the gates keep writes in: a call that names its own
 * cwd (bash's, debug's) runs there, and its relative paths are read from there, but a
 * `cwd` of `/etc` does not make `/etc` the project.
 */
export function sessionCwdOf(input: { cwd: string; omp?: { session_cwd?: string } }): string {
  return input.omp?.session_cwd ?? input.cwd;
}

/** Whether `file` is itself a symbolic link (a missing file is not). */
export function isLink(file: string): boolean {
  return lstatOf(file)?.isSymbolicLink() === true;
}

export function projectRoot(cwd: string): string {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    if (exists(path.join(dir, ".git"))) return dir;
    if (path.dirname(dir) === dir) return path.resolve(cwd);
  }
}

/**
 * The real path of `target`, resolving links in the part that exists. `known`: the
 * directories one reading of one call already resolved (its words share parents, and
 * the disk does not change between them), each looked up once.
 */
export function realPath(target: string, known?: Map<string, string | undefined>): string {
  const absolute = path.resolve(target);
  const rest: string[] = [];
  for (let dir = absolute; ; dir = path.dirname(dir)) {
    let real: string | undefined;
    if (known?.has(dir)) real = known.get(dir);
    else {
      real = existingRealPath(dir);
      known?.set(dir, real);
    }
    if (real !== undefined) return path.join(real, ...rest.reverse());
    if (path.dirname(dir) === dir) return absolute;
    rest.push(path.basename(dir));
  }
}

/** The real path of `file` when it exists and resolves. Most words a gate resolves name nothing on disk: asking first spares an exception per missing part. */
function existingRealPath(file: string): string | undefined {
  if (!exists(file)) return undefined;
  try {
    return realpathOf(file);
  } catch {
    // gone since, or a part cannot be searched: resolved from the part above, as when missing
    return undefined;
  }
}

/** `absolute` through the links a script made before the command (`ln -s / l; rm -rf l/`), which do not exist yet. */
export function throughLinks(absolute: string, links: ReadonlyMap<string, string> | undefined): string {
  if (links === undefined || links.size === 0) return absolute;
  let current = absolute;
  for (let hop = 0; hop < 8; hop++) {
    const link = [...links.keys()].find((name) => current === name || current.startsWith(`${name}/`));
    if (link === undefined) break;
    current = path.join(links.get(link) as string, current.slice(link.length));
  }
  return current;
}

/** A word as the shell would hand it to a program: `~`, `$HOME`, `${HOME}` expanded, relative to `cwd` (see resolvedPath). */
export function wordPath(word: string, cwd: string, env: ReadonlyMap<string, string> = new Map(), links?: ReadonlyMap<string, string>): string {
  const home = env.get("HOME") ?? os.homedir();
  const expanded = word
    .replace(/^~(?=\/|$)/, home)
    .replace(/^~([A-Za-z_][\w.-]*)(?=\/|$)/, (whole, user: string) => userHome(user) ?? whole)
    .replace(/^\$\{?HOME\}?(?=\/|$)/, home);
  return resolvedPath(cwd, expanded, links);
}

/** How many links one path may pass through before it is taken as it reads (the kernel gives up at 40). */
const MAX_LINK_HOPS = 40;

/**
 * `word` from `cwd` as the kernel walks it: a `..` after a link leaves the link's
 * target, not the directory the link sits in (`l/../x` with l a link to /a/b is /a/x,
 * where `path.resolve` says ./x). The line's own links count as links. A word with no
 * `..` resolves as path.resolve resolves it (its links are followed later, whole).
 */
export function resolvedPath(cwd: string, word: string, links?: ReadonlyMap<string, string>): string {
  const joined = path.isAbsolute(word) ? word : `${cwd}/${word}`;
  if (!/(?:^|\/)\.\.(?:\/|$)/.test(joined)) return path.resolve(cwd, word);
  let current = "/";
  let hops = 0;
  for (const part of joined.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      current = path.dirname(current);
      continue;
    }
    let next = path.join(current, part);
    // Each part that is a link is replaced by where it leads, so that a later `..` climbs from there.
    if (hops < MAX_LINK_HOPS && (links?.has(next) === true || isLink(next))) {
      hops += 1;
      next = realPath(throughLinks(next, links));
    }
    current = next;
  }
  return current;
}

/** `~name`: that user's home directory, from the password file (`/home/name` when it has no entry). */
export function userHome(user: string): string | undefined {
  try {
    const entry = readFileSync("/etc/passwd", "utf8").split("\n").find((line) => line.startsWith(`${user}:`));
    return entry?.split(":")[5] || path.join("/home", user);
  } catch {
    return path.join("/home", user);
  }
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

/** Names a glob may take at most, before the rest is not looked at. */
const MAX_GLOB_MATCHES = 512;

/**
 * The files a glob word names, as the shell would expand it here (`.en?`, `.[e]nv`,
 * `*\/.env`), plus the word itself: a pattern that matches nothing stays as written.
 * A leading dot is matched only by a dot, as the shell does.
 */
export function globMatches(word: string, cwd: string, links?: ReadonlyMap<string, string>, dotglob = false): string[] {
  if (!/[*?[]/.test(word)) return [word];
  const absolute = word.startsWith("/");
  let found: string[] = [absolute ? "/" : ""];
  for (const part of word.split("/").filter((p, i) => p !== "" || i === 0).slice(absolute ? 1 : 0)) {
    if (!/[*?[]/.test(part)) {
      found = found.map((dir) => (dir === "" ? part : path.join(dir, part)));
      continue;
    }
    // Under bash's dotglob (or a GLOBIGNORE set), `*` matches a leading dot too (never `.` and `..`).
    const matcher = dotglob ? { test: (name: string) => name !== "." && name !== ".." && globPart(part, true).test(name) } : globPart(part);
    const next: string[] = [];
    for (const dir of found) {
      const at = path.resolve(cwd, dir === "" ? "." : dir);
      // What the directory holds when the command runs: its entries on disk (through links the
      // line made before it) and the links the line made in it (`ln -s ~ h && cp x [h]/`).
      const names = new Set<string>();
      try {
        for (const name of namesIn(throughLinks(at, links))) names.add(name);
      } catch {
        // not a directory (yet): only the line's links can be in it
      }
      for (const link of links?.keys() ?? []) if (path.dirname(link) === at) names.add(path.basename(link));
      for (const name of names) if (matcher.test(name) && next.length < MAX_GLOB_MATCHES) next.push(dir === "" ? name : path.join(dir, name));
    }
    found = next;
  }
  // `rm -rf [h]/` goes through h when h is a link, as `rm -rf h/` does.
  return [word, ...(word.endsWith("/") ? found.map((f) => `${f}/`) : found)];
}

/** POSIX character classes in a bracket (`[[:alpha:]]`), as JavaScript class ranges. */
const POSIX_CLASSES: Record<string, string> = {
  alpha: "a-zA-Z",
  digit: "0-9",
  alnum: "a-zA-Z0-9",
  upper: "A-Z",
  lower: "a-z",
  xdigit: "0-9A-Fa-f",
  space: " \\t\\n\\r\\f\\v",
  blank: " \\t",
  punct: "!-\\/:-@\\[-`{-~",
  cntrl: "\\x00-\\x1f\\x7f",
  print: "\\x20-\\x7e",
  graph: "\\x21-\\x7e",
  word: "\\w",
};

/**
 * The bracket expression starting at `part[open]` as the shell reads it, as a JavaScript
 * class: `!` or `^` negates, a `]` first is literal (`[]h]`), `[:class:]` is a POSIX class;
 * an equivalence or collating element (`[=a=]`, `[.a.]`) or a class not known here matches
 * any character, so that a glob Tama cannot read exactly names at least what the shell's does.
 * Undefined when it does not close (the `[` is then literal).
 */
function bracketClass(part: string, open: number): { regex: string; end: number } | undefined {
  let i = open + 1;
  let negated = false;
  if (part[i] === "!" || part[i] === "^") {
    negated = true;
    i += 1;
  }
  let body = "";
  let any = false;
  for (let first = true; i < part.length; i++, first = false) {
    const ch = part[i] as string;
    if (ch === "]" && !first) return { regex: any ? "[^/]" : `[${negated ? "^" : ""}${body}]`, end: i };
    if (ch === "[" && /[:=.]/.test(part[i + 1] ?? "")) {
      const kind = part[i + 1] as string;
      const close = part.indexOf(`${kind}]`, i + 2);
      if (close !== -1) {
        const name = part.slice(i + 2, close);
        const known = kind === ":" ? POSIX_CLASSES[name] : undefined;
        if (known === undefined) any = true;
        else body += known;
        i = close + 1;
        continue;
      }
    }
    body += /[\\\]\[^-]/.test(ch) && !(ch === "-" && !first && part[i + 1] !== "]") ? `\\${ch}` : ch;
  }
  return undefined;
}

/**
 * A glob over one name as a regular expression, brackets read as bash reads them.
 * `leadingDot`: `*` and `?` match a leading `.` (find's `-name`; the shell's do not).
 */
export function nameGlob(part: string, options: { leadingDot?: boolean; caseless?: boolean } = {}): RegExp {
  const regex = globPart(part, options.leadingDot === true);
  return options.caseless === true ? new RegExp(regex.source, "i") : regex;
}

/**
 * A shell pattern over a whole text, `*` and `?` matching `/` too: find's `-path`, and
 * what `${X%pattern}` takes off a value.
 */
export function textPattern(pattern: string, options: { caseless?: boolean } = {}): RegExp {
  const regex = globPart(pattern, true, true);
  return new RegExp(regex.source, options.caseless === true ? "is" : "s");
}

function globPart(part: string, leadingDot = false, acrossSlash = false): RegExp {
  let body = "";
  for (let i = 0; i < part.length; i++) {
    const ch = part[i] as string;
    if (ch === "*") body += acrossSlash ? ".*" : "[^/]*";
    else if (ch === "?") body += acrossSlash ? "." : "[^/]";
    else if (ch === "[") {
      const bracket = bracketClass(part, i);
      if (bracket === undefined) body += "\\[";
      else {
        body += bracket.regex;
        i = bracket.end;
      }
    } else body += ch.replace(/[.+^${}()|\\]/g, "\\$&");
  }
  try {
    return new RegExp(part.startsWith(".") || leadingDot ? `^${body}$` : `^(?!\\.)${body}$`);
  } catch {
    // A bracket the shell cannot use (`[z-a]`) matches no name; the word stays itself.
    return /(?!)/;
  }
}
