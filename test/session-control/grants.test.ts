// Grants: the engine hands a hook the session control capability only when the
// session's grant matches its key and the loaded release and catalog; the adapter's
// rebinding carries a grant to another release and nothing else.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readGrant, rebindGrant, writeGrant, type Grant } from "../../modules/session-control/grants.ts";
import { recordPath, writePrivateJson } from "../../modules/session-control/records.ts";
import { EngineClient, makeTestHome, type TestHome } from "../support/engine-client.ts";
import { sampleRecord } from "./support.ts";

let home: TestHome;
let sessions: string;
let engine: EngineClient | undefined;

beforeEach(() => {
  home = makeTestHome("tama-grants-");
  sessions = path.join(home.home, "sessions");
  mkdirSync(sessions, { mode: 0o700 });
});
afterEach(async () => {
  await engine?.close();
  engine = undefined;
  home.cleanup();
});

const C1 = "1".repeat(64);
const C2 = "2".repeat(64);
const KEY = "a".repeat(64);

function grantFor(session: string, releaseId: string | null, catalogChecksum: string, key = KEY): Grant {
  return { schema: 1, session, key, releaseId, catalogChecksum, grantedAtMs: 1, grantedBy: "operator" };
}

describe("rebinding a grant", () => {
  it("carries the grant of the previous generation to another release, and only that", () => {
    writeGrant(sessions, grantFor("s1", "r1", C1));
    expect(rebindGrant(sessions, "s1", KEY, { releaseId: "r1", catalogChecksum: C1 }, { releaseId: "r2", catalogChecksum: C2 })).toBe("rebound");
    expect(readGrant(sessions, "s1")).toEqual({
      ok: true,
      grant: { ...grantFor("s1", "r2", C2), grantedBy: "rebind", reboundFrom: { releaseId: "r1", catalogChecksum: C1 } },
    });
    expect(rebindGrant(sessions, "s1", KEY, { releaseId: "r1", catalogChecksum: C1 }, { releaseId: "r2", catalogChecksum: C2 })).toBe("current");
  });

  it("leaves alone a grant for another generation, under another key, or a change within one release", () => {
    expect(rebindGrant(sessions, "s1", KEY, { releaseId: "r1", catalogChecksum: C1 }, { releaseId: "r2", catalogChecksum: C2 })).toBe("no-grant");
    writeGrant(sessions, grantFor("s1", "r0", C1));
    expect(rebindGrant(sessions, "s1", KEY, { releaseId: "r1", catalogChecksum: C1 }, { releaseId: "r2", catalogChecksum: C2 })).toBe("other-generation");
    writeGrant(sessions, grantFor("s1", "r1", C1, "b".repeat(64)));
    expect(rebindGrant(sessions, "s1", KEY, { releaseId: "r1", catalogChecksum: C1 }, { releaseId: "r2", catalogChecksum: C2 })).toBe("not-ours");
    writeGrant(sessions, grantFor("s1", "r1", C1));
    expect(rebindGrant(sessions, "s1", KEY, { releaseId: "r1", catalogChecksum: C1 }, { releaseId: "r1", catalogChecksum: C2 })).toBe("same-release");
    expect(readGrant(sessions, "s1")).toEqual({ ok: true, grant: grantFor("s1", "r1", C1) });
  });

  it("reads a grant for another session, or a malformed one, as no grant", () => {
    writeFileSync(path.join(sessions, "grant.s1.json"), JSON.stringify(grantFor("s2", "r1", C1)));
    expect(readGrant(sessions, "s1")).toMatchObject({ ok: false, missing: false, error: expect.stringMatching(/names session s2, not s1/) });
    writeFileSync(path.join(sessions, "grant.s1.json"), JSON.stringify({ ...grantFor("s1", "r1", C1), key: 7 }));
    expect(readGrant(sessions, "s1")).toMatchObject({ ok: false, missing: false, error: expect.stringMatching(/key: /) });
  });
});

describe("the capability in a hook's environment (engine over real pipes)", () => {
  const seen = (): string[] => readFileSync(path.join(home.dir, "seen.txt"), "utf8").trim().split("\n");

  async function start(env: NodeJS.ProcessEnv = {}): Promise<{ engine: EngineClient; checksum: string }> {
    const hook = home.script("probe.sh", `#!/bin/sh\necho "\${TAMA_SESSION_CONTROL:-none}|\${TAMA_SESSION_CONTROL_KEY:-none}" >> ${JSON.stringify(path.join(home.dir, "seen.txt"))}\n`);
    home.writeRegistry({ schema: 1, release: { id: "r1" }, hooks: [{ id: "probe", events: ["pre_tool_use"], command: [hook] }] });
    engine = new EngineClient(home, env);
    const ready = await engine.ready();
    return { engine, checksum: (ready.state as { catalogChecksum: string }).catalogChecksum };
  }
  const call = (e: EngineClient, session = "s1") => e.dispatch("pre_tool_use:bash", { session_id: session, cwd: home.dir, tool_input: { command: "ls" } });

  it("is given under a matching grant and withheld under every other", async () => {
    const { engine: e, checksum } = await start({ TAMA_SESSION_CONTROL: "/inherited.sock", TAMA_SESSION_CONTROL_KEY: "inherited" });
    const record = sampleRecord(sessions, "s1");
    writePrivateJson(recordPath(sessions, "s1"), record);
    await call(e); // no grant: the inherited values are not passed on either

    writeGrant(sessions, grantFor("s1", "r1", checksum));
    await call(e); // granted
    await call(e, "s2"); // another session's event

    writeGrant(sessions, grantFor("s1", "r1", C2));
    await call(e); // another catalog
    writeGrant(sessions, grantFor("s1", "r0", checksum));
    await call(e); // another release
    writeGrant(sessions, grantFor("s1", "r1", checksum, "b".repeat(64)));
    await call(e); // another key

    writeGrant(sessions, grantFor("s1", "r1", checksum));
    chmodSync(sessions, 0o777);
    await call(e); // a directory others can write is not trusted
    chmodSync(sessions, 0o700);
    await call(e); // granted again

    // A new release loaded by the engine alone: the grant is for the old one until the adapter rebinds it.
    home.writeRegistry({ schema: 1, release: { id: "r2" }, hooks: [{ id: "probe", events: ["pre_tool_use"], command: [path.join(home.dir, "probe.sh")] }] });
    await call(e);

    const granted = `${record.socket}|${record.key}`;
    expect(seen()).toEqual(["none|none", granted, "none|none", "none|none", "none|none", "none|none", "none|none", granted, "none|none"]);
  });
});
