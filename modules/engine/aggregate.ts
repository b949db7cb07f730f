// A dispatch's hook results as one decision, in the engine and in a decision taken in
// OMP's own process (local-decision.ts) alike.
import type { DispatchResult, HookResult } from "../protocol/engine.ts";
import type { Generation } from "../registry/registry.ts";

/** The hooks' results as one decision: any refusal blocks, else any ask asks, else it passes. */
export function aggregate(
  run: { event: { name: string }; session: string | null },
  generation: Pick<Generation, "number" | "releaseId">,
  results: HookResult[],
  forced?: { decision: "block"; reason: string },
): DispatchResult {
  const refusals = results.filter((r) => r.outcome === "block" || r.outcome === "failed-closed");
  const asks = results.filter((r) => r.outcome === "ask");
  const contexts = results.map((r) => r.additionalContext).filter((c): c is string => c !== undefined);
  const updatedToolResponse = [...results].reverse().find((r) => r.updatedToolResponse !== undefined)?.updatedToolResponse;
  const updatedInput = [...results].reverse().find((r) => r.updatedInput !== undefined)?.updatedInput;
  const stops = results.map((r) => r.stopReason).filter((c): c is string => c !== undefined);
  const decision = forced?.decision ?? (refusals.length > 0 ? "block" : asks.length > 0 ? "ask" : "pass");
  const reason =
    forced?.reason ??
    (refusals.length > 0
      ? refusals.map((r) => r.reason ?? `hook ${r.hook} refused`).join("\n\n")
      : asks.length > 0
        ? asks.map((r) => r.reason ?? `hook ${r.hook} asks`).join("\n\n")
        : undefined);
  return {
    event: run.event.name,
    sessionId: run.session,
    generation: generation.number,
    releaseId: generation.releaseId,
    decision,
    ...(reason !== undefined ? { reason } : {}),
    failedOpen: results.filter((r) => r.outcome === "failed-open").map((r) => ({ hook: r.hook, reason: r.reason ?? "failed" })),
    results,
    ...(contexts.length > 0 ? { additionalContext: contexts.join("\n\n") } : {}),
    ...(updatedToolResponse !== undefined ? { updatedToolResponse } : {}),
    ...(updatedInput !== undefined && decision === "pass" ? { updatedInput } : {}),
    ...(stops.length > 0 ? { stopReason: stops.join("\n\n") } : {}),
    ...(results.some((r) => r.outcome === "cancelled") ? { cancelled: true } : {}),
  };
}
