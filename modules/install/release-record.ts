// The release record: what `tama install` installed, written into the release it
// lays down (`releases/<id>/release.json`). The shell adopts only the adapter whose
// SHA-256 this record names, so an adapter.js with other bytes — written by anyone
// but `tama install` — never runs in OMP.
import path from "node:path";
import * as z from "../protocol/schema.ts";
import { describeSchemaError } from "../protocol/schema.ts";
import { trustProblem } from "../system/strict-modes.ts";
import { readRegularFile } from "../system/regular-file.ts";

export const RELEASE_RECORD_FILE = "release.json";

const Sha256 = z.string().check(z.regex(/^[0-9a-f]{64}$/, "a SHA-256 digest is 64 lower-case hex digits"));

export const ReleaseRecord = z.strictObject({
  schema: z.literal(1),
  releaseId: z.string().check(z.minLength(1)),
  /** SHA-256 of shared-hooks/omp/adapter.js as this release installed it. */
  adapterDigest: Sha256,
  /** The shared chunk the adapter imports (`vendor-<sha256>.js`), or null. */
  vendor: z.nullable(z.string().check(z.regex(/^vendor-[0-9a-f]{64}\.js$/, "a vendor chunk is named vendor-<sha256>.js"))),
});
export type ReleaseRecord = z.infer<typeof ReleaseRecord>;

export type ReleaseRecordRead = { ok: true; record: ReleaseRecord; file: string } | { ok: false; error: string };

/** The record of the release `current` names, checked for trust (StrictModes) before it is believed. */
export function readReleaseRecord(current: string): ReleaseRecordRead {
  const file = path.join(current, RELEASE_RECORD_FILE);
  let raw: unknown;
  try {
    raw = JSON.parse(readRegularFile(file));
  } catch (error) {
    return { ok: false, error: `reading the release record ${file}: ${(error as Error).message}` };
  }
  const untrusted = trustProblem(file);
  if (untrusted !== undefined) return { ok: false, error: `the release record ${file} is not trusted: ${untrusted}` };
  const parsed = ReleaseRecord.safeParse(raw);
  if (!parsed.success) return { ok: false, error: `the release record ${file}: ${describeSchemaError(parsed.error, "the record")}` };
  return { ok: true, record: parsed.data, file };
}
