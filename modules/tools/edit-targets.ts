// Which files an edit call writes. OMP's `edit` tool speaks five input modes
// (src/utils/edit-mode.ts): `replace` and `patch` carry a plain `path`, while
// `hashline` (the default), `apply_patch` and `sloppy` carry one patch string whose
// file headers name every target. A gate must assess every target before the edit
// applies, so each header becomes its own target, and a call that names no file is
// refused: the session directory is never a substitute for a missing target.
//
// The mode is OMP's setting, not the call's, so a patch is read in every language whose
// opening it has, and each header is read as OMP's own parser reads it (its native edit
// engine; `@oh-my-pi/hashline` and `omp-17.3.5/src/edit/apply-patch/parser.ts` are the
// TypeScript it was ported from). Where OMP is looser than can be mirrored for certain, the
// call is refused as naming an unknown file rather than read by a guess.
import { statSync } from "node:fs";
import * as path from "node:path";
import { resolveTargetPath, type PathRoots } from "./tool-paths.ts";

/** Fields a patch string may arrive in, in the order they are read. */
export const PATCH_FIELDS = ["patch", "input", "_input", "raw_input", "content"] as const;

/** Fields that name a target file directly (OMP forwards `path` as `_path` on some hosts). */
const PATH_FIELDS = ["path", "_path", "file_path", "notebook_path"] as const;

export type PatchFormat = "apply_patch" | "hashline" | "sloppy";

/** One file section of a patch: the file it names and the lines it adds there. */
export interface PatchSection {
  path: string;
  /** Body lines the section writes (without their `+` marker, or the PUT/AFTER text). */
  added: string[];
  /** Destination of a move (`*** Move to:`, hashline `MV`). */
  moveTo?: string;
}

/** One file an edit call writes, as the call spells it (not yet resolved). */
export interface EditTarget {
  path: string;
  /** Text the call adds to this file, when the call's shape shows it. */
  added?: string;
}

/** Where the call runs: lets a target OMP would look up elsewhere when missing be checked on disk. */
export interface EditPlace {
  cwd: string;
  roots?: PathRoots;
}

/** A section as read here: every spelling OMP's versions take for it, and whether it must already exist. */
interface ReadSection {
  /** The path as the header names it, then other readings of the same header (older OMP, other trims). */
  paths: string[];
  added: string[];
  moves: string[];
  /**
   * An edit of a file already there, and how OMP finds another when it is missing: "bare", a
   * bare name's unique namesake in the tree (`settings.json` → `.claude/settings.json`);
   * "any", a tagged hashline section's namesake read this session, wherever its folder.
   */
  recovers?: Recovery;
}

type Recovery = "bare" | "any";

/** A payload OMP could read as naming a file Tama cannot name: the call is refused, never guessed at. */
class UnreadablePatch extends Error {}

/** Whitespace as either of OMP's runtimes trims it: JavaScript's `\s`, and Rust's, which adds U+0085. */
const WS = "[\\s\\u0085]";
const isSpace = (char: string): boolean => char === "\u0085" || /\s/.test(char);
const isJsSpace = (char: string): boolean => /\s/.test(char);

// Trimmed by a walk, not a `\s+$` pattern, which backtracks quadratically on a long inner run.
function trimStartBy(text: string, space: (char: string) => boolean): string {
  let start = 0;
  while (start < text.length && space(text.charAt(start))) start++;
  return text.slice(start);
}
function trimEndBy(text: string, space: (char: string) => boolean): string {
  let end = text.length;
  while (end > 0 && space(text.charAt(end - 1))) end--;
  return text.slice(0, end);
}
const trimStartWs = (text: string): string => trimStartBy(text, isSpace);
const trimEndWs = (text: string): string => trimEndBy(text, isSpace);
const trimWs = (text: string): string => trimEndWs(trimStartWs(text));

/**
 * The longest header or tag line read: past it the call is refused. No path is longer
 * (PATH_MAX), and OMP's own header patterns are quadratic on a longer line.
 */
const LONGEST_HEADER = 4096;

function assertShortHeader(line: string): void {
  if (line.length > LONGEST_HEADER) throw new UnreadablePatch(`a ${line.length}-character header line is longer than any path`);
}

