// `tama sessions …`: the live OMP sessions and their session control. Records are
// read from $TAMA_HOME/sessions/ only when that directory is private, and a record
// whose OMP process is gone is reported stale and removed, never used.
import { createHash } from "node:crypto";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { parseArgs } from "node:util";
import { readGrant, writeGrant, type Grant } from "../session-control/grants.ts";
import { tamaPaths, type TamaPaths } from "../system/paths.ts";
import { ControlTimeout, ControlUnreachable, controlRequest } from "../session-control/client.ts";
import {
  SESSION_CONTROL_PROTOCOL_VERSION,
  type ControlRequest,
  type ControlResponse,
  type ControlStatus,
  type ReloadReceipt,
} from "../protocol/session-control.ts";
import { grantPath, listRecords, readRecordFile, recordIsLive, recordPath, removeSessionFiles, sessionsDirProblem, type SessionRecord } from "../session-control/records.ts";
import { CliError, printJson, table } from "./io.ts";

/** The exit codes of `tama sessions` (README, "Session control"). */
export const SESSIONS_EXIT = {
  ok: 0,
  /** The adoption failed; the previous adapter keeps running and the receipt says why. */
  adoptionFailed: 1,
  usage: 2,
  unknownSession: 3,
  staleSession: 4,
  reloadUnsupported: 5,
  timeout: 6,
  /** The socket cannot be reached, or the session refused the request. */
  unreachable: 7,
  /** $TAMA_HOME or its sessions directory can be written by others: nothing in it is trusted. */
  unsafeDirectory: 8,
} as const;


const OPTIONS = {
  session: { type: "string" },
  json: { type: "boolean" },
  timeout: { type: "string" },
} as const;

interface Args {
  session: string | undefined;
  json: boolean;
  timeoutMs: number;
}

function readArgs(argv: string[], defaultTimeoutMs: number): Args {
  const { values } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: false });
  const timeoutMs = values.timeout === undefined ? defaultTimeoutMs : Number(values.timeout);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new CliError(`--timeout takes a positive number of milliseconds, not ${JSON.stringify(values.timeout)}`, SESSIONS_EXIT.usage);
  return { session: values.session, json: values.json === true, timeoutMs };
}

export async function sessionsCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case "list":
      return list(readArgs(rest, 10_000));
    case "status":
      return await status(readArgs(rest, 10_000));
    case "reload":
      return await reload(readArgs(rest, 30_000));
    case "grant":
      return await grant(readArgs(rest, 10_000));
    case "revoke":
      return revoke(readArgs(rest, 10_000));
    default:
      throw new CliError(sub === undefined ? "name a command: list, status, reload, grant or revoke" : `unknown command ${JSON.stringify(sub)}: list, status, reload, grant or revoke`, SESSIONS_EXIT.usage);
  }
}

/** The paths, once the directory holding sessions is known to be private. */
function trustedPaths(): TamaPaths {
  const paths = tamaPaths();
  if (!existsSync(paths.sessions)) return paths;
  const problem = sessionsDirProblem(paths.home, paths.sessions, false);
  if (problem !== undefined) throw new CliError(`not reading session records: ${problem}`, SESSIONS_EXIT.unsafeDirectory);
  return paths;
}

function installedAdapterDigest(paths: TamaPaths): string | null {
  try {
    return createHash("sha256").update(readFileSync(paths.adapter)).digest("hex");
  } catch {
    return null;
  }
}

const short = (digest: string | null | undefined): string => (digest ? digest.slice(0, 12) : "-");

/**
 * Records in start order with each subagent's session right under its parent (and
 * its depth); one whose parent has no live record stands at the top level.
 */
