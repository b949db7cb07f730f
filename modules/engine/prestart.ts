// Pre-started hooks: a command hook's interpreter takes most of its cost (python3
// ~15 ms, node ~50 ms before the script reads a byte), and it can start while the
// model is still thinking. After a session's event ran a pre-start hook, one process
// of that hook is spawned for the session's next such event — same argv, cwd and
// environment the event will give it, its own process group — and waits on stdin.
// The next event feeds it (hook-process.ts) if nothing about it would differ, and
// starts it cold otherwise.
//
// When: the model's thinking is the time nobody waits on the machine, so not at once
// after the event (the tool it let through and the rest of the turn still run), but
// once the session's model is asked again (its next before_provider_request, or the
// tool's result just before it); then one at a time, each once the harness's process is
// quiet (OMP waiting on the model, not working through its answer) and the process
// started before it has settled (asleep on its stdin): process-settle.ts reads both. So
// interpreters starting never take a small machine's cores from the session's own work.
//
// Which hooks: those the registry marks `prestart: true`
// (a script that does work before it reads stdin would see the state from before the
// event, which only its author can rule out), or every command hook under
// TAMA_PRESTART=all; TAMA_PRESTART=off turns it off.
import { readFileSync } from "node:fs";
import type { HookEntry } from "../registry/registry.ts";
import type { Logger } from "../system/log.ts";
import { HOOK_RUN_VARIABLE, processStartTicks } from "../system/process-groups.ts";
import { treeStopped, whenSettled } from "../system/process-settle.ts";
import { readEnvText } from "../system/paths.ts";
import { CAPABILITY_KEY_ENV, CAPABILITY_SOCKET_ENV } from "../session-control/grants.ts";
import { spawnHookProcess, type SpawnedHook, type SpawnRequest } from "./hook-process.ts";
import { round } from "./dispatch-run.ts";
import type { RecordedHook } from "./running-records.ts";

export type PrestartMode = "opt-in" | "all" | "off";

export interface PrestartSettings {
  mode: PrestartMode;
  /** Processes kept waiting per session, and in all. */
  perSession: number;
  total: number;
  /** A process unused this long is ended. */
  idleMs: number;
}

export const DEFAULT_PRESTART: PrestartSettings = { mode: "opt-in", perSession: 16, total: 64, idleMs: 10 * 60_000 };