const BEGIN_PATCH = "*** begin patch";
const HEREDOC_OPENERS = new Set(["<<EOF", "<<'EOF'", '<<"EOF"']);
const APPLY_PATCH_MARKERS = ["*** Add File: ", "*** Delete File: ", "*** Update File: "] as const;
/** A line at column 0 that ends an Update body (the parser then needs the marker's trailing space). */
const UPDATE_BODY_END = /^\*\*\* (?:Add|Delete|Update) File:/;
const MOVE_TO = "*** Move to: ";
const LEGACY_HASHLINE_PREFIX = "¶";

function lines(text: string): string[] {
  const stripped = text.startsWith("\uFEFF") ? text.slice(1) : text;
  return stripped.split("\n").map((line) => line.replace(/\r$/, ""));
}

function unquote(value: string): string {
  const first = value[0];
  if (value.length >= 2 && (first === '"' || first === "'") && value.endsWith(first)) return value.slice(1, -1);
  return value;
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values.filter((value) => value.length > 0))];
}

/** The first line that is neither blank nor a `*** Begin Patch` envelope line, trimmed. */
function openingLine(all: readonly string[]): string {
  for (const line of all) {
    const trimmed = trimWs(line);
    if (trimmed.length > 0 && trimmed.toLowerCase() !== BEGIN_PATCH) return trimmed;
  }
  return "";
}

/** apply_patch: a `*** Begin Patch` first line (a heredoc wrapper aside), or an envelope-less first hunk header. */
function opensApplyPatch(all: readonly string[]): boolean {
  const meaningful: string[] = [];
  for (const line of all) {
    const trimmed = trimWs(line);
    if (trimmed.length > 0 && meaningful.push(trimmed) === 2) break;
  }
  const first = HEREDOC_OPENERS.has(meaningful[0] ?? "") ? meaningful[1] : meaningful[0];
  if (first === undefined) return false;
  return first.toLowerCase() === BEGIN_PATCH || APPLY_PATCH_MARKERS.some((marker) => first.startsWith(marker));
}

/** hashline: OMP needs a `[PATH#TAG]` header on the first line past blank and envelope lines. */
function opensHashline(all: readonly string[]): boolean {
  const first = openingLine(all);
  return first.startsWith("[") || first.startsWith(LEGACY_HASHLINE_PREFIX);
}

/** sloppy: OMP needs an `<SM:EDIT …>` tag on the first line past blank and envelope lines. */
function opensSloppy(all: readonly string[]): boolean {
  return SLOPPY_TAG_LIKE.test(withoutInvisibles(openingLine(all)));
}

/**
 * The patch language of `text`: sloppy when it opens with `<SM:EDIT`, apply_patch when
 * it opens with `*** Begin Patch` and no hashline header follows, else hashline. A call
 * is read in every language it opens as ({@link parsePatch}); this names the first.
 */
export function patchFormat(text: string): PatchFormat {
  const all = lines(text);
  if (opensSloppy(all)) return "sloppy";
  if (opensApplyPatch(all) && !opensHashline(all)) return "apply_patch";
  return "hashline";
}

// ---------------------------------------------------------------------------
// apply_patch (omp-17.3.5 src/edit/apply-patch/parser.ts parseApplyPatchWithOptions;
// 18.2.3's native engine reads the same way)

/**
 * Files an apply_patch writes, as OMP walks it: where a hunk may start, a line is trimmed
 * (leading space, tab and no-break space included) and read as `*** Add File: P`,
 * `*** Delete File: P` or `*** Update File: P`; an Add body is its `+` rows, an Update
 * runs to the next column-0 hunk header and may open with `*** Move to: Q`. A line OMP
 * would reject ends the reading (OMP applies nothing then).
 */
