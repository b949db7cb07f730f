// A stand-in for the adapter's runtime in unit tests of its event handlers: every
// dispatch goes to `verdict`, sessions come from the context's session manager, and
// notices and logs go nowhere.
import type { AdapterRuntime } from "../../adapter/runtime.ts";
import type { OmpContext } from "../../modules/omp/api.ts";

export function fakeRuntime(verdict: (event: string, payload: Record<string, unknown>) => Promise<unknown>): AdapterRuntime {
  return {
    verdict,
    basePayload: (ctx: OmpContext) => ({ cwd: ctx.cwd, session_id: ctx.sessionManager.getSessionId() }),
    sessionId: (ctx?: OmpContext) => ctx?.sessionManager.getSessionId(),
    sessionFile: () => undefined,
    passed: () => {},
    refused: () => {},
    notify: () => {},
    failMode: "closed",
    logger: { info: () => {}, error: () => {}, warn: () => {} },
  } as unknown as AdapterRuntime;
}

/** An OMP context for session `session` in `cwd`, with no UI. */
export const fakeContext = (session: string, cwd = "/proj"): OmpContext => ({
  cwd,
  hasUI: false,
  ui: {} as OmpContext["ui"],
  sessionManager: { getSessionId: () => session } as unknown as OmpContext["sessionManager"],
});