export function underParents(records: SessionRecord[]): { record: SessionRecord; depth: number }[] {
  const live = new Set(records.map((r) => r.session));
  const children = new Map<string, SessionRecord[]>();
  const roots: SessionRecord[] = [];
  for (const record of records) {
    if (record.parent !== undefined && record.parent !== record.session && live.has(record.parent)) {
      children.set(record.parent, [...(children.get(record.parent) ?? []), record]);
    } else roots.push(record);
  }
  const out: { record: SessionRecord; depth: number }[] = [];
  const seen = new Set<string>();
  const visit = (record: SessionRecord, depth: number): void => {
    if (seen.has(record.session)) return;
    seen.add(record.session);
    out.push({ record, depth });
    for (const child of children.get(record.session) ?? []) visit(child, depth + 1);
  };
  for (const root of roots) visit(root, 0);
  // A cycle of parents names no root: its records still show, at the top level.
  for (const record of records) visit(record, 0);
  return out;
}

/** The session's record by id or unique id prefix; a stale one is removed and refused. */
function liveRecord(paths: TamaPaths, id: string | undefined): SessionRecord {
  if (!id) throw new CliError(`--session ID is required (\`tama sessions list\` shows the live sessions)`, SESSIONS_EXIT.usage);
  const exact = readRecordFile(recordPath(paths.sessions, id));
  let record: SessionRecord | undefined = exact.ok && exact.record.session === id ? exact.record : undefined;
  if (!record) {
    const all = listRecords(paths.sessions);
    const matches = [...all.live, ...all.stale].filter((r) => r.session.startsWith(id));
    if (matches.length > 1) {
      throw new CliError(`${JSON.stringify(id)} names ${matches.length} sessions (${matches.map((r) => r.session).join(", ")}); give more of the id`, SESSIONS_EXIT.unknownSession);
    }
    record = matches[0];
  }
  if (!record) throw new CliError(`no session ${JSON.stringify(id)} has a record in ${paths.sessions}; \`tama sessions list\` shows the live ones`, SESSIONS_EXIT.unknownSession);
  if (!recordIsLive(record)) {
    removeSessionFiles(paths.sessions, record);
    throw new CliError(`session ${record.session} is stale: its OMP process ${record.ompPid} is gone, so its record was removed`, SESSIONS_EXIT.staleSession);
  }
  if (record.protocolVersion !== SESSION_CONTROL_PROTOCOL_VERSION) {
    throw new CliError(`session ${record.session} speaks session control protocol ${record.protocolVersion}; this tama speaks ${SESSION_CONTROL_PROTOCOL_VERSION}`, SESSIONS_EXIT.unreachable);
  }
  return record;
}

/** One request to the session; every failure becomes a CliError with its exit code. */
async function ask(record: SessionRecord, op: ControlRequest["op"], timeoutMs: number): Promise<ControlResponse & { ok: true }> {
  const request: ControlRequest = { id: `cli-${process.pid}`, op, key: record.key };
  let response: ControlResponse;
  try {
    response = await controlRequest(record.socket, request, timeoutMs);
  } catch (error) {
    if (error instanceof ControlTimeout) {
      throw new CliError(`session ${record.session} gave no answer to ${op} within ${timeoutMs} ms (${op === "reload-adapter" ? "the reload may still finish; " : ""}see \`tama sessions status --session ${record.session}\`)`, SESSIONS_EXIT.timeout);
    }
    if (error instanceof ControlUnreachable) throw new CliError(`session ${record.session} (OMP pid ${record.ompPid}): ${error.message}`, SESSIONS_EXIT.unreachable);
    throw error;
  }
  if (!response.ok) {
    const code = response.error.code === "reload-unsupported" ? SESSIONS_EXIT.reloadUnsupported : SESSIONS_EXIT.unreachable;
    throw new CliError(`session ${record.session} refused ${op} (${response.error.code}): ${response.error.message}`, code);
  }
  return response;
}