function readApplyPatch(text: string): ReadSection[] {
  const all = lines(text);
  // The envelope, as OMP peels it: blank lines at either end, a heredoc wrapper, then Begin and End Patch.
  let i = 0;
  let end = all.length;
  const at = (index: number): string => trimWs(all[index] ?? "");
  while (i < end && at(i).length === 0) i++;
  while (end > i && at(end - 1).length === 0) end--;
  if (end - i >= 2 && HEREDOC_OPENERS.has(at(i)) && at(end - 1) === "EOF") {
    i++;
    end--;
  }
  if (i < end && at(i).toLowerCase() === BEGIN_PATCH) i++;
  if (end > i && at(end - 1).toLowerCase() === "*** end patch") end--;

  const sections: ReadSection[] = [];
  while (i < end) {
    const first = trimWs(all[i] ?? "");
    i++;
    if (first.length === 0) continue;
    const marker = APPLY_PATCH_MARKERS.find((m) => first.startsWith(m));
    if (marker === undefined) break;
    // OMP keeps what follows the marker as written (`*** Add File:  x` names ` x`); the trimmed reading comes first.
    const named = first.slice(marker.length);
    const section: ReadSection = { paths: unique([trimWs(named), named]), added: [], moves: [], ...(marker !== "*** Add File: " ? { recovers: "bare" as const } : {}) };
    sections.push(section);
    if (marker === "*** Add File: ") {
      while (i < end && (all[i] ?? "").startsWith("+")) section.added.push((all[i++] ?? "").slice(1));
    } else if (marker === "*** Update File: ") {
      const move = all[i] ?? "";
      if (move.startsWith(MOVE_TO)) {
        section.moves.push(...unique([trimWs(move.slice(MOVE_TO.length)), move.slice(MOVE_TO.length)]));
        i++;
      }
      while (i < end && !UPDATE_BODY_END.test(all[i] ?? "")) {
        const row = all[i++] ?? "";
        if (row.startsWith("+")) section.added.push(row.slice(1));
      }
    }
  }
  return sections.filter((section) => section.paths.length > 0);
}

// ---------------------------------------------------------------------------
// hashline (@oh-my-pi/hashline input.ts splitRawSections / parseHashlineHeaderLine,
// tokenizer.ts tryParseHeader / scanMoveDest; checked against 18.2.3's native engine)

/** How one of OMP's runtimes reads a header: its whitespace, and the patterns built on it. */
interface HashlineRuntime {
  trim(text: string): string;
  trimEnd(text: string): string;
  /** apply_patch noise OMP strips from a header path (input.ts APPLY_PATCH_PATH_NOISE_RE). */
  noise: RegExp;
  /** A tag its header recovery finds at the end of the path, spaces after it allowed. */
  looseTag: RegExp;
}

function hashlineRuntime(ws: string, space: (char: string) => boolean): HashlineRuntime {
  return {
    trim: (text) => trimEndBy(trimStartBy(text, space), space),
    trimEnd: (text) => trimEndBy(text, space),
    noise: new RegExp(`^\\*{0,3}${ws}*(?:(?:update|add|delete|move)[^A-Za-z0-9]*(?:file|to)?[^A-Za-z0-9]*:)?${ws}*\\*{0,3}${ws}*`, "i"),
    looseTag: new RegExp(`#[0-9A-Fa-f]{4}${ws}*$`),
  };
}

/**
 * 18.x's native engine (Rust: U+0085 is whitespace) and 17.x's TypeScript (JavaScript's
 * `\s`) strip different characters as space, so a header is read both ways.
 */
const HASHLINE_RUNTIMES = [hashlineRuntime(WS, isSpace), hashlineRuntime("\\s", isJsSpace)] as const;
const HASHLINE_TAG = /#[0-9A-Fa-f]{4}$/;

/** input.ts normalizeHashlinePath: trimmed, unquoted, apply_patch noise stripped. */
function normalizeHashlinePath(raw: string, runtime: HashlineRuntime): string {
  return unquote(runtime.trim(raw)).replace(runtime.noise, "");
}

/**
 * The path of a `[…]` header line (already trimmed at its end), as one runtime reads it:
 * the strict `[PATH]` / `[PATH#TAG]` shape, else its recovery that strips `Update File:`,
 * `***` and the like first. Undefined when OMP rejects the header.
 */
