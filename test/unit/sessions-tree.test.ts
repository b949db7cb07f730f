// `tama sessions list` order: each subagent's session right under its parent.
import { describe, expect, it } from "vitest";
import { underParents } from "../../modules/cli/sessions.ts";
import type { SessionRecord } from "../../modules/session-control/records.ts";

const record = (session: string, startedAtMs: number, parent?: string): SessionRecord => ({
  schema: 1,
  protocolVersion: 1,
  session,
  ompPid: 1,
  enginePid: null,
  startedAtMs,
  publishedAtMs: startedAtMs,
  cwd: "/",
  adapterDigest: null,
  adapterReloadSupported: true,
  socket: `/s/${session}.sock`,
  key: "a".repeat(64),
  instance: "i",
  engineGeneration: null,
  ...(parent !== undefined ? { parent } : {}),
});

const shown = (records: SessionRecord[]) => underParents(records).map(({ record: r, depth }) => `${depth}:${r.session}`);

describe("sessions under their parents", () => {
  it("puts subagents (and theirs) right under their parent, in start order", () => {
    expect(shown([record("main", 1), record("other", 2), record("sub-a", 3, "main"), record("sub-b", 4, "main"), record("sub-a-1", 5, "sub-a")])).toEqual([
      "0:main",
      "1:sub-a",
      "2:sub-a-1",
      "1:sub-b",
      "0:other",
    ]);
  });

  it("a subagent whose parent has no live record, and a cycle of parents, stand at the top level", () => {
    expect(shown([record("orphan", 1, "gone"), record("x", 2, "y"), record("y", 3, "x")])).toEqual(["0:orphan", "0:x", "1:y"]);
  });
});