function list(args: Args): number {
  const paths = trustedPaths();
  const records = listRecords(paths.sessions);
  // Stale records are never shown as sessions: they are named and removed.
  for (const record of records.stale) removeSessionFiles(paths.sessions, record);
  const installed = installedAdapterDigest(paths);
  const sessions = underParents(records.live).map(({ record: r, depth }) => ({
    session: r.session,
    parent: r.parent ?? null,
    depth,
    ompPid: r.ompPid,
    enginePid: r.enginePid,
    startedAtMs: r.startedAtMs,
    cwd: r.cwd,
    adapterDigest: r.adapterDigest,
    adapterReloadSupported: r.adapterReloadSupported,
    installedAdapterDiffers: installed !== null && r.adapterDigest !== installed,
    engineGeneration: r.engineGeneration,
    socket: r.socket,
    serving: existsSync(r.socket),
  }));
  const stale = records.stale.map((r) => ({ session: r.session, ompPid: r.ompPid, removed: true }));
  if (args.json) {
    printJson({ installedAdapterDigest: installed, sessions, stale, unreadable: records.unread });
  } else {
    const lines = [
      sessions.length === 0
        ? "No live OMP session has session control."
        : table([
            ["SESSION", "OMP PID", "ENGINE PID", "ADAPTER", "INSTALLED", "RELOAD", "STARTED", "CWD"],
            ...sessions.map((s) => [
              // A subagent's session is shown under its parent, indented.
              s.depth > 0 ? `${"  ".repeat(s.depth - 1)}└ ${s.session}` : s.session,
              String(s.ompPid),
              String(s.enginePid ?? "-"),
              short(s.adapterDigest),
              s.installedAdapterDiffers ? `differs (${short(installed)})` : "same",
              s.adapterReloadSupported ? "yes" : "no",
              new Date(s.startedAtMs).toISOString(),
              s.cwd,
            ]),
          ]),
    ];
    for (const s of stale) lines.push(`removed the stale record of session ${s.session}: its OMP process ${s.ompPid} is gone`);
    for (const u of records.unread) lines.push(`cannot read ${u.file}: ${u.error}`);
    process.stdout.write(`${lines.join("\n")}\n`);
  }
  return records.unread.length > 0 ? 1 : 0;
}

type GrantState = { state: "none" } | { state: "unreadable"; error: string } | { state: "granted" | "stale" | "other-key"; grant: Grant };

function grantState(paths: TamaPaths, record: SessionRecord, engine: { releaseId: string | null; catalogChecksum: string | null } | undefined): GrantState {
  const read = readGrant(paths.sessions, record.session);
  if (!read.ok) return read.missing ? { state: "none" } : { state: "unreadable", error: read.error };
  if (read.grant.key !== record.key) return { state: "other-key", grant: read.grant };
  const current = engine !== undefined && read.grant.releaseId === engine.releaseId && read.grant.catalogChecksum === engine.catalogChecksum;
  return { state: current ? "granted" : "stale", grant: read.grant };
}

function engineGeneration(result: ControlStatus): { releaseId: string | null; catalogChecksum: string | null } | undefined {
  const state = result.adapter.engine?.state;
  return state ? { releaseId: state.loadedReleaseId, catalogChecksum: state.catalogChecksum } : undefined;
}