function hashlineHeaderPath(line: string, runtime: HashlineRuntime): string | undefined {
  if (line.length <= 2 || !line.startsWith("[") || !line.endsWith("]")) return undefined;
  const body = line.slice(1, -1);
  const tag = HASHLINE_TAG.exec(body);
  const strict = tag ? body.slice(0, tag.index) : body;
  if (strict.length > 0 && !strict.includes("#")) {
    const named = normalizeHashlinePath(strict, runtime);
    return named.length > 0 ? named : undefined;
  }
  const stripped = runtime.trim(body).replace(runtime.noise, "");
  const looseTag = runtime.looseTag.exec(stripped);
  const recovered = looseTag ? stripped.slice(0, looseTag.index) : runtime.trimEnd(stripped);
  if (recovered.includes("#")) return undefined;
  const named = normalizeHashlinePath(recovered, runtime);
  return named.length > 0 ? named : undefined;
}

/** Every runtime's reading of a header line; empty when every runtime rejects it. */
function hashlineHeaderPaths(line: string): string[] {
  assertShortHeader(line);
  return unique(HASHLINE_RUNTIMES.map((runtime) => hashlineHeaderPath(line, runtime) ?? ""));
}

/**
 * An `MV DEST` line's destinations: the keyword, then whitespace or `:`, then DEST,
 * whole-quoted or bare (tokenizer.ts scanMoveDest). 18.2.3 keeps DEST as written;
 * 17.3.5 also strips apply_patch noise from it, so both readings are kept.
 */
function hashlineMoveDests(trimmed: string): string[] | undefined {
  if (!/^MV(?:[\s\u0085:]|$)/.test(trimmed)) return undefined;
  assertShortHeader(trimmed);
  const rest = trimWs(trimmed.slice(2));
  const first = rest[0];
  let dest = unquote(rest);
  if (first === '"' || first === "'") {
    // A quoted destination ends at its closing quote (a backslash skips one character).
    let end = 1;
    while (end < rest.length && rest[end] !== first) end += rest[end] === "\\" ? 2 : 1;
    dest = rest.slice(1, end);
  }
  return unique([dest, ...HASHLINE_RUNTIMES.map((runtime) => normalizeHashlinePath(dest, runtime))]);
}

/**
 * hashline: a line whose text (trimmed at its end) starts with `[` is a section header,
 * `[PATH#TAG]`, and OMP strips apply_patch noise from PATH (`[Update File: P#TAG]`,
 * `[***P]`); a header OMP would reject makes the payload unreadable. Body rows start
 * with `+`; `MV DEST` moves the section's file. An indented `[PATH#TAG]` and the legacy
 * `¶PATH#TAG` are read too (OMP's own inspection reads them), as is the whole text past
 * a `*** End Patch`.
 */
function readHashline(text: string): ReadSection[] {
  const sections: ReadSection[] = [];
  let current: ReadSection | undefined;
  for (const line of lines(text)) {
    // Body rows keep their text verbatim; they are never headers.
    if (current && line.startsWith("+")) {
      current.added.push(line.slice(1));
      continue;
    }
    const atColumnZero = trimEndWs(line);
    const trimmed = trimStartWs(atColumnZero);
    let named: string[] = [];
    if (atColumnZero.startsWith("[")) {
      named = hashlineHeaderPaths(atColumnZero);
      if (named.length === 0) throw new UnreadablePatch(`OMP reads ${JSON.stringify(atColumnZero)} as a hashline header it cannot parse`);
    } else if (trimmed.startsWith("[")) {
      named = hashlineHeaderPaths(trimmed);
    } else if (trimmed.startsWith(LEGACY_HASHLINE_PREFIX)) {
      named = hashlineHeaderPaths(`[${trimmed.replace(/^¶+/, "")}]`);
    }
    if (named.length > 0) {
      // Only a section carrying a tag (`[PATH#TAG]`) is looked for elsewhere; an untagged one may make the file.
      current = { paths: named, added: [], moves: [], ...(trimmed.includes("#") ? { recovers: "any" as const } : {}) };
      sections.push(current);
      continue;
    }
    const dests = hashlineMoveDests(trimmed);
    if (current && dests !== undefined) current.moves.push(...dests);
  }
  return sections;
}

// ---------------------------------------------------------------------------
// sloppy (only in the native engine, whose source OMP does not ship: the reading below
// was mapped by running 18.2.3's engine on each form)

/**
 * Anything a reader could take for an `<SM:EDIT` tag: letters `sm edit` in any case
 * (`ſ` is an `s` to OMP), whatever stands between them. Such a line must be read below
 * for certain, or the payload is unreadable.
 */
