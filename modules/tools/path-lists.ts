// The paths one path input of an OMP tool names, read as OMP reads them
// (tools/path-utils.ts): `read`, `grep`, `glob`, `ast_grep` and `ast_edit` take a
// JSON-encoded string array as its strings (toPathList), strip an entry's outer double
// quotes (normalizePathLikeInput), split an entry on `;`, `,` or whitespace outside
// braces (splitDelimitedPathEntry), turn `\` into `/` in a search entry
// (parseSearchPath) and expand `{a,b}` in a search glob. Which reading OMP takes of an
// entry depends on what is on disk when the call runs (a split wins only where the
// whole names no file, and `,` and whitespace splits only where parts exist); a gate
// reads before that, so every reading is returned and each is judged.
import * as z from "../protocol/schema.ts";

/** Readings of one input past which it is not read: refused, never cut short. */
const MAX_READINGS = 512;
/** An input longer than this is not split at all (no tool's path list is this long). */
const MAX_INPUT_CHARS = 65_536;
/** Brace groups in one glob past which any file is taken as matched (their alternatives multiply). */
const MAX_BRACE_GROUPS = 8;
/** Wildcard runs a search glob is matched with; one with more may take in any name. */
const MAX_WILDCARDS = 6;

/** OMP's separators (path-utils' isDelimitedPathSeparator): `;`, `,`, whitespace, or any of them. */
const SEPARATORS: readonly RegExp[] = [/;/, /,/, /\s/, /[;,\s]/];

