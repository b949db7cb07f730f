// Events no hook runs for go on at once. OMP waits for a prompt's, a result's and a
// turn end's handler; when the newest answer for the session's cwd says no hook of
// that kind runs there, and every file those hooks came from still has the stat key
// the engine read it under, no verdict can come back: the dispatch is still sent (the
// engine's ordering, supersession and turn-end rules and its records need it), but
// nobody waits for its answer. Any change to a hook source fails the check, and the
// event waits as before. Tool calls never go on unanswered: a changed trusted project
// or a call that cannot be read is refused without any hook. The same check lets a tool
// call, a result or a turn end whose only hooks are memoryless built-in gates be decided in OMP's
// process (the answers' `local` plan; modules/engine/local-decision.ts).
import { HookedEvents } from "../modules/protocol/engine.ts";
import { statKey } from "../modules/system/stat-key.ts";
import { localPlan, type LocalPlan } from "../modules/engine/local-decision.ts";
import { CODE_BUILD } from "../modules/system/build-id.ts";

/** The event kinds that may go on without their answer when no hook runs for them. */
const MAY_GO_ON: ReadonlySet<string> = new Set(["user_prompt_submit", "stop", "post_tool_use"]);

interface Known {
  /** What the answer carried: the engine client hands an unchanged one on as the same object. */
  raw: unknown;
  /** Its JSON, so that an equal one is not validated again. */
  text: string;
  hooked: HookedEvents;
  /** The kinds OMP's process may decide itself, and their hooks. */
  plan: LocalPlan | undefined;
}

export class HooklessEvents {
  private readonly byCwd = new Map<string, Known>();
  private engine: number | undefined;
  /** Events let go on without their answer (for /tama_status). */
  wentOn = 0;

  /** What an answer of engine `pid` says of the hooks in `cwd`. */
  learn(pid: number | undefined, cwd: unknown, hooked: unknown): void {
    if (typeof cwd !== "string" || hooked === undefined) return;
    this.forEngine(pid);
    const known = this.byCwd.get(cwd);
    if (known?.raw === hooked) return;
    const text = JSON.stringify(hooked);
    if (known?.text === text) {
      known.raw = hooked;
      return;
    }
    const parsed = HookedEvents.safeParse(hooked);
    if (!parsed.success) {
      this.byCwd.delete(cwd);
      return;
    }
    if (this.byCwd.size >= 64 && !this.byCwd.has(cwd)) this.byCwd.clear();
    // An engine of another build runs other gate code: its plan is not this adapter's to follow.
    const plan = parsed.data.local?.build === CODE_BUILD ? localPlan(parsed.data.local) : undefined;
    this.byCwd.set(cwd, { raw: hooked, text, hooked: parsed.data, plan });
  }

  /** Whether `event` in `cwd` runs no hook on engine `pid`, as far as its sources' files tell. */
  none(pid: number | undefined, event: string, cwd: unknown): boolean {
    const kind = event.split(":", 1)[0] ?? event;
    if (!MAY_GO_ON.has(kind)) return false;
    const known = this.current(pid, cwd);
    if (known === undefined || (known.hooked.events as string[]).includes(kind)) return false;
    return unchanged(known);
  }

  /** The plan to decide `event` in OMP's process by, when its hooks allow it and their sources' files are as they were. */
  plan(pid: number | undefined, event: string, cwd: unknown): LocalPlan | undefined {
    const kind = event.split(":", 1)[0] ?? event;
    const known = this.current(pid, cwd);
    if (known?.plan?.byEvent.has(kind) !== true) return undefined;
    return unchanged(known) ? known.plan : undefined;
  }

  private current(pid: number | undefined, cwd: unknown): Known | undefined {
    if (pid === undefined || typeof cwd !== "string") return undefined;
    this.forEngine(pid);
    return this.byCwd.get(cwd);
  }

  /** Another engine process may read other sources (another release, environment): start over. */
  private forEngine(pid: number | undefined): void {
    if (pid === this.engine) return;
    this.engine = pid;
    this.byCwd.clear();
  }
}

/** Every file the hooks came from still has the stat key the engine read it under. */
const unchanged = (known: Known): boolean => known.hooked.files.every(([file, key]) => statKey(file) === key);
