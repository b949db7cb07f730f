// Changing the hook registry from the CLI. Every dispatch re-reads the file, so an
// edit is validated with the registry's own schema first, a declared checksum is
// recomputed, and the file is replaced whole (temp file + rename): an engine sees
// the old registry or the new one, never half of one and never an invalid one.
import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, realpathSync, renameSync, rmSync, statSync, unlinkSync, writeSync } from "node:fs";
import path from "node:path";
import * as z from "../protocol/schema.ts";
import { processAlive } from "../system/process-groups.ts";

import { parseRegistry, REGISTRY_SCHEMA_VERSION, type RegistryFile } from "./registry.ts";
import { describeSchemaError } from "../protocol/schema.ts";

/** A hook as written in the file: its id, and whatever else the user wrote, kept as written. */
export const RawHook = z.looseObject({ id: z.string() });
export type RawHook = z.infer<typeof RawHook>;

const RawRegistry = z.looseObject({ hooks: z.array(RawHook), checksum: z.optional(z.string()) });
type RawRegistry = z.infer<typeof RawRegistry>;

/** A registry edit that cannot be made; the message says why and what to do. */
export class RegistryEditError extends Error {}

/** An id the registry does not hold: the caller named it wrong. */
export class UnknownHookError extends RegistryEditError {}

export interface RegistrySnapshot {
  path: string;
  /** The file's text as read; undefined when there is no file yet. */
  text: string | undefined;
  raw: RawRegistry;
  /** The validated registry, defaults applied. */
  file: RegistryFile;
  checksum: string;
}

function emptyRegistry(): RawRegistry {
  // No release is made up for a registry the CLI creates; `tama install` names one.
  return { schema: REGISTRY_SCHEMA_VERSION, release: null, hooks: [] };
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new RegistryEditError(`reading hook registry ${file}: ${(error as Error).message}`);
  }
}

/**
 * Read and validate the registry. A registry that does not load is not edited: an
 * edit would either keep the problem or hide it (a recomputed checksum would bless
 * a change the declared one was there to catch).
 */
export function readRegistry(file: string, options: { missingOk: boolean }): RegistrySnapshot {
  const text = readText(file);
  if (text === undefined) {
    if (!options.missingOk) {
      throw new RegistryEditError(`there is no hook registry at ${file}: run \`tama install --omp\`, or \`tama hooks add\` to start one`);
    }
    const raw = emptyRegistry();
    const parsed = parseRegistry(JSON.stringify(raw), file);
    if (!parsed.ok) throw new RegistryEditError(parsed.error);
    return { path: file, text, raw, file: parsed.file, checksum: parsed.checksum };
  }
  const parsed = parseRegistry(text, file);
  if (!parsed.ok) {
    throw new RegistryEditError(
      `${parsed.error}. Fix the file first (\`tama doctor\` names the problem; \`tama hooks checksum ${file}\` prints the checksum it should declare).`,
    );
  }
  const json: unknown = JSON.parse(text);
  const raw = RawRegistry.safeParse(json);
  if (!raw.success) throw new RegistryEditError(`hook registry ${file}: ${describeSchemaError(raw.error, "the registry")}`);
  // Validated; but zod's output puts known keys first, and the file keeps its own order.
  return { path: file, text, raw: json as RawRegistry, file: parsed.file, checksum: parsed.checksum };
}

/** The registry text for a new list of hooks: validated, with a declared checksum recomputed. */
export function renderRegistry(
  snapshot: RegistrySnapshot,
  hooks: RawHook[],
  settings: RegistrySettings = {},
): { text: string; file: RegistryFile; checksum: string } {
  const { checksum: declared, ...rest } = { ...snapshot.raw, ...settings };
  const next: Record<string, unknown> = { ...rest, hooks };
  const parsed = parseRegistry(JSON.stringify(next), snapshot.path);
  if (!parsed.ok) throw new RegistryEditError(`the change was not written: ${parsed.error}`);
  // The checksum keeps its place in the file when it had one.
  const ordered = declared === undefined ? next : { ...snapshot.raw, ...settings, hooks, checksum: parsed.checksum };
  const text = `${JSON.stringify(ordered, null, 2)}\n`;
  const check = parseRegistry(text, snapshot.path);
  if (!check.ok) throw new RegistryEditError(`the change was not written: ${check.error}`);
  return { text, file: check.file, checksum: check.checksum };
}

