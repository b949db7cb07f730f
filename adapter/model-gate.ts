// before_provider_request, decided at once: from the newest verdict the session's
// model-request gates gave, while at most one background dispatch per session
// refreshes it. OMP sends the original payload when a handler outlasts its budget,
// so waiting here would let prose through exactly when the gates are slow.
// Then the installed contracts are spliced in place of the block the payload carries.
import os from "node:os";
import { contractsPathOptionsFromEnv, InstalledContractsReader, spliceContracts, unreadableContractsMessage } from "../modules/model-requests/contracts.ts";
import { decidedInPlace, decideRequest, type RequestVerdict } from "../modules/model-requests/payload.ts";
import type { OmpContext } from "../modules/omp/api.ts";
import { ENDED_BY_HARNESS, type AdapterRuntime } from "./runtime.ts";
import { openTodosField } from "./session-todos.ts";

interface SessionVerdict {
  verdict: RequestVerdict;
  reason?: string;
  /** Gates that failed open on the newest dispatch: it was no passing verdict. */
  failedOpen: { hook: string; reason: string }[];
  /** Why the newest refresh gave no verdict at all. */
  failure?: string;
  atMs?: number;
}

export class ModelGate {
  private readonly verdicts = new Map<string, SessionVerdict>();
  private readonly refreshing = new Set<string>();
  private readonly saidOnce = new Set<string>();
  private readonly contracts = new InstalledContractsReader();
  /** Refresh dispatches started (never two at once per session: see `refreshing`). */
  dispatches = 0;

  constructor(private readonly runtime: AdapterRuntime) {}

  /** Synchronous on purpose: nothing here waits on the engine. */
  onRequest(payload: unknown, ctx: OmpContext): unknown {
    const session = this.runtime.sessionId(ctx) ?? "";
    const spliced = this.splice(payload, ctx);
    const current = this.verdicts.get(session);
    const decision = decideRequest(spliced, current?.verdict ?? "none-yet");
    if (decision.limitation) this.once(`${session}\u0000${decision.shape}`, decision.limitation);
    this.refresh(session, ctx);
    return decision.payload === payload ? undefined : decidedInPlace(payload, decision.payload);
  }

  private refresh(session: string, ctx: OmpContext): void {
    if (this.refreshing.has(session)) return;
    this.refreshing.add(session);
    this.dispatches += 1;
    // The gates read the session (its todo list, a ledger), never the model payload itself.
    void this.runtime
      .verdict("before_provider_request", { ...this.runtime.basePayload(ctx), ...openTodosField(ctx.sessionManager) })
      .then((verdict) => {
        const previous = this.verdicts.get(session);
        // Superseded or cancelled: nobody waits for this refresh, and the newest verdict stands.
        if (verdict.code !== undefined && ENDED_BY_HARNESS.has(verdict.code)) return;
        if (verdict.failure !== undefined || !verdict.result) {
          this.verdicts.set(session, { verdict: previous?.verdict ?? "none-yet", failedOpen: [], failure: verdict.failure ?? "no verdict", atMs: Date.now() });
          return;
        }
        const result = verdict.result;
        this.verdicts.set(session, {
          verdict: result.decision === "pass" ? "pass" : "refuse",
          ...(result.reason !== undefined ? { reason: result.reason } : {}),
          failedOpen: result.failedOpen,
          atMs: Date.now(),
        });
      })
      .finally(() => this.refreshing.delete(session));
  }

  private splice(payload: unknown, ctx: OmpContext): unknown {
    const { file, installed } = this.contracts.read(ctx.cwd, process.env.HOME || os.homedir(), contractsPathOptionsFromEnv());
    switch (installed.kind) {
      case "missing":
        return payload;
      case "unreadable":
        process.stderr.write(`${unreadableContractsMessage(file, installed.reason)}\n`);
        return payload;
      case "malformed":
        this.once(`contracts-file\u0000${file}\u0000${installed.error}`, `Tama leaves model requests' contracts unchanged: ${file}: ${installed.error}`);
        return payload;
      case "ok": {
        if (installed.block === null) return payload;
        const spliced = spliceContracts(payload, installed.block);
        if (spliced.error) {
          this.once(`contracts-payload\u0000${spliced.error}`, `Tama leaves this model request's contracts unchanged: ${spliced.error}`);
          return payload;
        }
        return spliced.payload;
      }
    }
  }

  private once(key: string, message: string): void {
    if (this.saidOnce.has(key)) return;
    this.saidOnce.add(key);
    process.stderr.write(`${message}\n`);
  }

  status(): { dispatches: number; sessions: Record<string, SessionVerdict> } {
    return {
      dispatches: this.dispatches,
      sessions: Object.fromEntries(this.verdicts),
    };
  }
}
