// Contract splicing. Jeden installs contracts between two marker lines in OMP's
// APPEND_SYSTEM.md, but OMP appends that file to a session's system prompt once, at
// session start. Tama reads the installed block on every model request and puts it in
// place of the marked block the request carries, wherever that block sits.
import { type Stats } from "node:fs";
import { join, resolve } from "node:path";
import { ABSENT, readKey, statOf } from "../system/stat-key.ts";
import { readRegularFile } from "../system/regular-file.ts";

export const CONTRACTS_START = "<!-- jeden contracts: start -->";
export const CONTRACTS_END = "<!-- jeden contracts: end -->";

export type ContractBlockResult = { ok: true; block: string | null } | { ok: false; error: string };

/**
 * The marked block in `text`, from the start marker to the end marker inclusive;
 * null when there is none. A splice replaces exactly this span, so text sharing a
 * line with a marker is kept. Markers out of order or repeated are an error, since
 * no one can tell which block is meant.
 */
export function extractContractBlock(text: string): ContractBlockResult {
  const starts = occurrences(text, CONTRACTS_START);
  const ends = occurrences(text, CONTRACTS_END);
  const error = markerError(starts, ends);
  if (error !== undefined) return { ok: false, error };
  const [start] = starts;
  const [end] = ends;
  if (start === undefined || end === undefined) return { ok: true, block: null };
  return { ok: true, block: text.slice(start, end + CONTRACTS_END.length) };
}

function markerError(starts: number[], ends: number[]): string | undefined {
  if (starts.length > 1) return `${starts.length} start markers (${CONTRACTS_START}); expected one`;
  if (ends.length > 1) return `${ends.length} end markers (${CONTRACTS_END}); expected one`;
  const [start] = starts;
  const [end] = ends;
  if (start !== undefined && end === undefined) return `a start marker (${CONTRACTS_START}) without an end marker`;
  if (start === undefined && end !== undefined) return `an end marker (${CONTRACTS_END}) without a start marker`;
  if (start !== undefined && end !== undefined && end < start) return "the end marker comes before the start marker";
  return undefined;
}

function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) found.push(at);
  return found;
}

export interface SpliceResult {
  payload: unknown;
  changed: boolean;
  error?: string;
}

/**
 * `payload` with every marked block in any of its strings replaced by `block`
 * (OpenAI system strings and text parts, Anthropic `system`, responses `instructions`
 * and `input` items alike: the walk does not depend on the shape). The input is
 * never mutated; only objects and arrays on the path to a changed string are copied.
 * On malformed markers in any string the payload comes back unchanged, with the error.
 */
export function spliceContracts(payload: unknown, block: string): SpliceResult {
  const replacement = extractContractBlock(block);
  if (!replacement.ok || replacement.block !== block) {
    return { payload, changed: false, error: "the replacement is not exactly one marked contract block" };
  }
  // Most requests carry the installed block already: one read-only pass tells, and nothing is copied.
  if (!differs(payload, block)) return { payload, changed: false };
  const state: SpliceState = { block };
  const next = rewrite(payload, state);
  if (state.error !== undefined) return { payload, changed: false, error: state.error };
  return { payload: next, changed: next !== payload };
}

interface SpliceState {
  block: string;
  error?: string;
}

/**
 * Whether any string of `root` carries a marked block other than `block`, or malformed
 * markers. A request holds the whole conversation, so this runs over every part of it
 * twice a turn: a loop over a stack, with no array of keys made per object, costs about a
 * third less than the rewriting walk, and a fifth of OMP's own serialisation of the request.
 */
