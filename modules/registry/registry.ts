// The hook registry: its format, its checksum, and the loaded generations. Every
// dispatch re-reads the file; a failed read, parse, shape or checksum check keeps
// the previous generation loaded and is reported, never papered over.
import { createHash } from "node:crypto";
import { closeSync, readFileSync } from "node:fs";
import { trustProblem } from "../system/strict-modes.ts";
import { ABSENT, readKey, statOf } from "../system/stat-key.ts";
import { lineColumn, locateJsonError } from "./json-error.ts";
import { EventKind } from "../protocol/engine.ts";
import * as z from "../protocol/schema.ts";
import { builtinGate } from "../gates/index.ts";
import { describeSchemaError } from "../protocol/schema.ts";
import { TOOL_KINDS } from "../tools/declaration.ts";
import { openRegularFile, READ_MAX_BYTES } from "../system/regular-file.ts";

export const REGISTRY_SCHEMA_VERSION = 1;
export const DEFAULT_TIMEOUT_MS = 30_000;

export const HOOK_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
const HookId = z.string().check(z.regex(HOOK_ID_PATTERN, "a hook id is 1-128 letters, digits, '.', '_', ':' or '-'"));

/** Which tool calls a hook of a tool event reads: asks the one tool declaration. */
export const ToolMatcher = z.union([
  z.enum(["any", "shell", "write"]),
  z.array(z.string().check(z.minLength(1), z.maxLength(256))).check(z.minLength(1)),
]);
export type ToolMatcher = z.infer<typeof ToolMatcher>;

export const HookEntry = z
  .strictObject({
    id: HookId,
    description: z.optional(z.string().check(z.maxLength(2000))),
    events: z.array(EventKind).check(z.minLength(1)),
    tools: z._default(ToolMatcher, "any"),
    /** An argv command; no shell is involved unless the argv names one. */
    command: z.optional(z.array(z.string().check(z.minLength(1))).check(z.minLength(1))),
    /** A built-in gate, run in-process. */
    builtin: z.optional(z.string()),
    /** A built-in gate's options, checked by the gate's own schema. */
    options: z.optional(z.unknown()),
    timeoutMs: z._default(z.int().check(z.minimum(1), z.maximum(3_600_000)), DEFAULT_TIMEOUT_MS),
    failMode: z._default(z.enum(["open", "closed"]), "open"),
    enabled: z._default(z.boolean(), true),
    /**
     * Which results a post_tool_use hook reads: a call that succeeded (Claude's
     * PostToolUse) or one that failed (PostToolUseFailure); absent is every result.
     */
    results: z.optional(z.enum(["success", "failure"])),
    /**
     * Why the session started or ended, for session_start and session_end hooks: the
     * `source` (startup, resume, clear, compact) or `reason` values it runs for, as a
     * Claude Code SessionStart/SessionEnd matcher names them; absent is every one.
     */
    when: z.optional(z.array(z.string().check(z.minLength(1))).check(z.minLength(1))),
    /** Start the hook's process before its event (engine/prestart.ts); absent is off, so older catalogs keep their checksum. */
    prestart: z.optional(z.boolean()),
  })
  .check(
    z.refine((hook) => (hook.command === undefined) !== (hook.builtin === undefined), {
      message: "a hook names exactly one of command (an argv list) or builtin (a built-in gate id)",
    }),
    z.refine((hook) => hook.builtin === undefined || builtinGate(hook.builtin) !== undefined, {
      message: "builtin names no built-in gate (see `tama hooks builtins`)",
      path: ["builtin"],
    }),
    z.refine((hook) => hook.when === undefined || hook.events.every((e) => e === "session_start" || e === "session_end"), {
      message: "when (why a session started or ended) is for session_start and session_end hooks only",
      path: ["when"],
    }),
    z.superRefine((hook, ctx) => {
      const problem = optionsProblem(hook.builtin, hook.options);
      if (problem !== undefined) ctx.issues.push({ code: "custom", message: problem, input: hook.options, path: ["options"] });
    }),
  );

