// Where a path a tool is given lands, as OMP resolves it (tools/path-utils.ts
// resolveToCwd and its helpers): `[PATH#TAG]` unwrapped, `local://` under the
// session's own root, `file://`, `~`, a stray leading `:` or `@`, Unicode spaces as
// ASCII ones, and under WSL a Windows drive path as its /mnt mount.
import { homedir, tmpdir } from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

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
  // Under WSL OMP reads a Windows drive path (`C:\Users\me\x`, `C:/x`) as its /mnt/<drive> mount (pi-utils windowsPathToWslMount).
  if (underWsl()) p = wslMount(p) ?? p;
  if (/^\/+$/.test(p)) return cwd;
  // An absolute path is used as given, `..` and all (`/p/l/../x` climbs from where the link l leads, as the kernel
  // walks it; the gates resolve it so, gates/paths.ts resolvedPath); a relative one is resolved on the text, as OMP does.
  if (path.isAbsolute(p)) return p;
  return path.resolve(cwd, p);
}

/** OMP's isWsl: the interop layer's variables, which OMP's process (and the engine it starts) inherits. */
const underWsl = (): boolean => process.platform === "linux" && Boolean(process.env.WSL_DISTRO_NAME || process.env.WSL_INTEROP);

/** A Windows drive path as its WSL mount, undefined for any other path. */
export function wslMount(filePath: string): string | undefined {
  const match = /^([A-Za-z]):[\\/](.*)$/s.exec(path.win32.normalize(filePath.trim()));
  if (!match) return undefined;
  return path.posix.join("/mnt", (match[1] as string).toLowerCase(), ...(match[2] as string).split("\\").filter(Boolean));
}

function decodeLocal(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw.replaceAll("\\", "/"));
  } catch {
    return undefined;
  }
}
