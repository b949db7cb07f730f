// /tama_status: a short summary a person can read in the TUI; `/tama_status --json`
// prints the whole status object (the same one session control serves).
import type { OmpContext } from "../modules/omp/api.ts";
import type { EngineState } from "../modules/protocol/engine.ts";
import type { HandlerWaitsView } from "./handler-waits.ts";

export interface StatusView {
  ompPid: number;
  session: string | null;
  adapterDigest: string | null;
  failMode: string;
  engine: { processId?: number | undefined; state?: EngineState | undefined } | { error?: string | undefined; code?: string | undefined };
  lastRefusal?: string;
  failedOpen: string[];
  modelRequests: { dispatches: number };
  /** A subagent's session (OMP's `task`): the session that started it. */
  parentSession?: string;
  /** The live subagent sessions this session started. */
  subagents?: string[];
  /** How many sessions of this OMP process share its engine. */
  engineSharedBy?: number;
  /** Prompts, results and turn ends no hook ran for that went on without waiting for their answer. */
  eventsWentOn?: number;
  /** Tool calls, results and turn ends whose only hooks are memoryless built-in gates, decided in OMP's process. */
  eventsDecidedHere?: number;
  /** How long OMP waited on each of Tama's handlers (handler-waits.ts). */
  handlerWaits?: HandlerWaitsView;
}

const short = (digest: string | null): string => (digest ? digest.slice(0, 12) : "(no digest)");

/** Hooks running now, as the engine's status lists them. */
function runningCount(state: EngineState | undefined): number {
  const running = state?.runningHooks as { dispatched?: unknown[] } | undefined;
  return Array.isArray(running?.dispatched) ? running.dispatched.length : 0;
}

export function statusSummary(view: StatusView): string {
  const lines = [`Tama · adapter ${short(view.adapterDigest)} · OMP pid ${view.ompPid} · session ${view.session ?? "(none)"} · fail mode ${view.failMode}`];
  if (view.parentSession !== undefined) lines.push(`subagent of session ${view.parentSession}`);
  if (view.subagents !== undefined && view.subagents.length > 0) lines.push(`subagents: ${view.subagents.join(", ")}`);
  if ("error" in view.engine && view.engine.error !== undefined) {
    lines.push(`engine: not reachable (${view.engine.error})`);
  } else if ("state" in view.engine && view.engine.state) {
    const s = view.engine.state;
    lines.push(
      `engine ${s.processId} · ${s.registeredHookCount} gates · release ${s.loadedReleaseId ?? "none"} · ${s.lastReloadError ? `registry error: ${s.lastReloadError}` : "registry ok"}`,
    );
    if (view.engineSharedBy !== undefined && view.engineSharedBy > 1) lines.push(`engine shared by ${view.engineSharedBy} sessions of this OMP process`);
    lines.push(`hooks running now: ${runningCount(s)}`);
    const held = s.heldProjectHooks;
    if (held && held.count > 0) lines.push(`project hooks held: ${held.count} (run tama trust in the project, from your own terminal)`);
  }
  lines.push(`last refusal: ${view.lastRefusal ?? "none since the last passing call"}`);
  lines.push(view.failedOpen.length > 0 ? `failed open lately: ${view.failedOpen.join("; ")}` : "failed open lately: none");
  lines.push(`model-request refreshes: ${view.modelRequests.dispatches}`);
  lines.push("Full status: /tama_status --json");
  return lines.join("\n");
}

export function showText(ctx: OmpContext, text: string): void {
  if (ctx.hasUI || ctx.mode === "rpc") ctx.ui.notify(text, "info");
  else process.stdout.write(`${text}\n`);
}