function differs(root: unknown, block: string): boolean {
  const other = (text: string): boolean => text.includes(CONTRACTS_START) && !carriesOnly(text, block);
  if (typeof root === "string") return other(root);
  // Strings are looked at where they are found; only objects and arrays go on the stack.
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        if (typeof item === "string") {
          if (other(item)) return true;
        } else if (typeof item === "object" && item !== null) stack.push(item);
      }
    } else if (typeof value === "object" && value !== null) {
      // Any object, where the rewrite takes plain ones only: looking at more is safe here.
      for (const key in value) {
        const item: unknown = (value as Record<string, unknown>)[key];
        if (typeof item === "string") {
          if (other(item)) return true;
        } else if (typeof item === "object" && item !== null) stack.push(item);
      }
    }
  }
  return false;
}

/** A string with a start marker whose one well-formed block is `block` already. */
function carriesOnly(text: string, block: string): boolean {
  const found = extractContractBlock(text);
  return found.ok && (found.block === null || found.block === block);
}

/** The value with its blocks replaced; the same reference when nothing in it changed. */
function rewrite(value: unknown, state: SpliceState): unknown {
  if (typeof value === "string") return rewriteString(value, state);
  if (Array.isArray(value)) return rewriteArray(value, state);
  if (isPlainObject(value)) return rewriteObject(value, state);
  return value;
}

function rewriteString(text: string, state: SpliceState): string {
  // Most strings of a 200 KB payload carry no block: one indexOf rules them out.
  if (!text.includes(CONTRACTS_START)) return text;
  const found = extractContractBlock(text);
  if (!found.ok) {
    state.error = `the model request carries malformed contract markers: ${found.error}`;
    return text;
  }
  if (found.block === null || found.block === state.block) return text;
  const at = text.indexOf(CONTRACTS_START);
  return text.slice(0, at) + state.block + text.slice(at + found.block.length);
}

function rewriteArray(items: readonly unknown[], state: SpliceState): unknown[] | readonly unknown[] {
  let copy: unknown[] | undefined;
  for (let i = 0; i < items.length && state.error === undefined; i++) {
    const item = items[i];
    const next = rewrite(item, state);
    if (next !== item) {
      copy ??= items.slice();
      copy[i] = next;
    }
  }
  return copy ?? items;
}

function rewriteObject(object: Record<string, unknown>, state: SpliceState): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(object)) {
    if (state.error !== undefined) break;
    const item = object[key];
    const next = rewrite(item, state);
    if (next !== item) {
      copy ??= { ...object };
      copy[key] = next;
    }
  }
  return copy ?? object;
}

/** JSON objects only: a class instance (a Buffer, a Date) is left as it is. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object") return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

// ---------------------------------------------------------------------------
// Where OMP reads APPEND_SYSTEM.md.

export interface ContractsPathOptions {
  /** OMP's user config dir name: `PI_CONFIG_DIR`, default `.omp` (pi-utils dirs.ts:294). */
  configDirName?: string;
  /** OMP's active profile: the user file then lives in `<home>/.omp/profiles/<p>/agent`. */
  profile?: string;
}

/** The project config dirs OMP searches, in its order (config.ts:11-16 priorityList). */
const PROJECT_DIRS = [".omp", ".claude", ".codex", ".gemini"] as const;
const FILE_NAME = "APPEND_SYSTEM.md";

/**
 * The APPEND_SYSTEM.md OMP would use, mirroring OMP 18.2.3:
 * main.ts:1180-1190 `discoverAppendSystemPromptFile` asks `findConfigFile` for a
 * project file first (`{ user: false }`), then a user one; config.ts:177-188
 * `findConfigFile` returns the first candidate that exists (`fs.existsSync`).
 * Project candidates (config.ts:90-93, 145-152): `<cwd>/.omp`, `.claude`, `.codex`,
 * `.gemini`, in that order. User candidates (config.ts:84-88, 132-143):
 * `<home>/<PI_CONFIG_DIR or .omp>/agent` (pi-utils dirs.ts:299-302, profiles under
 * `profiles/<p>/agent`), then `~/.claude` (or CLAUDE_CONFIG_DIR), `~/.codex`, `~/.gemini`
 * only when the user opted those providers in (capability/index.ts:334-343: off by
 * default, `~/.claude` on when CLAUDE_CONFIG_DIR is set), which Tama does not mirror. PI_CODING_AGENT_DIR plays no part. A
 * `--append-system-prompt` flag replaces the file altogether (main.ts:1233).
 * When no candidate exists, the user path (where `jeden contracts install` writes).
 */
