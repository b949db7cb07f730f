// OMP waits for an extension's handler only so long, and then goes on without its
// answer. The tool_call limit is OMP's setting `extensionHandlers.toolCallTimeoutMs`
// (30 s unless raised); every other event's is a fixed 30 s. A hook allowed longer is
// cut short there, and what OMP does then differs by event: said at import, at
// `tama hooks add` and by doctor.
import type { EventKind } from "../protocol/engine.ts";

/** OMP's fixed handler limit (EXTENSION_HANDLER_TIMEOUT_MS in its extension runner). */
export const OMP_HANDLER_LIMIT_MS = 30_000;
export const OMP_TOOL_CALL_SETTING = "extensionHandlers.toolCallTimeoutMs";

/** What OMP does when it stops waiting for a hook of each event. */
const WHAT_THEN: Partial<Record<EventKind, string>> = {
  pre_tool_use: `OMP refuses the call ("Extension … timed out"), however the hook would have answered; raise ${OMP_TOOL_CALL_SETTING} in OMP's config.yml to wait longer`,
  post_tool_use: "OMP gives the model the result without the hook's verdict or context",
  stop: "OMP ends the turn as if no stop hook had refused",
  user_prompt_submit: "OMP sends the prompt on without the hook's verdict",
  session_start: "OMP starts the session without waiting for it",
};

export interface CutShort {
  event: EventKind;
  limitMs: number;
  /** One clause: the limit, and what OMP does then. */
  text: string;
}

/** The events of a hook that OMP stops waiting for before the hook's own timeout. */
export function ompCutsShort(events: readonly EventKind[], timeoutMs: number, toolCallLimitMs = OMP_HANDLER_LIMIT_MS): CutShort[] {
  return events.flatMap((event) => {
    const what = WHAT_THEN[event];
    if (what === undefined) return [];
    const limitMs = event === "pre_tool_use" ? toolCallLimitMs : OMP_HANDLER_LIMIT_MS;
    if (timeoutMs <= limitMs) return [];
    return [{ event, limitMs, text: `in OMP it may run ${timeoutMs / 1000} s, but OMP stops waiting for a ${event} hook after ${limitMs / 1000} s: ${what}` }];
  });
}
