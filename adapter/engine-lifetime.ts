// The engine's lifetime as one adapter generation sees it. Every session of one OMP
// process — its subagents' sessions too (OMP's `task` runs them in process, each
// with its own extension runner) — shares ONE engine: a process-wide store holds
// the client and who leases it, and the engine's input is closed when the last
// lease is given back. A generation hands its lease to the next across an adoption
// in place (host.carry), revives one after a failed adoption restored it, and
// gives it back at its session's shutdown.
import path from "node:path";
import type { AdapterHost } from "../modules/omp/adapter-contract.ts";
import { ENGINE_CLIENT_CARRY_VERSION, EngineClient } from "../modules/engine/client.ts";
import type { EngineState } from "../modules/protocol/engine.ts";

/** The engine argv: TAMA_ENGINE_COMMAND (a JSON array) for tests, else the installed release. */
export function engineCommand(home: string): string[] {
  const override = process.env.TAMA_ENGINE_COMMAND;
  if (override) {
    const parsed: unknown = JSON.parse(override);
    if (!Array.isArray(parsed) || parsed.length === 0 || !parsed.every((part) => typeof part === "string")) {
      throw new Error("TAMA_ENGINE_COMMAND must be a JSON array of strings");
    }
    return parsed as string[];
  }
  const release = path.join(home, "hooks-runtime", "current", "bin");
  // Inside OMP the adapter runs on Bun, whose spawn does not copy the parent's page
  // tables the way Node's fork does: the engine spawns hooks faster and starts faster
  // there (see the benchmark). TAMA_ENGINE_RUNTIME=node keeps the release's Node.
  const runtime = process.env.TAMA_ENGINE_RUNTIME;
  if (runtime !== undefined && runtime !== "" && runtime !== "node" && runtime !== "bun") {
    throw new Error(`TAMA_ENGINE_RUNTIME must be "bun" or "node", not ${JSON.stringify(runtime)}`);
  }
  if (process.versions.bun !== undefined && runtime !== "node") {
    return [process.execPath, path.join(release, "tama.js"), "run-hook", "--serve", "omp"];
  }
  return [path.join(release, "tama"), "run-hook", "--serve", "omp"];
}

/** Where an adapter generation hands its lease to the next. */
const LEASE_CARRY_KEY = "tama.engine-lease";
/** Where generations older than the shared engine handed their own client on. */
const CLIENT_CARRY_KEY = "tama.engine-client";

export interface EngineEvents {
  onStderr(line: string): void;
  onStart(state: EngineState, restart: boolean): void;
  /** The session the lease serves: the engine's stderr lines that name it go to it. */
  session?(): string | undefined;
}

/** One session's hold on the process's engine; given back once. */
export interface EngineLease {
  readonly leaseVersion: 1;
  readonly client: EngineClient;
  /** The next adapter generation of the same session takes the engine's events. */
  rebind(events: EngineEvents): void;
  /** Give the lease back; the last one closes the engine (EngineClient.close's arguments). */
  release(...args: Parameters<EngineClient["close"]>): Promise<void>;
}

interface SharedEngine {
  client: EngineClient;
  /** One entry per lease, oldest first (a Set keeps insertion order). */
  holders: Set<{ events: EngineEvents }>;
}

/**
 * Process-wide, not module-level: a reloaded adapter is another module instance, and
 * a session's subagents may run another adapter generation than it does. Versioned
 * with the client, so builds that cannot drive each other's clients never share one.
 */
const SHARED = Symbol.for(`tama.omp.shared-engine.v${ENGINE_CLIENT_CARRY_VERSION}`);

function sharedStore(): { current?: SharedEngine } {
  const holder = globalThis as unknown as Record<symbol, { current?: SharedEngine } | undefined>;
  return (holder[SHARED] ??= {});
}