/** Write a file whole: a temp file beside it, synced, then renamed over it (a symlink's target is replaced, not the link). */
export function writeFileAtomic(file: string, text: string, expectedText: string | undefined): "written" | "changed-meanwhile" {
  let target = file;
  let mode = 0o644;
  try {
    target = realpathSync(file);
    mode = statSync(target).mode & 0o777;
  } catch {
    // a new file
  }
  const temp = `${target}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    mkdirSync(path.dirname(target), { recursive: true });
    const fd = openSync(temp, "wx", mode);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    // Another edit that landed since this one read the file would be lost: start again.
    // (What remains is the window between this read and the rename, a few µs.)
    if (readText(target) !== expectedText) {
      unlinkSync(temp);
      return "changed-meanwhile";
    }
    renameSync(temp, target);
    return "written";
  } catch (error) {
    rmSync(temp, { force: true });
    if (error instanceof RegistryEditError) throw error;
    throw new RegistryEditError(`writing hook registry ${file}: ${(error as Error).message}; nothing was changed`);
  }
}

export interface EditOutcome<T> {
  path: string;
  created: boolean;
  file: RegistryFile;
  checksum: string;
  /** What the change itself reported. */
  detail: T;
}

/**
 * Apply a change to the registry's hooks and write it atomically. `change` gets the
 * hooks as written and the validated registry, and returns the new list and a
 * detail for the caller; it may throw RegistryEditError to refuse.
 */
/** The registry's settings besides its hooks that the CLI changes. */
export interface RegistrySettings {
  readClaudeSettings?: boolean;
}

export function editRegistry<T>(
  file: string,
  change: (hooks: RawHook[], current: RegistryFile) => { hooks: RawHook[]; detail: T; settings?: RegistrySettings },
  options: { dryRun?: boolean } = {},
): EditOutcome<T> {
  return options.dryRun ? applyEdit(file, change, true) : withEditLock(file, () => applyEdit(file, change, false));
}

function applyEdit<T>(
  file: string,
  change: (hooks: RawHook[], current: RegistryFile) => { hooks: RawHook[]; detail: T; settings?: RegistrySettings },
  dryRun: boolean,
): EditOutcome<T> {
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const snapshot = readRegistry(file, { missingOk: true });
    const { hooks, detail, settings } = change(
      snapshot.raw.hooks.map((hook) => ({ ...hook })),
      snapshot.file,
    );
    const rendered = renderRegistry(snapshot, hooks, settings);
    const base = { path: file, created: snapshot.text === undefined, file: rendered.file, checksum: rendered.checksum, detail };
    if (dryRun || rendered.text === snapshot.text) return base;
    if (writeFileAtomic(file, rendered.text, snapshot.text) === "written") return base;
  }
  throw new RegistryEditError(`hook registry ${file} kept changing while this edit was made; try again`);
}

const LOCK_WAIT_MS = 10_000;

/**
 * Edits by `tama` take turns on `<registry>.lock` (created exclusively, holding the
 * editor's pid), so two at once cannot lose one's change. A lock whose holder is
 * gone is taken over. Hand edits are not held off; the re-read before the rename
 * catches most of them.
 */
function withEditLock<T>(file: string, edit: () => T): T {
  let target = file;
  try {
    target = realpathSync(file);
  } catch {
    // a new file
  }
  mkdirSync(path.dirname(target), { recursive: true });
  const lock = `${target}.lock`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      const fd = openSync(lock, "wx", 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw new RegistryEditError(`locking hook registry ${file}: ${(error as Error).message}`);
    }
    const holder = lockHolder(lock);
    if (holder === "gone") {
      rmSync(lock, { force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new RegistryEditError(`${lock} is held by pid ${holder}: another \`tama hooks\` edit is running; if none is, remove ${lock}`);
    }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
  }
  try {
    return edit();
  } finally {
    rmSync(lock, { force: true });
  }
}

/** The pid holding a lock, or "gone" when that process has ended (or never wrote its pid). */
function lockHolder(lock: string): number | "gone" {
  try {
    const pid = Number(readFileSync(lock, "utf8"));
    if (Number.isInteger(pid) && pid > 0) return processAlive(pid) ? pid : "gone";
    // Created but its pid not written yet: give the writer a moment.
    return Date.now() - statSync(lock).mtimeMs > 2_000 ? "gone" : 0;
  } catch {
    return "gone";
  }
}

/** The index of a hook by id, or a refusal naming the ids there are. */
export function hookIndex(hooks: readonly RawHook[], id: string, file: string): number {
  const index = hooks.findIndex((hook) => hook.id === id);
  if (index < 0) {
    throw new UnknownHookError(`no hook ${JSON.stringify(id)} in ${file}; \`tama hooks list\` shows the ids there are`);
  }
  return index;
}
