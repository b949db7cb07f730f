// One dispatch in flight: its identity, its stages (from the engine's own clock),
// the hooks it is running now, and how it ended when the harness stopped waiting.
import type { HookProcess, SpawnRequest } from "./hook-process.ts";
import type { PrestartIdentity } from "./prestart.ts";
import { STAGES, type FinishedDispatch, type ParsedEvent, type RequestId, type Stage, type StageTiming } from "../protocol/engine.ts";
import { canonicalJson } from "../registry/registry.ts";

export interface ActiveHook {
  hook: string;
  run: DispatchRun;
  pgid: number | null;
  startTicks?: number;
  startedAt: number;
  process?: HookProcess;
}

/** The signals that prove nobody waits for a dispatch any more (lifecycle.ts). */
export type EndingKind = "cancelled" | "call-result" | "turn-end" | "input-closed";

/** Why a dispatch ended early: set once, by the first signal; later ones cannot change it. */
export interface Ending {
  kind: EndingKind;
  /** The answer's error, given the first hook the dispatch did not start (when one was left). */
  error(notStarted: string | undefined): string;
}

export class DispatchRun {
  readonly receivedAt = performance.now();
  private readonly stageAt = new Map<Stage, number>([["received", this.receivedAt]]);
  stage: Stage = "received";
  readonly active = new Set<ActiveHook>();
  /** The registry generation the dispatch runs under, once refreshed. */
  generation: number | undefined;
  /** Hook runs to pre-start again for the session's next such event, once this dispatch answered. */
  readonly prestartNext: { identity: PrestartIdentity; request: SpawnRequest }[] = [];
  private ending_: Ending | undefined;
  /** The session's project root, set once the sources are read: CLAUDE_PROJECT_DIR for its hooks. */
  projectRoot: string | undefined;
  private notStarted_: string | undefined;

  private processStarted = false;

  constructor(
    readonly id: RequestId,
    readonly event: ParsedEvent,
    readonly session: string | null,
    /** Session, tool and input of a tool event: one call's identity. */
    readonly callKey: string | undefined,
    /** Told once, before the dispatch's first hook process starts (the serve loop's started frame). */
    private readonly onProcessStart?: () => void,
    /** OMP's process already went on with the event (the request's decidedHere): nobody waits for this dispatch. */
    readonly told = false,
  ) {}

  /** A hook process of this dispatch is about to start or be fed. */
  processStarting(): void {
    if (this.processStarted) return;
    this.processStarted = true;
    this.onProcessStart?.();
  }

  /** Set when a signal proved nobody waits: the answer is an error, and no further hook starts. */
  get ending(): Ending | undefined {
    return this.ending_;
  }

  /** Record the ending; false (and nothing changes) when an earlier signal already ended it. */
  end(ending: Ending): boolean {
    if (this.ending_ !== undefined) return false;
    this.ending_ = ending;
    return true;
  }

  /**
   * Whether the dispatch has ended; when it has, `next` (the hook it was about to
   * start) is kept as the first hook not started.
   */
  endedBefore(next: string | undefined): boolean {
    if (this.ending_ === undefined) return false;
    this.notStarted_ ??= next;
    return true;
  }

  /** The ended dispatch's answer error; undefined while it has not ended. */
  endingError(): string | undefined {
    return this.ending_?.error(this.notStarted_);
  }

  mark(stage: Stage): void {
    this.stage = stage;
    this.stageAt.set(stage, performance.now());
  }

  inStageForMs(): number {
    return performance.now() - (this.stageAt.get(this.stage) ?? this.receivedAt);
  }

  /** Each stage's time from receipt and how long the step into it took. */
  timings(): Omit<FinishedDispatch, "id"> {
    const stages: Partial<Record<Stage, StageTiming>> = {};
    let previous = this.receivedAt;
    let slowest: Stage | null = null;
    let slowestMs = -1;
    for (const stage of STAGES) {
      const at = this.stageAt.get(stage);
      if (at === undefined) continue;
      const tookMs = at - previous;
      stages[stage] = { atMs: round(at - this.receivedAt), tookMs: round(tookMs) };
      if (tookMs > slowestMs) {
        slowestMs = tookMs;
        slowest = stage;
      }
      previous = at;
    }
    const last = this.stageAt.get(this.stage) ?? this.receivedAt;
    return { stages, slowestStage: slowest, totalMs: round(last - this.receivedAt) };
  }
}

/** The dispatches in flight, by request id: what the lifecycle rules and inspection read. */
export type InFlight = Map<RequestId, DispatchRun>;

export function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}

export function callKeyOf(session: string | null, tool: string | undefined, toolInput: unknown): string | undefined {
  if (session === null || tool === undefined) return undefined;
  return `${session}\u0000${tool.toLowerCase()}\u0000${canonicalJson(toolInput ?? null)}`;
}