/** The engine's events, fanned out to every lease of the process. */
function fanOut(shared: () => SharedEngine | undefined): Pick<EngineEvents, "onStderr" | "onStart"> {
  return {
    onStart: (state, restart) => {
      // Every session rebinds its grant and redraws its footer from the new engine's state.
      for (const holder of shared()?.holders ?? []) holder.events.onStart(state, restart);
    },
    onStderr: (line) => {
      const holders = [...(shared()?.holders ?? [])];
      // A line naming sessions goes to those sessions; any other to the oldest (the parent).
      const named = holders.filter((holder) => {
        const session = holder.events.session?.();
        return session !== undefined && session.length > 0 && line.includes(session);
      });
      for (const holder of named.length > 0 ? named : holders.slice(0, 1)) holder.events.onStderr(line);
    },
  };
}

/** A lease on the process's engine, starting the engine's client when none is shared yet. */
function acquire(events: EngineEvents, home: string, adopt?: EngineClient): EngineLease {
  const store = sharedStore();
  if (!store.current) {
    const callbacks = fanOut(() => store.current);
    const command = () => engineCommand(home);
    let client: EngineClient;
    if (adopt) {
      adopt.rebind({ ...callbacks, command });
      client = adopt;
    } else {
      client = new EngineClient({ command, ...callbacks });
    }
    store.current = { client, holders: new Set() };
  } else if (adopt && adopt !== store.current.client) {
    // Another session shares an engine already: the handed-over one drains and ends.
    void adopt.close(false);
  }
  const shared = store.current;
  const holder = { events };
  shared.holders.add(holder);
  let released = false;
  return {
    leaseVersion: 1,
    client: shared.client,
    rebind: (next) => {
      holder.events = next;
    },
    release: (...args) => {
      if (released) return Promise.resolve();
      released = true;
      shared.holders.delete(holder);
      if (shared.holders.size > 0) return Promise.resolve();
      if (store.current === shared) store.current = undefined;
      return shared.client.close(...args);
    },
  };
}

export class EngineLifetime {
  private lease: EngineLease;
  private closed = false;

  constructor(
    private readonly host: AdapterHost,
    private readonly home: string,
    private readonly events: EngineEvents,
  ) {
    this.lease = this.carried() ?? acquire(this.events, this.home);
  }

  /** The client in use (the process's shared one). */
  get client(): EngineClient {
    return this.lease.client;
  }

  /** How many sessions of this process hold the engine now. */
  static sharedBy(): number {
    return sharedStore().current?.holders.size ?? 0;
  }

  /**
   * What the previous adapter generation handed over: its lease, or (a generation
   * older than the shared engine) its own client, which becomes the shared one when
   * none is shared yet. Anything this build cannot drive is drained and closed.
   */
  private carried(): EngineLease | undefined {
    const lease = this.host.carry?.get(LEASE_CARRY_KEY) as Partial<EngineLease> | undefined;
    if (lease !== undefined) {
      this.host.carry?.delete(LEASE_CARRY_KEY);
      if (lease.leaseVersion === 1 && typeof lease.rebind === "function" && typeof lease.client === "object" && lease.client !== null && lease.client.carryVersion === ENGINE_CLIENT_CARRY_VERSION) {
        lease.rebind(this.events);
        return lease as EngineLease;
      }
      void lease.release?.(false);
    }
    const carried = this.host.carry?.get(CLIENT_CARRY_KEY);
    if (carried === undefined) return undefined;
    this.host.carry?.delete(CLIENT_CARRY_KEY);
    const client = carried as Partial<EngineClient>;
    if (client.carryVersion !== ENGINE_CLIENT_CARRY_VERSION || typeof client.rebind !== "function") {
      void (carried as { close?: (wait: boolean) => Promise<void> }).close?.(false);
      return undefined;
    }
    return acquire(this.events, this.home, carried as EngineClient);
  }

  /** An adoption in place: the next generation takes this lease over (the engine keeps running). */
  handOver(): boolean {
    if (!this.host.carry || this.closed) return false;
    this.closed = true;
    this.host.carry.set(LEASE_CARRY_KEY, this.lease);
    return true;
  }

  /** The session shut down: give the lease back (the last one closes the engine with these arguments). */
  close(...args: Parameters<EngineClient["close"]>): Promise<void> {
    this.closed = true;
    return this.lease.release(...args);
  }

  /** session_start after a shutdown (a failed adoption restored this adapter): a lease again. */
  revive(): void {
    if (!this.closed) return;
    this.closed = false;
    this.lease = this.carried() ?? acquire(this.events, this.home);
  }
}