/** Why a hook's options do not fit its gate, or undefined when they do. */
function optionsProblem(builtin: string | undefined, options: unknown): string | undefined {
  if (builtin === undefined) return options === undefined ? undefined : "options are for built-in gates; a command hook reads its own configuration";
  const gate = builtinGate(builtin);
  if (gate === undefined) return undefined;
  if (gate.parseOptions === undefined) return options === undefined ? undefined : `the built-in gate ${builtin} takes no options`;
  const parsed = gate.parseOptions(options);
  return parsed.ok ? undefined : `the built-in gate ${builtin}: ${parsed.error}`;
}
export type HookEntry = z.infer<typeof HookEntry>;

/**
 * Kinds of tools the tool declaration does not know (MCP tools, other extensions'
 * tools), by name: `{"mcp__srv__run": "shell"}`. The declaration reads them; a kind
 * declared for a tool it already reads as shell, write or code is ignored.
 */
export const ToolKinds = z.record(
  z.string().check(z.minLength(1), z.maxLength(256)),
  z.enum(TOOL_KINDS),
);
export type ToolKinds = z.infer<typeof ToolKinds>;

export const Release = z.strictObject({ id: z.string().check(z.minLength(1), z.maxLength(200)) });

export const RegistryFile = z
  .strictObject({
    schema: z.literal(REGISTRY_SCHEMA_VERSION),
    release: z._default(z.nullable(Release), null),
    checksum: z.optional(z.string().check(z.regex(/^[0-9a-f]{64}$/, "checksum is the lower-case hex SHA-256 of the catalog"))),
    toolKinds: z.optional(ToolKinds),
    hooks: z.array(HookEntry),
    /**
     * The user registry's setting: read Claude Code's settings files as live hook
     * sources. Not part of the catalog checksum, which covers this file's own hooks.
     */
    readClaudeSettings: z.optional(z.boolean()),
  })
  .check(
    z.refine((file) => new Set(file.hooks.map((h) => h.id)).size === file.hooks.length, {
      message: "hook ids must be unique",
      path: ["hooks"],
    }),
  );
export type RegistryFile = z.infer<typeof RegistryFile>;

/** The catalog: what the checksum covers and what a client is sent. */
export interface Catalog {
  schema: number;
  release: { id: string } | null;
  /** Present only when the registry declares tool kinds, so older checksums stay valid. */
  toolKinds?: ToolKinds;
  hooks: HookEntry[];
}

/** JSON with object keys sorted at every depth and no white space. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * The catalog checksum: SHA-256 (lower-case hex) of the canonical JSON of
 * {schema, release, hooks} after defaults are applied, so writing a default out
 * explicitly does not change it.
 */
export function catalogChecksum(catalog: Catalog): string {
  return createHash("sha256").update(canonicalJson(catalog)).digest("hex");
}

export function catalogOf(file: RegistryFile): Catalog {
  return { schema: file.schema, release: file.release, ...(file.toolKinds !== undefined ? { toolKinds: file.toolKinds } : {}), hooks: file.hooks };
}

/** A JSON parse failure in words with its line and column, the same on every runtime. */
function jsonErrorWhere(text: string, fallback: string): string {
  const site = locateJsonError(text);
  if (!site) return fallback;
  const { line, column } = lineColumn(text, site.offset);
  return `${site.message} at line ${line} column ${column}`;
}

export type ParseOutcome = { ok: true; file: RegistryFile; checksum: string } | { ok: false; error: string };

/** Validate registry text; every error names the path and the operation that failed. */
export function parseRegistry(text: string, filePath: string): ParseOutcome {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `parsing hook registry ${filePath}: ${jsonErrorWhere(text, (error as Error).message)}` };
  }
  const shaped = RegistryFile.safeParse(raw);
  if (!shaped.success) {
    return { ok: false, error: `hook registry ${filePath} is not a valid registry: ${describeSchemaError(shaped.error, "the registry")}` };
  }
  const checksum = catalogChecksum(catalogOf(shaped.data));
  if (shaped.data.checksum !== undefined && shaped.data.checksum !== checksum) {
    return {
      ok: false,
      error: `hook registry ${filePath} checksum mismatch: expected ${shaped.data.checksum}, actual ${checksum}`,
    };
  }
  return { ok: true, file: shaped.data, checksum };
}

