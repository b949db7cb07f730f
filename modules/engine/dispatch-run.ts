// One dispatch in flight: its identity, its stages (from the engine's own clock),
// the hooks it is running now, and whether the harness has stopped waiting for it.
import type { HookProcess } from "./hook-exec.ts";
import type { ParsedEvent, RequestId } from "../protocol/engine.ts";
import { canonicalJson } from "../registry/registry.ts";

export const STAGES = [
  "received",
  "runtimeLocked",
  "registryRefreshed",
  "threadStarted",
  "sessionStateRead",
  "hooksEnded",
  "answered",
] as const;
export type Stage = (typeof STAGES)[number];

export interface ActiveHook {
  hook: string;
  run: DispatchRun;
  pgid: number | null;
  startTicks?: number;
  startedAt: number;
  process?: HookProcess;
}

export interface StageTiming {
  atMs: number;
  tookMs: number;
}

export class DispatchRun {
  readonly receivedAt = performance.now();
  private readonly stageAt = new Map<Stage, number>([["received", this.receivedAt]]);
  stage: Stage = "received";
  readonly active = new Set<ActiveHook>();
  /** Set when a signal proved nobody waits: the answer's error, and no further hook starts. */
  endedWith: string | undefined;
  /** The first hook the ended dispatch did not start. */
  stoppedAt: string | undefined;
  /** The hook a turn end ended mid-run, named when no hook was left unstarted. */
  endedHook: string | undefined;
  /** The answer's error when it names the hook not started (resolved when the dispatch answers). */
  endedWithFor: ((stoppedAt: string) => string) | undefined;

  constructor(
    readonly id: RequestId,
    readonly event: ParsedEvent,
    readonly session: string | null,
    /** Session, tool and input of a tool event: one call's identity. */
    readonly callKey: string | undefined,
  ) {}

  mark(stage: Stage): void {
    this.stage = stage;
    this.stageAt.set(stage, performance.now());
  }

  inStageForMs(): number {
    return performance.now() - (this.stageAt.get(this.stage) ?? this.receivedAt);
  }

  /** Each stage's time from receipt and how long the step into it took. */
  timings(): { stages: Partial<Record<Stage, StageTiming>>; slowestStage: Stage | null; totalMs: number } {
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

export function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}

export function callKeyOf(session: string | null, tool: string | undefined, toolInput: unknown): string | undefined {
  if (session === null || tool === undefined) return undefined;
  return `${session}\u0000${tool.toLowerCase()}\u0000${canonicalJson(toolInput ?? null)}`;
}