/** A search entry's glob characters (path-utils' GLOB_PATH_CHARS). */
const GLOB_CHARS = /[*?[{]/;

const StringArray = z.array(z.string());

/** OMP's toPathList: a string is a JSON-encoded string array's strings, else one path; an array is its strings. */
export function pathList(input: unknown): string[] {
  if (Array.isArray(input)) return input.filter((entry): entry is string => typeof entry === "string");
  if (typeof input !== "string") return [];
  const trimmed = input.trim();
  if (!trimmed.startsWith("[") || !trimmed.endsWith("]")) return [input];
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    return [input];
  }
  const strings = StringArray.safeParse(parsed);
  return strings.success ? strings.data : [input];
}

/** OMP's normalizePathLikeInput: trimmed, and one pair of outer double quotes dropped. */
export function normalizePathLike(input: string): string {
  const trimmed = input.trim();
  return trimmed.length > 1 && trimmed.startsWith('"') && trimmed.endsWith('"') ? trimmed.slice(1, -1) : trimmed;
}

/** path-utils' splitTopLevelDelimitedPath: `\` keeps the next character, braces keep their separators. */
function splitTopLevel(entry: string, separator: RegExp): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < entry.length; i++) {
    const ch = entry[i] as string;
    if (ch === "\\" && i + 1 < entry.length) {
      i++;
      continue;
    }
    if (ch === "{") depth++;
    else if (ch === "}") depth = Math.max(0, depth - 1);
    else if (depth === 0 && separator.test(ch)) {
      parts.push(entry.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(entry.slice(start));
  return parts;
}

/** The first `{…}` of `entry` as its alternatives (`a{b,c}d` → abd, acd); none without one. */
function braceAlternatives(entry: string): string[] {
  const open = entry.indexOf("{");
  if (open === -1) return [];
  const alternatives: string[] = [];
  let depth = 0;
  let start = open + 1;
  for (let i = open; i < entry.length; i++) {
    const ch = entry[i];
    if (ch === "{") depth++;
    else if (ch === "," && depth === 1) {
      alternatives.push(entry.slice(start, i));
      start = i + 1;
    } else if (ch === "}" && --depth === 0) {
      alternatives.push(entry.slice(start, i));
      return alternatives.map((alternative) => entry.slice(0, open) + alternative + entry.slice(i + 1));
    }
  }
  return [];
}

/**
 * One entry's other readings, one step: quotes dropped, each split's parts (each
 * normalized, as OMP normalizes them), `\` as `/` (search tools), shell escapes
 * dropped (read's tryShellEscapedPath), a brace group's alternatives.
 */
function nextReadings(entry: string): string[] {
  const next = [normalizePathLike(entry), entry.replace(/\\/g, "/")];
  if (entry.includes("\\") && entry.includes("/")) next.push(entry.replace(/\\([ \t"'(){}[\]])/g, "$1"));
  for (const separator of SEPARATORS) {
    const parts = splitTopLevel(entry, separator);
    if (parts.length > 1) next.push(...parts.map(normalizePathLike));
  }
  next.push(...braceAlternatives(entry));
  return next;
}

export type PathReadings = { ok: true; paths: string[] } | { ok: false; error: string };

/**
 * Every path a tool's path input may name, the input's own entries first: each entry
 * of its path list, and every reading OMP may take of it (OMP applies these steps
 * again to what one gave: read re-reads each part, search splits twice). Empty
 * readings name nothing (OMP refuses them). Past MAX_READINGS it is not read.
 */
export function pathReadings(input: unknown): PathReadings {
  const seen = new Set<string>();
  // A JSON-encoded list is also the one path it spells (OMP's read takes it so).
  const queue = typeof input === "string" ? [input, ...pathList(input)] : pathList(input);
  if (queue.reduce((sum, entry) => sum + entry.length, 0) > MAX_INPUT_CHARS) return { ok: false, error: `is longer than ${MAX_INPUT_CHARS} characters, past what Tama reads` };
  while (queue.length > 0) {
    const entry = queue.shift() as string;
    if (entry.trim() === "" || seen.has(entry)) continue;
    seen.add(entry);
    if (seen.size > MAX_READINGS) return { ok: false, error: `names more than ${MAX_READINGS} paths (counting each way OMP may split or unquote them), past what Tama reads` };
    queue.push(...nextReadings(entry));
  }
  return { ok: true, paths: [...seen] };
}

/** A search entry as OMP's parseSearchPath splits it: the folder it starts from, and the glob below it (if any). */
export function searchScope(entry: string): { base: string; glob?: string } {
  const normalized = entry.replace(/\\/g, "/");
  const segments = normalized.split("/");
  const first = segments.findIndex((segment) => GLOB_CHARS.test(segment));
  if (first === -1) return { base: normalized };
  if (first === 0) return { base: ".", glob: normalized };
  return { base: segments.slice(0, first).join("/"), glob: segments.slice(first).join("/") };
}

/**
 * Whether a search glob may take in the file at `relative` (from the glob's folder). OMP's
 * native search matches hidden names, a glob without `/` at any depth (grep), and expands
 * braces; this reading is looser still (a wildcard crosses `/`, a class takes any
 * character), so a file it leaves out is one OMP leaves out.
 */
export function searchGlobMayMatch(glob: string, relative: string): boolean {
  if ((glob.match(/\{/g)?.length ?? 0) > MAX_BRACE_GROUPS) return true;
  // Each `*` run is a `.*` the pattern backtracks through: past a few, the match takes seconds. Such a glob may take in anything.
  if ((glob.match(/\*+/g)?.length ?? 0) > MAX_WILDCARDS) return true;
  const alternatives = braceAlternatives(glob);
  if (alternatives.length > 0) return alternatives.some((alternative) => searchGlobMayMatch(alternative, relative));
  let body = "";
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i] as string;
    if (ch === "*") {
      const run = i;
      while (glob[i + 1] === "*") i++;
      // `**/` takes in no folder too (`**/.env` is the root's .env as well).
      if (i > run && glob[i + 1] === "/") {
        body += "(?:.*/)?";
        i++;
      } else body += ".*";
    } else if (ch === "?") body += ".";
    else if (ch === "[") {
      const close = glob.indexOf("]", i + 2);
      body += close === -1 ? "\\[" : ".";
      if (close !== -1) i = close;
    } else body += ch.replace(/[.+^${}()|[\]\\/]/g, "\\$&");
  }
  const regex = new RegExp(`^${body}$`, "s");
  const posix = relative.split("\\").join("/");
  // A glob is tried on the whole relative path and on each tail of it (a name at any depth).
  return posix.split("/").some((_part, i, parts) => regex.test(parts.slice(i).join("/")));
}