const SLOPPY_TAG_LIKE = (() => {
  // A between-letters run that cannot take the next letter, so the pattern never backtracks.
  const between = "[^A-Za-z0-9\\u017F\\u0130\\u0131]*";
  return new RegExp(`^<${between}[s\\u017F]${between}m${between}e${between}d${between}[i\\u0130\\u0131]${between}t`, "i");
})();
/** The closing tag, which names nothing. */
const SLOPPY_CLOSE = new RegExp(`^</${WS}*sm:edit${WS}*>$`, "i");
/** OMP's open tag: `<SM:EDIT` in any case (`ſ` for `s`), not run on into a longer word. */
const SLOPPY_OPEN = /^<[sſ]m:edit(?![A-Za-z0-9_])/i;
/** Between attributes: whitespace or the `,` `;` `:` `/` `-` OMP also steps over. */
const SLOPPY_SEPARATOR = new RegExp(`(?:${WS}|[,;:/-])+`, "y");
/** One attribute: a bare word (`all`) or NAME = VALUE, the value double-, single- or unquoted. */
const SLOPPY_ATTRIBUTE = new RegExp(`([A-Za-z][A-Za-z0-9_-]*)(?:${WS}*=${WS}*("[^"]*"|'[^']*'|[^\\s\\u0085"'=>]+))?`, "y");
/** Attribute names OMP reads a path from (case, `_` and `-` aside): path, file, filepath, file_path, filePath… */
const SLOPPY_PATH_NAMES = new Set(["path", "file", "filepath"]);
const INVISIBLES = /^[\u200B-\u200D\u2060\uFEFF]+/;

function withoutInvisibles(text: string): string {
  return text.replace(INVISIBLES, "");
}

/**
 * The paths an `<SM:EDIT …>` line names (empty for a bare tag). OMP takes `path`,
 * `file`, `filepath` and their case, `_` and `-` variants, quoted either way or bare,
 * with spaces around `=`, `all` anywhere and a self-closing `/`; it ignores what else a
 * tag holds, which is not mirrored: any other attribute or stray text is unreadable.
 */
function sloppyTagPaths(tag: string): string[] {
  assertShortHeader(tag);
  const open = SLOPPY_OPEN.exec(tag);
  if (!open || !tag.endsWith(">")) throw new UnreadablePatch(`OMP may read ${JSON.stringify(tag)} as an <SM:EDIT> tag`);
  const inner = tag.slice(open[0].length, -1).replace(/\/$/, "");
  const paths: string[] = [];
  let at = 0;
  while (at < inner.length) {
    SLOPPY_SEPARATOR.lastIndex = at;
    at += SLOPPY_SEPARATOR.exec(inner)?.[0].length ?? 0;
    if (at >= inner.length) break;
    SLOPPY_ATTRIBUTE.lastIndex = at;
    const attribute = SLOPPY_ATTRIBUTE.exec(inner);
    const name = attribute?.[1]?.toLowerCase().replace(/[_-]/g, "");
    if (!attribute || name === undefined) throw new UnreadablePatch(`cannot read the <SM:EDIT> tag ${JSON.stringify(tag)}`);
    at += attribute[0].length;
    const value = attribute[2];
    if (value === undefined && name === "all") continue;
    if (value === undefined || !SLOPPY_PATH_NAMES.has(name)) {
      throw new UnreadablePatch(`cannot tell whether OMP reads a path from ${JSON.stringify(attribute[0])} in ${JSON.stringify(tag)}`);
    }
    const named = trimWs(unquote(value));
    if (named.length > 0) paths.push(named);
  }
  return paths;
}

/**
 * sloppy: `<SM:EDIT path="P">` opens edits in P; a bare `<SM:EDIT>` continues the
 * previous file. OMP reads a tag on any line, a PUT or AFTER body included (it ends the
 * body), so every line is looked at. Text inside `<SM:PUT>` and `<SM:AFTER>` is what the
 * section writes.
 */
