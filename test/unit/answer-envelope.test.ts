// The quick read of an answer frame's envelope must give what the schema gives, or
// nothing (then the schema reads it): probed field by field on every bound.
import { describe, expect, it } from "vitest";
import { EDGE_VALUES, aroundLengths } from "../support/probes.ts";
import { AnswerEnvelope, plainAnswerEnvelope } from "../../modules/protocol/engine.ts";

const PROBES: unknown[] = [...EDGE_VALUES, ...aroundLengths(512), "dispatch-ended", "a-code-from-a-newer-engine", { decision: "pass" }];

const FIELDS = ["id", "ok", "result", "error", "code", "catalog"] as const;

describe("the quick answer envelope read", () => {
  it("reads every field the schema has", () => {
    expect([...FIELDS].sort()).toEqual(Object.keys(AnswerEnvelope.shape).sort());
  });

  it("gives exactly what the schema gives, or nothing, on every field and bound", () => {
    const base: Record<string, unknown> = { id: "a1-2", ok: true, result: { decision: "pass" }, state: { processId: 1 } };
    let agreed = 0;
    for (const field of FIELDS) {
      for (const value of PROBES) {
        const raw = { ...base, [field]: value };
        const schema = AnswerEnvelope.safeParse(raw);
        const quick = plainAnswerEnvelope(raw);
        if (quick !== undefined) {
          expect({ field, value, schema: schema.success }).toEqual({ field, value, schema: true });
          expect(quick).toEqual(schema.data);
          agreed += 1;
        }
        // Where the schema reads a plain shape, the quick read does too: it is never needlessly unsure.
        if (schema.success) expect({ field, value, quick: quick !== undefined }).toEqual({ field, value, quick: true });
      }
    }
    expect(agreed).toBeGreaterThan(60);
  });

  it("reads a failure with its code, an unknown code as internal, and refuses what is not an object", () => {
    expect(plainAnswerEnvelope({ id: 7, ok: false, error: "gone", code: "dispatch-ended" })).toEqual({ id: 7, ok: false, error: "gone", code: "dispatch-ended" });
    expect(plainAnswerEnvelope({ id: null, ok: false, error: "x", code: "newer" })).toEqual({ id: null, ok: false, error: "x", code: "internal" });
    for (const raw of [null, [], "x", 3, { ok: true }, { id: "a", ok: "yes" }]) expect(plainAnswerEnvelope(raw)).toBeUndefined();
  });
});
