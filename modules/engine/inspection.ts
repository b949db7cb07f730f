// What a status request shows of the engine's life: the hooks running now
// (runningHooks) and where each dispatch spends its time (dispatchStages), both
// from the engine's own dispatch registry and clock; and the running-hook record.
import type { DispatchStages, FinishedDispatch, RunningHooks } from "../protocol/engine.ts";
import { processStartTicks } from "../system/process-groups.ts";
import type { Abandonments } from "./abandonments.ts";
import { round, type InFlight } from "./dispatch-run.ts";
import { readRecords, type RecordedHook } from "./running-records.ts";

/** The last finished dispatch of every event. */
export type LastByEvent = Map<string, FinishedDispatch>;

/** The hooks this engine runs, those engines that are gone left running, and the last abandonments. */
export function runningHooks(inFlight: InFlight, runningDir: string, abandonments: Abandonments): RunningHooks {
  const now = performance.now();
  const dispatched = [...inFlight.values()].flatMap((run) =>
    [...run.active].map((hook) => ({
      session: run.session,
      event: run.event.name,
      hook: hook.hook,
      dispatchId: run.id,
      processGroup: hook.pgid,
      runningForMs: round(now - hook.startedAt),
    })),
  );
  const records = readRecords(runningDir, process.pid);
  return {
    dispatched,
    running: records.gone.flatMap((record) =>
      record.hooks.map((hook) => ({
        session: hook.session,
        event: hook.event,
        hook: hook.hook,
        processGroup: hook.processGroup,
        runningForMs: Date.now() - hook.startedAtMs,
        corePid: record.corePid,
      })),
    ),
    recordsUnread: records.unread,
    abandoned: abandonments.list(),
  };
}

/** Every dispatch in flight with its stage, and each event's last finished dispatch. */
export function dispatchStages(inFlight: InFlight, lastByEvent: LastByEvent): DispatchStages {
  return {
    running: [...inFlight.values()].map((run) => ({
      id: run.id,
      event: run.event.name,
      session: run.session,
      stage: run.stage,
      inStageForMs: round(run.inStageForMs()),
    })),
    lastByEvent: Object.fromEntries(lastByEvent),
  };
}

/**
 * The running hooks, for the record. A hook's start time (its identity for reaping)
 * is read from /proc only here, so a hook that ends before the record is written
 * costs no read.
 */
export function recordedHooks(inFlight: InFlight): RecordedHook[] {
  return [...inFlight.values()].flatMap((run) =>
    [...run.active].map((hook) => {
      if (hook.startTicks === undefined && hook.pgid !== null) hook.startTicks = processStartTicks(hook.pgid);
      return {
        session: run.session,
        event: run.event.name,
        hook: hook.hook,
        processGroup: hook.pgid,
        startedAtMs: Date.now() - Math.round(performance.now() - hook.startedAt),
        ...(hook.startTicks !== undefined ? { startTicks: hook.startTicks } : {}),
      };
    }),
  );
}
