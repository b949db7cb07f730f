// Which files an edit call writes. OMP's `edit` tool speaks five input modes
// (src/utils/edit-mode.ts): `replace` and `patch` carry a plain `path`, while
// `hashline` (the default), `apply_patch` and `sloppy` carry one patch string whose
// file headers name every target. A gate must assess every target before the edit
// applies, so each header becomes its own target, and a call that names no file is
// refused: the session directory is never a substitute for a missing target.
import { homedir, tmpdir } from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

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

const APPLY_PATCH_HEADER = /^\*\*\* (Add|Update|Delete) File: (.+)$/;
const APPLY_PATCH_MOVE = /^\*\*\* Move to: (.+)$/;
const HASHLINE_TAG = /#[0-9a-fA-F]{4}$/;
const LEGACY_HASHLINE_PREFIX = "¶";
const SLOPPY_OPEN = /^<SM:EDIT(\s[^>]*)?>\s*$/;
const SLOPPY_PATH_ATTR = /(?:^|\s)(?:path|file)="([^"\n]*)"/;

function lines(text: string): string[] {
  const stripped = text.startsWith("\uFEFF") ? text.slice(1) : text;
  return stripped.split("\n").map((line) => line.replace(/\r$/, ""));
}

function unquote(value: string): string {
  const first = value[0];
  if (value.length >= 2 && (first === '"' || first === "'") && value.endsWith(first)) return value.slice(1, -1);
  return value;
}

/**
 * The patch language of `text`. A sloppy payload opens with `<SM:EDIT`; an
 * apply_patch has `*** Add|Update|Delete File:` headers at column 0; anything else
 * is read as hashline. The formats are exclusive because each one's body rows can
 * look like another's headers (a sloppy body is raw file text; an apply_patch
 * context row ` [a.ts#ABCD]` trims to a hashline header).
 */
export function patchFormat(text: string): PatchFormat {
  const all = lines(text);
  const first = all.find((line) => line.trim().length > 0)?.trim() ?? "";
  if (first.startsWith("<SM:EDIT")) return "sloppy";
  if (all.some((line) => APPLY_PATCH_HEADER.test(line))) return "apply_patch";
  return "hashline";
}

/**
 * apply_patch: `*** Add File: P`, `*** Update File: P` (optionally followed by
 * `*** Move to: Q`), `*** Delete File: P`. Paths are trimmed, as OMP's parser does.
 */
export function parseApplyPatch(text: string): PatchSection[] {
  const sections: PatchSection[] = [];
  let current: PatchSection | undefined;
  for (const line of lines(text)) {
    const header = APPLY_PATCH_HEADER.exec(line);
    if (header) {
      current = { path: (header[2] ?? "").trim(), added: [] };
      sections.push(current);
      continue;
    }
    const move = APPLY_PATCH_MOVE.exec(line);
    if (move && current) {
      current.moveTo = (move[1] ?? "").trim();
      continue;
    }
    if (current && line.startsWith("+")) current.added.push(line.slice(1));
  }
  return sections.filter((section) => section.path.length > 0);
}

/** The path inside a hashline header body: `PATH#TAG`, tag optional, quotes allowed. */
function hashlineHeaderPath(body: string): string | undefined {
  const trimmed = body.trim();
  const tag = HASHLINE_TAG.exec(trimmed);
  const raw = tag ? trimmed.slice(0, tag.index) : trimmed;
  const unquoted = unquote(raw.trim());
  return unquoted.length > 0 ? unquoted : undefined;
}

/**
 * hashline: each section opens with `[PATH#TAG]` (or the legacy `¶PATH#TAG` that
 * OMP's own event derivation still reads); body rows start with `+`; `MV DEST`
 * moves the section's file. The optional `*** Begin/End Patch` envelope is ignored.
 */
export function parseHashline(text: string): PatchSection[] {
  const sections: PatchSection[] = [];
  let current: PatchSection | undefined;
  for (const line of lines(text)) {
    // Body rows keep their text verbatim; they are never headers.
    if (current && line.startsWith("+")) {
      current.added.push(line.slice(1));
      continue;
    }
    const trimmed = line.trim();
    let body: string | undefined;
    if (trimmed.startsWith("[") && trimmed.endsWith("]")) body = trimmed.slice(1, -1);
    else if (trimmed.startsWith(LEGACY_HASHLINE_PREFIX)) body = trimmed.replace(/^¶+/, "");
    const headerPath = body === undefined ? undefined : hashlineHeaderPath(body);
    if (headerPath !== undefined) {
      current = { path: headerPath, added: [] };
      sections.push(current);
      continue;
    }
    if (current && trimmed.startsWith("MV ")) {
      const dest = unquote(trimmed.slice(3).trim());
      if (dest.length > 0) current.moveTo = dest;
    }
  }
  return sections;
}

