// The quick check OMP's process runs before deciding an event itself must never
// accept a payload the engine's schema refuses: it reads every typed field of the
// schema, and on payloads built to sit on each bound it agrees or says "unsure".
import { describe, expect, it } from "vitest";
import { EDGE_VALUES, aroundLengths } from "../support/probes.ts";
import { DispatchPayload, plainDispatchPayload, QUICK_PAYLOAD_FIELDS, UNTYPED_PAYLOAD_FIELDS } from "../../modules/protocol/engine.ts";

/** Values that sit on, and just past, each kind of bound a field has. */
const PROBES: unknown[] = [...EDGE_VALUES, ...aroundLengths(64, 256, 512, 8192), "user", "User", { command: "true" }];

describe("the quick dispatch payload check", () => {
  it("reads every typed field the schema has", () => {
    const schemaFields = Object.keys(DispatchPayload.shape).sort();
    expect([...QUICK_PAYLOAD_FIELDS, ...UNTYPED_PAYLOAD_FIELDS].sort()).toEqual(schemaFields);
  });

  it("accepts nothing the schema refuses, field by field on every bound, and accepts what a harness sends", () => {
    const base = { session_id: "s1", cwd: "/work", tool_name: "bash", tool_input: { command: "true" }, tool_call_id: "c1", transcript_path: "/s.jsonl" };
    let agreedYes = 0;
    for (const field of Object.keys(DispatchPayload.shape)) {
      for (const value of PROBES) {
        const payload: Record<string, unknown> = { ...base, [field]: value };
        const schema = DispatchPayload.safeParse(payload).success;
        const quick = plainDispatchPayload(payload);
        if (quick) expect({ field, value, schema }).toEqual({ field, value, schema: true });
        // Where the schema accepts, the quick check says so too: it is never needlessly unsure.
        if (schema) expect({ field, value, quick }).toEqual({ field, value, quick: true });
        if (quick && schema) agreedYes += 1;
      }
    }
    expect(agreedYes).toBeGreaterThan(100);
    expect(plainDispatchPayload({ ...base, extra: { any: ["thing"] } })).toBe(true);
    expect(plainDispatchPayload({ ...base, call_repeats: 3, is_error: false, duration_ms: 12.5, original_file: null })).toBe(true);
  });
});
