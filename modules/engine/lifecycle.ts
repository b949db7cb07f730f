// The rules that end hooks nobody waits for, each proved by the harness's own next
// signal, never by a clock of the engine's: supersession, turn end, a call's result
// ending its pre-tool check, the caller's cancel, and closed input. A dispatch ends
// once: the first signal sets its Ending, and later ones change nothing.
import { isToolEvent, type EventKind, type RequestId } from "../protocol/engine.ts";
import { endEngineRuns, GROUP_GRACE_MS, signalGroup } from "../system/process-groups.ts";
import type { Abandonments } from "./abandonments.ts";
import type { ActiveHook, DispatchRun, Ending, InFlight } from "./dispatch-run.ts";

/** The events a session sends one at a time: the next only once it stopped waiting for the one before. */
const TURN_EVENTS: ReadonlySet<EventKind> = new Set<EventKind>(["stop", "user_prompt_submit"]);

/** Why nobody waits for the answers of a closed engine's hooks: the stderr signal and the answer. */
const INPUT_CLOSED = "the core's caller closed its input, so nobody waits for its answer";

export class Lifecycle {
  constructor(
    private readonly inFlight: InFlight,
    private readonly abandonments: Abandonments,
    private readonly stderr: (line: string) => void,
  ) {}

  /** A dispatch was received: apply what it proves about its session's earlier dispatches. */
  arrived(run: DispatchRun): void {
    if (run.session === null) return;
    this.turnEnd(run, run.session);
    this.callResult(run, run.session);
  }

  // ---- supersession ----------------------------------------------------------

  /** A turn event's hook supersedes the same hook of the same session still running for the previous one. */
  supersede(run: DispatchRun, hookId: string): void {
    if (run.session === null || !TURN_EVENTS.has(run.event.kind)) return;
    for (const other of this.inFlight.values()) {
      if (other === run || other.session !== run.session || !TURN_EVENTS.has(other.event.kind)) continue;
      for (const hook of other.active) {
        if (hook.hook !== hookId) continue;
        this.stderr(
          `tama: ended hook ${hookId} (process group ${hook.pgid ?? "none"}) still running for the previous ${other.event.name} of session ${run.session}`,
        );
        this.abandonments.record(run.session, `a newer ${run.event.name} of session ${run.session} superseded the previous ${other.event.name}`, [hook]);
        // Only this hook is ended: the earlier dispatch goes on and answers with it cancelled.
        hook.process?.cancel(`superseded by a newer ${run.event.name}`);
      }
    }
  }

  // ---- turn end ----------------------------------------------------------------

  /** The harness sends stop / user_prompt_submit only after every tool call of the turn is over. */
  private turnEnd(run: DispatchRun, session: string): void {
    if (!TURN_EVENTS.has(run.event.kind)) return;
    for (const other of this.inFlight.values()) {
      // A dispatch OMP's process already went on with ends nothing anyone waits for: it
      // runs to its end, so that what it would say otherwise is still told.
      if (other === run || other.told || other.session !== session || !isToolEvent(other.event.kind)) continue;
      // Named when no hook was left unstarted: the one the turn end caught mid-run.
      const runningAtEnd = [...other.active][0]?.hook;
      const ending: Ending = {
        kind: "turn-end",
        error: (notStarted) =>
          `the turn of session ${session} ended while ${other.event.name} was still being checked, so that tool call is over and hook ${notStarted ?? runningAtEnd ?? "(none)"} and the ones after it were not started`,
      };
      this.end(
        other,
        ending,
        `the session's ${run.event.kind} arrived while ${other.event.name} was still being checked`,
        (hook) =>
          `tama: ended hook ${hook.hook} (process group ${hook.pgid ?? "none"}) still running for ${other.event.name} of session ${session}: the session's ${run.event.kind} arrived, so that tool call is over and nobody waits for its answer`,
      );
    }
  }

  // ---- a call's result ends its pre-tool check ----------------------------------

  /** OMP stops waiting for a tool_call handler at its own limit and does not say so; the result does. */
  private callResult(run: DispatchRun, session: string): void {
    if (run.event.kind !== "post_tool_use" || run.callKey === undefined) return;
    for (const other of this.inFlight.values()) {
      if (other.event.kind !== "pre_tool_use" || other.told || other.callKey !== run.callKey || other.ending !== undefined) continue;
      const tool = other.event.tool ?? "?";
      const error = `the result of the ${tool} call already arrived, so the harness stopped waiting for this check`;
      this.stderr(`tama: ended pre-tool dispatch ${String(other.id)} of ${tool} in session ${session}: ${error}`);
      this.end(other, { kind: "call-result", error: () => error }, `the result of the ${tool} call arrived while its pre-tool check still ran`);
    }
  }

  // ---- cancel ------------------------------------------------------------------

  /** The caller's cancel: the hooks it ended, or undefined when no such dispatch is in flight. */
  cancel(target: RequestId): string[] | undefined {
    const run = this.inFlight.get(target);
    if (!run) return undefined;
    const error = `dispatch ${JSON.stringify(target)} of ${run.event.name} was cancelled by its caller`;
    return this.end(run, { kind: "cancelled", error: () => error }, `the caller cancelled dispatch ${JSON.stringify(target)} of ${run.event.name}`);
  }

  // ---- closed input ----------------------------------------------------------------

  /**
   * The caller closed the engine's input (it shut down, or died without a word, as a
   * SIGKILLed OMP does): end every dispatch still in flight at once (TERM to each
   * hook's group), give the groups the grace to stop, then KILL what is left of
   * them, and every process this engine's hook runs marked (`hookRunPrefix`): what
   * a hook that already answered left in its group, and what escaped the group.
   */
  async inputClosed(options: { graceMs?: number; hookRunPrefix?: string } = {}): Promise<void> {
    const graceMs = options.graceMs ?? GROUP_GRACE_MS;
    const groups = [...this.inFlight.values()].flatMap((run) => [...run.active].map((hook) => hook.pgid));
    for (const run of this.inFlight.values()) this.end(run, { kind: "input-closed", error: () => INPUT_CLOSED }, INPUT_CLOSED);
    if (groups.length > 0) await new Promise((resolve) => setTimeout(resolve, graceMs));
    for (const pgid of groups) if (pgid !== null) signalGroup(pgid, "SIGKILL");
    if (options.hookRunPrefix !== undefined) endEngineRuns(options.hookRunPrefix);
  }

  /**
   * End a dispatch nobody waits for, unless an earlier signal already did: no further
   * hook starts, running ones are ended with their process groups, and the
   * abandonment is named and kept. Returns the hooks it ended.
   */
  private end(run: DispatchRun, ending: Ending, signal: string, perHookLine?: (hook: ActiveHook) => string): string[] {
    if (!run.end(ending)) return [];
    const hooks = [...run.active];
    this.abandonments.record(run.session, signal, hooks);
    for (const hook of hooks) {
      if (perHookLine) this.stderr(perHookLine(hook));
      hook.process?.cancel(signal);
    }
    return hooks.map((hook) => hook.hook);
  }
}