/**
 * sloppy: `<SM:EDIT path="P">` (or `file="P"`) opens edits in P; a bare
 * `<SM:EDIT>` continues the previous file. Text inside `<SM:PUT>` and
 * `<SM:AFTER>` blocks is what the section writes.
 */
export function parseSloppy(text: string): PatchSection[] {
  const sections: PatchSection[] = [];
  let current: PatchSection | undefined;
  let inBody = false;
  for (const line of lines(text)) {
    const open = SLOPPY_OPEN.exec(line.trim());
    if (open && !inBody) {
      const named = SLOPPY_PATH_ATTR.exec(open[1] ?? "")?.[1];
      if (named !== undefined && named.length > 0) {
        current = { path: named, added: [] };
        sections.push(current);
      }
      continue;
    }
    const tag = line.trim();
    if (tag === "<SM:PUT>" || tag === "<SM:AFTER>") inBody = true;
    else if (tag === "</SM:PUT>" || tag === "</SM:AFTER>") inBody = false;
    else if (inBody && current) current.added.push(line);
  }
  return sections;
}

/** Every file section of a patch string, whatever its language. */
export function parsePatch(text: string): PatchSection[] {
  switch (patchFormat(text)) {
    case "apply_patch":
      return parseApplyPatch(text);
    case "sloppy":
      return parseSloppy(text);
    case "hashline":
      return parseHashline(text);
  }
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === "string" && value.trim().length > 0 ? value : undefined;
}

