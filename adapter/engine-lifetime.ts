// The engine's lifetime as one adapter generation sees it: which command starts it,
// taking over the client the previous generation handed on (host.carry), handing it
// to the next one, reviving it after a failed adoption restored this adapter, and
// closing it at OMP's own shutdown.
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

/** Where an adapter hands its engine client to the next generation. */
const ENGINE_CARRY_KEY = "tama.engine-client";

export interface EngineEvents {
  onStderr(line: string): void;
  onStart(state: EngineState, restart: boolean): void;
}

export class EngineLifetime {
  private current: EngineClient;
  private closed = false;

  constructor(
    private readonly host: AdapterHost,
    private readonly home: string,
    private readonly events: EngineEvents,
  ) {
    this.current = this.carried() ?? this.started();
  }

  /** The client in use; replaced only when a closed one is revived. */
  get client(): EngineClient {
    return this.current;
  }

  private started(): EngineClient {
    return new EngineClient({ command: () => engineCommand(this.home), ...this.callbacks() });
  }

  private callbacks(): EngineEvents {
    return { onStderr: (line) => this.events.onStderr(line), onStart: (state, restart) => this.events.onStart(state, restart) };
  }

  /**
   * The engine client the previous adapter generation handed over, when this build
   * can drive it; one it cannot is drained and closed.
   */
  private carried(): EngineClient | undefined {
    const carried = this.host.carry?.get(ENGINE_CARRY_KEY);
    if (carried === undefined) return undefined;
    this.host.carry?.delete(ENGINE_CARRY_KEY);
    const client = carried as Partial<EngineClient>;
    if (client.carryVersion !== ENGINE_CLIENT_CARRY_VERSION || typeof client.rebind !== "function") {
      void (carried as { close?: (wait: boolean) => Promise<void> }).close?.(false);
      return undefined;
    }
    client.rebind({ ...this.callbacks(), command: () => engineCommand(this.home) });
    return carried as EngineClient;
  }

  /** An adoption in place: the next generation takes this engine over (it keeps running). */
  handOver(): boolean {
    if (!this.host.carry || this.closed) return false;
    this.closed = true;
    this.host.carry.set(ENGINE_CARRY_KEY, this.current);
    return true;
  }

  /** Stop using the engine (session_shutdown); the arguments are EngineClient.close's. */
  close(...args: Parameters<EngineClient["close"]>): Promise<void> {
    this.closed = true;
    return this.current.close(...args);
  }

  /** session_start after a shutdown (a failed adoption restored this adapter): a client again. */
  revive(): void {
    if (!this.closed) return;
    this.closed = false;
    this.current = this.carried() ?? this.started();
  }
}