async function status(args: Args): Promise<number> {
  const paths = trustedPaths();
  const record = liveRecord(paths, args.session);
  const response = await ask(record, "status", args.timeoutMs);
  if (response.op !== "status") throw new CliError(`session ${record.session} answered status with ${response.op}`, SESSIONS_EXIT.unreachable);
  const result = response.result;
  const installed = installedAdapterDigest(paths);
  const grant = grantState(paths, record, engineGeneration(result));
  if (args.json) {
    printJson({ ...result, installedAdapterDigest: installed, installedAdapterDiffers: installed !== null && installed !== result.adapterDigest, grant });
    return SESSIONS_EXIT.ok;
  }
  const engine = result.adapter.engine;
  const state = engine?.state;
  const lines = [
    `session   ${result.session} (${result.serving}), cwd ${result.cwd}`,
    `OMP       pid ${result.ompPid}, started ${new Date(result.startedAtMs).toISOString()}`,
    `adapter   ${result.adapterDigest ?? "(no digest)"}${result.adapterReloadSupported ? "" : " (this shell cannot reload it remotely)"}`,
    `installed ${installed ?? "(none)"}${installed !== null && installed !== result.adapterDigest ? " (differs: `tama sessions reload` adopts it)" : ""}`,
    state
      ? `engine    pid ${state.processId}, release ${state.loadedReleaseId ?? "none"}, catalog ${short(state.catalogChecksum)}, ${state.registeredHookCount} hooks, generation ${state.generation}${state.lastReloadError ? `; registry error: ${state.lastReloadError}` : ""}`
      : `engine    ${engine?.error ?? "no status"}`,
    grant.state === "none" || grant.state === "unreadable"
      ? `grant     ${grant.state === "none" ? "none (hooks get no session control; `tama sessions grant` gives it)" : grant.error}`
      : `grant     ${grant.state}: release ${grant.grant.releaseId ?? "none"}, catalog ${short(grant.grant.catalogChecksum)}`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  return SESSIONS_EXIT.ok;
}

async function reload(args: Args): Promise<number> {
  const paths = trustedPaths();
  const record = liveRecord(paths, args.session);
  if (!record.adapterReloadSupported) {
    throw new CliError(`session ${record.session} runs a shell that cannot reload its adapter remotely; use /tama_reload_hook_runtime in it, or restart OMP once`, SESSIONS_EXIT.reloadUnsupported);
  }
  const response = await ask(record, "reload-adapter", args.timeoutMs);
  if (response.op !== "reload-adapter") throw new CliError(`session ${record.session} answered reload-adapter with ${response.op}`, SESSIONS_EXIT.unreachable);
  const receipt: ReloadReceipt = response.result;
  if (args.json) printJson(receipt);
  else {
    const lines = [receipt.message, `session ${receipt.session}, OMP pid ${receipt.ompPid}: adapter ${receipt.adapterDigest ?? "(no digest)"}${receipt.changed ? ` (was ${receipt.previousDigest ?? "(no digest)"})` : ""}`];
    process.stdout.write(`${lines.join("\n")}\n`);
  }
  if (!receipt.ok) {
    process.stderr.write(`tama sessions: the adoption failed and adapter ${receipt.adapterDigest ?? "(no digest)"} keeps running: ${receipt.error ?? receipt.message}\n`);
    return SESSIONS_EXIT.adoptionFailed;
  }
  return SESSIONS_EXIT.ok;
}

/** The operator's consent: bind the session's key to the release and catalog its engine has loaded. */
async function grant(args: Args): Promise<number> {
  const paths = trustedPaths();
  const record = liveRecord(paths, args.session);
  const response = await ask(record, "status", args.timeoutMs);
  if (response.op !== "status") throw new CliError(`session ${record.session} answered status with ${response.op}`, SESSIONS_EXIT.unreachable);
  const loaded = engineGeneration(response.result);
  if (!loaded || loaded.catalogChecksum === null) {
    throw new CliError(`session ${record.session}'s engine has no loaded catalog to bind a grant to`, SESSIONS_EXIT.unreachable);
  }
  const written: Grant = {
    schema: 1,
    session: record.session,
    key: record.key,
    releaseId: loaded.releaseId,
    catalogChecksum: loaded.catalogChecksum,
    grantedAtMs: Date.now(),
    grantedBy: "operator",
  };
  const file = writeGrant(paths.sessions, written);
  if (args.json) printJson({ file, session: written.session, releaseId: written.releaseId, catalogChecksum: written.catalogChecksum, grantedAtMs: written.grantedAtMs });
  else process.stdout.write(`Hooks of session ${record.session} may use its session control under release ${written.releaseId ?? "none"}, catalog ${written.catalogChecksum} (${file}).\n`);
  return SESSIONS_EXIT.ok;
}

function revoke(args: Args): number {
  const paths = trustedPaths();
  const record = liveRecord(paths, args.session);
  const file = grantPath(paths.sessions, record.session);
  const existed = existsSync(file);
  rmSync(file, { force: true });
  if (args.json) printJson({ file, session: record.session, revoked: existed });
  else process.stdout.write(existed ? `Revoked the session control grant of session ${record.session}.\n` : `Session ${record.session} held no grant.\n`);
  return SESSIONS_EXIT.ok;
}