function readSloppy(text: string): ReadSection[] {
  const sections: ReadSection[] = [];
  let current: ReadSection | undefined;
  let inBody = false;
  for (const line of lines(text)) {
    const tag = trimWs(withoutInvisibles(trimStartWs(line)));
    if (SLOPPY_CLOSE.test(tag)) {
      inBody = false;
      continue;
    }
    if (SLOPPY_TAG_LIKE.test(tag)) {
      const paths = sloppyTagPaths(tag);
      if (paths.length > 0) {
        current = { paths, added: [], moves: [], recovers: "bare" };
        sections.push(current);
      }
      inBody = false;
      continue;
    }
    const upper = tag.toUpperCase();
    if (upper === "<SM:PUT>" || upper === "<SM:AFTER>") inBody = true;
    else if (/^<\/?SM:(?:PUT|AFTER|FIND)>/.test(upper)) inBody = false;
    else if (inBody && current) current.added.push(line);
  }
  return sections;
}

// ---------------------------------------------------------------------------
// every language at once

function toPatchSection(section: ReadSection): PatchSection {
  const [moveTo] = section.moves;
  return { path: section.paths[0] ?? "", added: section.added, ...(moveTo !== undefined ? { moveTo } : {}) };
}

/** apply_patch sections of `text` (see readApplyPatch); no envelope needed. */
export function parseApplyPatch(text: string): PatchSection[] {
  return readApplyPatch(text).map(toPatchSection);
}

/** hashline sections of `text` (see readHashline); throws on a header OMP would reject. */
export function parseHashline(text: string): PatchSection[] {
  return readHashline(text).map(toPatchSection);
}

/** sloppy sections of `text` (see readSloppy); throws on a tag that cannot be read for certain. */
export function parseSloppy(text: string): PatchSection[] {
  return readSloppy(text).map(toPatchSection);
}

/**
 * Every file section of a patch, in each language whose opening the patch has: OMP's
 * mode is its setting, and each mode refuses a patch that does not open its way.
 */
function readPatch(text: string): ReadSection[] {
  const all = lines(text);
  return [
    ...(opensApplyPatch(all) ? readApplyPatch(text) : []),
    ...(opensHashline(all) ? readHashline(text) : []),
    ...(opensSloppy(all) ? readSloppy(text) : []),
  ];
}

/** Every file section of a patch, whatever its language. */
export function parsePatch(text: string): PatchSection[] {
  return readPatch(text).map(toPatchSection);
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === "string" && value.trim().length > 0 ? value : undefined;
}

/** Paths the call names outright: `path`-like fields, OMP's derived `paths`, patch-mode renames. */
function directPaths(input: Record<string, unknown>): { named: string[]; renames: string[] } {
  const named: string[] = [];
  for (const key of PATH_FIELDS) {
    const value = nonEmptyString(input[key]);
    if (value !== undefined) named.push(value);
  }
  if (Array.isArray(input.paths)) {
    for (const value of input.paths) {
      const path = nonEmptyString(value);
      if (path !== undefined) named.push(path);
    }
  }
  // OMP's patch mode: `{ path, edits: [{ op, rename?, diff? }] }`; a rename writes its destination too.
  const renames: string[] = [];
  if (Array.isArray(input.edits)) {
    for (const edit of input.edits) {
      if (edit && typeof edit === "object") {
        const rename = nonEmptyString((edit as Record<string, unknown>).rename);
        if (rename !== undefined) renames.push(rename);
      }
    }
  }
  return { named, renames };
}

/**
 * Whether the named path is a file the call changes in place: replace mode's
 * `old_string`, or patch-mode edits that do not open by creating it. OMP looks for
 * another file by that name when such a file is missing.
 */
function editsInPlace(input: Record<string, unknown>): boolean {
  if (typeof input.old_string === "string") return true;
  if (!Array.isArray(input.edits) || input.edits.length === 0) return false;
  const first: unknown = input.edits[0];
  return !(first !== null && typeof first === "object" && (first as Record<string, unknown>).op === "create");
}

/** Lines a patch-mode `edits[].diff` adds (a `create` diff is the file's text itself). */
function patchModeAdded(input: Record<string, unknown>): string[] {
  if (!Array.isArray(input.edits)) return [];
  const added: string[] = [];
  for (const edit of input.edits) {
    if (!edit || typeof edit !== "object") continue;
    const { op, diff } = edit as Record<string, unknown>;
    if (typeof diff !== "string") continue;
    if (op === "create") added.push(...lines(diff));
    else added.push(...lines(diff).filter((line) => line.startsWith("+")).map((line) => line.slice(1)));
  }
  return added;
}

