// One built-in gate's run on one hook input, as an answer: its options parsed once per
// registry entry, what it threw read as a failure. The engine's runner and a decision
// taken in OMP's own process (local-decision.ts) run gates through this one path.
import { builtinGate } from "../gates/index.ts";
import { shownListed } from "../gates/listed-token.ts";
import { withDiskMoment } from "../system/disk-moment.ts";
import type { GateContext, GateVerdict, OptionsParse } from "../gates/types.ts";
import type { HookInput } from "../protocol/hook-input.ts";
import type { HookEntry } from "../registry/registry.ts";
import type { HookAnswer } from "./hook-answer.ts";

export class GateRuns {
  /** Each registry entry's options, parsed once per generation (entries are new objects per generation). */
  private readonly parsedOptions = new WeakMap<HookEntry, OptionsParse>();

  /**
   * The gate's answer; a promise only when the gate's own evaluation is one. Most gates
   * are synchronous, and OMP's process (local-decision.ts) runs several per event, each
   * await a turn of the microtask queue it need not take.
   */
  run(hook: HookEntry, id: string, input: HookInput, context: GateContext): HookAnswer | Promise<HookAnswer> {
    const gate = builtinGate(id);
    if (!gate) return { verdict: "failed", why: `names the built-in gate ${id}, which this engine does not have` };
    try {
      let options = this.parsedOptions.get(hook);
      if (options === undefined) {
        options = gate.parseOptions ? gate.parseOptions(hook.options) : { ok: true, options: undefined };
        this.parsedOptions.set(hook, options);
      }
      if (!options.ok) return { verdict: "failed", why: `has options its gate refuses: ${options.error}` };
      // Gates run one after another in one stretch on a call share what the disk answered.
      const verdict = withDiskMoment(() => gate.evaluate(input, context, options.options));
      return verdict instanceof Promise ? verdict.then(answerOf, threw) : answerOf(verdict);
    } catch (error) {
      return threw(error);
    }
  }
}

function answerOf(verdict: GateVerdict): HookAnswer {
  if (verdict.decision === "block") return { verdict: "block", reason: shownListed(verdict.reason) };
  return {
    verdict: "pass",
    ...(verdict.additionalContext !== undefined ? { additionalContext: verdict.additionalContext } : {}),
    ...(verdict.updatedToolResponse !== undefined ? { updatedToolResponse: verdict.updatedToolResponse } : {}),
  };
}

const threw = (error: unknown): HookAnswer => ({ verdict: "failed", why: `threw: ${(error as Error).message}` });
