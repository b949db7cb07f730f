// The answer to an event OMP's process already went on with (decided there by the same
// gates, or let go on with no hook to run): when the engine's own verdict is the same and
// there is nothing else to tell, a few bytes close the request instead of the whole
// answer, which OMP's process would read on its own thread only to find nothing new.
import type { AgreedFrame, Answer, DispatchResult, Request } from "../protocol/engine.ts";

/** The agreed frame for `answer`, or undefined when the whole answer must go. */
export function agreedFrame(request: Request, answer: Answer): AgreedFrame | undefined {
  // A new catalog, or a core another release replaced (the client retires it), is news too.
  if (request.op !== "dispatch" || request.decidedHere === undefined || !answer.ok || answer.catalog !== undefined || answer.state.coreReplacedByRelease) return undefined;
  const result = answer.result as DispatchResult | undefined;
  if (result === undefined) return undefined;
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
  return same ? { type: "agreed", id: request.id } : undefined;
}
