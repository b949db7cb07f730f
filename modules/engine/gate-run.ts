// One built-in gate's run on one hook input, as an answer: its options parsed once per
// registry entry, what it threw read as a failure. The engine's runner and a decision
// taken in OMP's own process (local-decision.ts) run gates through this one path.
import { builtinGate } from "../gates/index.ts";
import type { GateContext, OptionsParse } from "../gates/types.ts";
import type { HookInput } from "../protocol/hook-input.ts";
import type { HookEntry } from "../registry/registry.ts";
import type { HookAnswer } from "./hook-answer.ts";

export class GateRuns {
  /** Each registry entry's options, parsed once per generation (entries are new objects per generation). */
  private readonly parsedOptions = new WeakMap<HookEntry, OptionsParse>();

  async run(hook: HookEntry, id: string, input: HookInput, context: GateContext): Promise<HookAnswer> {
    const gate = builtinGate(id);
    if (!gate) return { verdict: "failed", why: `names the built-in gate ${id}, which this engine does not have` };
    try {
      let options = this.parsedOptions.get(hook);
      if (options === undefined) {
        options = gate.parseOptions ? gate.parseOptions(hook.options) : { ok: true, options: undefined };
        this.parsedOptions.set(hook, options);
      }
      if (!options.ok) return { verdict: "failed", why: `has options its gate refuses: ${options.error}` };
      const verdict = await gate.evaluate(input, context, options.options);
      if (verdict.decision === "block") return { verdict: "block", reason: verdict.reason };
      return {
        verdict: "pass",
        ...(verdict.additionalContext !== undefined ? { additionalContext: verdict.additionalContext } : {}),
        ...(verdict.updatedToolResponse !== undefined ? { updatedToolResponse: verdict.updatedToolResponse } : {}),
      };
    } catch (error) {
      return { verdict: "failed", why: `threw: ${(error as Error).message}` };
    }
  }
}