/**
 * A target OMP edits in place but that is not a file: OMP then edits another file of
 * that name (a missing bare name's unique namesake in the tree, `settings.json` →
 * `.claude/settings.json`; a missing tagged hashline section's namesake read this
 * session), which cannot be known beforehand. Internal URLs are left to their gates.
 */
function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

function missingFile(target: string, place: EditPlace): string | undefined {
  const resolved = resolveTargetPath(target, place.cwd, place.roots);
  if (!path.isAbsolute(resolved)) return undefined;
  try {
    return statSync(resolved).isFile() ? undefined : resolved;
  } catch {
    return resolved;
  }
}

/**
 * Every file an edit or patch call writes, in first-seen order, each once.
 * Targets are the union of the paths the call names (`path`, `_path`, `file_path`,
 * `notebook_path`, OMP's derived `paths`, patch-mode renames) and the file headers
 * of a patch string in `patch`, `input`, `_input` or `raw_input` (and in `content`
 * only when no path is named: beside a path, `content` is the file's text). A
 * union, never an override, so a model-supplied field cannot hide a header's target.
 * With `place`, a file the call edits in place must exist (see missingFile).
 */
export function editTargetsOf(
  input: Record<string, unknown>,
  place?: EditPlace,
): { ok: true; targets: EditTarget[] } | { ok: false; error: string } {
  const { named, renames } = directPaths(input);
  const byPath = new Map<string, string[]>();
  const mustExist = new Map<string, Recovery>();
  const mayRecover = (target: string, how: Recovery): void => {
    if (mustExist.get(target) !== "any") mustExist.set(target, how);
  };
  const add = (target: string, added: readonly string[]): void => {
    const existing = byPath.get(target);
    if (existing) existing.push(...added);
    else byPath.set(target, [...added]);
  };

  const namedAdded = patchModeAdded(input);
  for (const target of [...named, ...renames]) add(target, namedAdded);
  if (editsInPlace(input)) for (const target of named) mayRecover(target, "bare");

  let sawPatch = false;
  for (const key of PATCH_FIELDS) {
    if (key === "content" && named.length + renames.length > 0) continue;
    const text = nonEmptyString(input[key]);
    if (text === undefined) continue;
    sawPatch = true;
    let sections: ReadSection[];
    try {
      sections = readPatch(text);
    } catch (error) {
      if (!(error instanceof UnreadablePatch)) throw error;
      return { ok: false, error: `edit may name a file that cannot be told: ${error.message}` };
    }
    for (const section of sections) {
      for (const target of section.paths) {
        add(target, section.added);
        if (section.recovers !== undefined) mayRecover(target, section.recovers);
      }
      for (const target of section.moves) add(target, section.added);
    }
  }

  if (byPath.size === 0) {
    const why = sawPatch
      ? `its patch has no file header (expected "[PATH#TAG]", "*** Update File: PATH" or <SM:EDIT path="PATH">)`
      : `it has no path and no patch in ${PATCH_FIELDS.join(", ")}`;
    return { ok: false, error: `edit names no target file: ${why}` };
  }
  // A session folder that is not there holds no namesake to edit instead (and no session runs there).
  if (place !== undefined && isDirectory(place.cwd)) {
    for (const [target, how] of mustExist) {
      // A name with a folder OMP does not look for elsewhere, unless a tagged hashline section names it.
      if (how === "bare" && /[/\\]/.test(target.trim().replace(/^(?:\.[/\\])+/, ""))) continue;
      const missing = missingFile(target, place);
      if (missing !== undefined) {
        return { ok: false, error: `edit changes ${JSON.stringify(target)} in place, but ${missing} is not a file: OMP would edit another file of that name it finds; name the file by its path from the project` };
      }
    }
  }
  return {
    ok: true,
    targets: [...byPath].map(([target, added]) => (added.length > 0 ? { path: target, added: added.join("\n") } : { path: target })),
  };
}
