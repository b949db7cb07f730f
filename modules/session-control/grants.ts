// The operator's consent that a session's hooks may use session control. A grant
// ($TAMA_HOME/sessions/grant.<session>.json) binds the session control key to one
// release and catalog checksum: the engine hands a hook the capability only when all
// three match the policy it loaded, and the adapter carries a grant forward when it
// loads another release, never a grant written for some other generation.
import { trustProblem } from "../system/strict-modes.ts";
import type { Logger } from "../system/log.ts";
import type { TamaPaths } from "../system/paths.ts";
import * as z from "../protocol/schema.ts";
import { describeSchemaError } from "../protocol/schema.ts";
import { ControlKey, Sha256 } from "../protocol/session-control.ts";
import { grantPath, readRecordFile, recordPath, sessionsDirProblem, writePrivateJson, type LoadedGeneration } from "./records.ts";
import { readRegularFile } from "../system/regular-file.ts";

export const GRANT_SCHEMA_VERSION = 1;
/** The socket a hook may use, and the key that opens it. */
export const CAPABILITY_SOCKET_ENV = "TAMA_SESSION_CONTROL";
export const CAPABILITY_KEY_ENV = "TAMA_SESSION_CONTROL_KEY";

export const Grant = z.strictObject({
  schema: z.literal(GRANT_SCHEMA_VERSION),
  session: z.string().check(z.minLength(1)),
  key: ControlKey,
  releaseId: z.nullable(z.string()),
  catalogChecksum: Sha256,
  grantedAtMs: z.number(),
  grantedBy: z.enum(["operator", "rebind"]),
  /** The generation a rebinding carried this grant forward from. */
  reboundFrom: z.optional(z.strictObject({ releaseId: z.nullable(z.string()), catalogChecksum: Sha256 })),
});
export type Grant = z.infer<typeof Grant>;

export type GrantRead = { ok: true; grant: Grant } | { ok: false; missing: boolean; error: string };

export function readGrant(sessionsDir: string, session: string): GrantRead {
  const file = grantPath(sessionsDir, session);
  let raw: unknown;
  try {
    raw = JSON.parse(readRegularFile(file));
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
    return { ok: false, missing, error: `reading grant ${file}: ${(error as Error).message}` };
  }
  // Consent someone else could have written is no consent.
  const untrusted = trustProblem(file);
  if (untrusted !== undefined) return { ok: false, missing: false, error: `grant ${file} is not trusted: ${untrusted}` };
  const parsed = Grant.safeParse(raw);
  if (!parsed.success) return { ok: false, missing: false, error: `grant ${file}: ${describeSchemaError(parsed.error, "the grant")}` };
  if (parsed.data.session !== session) return { ok: false, missing: false, error: `grant ${file} names session ${parsed.data.session}, not ${session}` };
  return { ok: true, grant: parsed.data };
}

export function writeGrant(sessionsDir: string, grant: Grant): string {
  const file = grantPath(sessionsDir, grant.session);
  writePrivateJson(file, grant);
  return file;
}

const sameGeneration = (grant: Grant, generation: LoadedGeneration): boolean =>
  grant.releaseId === generation.releaseId && grant.catalogChecksum === generation.catalogChecksum;

export type RebindOutcome = "rebound" | "current" | "no-grant" | "not-ours" | "same-release" | "other-generation";

/**
 * The adapter saw its session's engine go from `previous` to `next`. When that is
 * another release and the session holds a grant for exactly `previous` under its own
 * key, the grant is carried to `next`: the operator's consent survives an install or
 * a reload. A grant for any other generation, or a change within one release (a
 * hand-edited catalog), is left alone and authorizes nothing new.
 */
export function rebindGrant(sessionsDir: string, session: string, key: string, previous: LoadedGeneration, next: LoadedGeneration): RebindOutcome {
  const read = readGrant(sessionsDir, session);
  if (!read.ok) return "no-grant";
  const grant = read.grant;
  if (grant.key !== key) return "not-ours";
  if (sameGeneration(grant, next)) return "current";
  if (!sameGeneration(grant, previous)) return "other-generation";
  if (next.releaseId === previous.releaseId || next.catalogChecksum === null) return "same-release";
  writeGrant(sessionsDir, {
    ...grant,
    releaseId: next.releaseId,
    catalogChecksum: next.catalogChecksum,
    grantedBy: "rebind",
    reboundFrom: { releaseId: grant.releaseId, catalogChecksum: grant.catalogChecksum },
  });
  return "rebound";
}

export interface Capability {
  socket: string;
  key: string;
}

/**
 * The engine's side: for each dispatch, read the session's grant and record and
 * decide whether its hooks get the capability. Read per event, so a grant given,
 * rebound or revoked counts from the next event on.
 */
export class SessionGrants {
  private readonly byRun = new WeakMap<object, Capability>();
  /** The last decision logged per session, so a log line marks a change, not every event. */
  private readonly lastNote = new Map<string, string>();

  constructor(
    private readonly paths: TamaPaths,
    private readonly logger: Logger,
  ) {}

  /** Decide for one dispatch (its session and the generation it runs under). */
  read(run: object, session: string | null, generation: { releaseId: string | null; checksum: string }): void {
    if (session === null) return;
    const decision = this.decide(session, generation);
    if ("capability" in decision) this.byRun.set(run, decision.capability);
    if (this.lastNote.get(session) !== decision.note) {
      this.lastNote.set(session, decision.note);
      if (this.lastNote.size > 1000) this.lastNote.delete(this.lastNote.keys().next().value ?? "");
      this.logger.info({ session, release: generation.releaseId, checksum: generation.checksum, note: decision.note }, "session control capability");
    }
  }

  private decide(session: string, generation: { releaseId: string | null; checksum: string }): { capability: Capability; note: string } | { note: string } {
    const grant = readGrant(this.paths.sessions, session);
    if (!grant.ok) return { note: grant.missing ? "no grant" : "grant unreadable" };
    const problem = sessionsDirProblem(this.paths.home, this.paths.sessions, false);
    if (problem !== undefined) return { note: "sessions directory is not private" };
    const record = readRecordFile(recordPath(this.paths.sessions, session));
    if (!record.ok) return { note: "grant without a session record" };
    if (record.record.session !== session || grant.grant.key !== record.record.key) return { note: "grant key is not the session's" };
    if (!sameGeneration(grant.grant, { releaseId: generation.releaseId, catalogChecksum: generation.checksum })) {
      return { note: "grant is for another generation" };
    }
    return { capability: { socket: record.record.socket, key: record.record.key }, note: "granted" };
  }

  /** A hook's environment with the capability set, or taken out (never inherited). */
  applyTo(run: object, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
    const capability = this.byRun.get(run);
    delete env[CAPABILITY_SOCKET_ENV];
    delete env[CAPABILITY_KEY_ENV];
    if (capability) {
      env[CAPABILITY_SOCKET_ENV] = capability.socket;
      env[CAPABILITY_KEY_ENV] = capability.key;
    }
    return env;
  }
}