/** Paths the call names outright: `path`-like fields, OMP's derived `paths`, patch-mode renames. */
function directPaths(input: Record<string, unknown>): string[] {
  const found: string[] = [];
  for (const key of PATH_FIELDS) {
    const value = nonEmptyString(input[key]);
    if (value !== undefined) found.push(value);
  }
  if (Array.isArray(input.paths)) {
    for (const value of input.paths) {
      const named = nonEmptyString(value);
      if (named !== undefined) found.push(named);
    }
  }
  // OMP's patch mode: `{ path, edits: [{ op, rename?, diff? }] }`; a rename writes its destination too.
  if (Array.isArray(input.edits)) {
    for (const edit of input.edits) {
      if (edit && typeof edit === "object") {
        const rename = nonEmptyString((edit as Record<string, unknown>).rename);
        if (rename !== undefined) found.push(rename);
      }
    }
  }
  return found;
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
 * Every file an edit or patch call writes, in first-seen order, each once.
 * Targets are the union of the paths the call names (`path`, `_path`, `file_path`,
 * `notebook_path`, OMP's derived `paths`, patch-mode renames) and the file headers
 * of a patch string in `patch`, `input`, `_input` or `raw_input` (and in `content`
 * only when no path is named: beside a path, `content` is the file's text). A
 * union, never an override, so a model-supplied field cannot hide a header's target.
 */
export function editTargetsOf(
  input: Record<string, unknown>,
): { ok: true; targets: EditTarget[] } | { ok: false; error: string } {
  const named = directPaths(input);
  const byPath = new Map<string, string[]>();
  const add = (target: string, added: readonly string[]): void => {
    const existing = byPath.get(target);
    if (existing) existing.push(...added);
    else byPath.set(target, [...added]);
  };

  const namedAdded = patchModeAdded(input);
  for (const target of named) add(target, namedAdded);

  let sawPatch = false;
  for (const key of PATCH_FIELDS) {
    if (key === "content" && named.length > 0) continue;
    const text = nonEmptyString(input[key]);
    if (text === undefined) continue;
    sawPatch = true;
    for (const section of parsePatch(text)) {
      add(section.path, section.added);
      if (section.moveTo !== undefined) add(section.moveTo, section.added);
    }
  }

  if (byPath.size === 0) {
    const why = sawPatch
      ? `its patch has no file header (expected "[PATH#TAG]", "*** Update File: PATH" or <SM:EDIT path="PATH">)`
      : `it has no path and no patch in ${PATCH_FIELDS.join(", ")}`;
    return { ok: false, error: `edit names no target file: ${why}` };
  }
  return {
    ok: true,
    targets: [...byPath].map(([target, added]) => (added.length > 0 ? { path: target, added: added.join("\n") } : { path: target })),
  };
}

const URI_SCHEME = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//;
/** The spaces OMP turns into ASCII ones in a tool's path. */
const UNICODE_SPACES = /[\u00A0\u2000-\u200A\u202F\u205F\u3000]/g;
/** OMP's hashline tag: `#` and four hex digits (tools/plan-mode-guard.ts HL_TRAILING_TAG_RE). */
const BRACKET_TAG = /#[0-9A-Fa-f]{4}$/;
/** OMP's "@" shorthand is dropped only before these (tools/path-utils.ts normalizeAtPrefix). */
const AT_SHORTHAND = /^@(?=\/|~$|~\/|[A-Za-z]:[\\/]|\\\\|(?:agent|artifact|skill|rule|security|mcp):\/\/|local:)/;

/** Where OMP puts the files of a session's `local://` URLs, when known. */
export interface PathRoots {
  /** The session's `local://` root (`<session file without .jsonl>/local`). */
  localRoot?: string;
  /** Whether `[PATH#TAG]` is OMP's wrapper here (write and edit targets); default true. */
  brackets?: boolean;
}

/**
 * The session's `local://` root, as OMP computes it (internal-urls/local-protocol.ts
 * resolveLocalRoot): beside the session file, else under the temp dir by session id.
 */
export function localRootOf(sessionFile: string | undefined, sessionId: string | undefined): string | undefined {
  if (sessionFile?.endsWith(".jsonl")) return path.join(sessionFile.slice(0, -".jsonl".length), "local");
  if (sessionId !== undefined && sessionId.length > 0) {
    return path.join(tmpdir(), "omp-local", sessionId.replace(/[^A-Za-z0-9._-]/g, "_"));
  }
  return undefined;
}

/**
 * A `[PATH]` or `[PATH#TAG]` target as the path inside, the way OMP unwraps write
 * and edit targets (tools/plan-mode-guard.ts unwrapHashlineHeaderPath): only the
 * strict shape is unwrapped; anything else stays as written.
 */
export function unwrapBracketedPath(target: string): string {
  const trimmed = target.trimEnd();
  if (trimmed.length < 3 || !trimmed.startsWith("[") || !trimmed.endsWith("]")) return target;
  const inner = trimmed.slice(1, -1);
  const tag = BRACKET_TAG.exec(inner);
  const pathPart = tag ? inner.slice(0, tag.index) : inner;
  if (pathPart.length === 0 || pathPart.includes("#")) return target;
  return pathPart;
}

/**
 * A target as the file OMP will touch (tools/plan-mode-guard.ts resolvePlanPath,
 * tools/path-utils.ts resolveToCwd): a `[PATH#TAG]` wrapper is unwrapped, `local://`
 * (and `local:/`) names a file under the session's local root, a `:raw` selector on
 * an internal URL is peeled, `file://` URLs and `~` are expanded, a stray leading `:`
 * and the `@` shorthand are dropped, a bare `/` is the cwd and relative paths resolve
 * against cwd. Other internal URLs (`memory://`, `xd://`…) stay as written: they are
 * not cwd files.
 */
export function resolveTargetPath(target: string, cwd: string, roots: PathRoots = {}): string {
  let p = roots.brackets === false ? target : unwrapBracketedPath(target);
  p = p.replace(/^(local:)\/(?!\/)/, "$1//");
  if (/^:(?=[/\\~]|\.\.?[/\\]|[A-Za-z]:)/.test(p)) p = p.slice(1);
  if (AT_SHORTHAND.test(p)) p = p.slice(1);
  // OMP reads these as ASCII spaces in a tool's path (tools/path-utils.ts expandPath): `a\u00a0/x` is `a /x`.
  p = p.replace(UNICODE_SPACES, " ");
  p = p.replace(/^(local:)\/(?!\/)/, "$1//");
  if (URI_SCHEME.test(p) && !p.toLowerCase().startsWith("file://")) p = p.replace(/:(raw|conflicts)$/i, "");
  if (p.toLowerCase().startsWith("local://")) {
    if (roots.localRoot === undefined) return p;
    const relative = decodeLocal(p.slice("local://".length));
    return relative === undefined ? p : path.resolve(roots.localRoot, relative);
  }
  if (p.toLowerCase().startsWith("file://")) {
    try {
      p = fileURLToPath(p);
    } catch {
      return target;
    }
  }
  if (URI_SCHEME.test(p)) return p;
  if (p === "~") return homedir();
  if (p.startsWith("~/")) p = homedir() + p.slice(1);
  else if (p.startsWith("~")) p = path.join(homedir(), p.slice(1));
  if (/^\/+$/.test(p)) return cwd;
  // An absolute path is used as given, `..` and all (`/p/l/../x` climbs from where the link l leads, as the kernel
  // walks it; the gates resolve it so, gates/paths.ts resolvedPath); a relative one is resolved on the text, as OMP does.
  if (path.isAbsolute(p)) return p;
  return path.resolve(cwd, p);
}

function decodeLocal(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw.replaceAll("\\", "/"));
  } catch {
    return undefined;
  }
}