function positiveInt(name: string, env: NodeJS.ProcessEnv, fallback: number): number {
  const text = readEnvText(name, env)?.trim();
  if (text === undefined || text.length === 0) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number ≥ 0, not ${JSON.stringify(text)}`);
  return value;
}

/** TAMA_PRESTART (opt-in | all | off), TAMA_PRESTART_PER_SESSION, TAMA_PRESTART_TOTAL, TAMA_PRESTART_IDLE_MS. */
export function prestartSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): PrestartSettings {
  const mode = readEnvText("TAMA_PRESTART", env)?.trim() || "opt-in";
  if (mode !== "opt-in" && mode !== "all" && mode !== "off") throw new Error(`TAMA_PRESTART must be opt-in, all or off, not ${JSON.stringify(mode)}`);
  return {
    mode,
    perSession: positiveInt("TAMA_PRESTART_PER_SESSION", env, DEFAULT_PRESTART.perSession),
    total: positiveInt("TAMA_PRESTART_TOTAL", env, DEFAULT_PRESTART.total),
    idleMs: Math.max(1, positiveInt("TAMA_PRESTART_IDLE_MS", env, DEFAULT_PRESTART.idleMs)),
  };
}

/** What a process must match to be fed an event: everything the event would give it. */
export interface PrestartIdentity {
  session: string;
  event: string;
  hook: string;
  generation: number;
  cwd: string;
  argv: string[];
  env: NodeJS.ProcessEnv;
}

/** Variables compared apart (trust) or not at all (this run's mark). */
const NOT_COMPARED = new Set([HOOK_RUN_VARIABLE, CAPABILITY_SOCKET_ENV, CAPABILITY_KEY_ENV]);

/**
 * The same environment, this run's mark and the session-control capability aside: each
 * set variable of one has the same value in the other, and they set as many. A walk of
 * both on the event's path, where sorting and joining a hundred variables twice a hook
 * cost more than feeding it.
 */
export function sameEnv(a: NodeJS.ProcessEnv, b: NodeJS.ProcessEnv): boolean {
  let count = 0;
  for (const key in a) {
    const value = a[key];
    if (value === undefined || NOT_COMPARED.has(key)) continue;
    if (b[key] !== value) return false;
    count += 1;
  }
  for (const key in b) if (b[key] !== undefined && !NOT_COMPARED.has(key)) count -= 1;
  return count === 0;
}
const trustKey = (env: NodeJS.ProcessEnv): string => `${env[CAPABILITY_SOCKET_ENV] ?? ""}\u0000${env[CAPABILITY_KEY_ENV] ?? ""}`;

/** Why a waiting process may not be fed this event, or undefined when it may. */
function difference(held: PrestartIdentity, wanted: PrestartIdentity): string | undefined {
  if (held.generation !== wanted.generation) return "the hook registry changed";
  if (held.cwd !== wanted.cwd) return "the event's cwd differs";
  if (JSON.stringify(held.argv) !== JSON.stringify(wanted.argv)) return "the hook's command differs";
  if (trustKey(held.env) !== trustKey(wanted.env)) return "the session's trust (session-control capability) differs";
  if (!sameEnv(held.env, wanted.env)) return "the environment differs";
  return undefined;
}

interface Held {
  identity: PrestartIdentity;
  spawned: SpawnedHook;
  startedAt: number;
  startTicks?: number;
  idle: NodeJS.Timeout;
}

/** A process offered for a slot and not started yet: it waits for its session's model to be asked, then for the one starting before it. */
interface Offer {
  slot: string;
  identity: PrestartIdentity;
  request: SpawnRequest;
  released: boolean;
  /** An offer never released (its session went quiet) is dropped after the idle bound, like a waiting process. */
  expiry: NodeJS.Timeout;
}

/** What a hook run gets from the pool: a process to feed, or why it starts cold (undefined: none was held). */
export type Taken = { spawned: SpawnedHook } | { note: string } | undefined;

const slotOf = (session: string, event: string, hook: string): string => `${session}\u0000${event}\u0000${hook}`;

/** A waiting process, as status and the records show it. */
export interface PrestartedView {
  session: string;
  event: string;
  hook: string;
  processGroup: number | null;
  waitingForMs: number;
  rssKb: number | null;
}

function rssKb(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const pages = Number(readFileSync(`/proc/${pid}/statm`, "utf8").split(" ")[1]);
    return Number.isFinite(pages) ? pages * 4 : null;
  } catch {
    return null;
  }
}

export class PrestartPool {
  private readonly held = new Map<string, Held>();
  /** Offered, not started yet, in the order offered. */
  private readonly queue: Offer[] = [];
  /** The process started last, until it settles: the next one waits for it. */
  private starting: { held: Held; stopLooking: () => void } | undefined;
  /** Looking for the harness's process to be quiet before the next start. */
  private awaitingQuiet: (() => void) | undefined;
  /** Slots whose process ended on its own before its event: it does not wait for its input, so it is not pre-started again. */
  private readonly declined = new Set<string>();
  /** Slots whose process ended before its event, with how: the next run there says so in its record. */
  private readonly endedEarly = new Map<string, string>();
  private readonly endedSessions = new Set<string>();
  private generation: number | undefined;
  private closed = false;

  constructor(
    readonly settings: PrestartSettings,
    private readonly changed: () => void,
    private readonly logger: Logger,
    /** The harness's process (OMP's, the engine's parent): a start waits for it to be quiet. */
    private readonly harnessPid?: number,
  ) {}

  /** Whether a hook is one to pre-start. */
  wants(hook: HookEntry): boolean {
    if (this.settings.mode === "off" || hook.command === undefined) return false;
    return this.settings.mode === "all" || hook.prestart === true;
  }

  /** The waiting process for this event's run of a hook, if one may be fed; any other held for the slot is ended. */
  take(identity: PrestartIdentity): Taken {
    const slot = slotOf(identity.session, identity.event, identity.hook);
    const held = this.held.get(slot);
    if (!held) {
      const queued = this.queue.findIndex((offer) => offer.slot === slot);
      if (queued >= 0) {
        clearTimeout(this.queue[queued]?.expiry);
        this.queue.splice(queued, 1);
        return { note: "the pre-started process had not started yet (they start while the model is asked, one at a time); started cold" };
      }
      const early = this.endedEarly.get(slot);
      this.endedEarly.delete(slot);
      return early === undefined ? undefined : { note: `the pre-started process ${early} before its event; started cold` };
    }
    // Taken by its event: the next offer starts once that event answered (offer() resumes), not beside its hooks.
    this.drop(slot, held, false);
    if (held.spawned.endedBeforeFeed !== undefined) return { note: `the pre-started process ${held.spawned.endedBeforeFeed} before its event; started cold` };
    if (held.spawned.pgid !== undefined && treeStopped(held.spawned.pgid)) {
      held.spawned.discard();
      this.logger.info({ session: identity.session, event: identity.event, hook: identity.hook, note: "stopped" }, "pre-started hook discarded");
      return { note: "the pre-started process was stopped (a signal) before its event; ended unused, started cold" };
    }
    const why = difference(held.identity, identity);
    if (why !== undefined) {
      held.spawned.discard();
      this.logger.info({ session: identity.session, event: identity.event, hook: identity.hook, note: why }, "pre-started hook discarded");
      return { note: `the pre-started process was ended unused: ${why}; started cold` };
    }
    return { spawned: held.spawned };
  }

  /** How many times each session's model was asked (release): an offer made after its dispatch answered knows whether it was asked since. */
  private readonly releases = new Map<string, number>();

  /** The count `offer` compares against, read as a dispatch answers. */
  releasesOf(session: string): number {
    return this.releases.get(session) ?? 0;
  }

  /**
   * Offer a hook's process for the session's next such event, within the bounds: it starts
   * once released (release) and its turn comes. `releasesAtAnswer`: the session's count
   * as its dispatch answered; the offer is made just after the answer is written, and a
   * model request that came in between releases it.
   */
  offer(identity: PrestartIdentity, request: SpawnRequest, releasesAtAnswer: number): void {
    this.enqueue(identity, request, this.releasesOf(identity.session) > releasesAtAnswer);
    // Called as each dispatch answers: this offer, and those left waiting behind a process taken meanwhile, go on.
    this.startSoon();
  }

  private enqueue(identity: PrestartIdentity, request: SpawnRequest, askedSince: boolean): void {
    const slot = slotOf(identity.session, identity.event, identity.hook);
    if (this.closed) return;
    if (this.held.has(slot) || this.queue.some((offer) => offer.slot === slot)) return;
    if (this.declined.has(slot) || this.endedSessions.has(identity.session)) return;
    if (identity.generation !== this.generation) return;
    if (this.held.size + this.queue.length >= this.settings.total) return;
    let inSession = 0;
    for (const held of this.held.values()) if (held.identity.session === identity.session) inSession += 1;
    for (const offer of this.queue) if (offer.identity.session === identity.session) inSession += 1;
    if (inSession >= this.settings.perSession) return;
    const expiry = setTimeout(() => {
      this.forgetOffers((queued) => queued === offer);
      this.logger.info({ session: identity.session, event: identity.event, hook: identity.hook, note: `not started within ${this.settings.idleMs} ms` }, "pre-start offer dropped");
    }, this.settings.idleMs);
    expiry.unref();
    // A hook of the model request itself was offered just as that request went out: the model thinks now.
    const offer: Offer = { slot, identity, request, released: askedSince || identity.event === "before_provider_request", expiry };
    this.queue.push(offer);
  }

  /** The session's model is asked (or a tool's result, just before it, came): its offers may start now. */
  release(session: string): void {
    this.releases.set(session, this.releasesOf(session) + 1);
    // Sessions that never say they ended are let go of, oldest first, as endedSessions are.
    if (this.releases.size > 10_000) this.releases.delete(this.releases.keys().next().value ?? "");
    for (const offer of this.queue) if (offer.identity.session === session) offer.released = true;
    this.startSoon();
  }

  /** Spawns wait for the turn of the event loop after: neither an answer nor a dispatch ever waits on one. */
  private startSoon(): void {
    // Most dispatches have nothing to start: they schedule nothing either.
    if (this.starting !== undefined || this.awaitingQuiet !== undefined || !this.queue.some((offer) => offer.released)) return;
    setImmediate(() => this.startNext());
  }

  /** Start the oldest released offer once the harness is quiet, unless a process is still starting. */
  private startNext(): void {
    if (this.starting !== undefined || this.awaitingQuiet !== undefined || this.closed) return;
    if (!this.queue.some((offer) => offer.released)) return;
    if (this.harnessPid === undefined) return this.spawnNext();
    this.awaitingQuiet = whenSettled(
      this.harnessPid,
      () => {
        this.awaitingQuiet = undefined;
        this.spawnNext();
      },
      true,
    );
  }

  private spawnNext(): void {
    if (this.starting !== undefined || this.closed) return;
    const next = this.queue.findIndex((offer) => offer.released);
    if (next < 0) return;
    const [offer] = this.queue.splice(next, 1) as [Offer];
    clearTimeout(offer.expiry);
    const { slot, identity, request } = offer;
    const spawned = spawnHookProcess(request);
    const idle = setTimeout(() => this.discard(slot, `unused for ${this.settings.idleMs} ms`), this.settings.idleMs);
    idle.unref();
    const held: Held = { identity, spawned, startedAt: performance.now(), idle };
    this.held.set(slot, held);
    if (spawned.pgid !== undefined) {
      const starting = { held, stopLooking: () => {} };
      this.starting = starting;
      starting.stopLooking = whenSettled(spawned.pgid, () => {
        if (this.starting !== starting) return;
        this.starting = undefined;
        this.startNext();
      });
    }
    spawned.onEndedBeforeFeed((why) => {
      // Ended by the pool itself (discarded, taken): nothing to learn.
      if (this.held.get(slot) !== held) return;
      this.drop(slot, held);
      this.endedEarly.set(slot, why);
      if (this.endedEarly.size > 1000) this.endedEarly.delete(this.endedEarly.keys().next().value ?? "");
      // Exited on its own: it does not wait for its input, so pre-starting it only wastes a start. Killed: try again.
      const exited = why.startsWith("exited");
      if (exited) this.declined.add(slot);
      this.logger.info({ session: identity.session, event: identity.event, hook: identity.hook, note: exited ? `${why}; not pre-started again` : why }, "pre-started hook ended before its event");
    });
    this.changed();
    // It could not start at all: the next offer need not wait for it.
    if (spawned.pgid === undefined) this.startNext();
  }

  /** Offers not started yet that `drop` says to forget. */
  private forgetOffers(drop: (offer: Offer) => boolean): void {
    for (let i = this.queue.length - 1; i >= 0; i--) {
      const offer = this.queue[i] as Offer;
      if (!drop(offer)) continue;
      clearTimeout(offer.expiry);
      this.queue.splice(i, 1);
    }
  }

  /** This event of the session runs only `hooks`: a process waiting for it of any other hook is ended. */
  keepOnly(session: string, event: string, hooks: readonly HookEntry[]): void {
    const runs = (hookId: string) => hooks.some((hook) => hook.id === hookId && this.wants(hook));
    this.forgetOffers((offer) => offer.identity.session === session && offer.identity.event === event && !runs(offer.identity.hook));
    for (const [slot, held] of this.held) {
      if (held.identity.session !== session || held.identity.event !== event) continue;
      if (!runs(held.identity.hook)) this.discard(slot, "the event no longer runs this hook");
    }
  }

  /** The registry loaded another generation: every process of an older one is ended. */
  adopt(generation: number): void {
    if (this.generation === generation || this.closed) return;
    this.generation = generation;
    this.forgetOffers((offer) => offer.identity.generation !== generation);
    for (const [slot, held] of this.held) if (held.identity.generation !== generation) this.discard(slot, "the hook registry changed");
    // A changed registry may have changed a declined hook.
    this.declined.clear();
  }

  /** The session ended: its processes are ended, and none is started for it again. */
  endSession(session: string): void {
    this.endedSessions.add(session);
    this.releases.delete(session);
    if (this.endedSessions.size > 10_000) this.endedSessions.delete(this.endedSessions.values().next().value ?? "");
    this.forgetOffers((offer) => offer.identity.session === session);
    for (const [slot, held] of this.held) if (held.identity.session === session) this.discard(slot, "the session ended");
    for (const slot of this.endedEarly.keys()) if (slot.startsWith(`${session}\u0000`)) this.endedEarly.delete(slot);
  }

  /** The engine is closing: every waiting process is ended. */
  closeAll(): void {
    // A dispatch still running may adopt a generation or offer after this: nothing starts any more.
    this.closed = true;
    this.awaitingQuiet?.();
    this.awaitingQuiet = undefined;
    this.endedSessions.clear();
    this.generation = Number.NaN;
    this.forgetOffers(() => true);
    for (const [slot] of this.held) this.discard(slot, "the engine is closing");
  }

  list(): PrestartedView[] {
    const now = performance.now();
    return [...this.held.values()].map((held) => ({
      session: held.identity.session,
      event: held.identity.event,
      hook: held.identity.hook,
      processGroup: held.spawned.pgid ?? null,
      waitingForMs: round(now - held.startedAt),
      rssKb: rssKb(held.spawned.pgid),
    }));
  }

  bounds(): { mode: PrestartMode; perSession: number; total: number; held: number; queued: number; rssKb: number } {
    const rss = this.list().reduce((sum, view) => sum + (view.rssKb ?? 0), 0);
    return { mode: this.settings.mode, perSession: this.settings.perSession, total: this.settings.total, held: this.held.size, queued: this.queue.length, rssKb: rss };
  }

  /** The waiting processes, for the engine's record (so that they are named and reaped like running hooks). */
  recorded(): RecordedHook[] {
    return [...this.held.values()].map((held) => {
      const pgid = held.spawned.pgid ?? null;
      if (held.startTicks === undefined && pgid !== null) held.startTicks = processStartTicks(pgid);
      return {
        session: held.identity.session,
        event: held.identity.event,
        hook: held.identity.hook,
        processGroup: pgid,
        startedAtMs: Date.now() - Math.round(performance.now() - held.startedAt),
        ...(held.startTicks !== undefined ? { startTicks: held.startTicks } : {}),
        prestarted: true,
      };
    });
  }

  /** `resume`: start the next offer now if this one was still starting (not when its event took it: see take). */
  private drop(slot: string, held: Held, resume = true): void {
    clearTimeout(held.idle);
    this.held.delete(slot);
    this.changed();
    if (this.starting?.held === held) {
      this.starting.stopLooking();
      this.starting = undefined;
      if (resume) this.startSoon();
    }
  }

  private discard(slot: string, why: string): void {
    const held = this.held.get(slot);
    if (!held) return;
    this.drop(slot, held);
    held.spawned.discard();
    this.logger.info({ session: held.identity.session, event: held.identity.event, hook: held.identity.hook, note: why }, "pre-started hook ended unused");
  }
}