/** The lookup options OMP's own environment selects (PI_CONFIG_DIR, OMP_PROFILE or PI_PROFILE). */
export function contractsPathOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): ContractsPathOptions {
  const profile = env.OMP_PROFILE ?? env.PI_PROFILE;
  return { ...(env.PI_CONFIG_DIR ? { configDirName: env.PI_CONFIG_DIR } : {}), ...(profile ? { profile } : {}) };
}

export function contractsFilePath(cwd: string, home: string, options: ContractsPathOptions = {}): string {
  return candidateStats(cwd, home, options).file;
}

/** The file OMP would use (see contractsFilePath) and its stat: one stat per candidate tried. */
function candidateStats(cwd: string, home: string, options: ContractsPathOptions): { file: string; stats?: Stats } {
  const userPath = join(home, userAgentDir(options), FILE_NAME);
  for (const candidate of [...PROJECT_DIRS.map((dir) => resolve(cwd, dir, FILE_NAME)), userPath]) {
    const stats = statOf(candidate);
    if (stats !== undefined) return { file: candidate, stats };
  }
  return { file: userPath };
}

/**
 * The installed contracts for each model request, found and read as OMP would find
 * them; the bytes are read again only when the file's stat key changed (a request
 * comes twice a turn, and the file almost never changes), and a file no candidate
 * stat found is not read at all while it stays so.
 */
export class InstalledContractsReader {
  private last: { file: string; key: string; installed: InstalledContracts } | undefined;

  constructor(private readonly readFile: (path: string) => InstalledContracts = readInstalledContracts) {}

  read(cwd: string, home: string, options: ContractsPathOptions = {}): { file: string; installed: InstalledContracts } {
    const { file, stats } = candidateStats(cwd, home, options);
    const key = readKey(stats);
    const last = this.last;
    // An absent file is keyed ABSENT each time: no stat of it succeeded, so no read would either.
    if (last !== undefined && last.file === file && last.key === key && (key !== ABSENT || last.installed.kind !== "ok")) return { file, installed: last.installed };
    const installed = this.readFile(file);
    this.last = { file, key, installed };
    return { file, installed };
  }
}

function userAgentDir({ configDirName = ".omp", profile }: ContractsPathOptions): string {
  return profile ? join(configDirName, "profiles", profile, "agent") : join(configDirName, "agent");
}

export type InstalledContracts =
  | { kind: "missing" }
  | { kind: "unreadable"; reason: string }
  | { kind: "ok"; block: string | null }
  | { kind: "malformed"; error: string };

/** The marked block of the installed file, read now (the file is small; a sync read keeps the caller simple). */
export function readInstalledContracts(path: string): InstalledContracts {
  let text: string;
  try {
    text = readRegularFile(path);
  } catch (error) {
    const code = errorCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") return { kind: "missing" };
    return { kind: "unreadable", reason: readReason(error) };
  }
  const found = extractContractBlock(text);
  return found.ok ? { kind: "ok", block: found.block } : { kind: "malformed", error: found.error };
}

/** The stderr line for a file that exists and cannot be read (seed 004). */
export function unreadableContractsMessage(path: string, reason: string): string {
  return `Tama cannot read the installed contracts ${path}: ${reason}; this model request keeps the contracts its session started with`;
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  return typeof error.code === "string" ? error.code : undefined;
}

/** "EACCES: permission denied", without Node's trailing ", open '<path>'" (the sentence names the path). */
function readReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const syscall = typeof error === "object" && error !== null && "syscall" in error ? error.syscall : undefined;
  const cut = typeof syscall === "string" ? message.lastIndexOf(`, ${syscall}`) : -1;
  return cut === -1 ? message : message.slice(0, cut);
}