/** One loaded registry; dispatches hold the generation they started on. */
export interface Generation {
  number: number;
  file: RegistryFile;
  catalog: Catalog;
  checksum: string;
  releaseId: string | null;
  loadedAtMs: number;
}

export type RefreshOutcome =
  | { ok: true; generation: Generation; changed: boolean }
  | { ok: false; error: string; generation: Generation | undefined };

/** Holds the loaded generation and re-reads the file on demand. */
export class RegistryStore {
  current: Generation | undefined;
  reloadCount = 0;
  lastReloadAtMs: number | null = null;
  lastReloadError: string | null = null;
  /** The release of the first registry this process read: the code it runs. */
  coreReleaseId: string | null | undefined;
  private lastText: string | undefined;
  private inFlight: Promise<RefreshOutcome> | undefined;
  /** The registry file's stat key when it was last read, taken before the read. */
  lastKey = ABSENT;

  constructor(readonly path: string) {}

  get coreReplacedByRelease(): boolean {
    return this.coreReleaseId !== undefined && this.current !== undefined && this.current.releaseId !== this.coreReleaseId;
  }

  /**
   * Re-read the registry. The bytes are compared with the last ones read, so an
   * unchanged file costs one read and no parse, and no change can be missed.
   * Concurrent callers share one read.
   */
  refresh(): Promise<RefreshOutcome> {
    // Dispatches handled in one turn of the event loop arrived in the same input
    // chunk, before this read: one read serves them all and misses no change made
    // before any of them arrived. The next turn reads again.
    if (!this.inFlight) {
      this.inFlight = this.read();
      setImmediate(() => {
        this.inFlight = undefined;
      });
    }
    return this.inFlight;
  }

  private async read(): Promise<RefreshOutcome> {
    // A settled file whose key is the one the loaded text was read under holds that
    // text still, and passed its trust check then: a change of its bytes, mode or
    // owner, or another file put in its place (what a parent others can write would
    // let them do), gives another key. One stat, where a read is five calls and the
    // trust check one per guarding directory.
    if (this.current !== undefined && this.lastText !== undefined && readKey(statOf(this.path)) === this.lastKey) {
      this.lastReloadError = null;
      return { ok: true, generation: this.current, changed: false };
    }
    let text: string;
    let fd: number | undefined;
    try {
      // A registry is a few KB: one synchronous read costs tens of µs, where an
      // async read takes four thread-pool round trips.
      this.lastKey = ABSENT;
      const opened = openRegularFile(this.path, READ_MAX_BYTES);
      fd = opened.fd;
      this.lastKey = readKey(opened.stats);
      // A registry someone else can write is not this user's policy: a rejected replacement.
      const untrusted = trustProblem(this.path, { fd });
      if (untrusted !== undefined) return this.fail(`hook registry ${this.path} is not trusted: ${untrusted}`);
      text = readFileSync(fd, "utf8");
    } catch (error) {
      return this.fail(`reading hook registry ${this.path}: ${(error as Error).message}`);
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
    if (this.current && text === this.lastText) {
      this.lastReloadError = null;
      return { ok: true, generation: this.current, changed: false };
    }
    const parsed = parseRegistry(text, this.path);
    if (!parsed.ok) return this.fail(parsed.error);
    this.lastText = text;
    this.lastReloadError = null;
    if (this.current && this.current.checksum === parsed.checksum) {
      return { ok: true, generation: this.current, changed: false };
    }
    const releaseId = parsed.file.release?.id ?? null;
    this.current = {
      number: (this.current?.number ?? 0) + 1,
      file: parsed.file,
      catalog: catalogOf(parsed.file),
      checksum: parsed.checksum,
      releaseId,
      loadedAtMs: Date.now(),
    };
    if (this.coreReleaseId === undefined) this.coreReleaseId = releaseId;
    this.reloadCount += 1;
    this.lastReloadAtMs = this.current.loadedAtMs;
    return { ok: true, generation: this.current, changed: true };
  }

  private fail(error: string): RefreshOutcome {
    this.lastReloadError = error;
    // The text is forgotten so that putting the old file back is seen as a change.
    this.lastText = undefined;
    return { ok: false, error, generation: this.current };
  }
}
