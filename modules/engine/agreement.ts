// The answer to an event OMP's process already went on with (decided there by the same
// gates, or let go on with no hook to run): nobody waits for it, so when the engine's own
// verdict is the same and there is nothing else to tell it is not written. Reading each
// answer, and being woken for it, was most of what these dispatches cost OMP's thread.
import type { Answer, DispatchResult, Request } from "../protocol/engine.ts";

/** Whether `answer` only agrees with what the request says OMP's process went on with. */
export function onlyAgrees(request: Request, answer: Answer): boolean {
  // A new catalog, or a core another release replaced (the client retires it), is news too.
  if (request.op !== "dispatch" || request.decidedHere === undefined || !answer.ok || answer.catalog !== undefined || answer.state.coreReplacedByRelease) return false;
  const result = answer.result as DispatchResult | undefined;
  if (result === undefined) return false;
  const here = request.decidedHere;
  const same =
    result.decision === here.decision &&
    result.reason === here.reason &&
    result.additionalContext === here.additionalContext &&
    // Anything else it says is news to OMP's process: the whole answer goes.
    result.failedOpen.length === 0 &&
    result.updatedToolResponse === undefined &&
    result.updatedInput === undefined &&
    result.stopReason === undefined &&
    result.held === undefined &&
    result.brokenSources === undefined &&
    result.hookedEvents === undefined &&
    result.hookedEventsKey !== undefined;
  return same;
}
