// Registry generations: every dispatch re-reads; a bad replacement keeps the
// previous generation loaded and runs no hook; a valid one is adopted in place.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { catalogChecksum, catalogOf, RegistryFile } from "../../modules/registry/registry.ts";
import { EngineClient, makeTestHome, resultOf, ROOT, type TestHome } from "../support/engine-client.ts";

const RECORD = path.join(ROOT, "test/fixtures/hooks/record-input.sh");
let home: TestHome;
let engine: EngineClient;
let record: string;

const registry = (release: string | null, ids: string[]) => ({
  schema: 1,
  release: release === null ? null : { id: release },
  hooks: ids.map((id) => ({ id, events: ["pre_tool_use"], command: [RECORD] })),
});
const call = () => ({ session_id: "s1", cwd: home.dir, tool_input: { command: "ls" } });
const hooksRun = (): number => {
  try {
    return readFileSync(record, "utf8").split("\n").filter((l) => l.trim().length > 0).length;
  } catch {
    return 0;
  }
};

beforeEach(async () => {
  home = makeTestHome();
  record = path.join(home.dir, "record.jsonl");
  home.writeRegistry(registry("r1", ["one"]));
  engine = new EngineClient(home, { RECORD_FILE: record });
  await engine.ready();
});
afterEach(async () => {
  await engine.close();
  home.cleanup();
});

describe("registry replacement", () => {
  it("adopts a valid changed catalog before the dispatch's hooks run, without a restart", async () => {
    home.writeRegistry(registry("r1", ["one", "two"]));
    const answer = await engine.dispatch("pre_tool_use:bash", call());
    expect(resultOf(answer).results.map((r) => r.hook)).toEqual(["one", "two"]);
    expect(answer.state?.generation).toBe(2);
    expect(answer.state?.processId).toBe(engine.pid);
    expect(answer.state?.reloadCount).toBe(2);
  });

  const broken: { name: string; write: () => void; error: (file: string) => RegExp }[] = [
    {
      name: "broken JSON (with line and column)",
      write: () => home.writeRegistry('{\n  "schema": 1,\n  "hooks": [\n'),
      error: (f) => new RegExp(`parsing hook registry ${f}: unexpected end of input, expected a value at line 4 column 0`),
    },
    {
      name: "a wrong checksum",
      write: () => home.writeRegistry({ ...registry("r1", ["x"]), checksum: "0".repeat(64) }),
      error: (f) => new RegExp(`hook registry ${f} checksum mismatch: expected 0{64}, actual [0-9a-f]{64}`),
    },
    {
      name: "a bad shape",
      write: () => home.writeRegistry({ schema: 1, hooks: [{ id: "x", events: ["teatime"], command: ["true"] }] }),
      error: (f) => new RegExp(`hook registry ${f} is not a valid registry: hooks.0.events.0`),
    },
    {
      name: "deleted",
      write: () => rmSync(home.registry),
      error: (f) => new RegExp(`reading hook registry ${f}: ENOENT`),
    },
    {
      name: "an empty file",
      write: () => writeFileSync(home.registry, ""),
      error: (f) => new RegExp(`parsing hook registry ${f}: unexpected end of input, expected a value at line 1 column 0`),
    },
    {
      name: "a directory",
      write: () => {
        rmSync(home.registry);
        mkdirSync(home.registry);
      },
      error: (f) => new RegExp(`reading hook registry ${f}: EISDIR`),
    },
  ];

  for (const c of broken) {
    it(`keeps the previous generation and runs no hook when the registry is ${c.name}`, async () => {
      await engine.dispatch("pre_tool_use:bash", call());
      expect(hooksRun()).toBe(1);
      c.write();
      const answer = await engine.dispatch("pre_tool_use:bash", call());
      expect(answer.ok).toBe(false);
      expect(answer.error).toMatch(c.error(home.registry));
      expect(answer.error).toMatch(/no hook was run/);
      expect(answer.code).toBe("registry-unusable");
      expect(hooksRun()).toBe(1);
      expect(answer.state?.generation).toBe(1);
      expect(answer.state?.loadedReleaseId).toBe("r1");
      expect(String(answer.state?.lastReloadError)).toMatch(c.error(home.registry));
      // the next valid registry is adopted
      rmSync(home.registry, { recursive: true, force: true });
      home.writeRegistry(registry("r1", ["one", "two"]));
      const after = await engine.dispatch("pre_tool_use:bash", call());
      expect(after.ok).toBe(true);
      expect(after.state?.lastReloadError).toBeNull();
      expect(after.state?.generation).toBe(2);
    });
  }
});

describe("reload, catalogs and core identity", () => {
  it("reload answers changed:false for the same catalog and changed:true for a new one", async () => {
    const same = await engine.request({ op: "reload" });
    expect(same.result).toEqual({ reloaded: true, changed: false });
    home.writeRegistry(registry("r1", ["one", "two"]));
    const changed = await engine.request({ op: "reload" });
    expect(changed.result).toEqual({ reloaded: true, changed: true });
    expect(changed.state?.registeredHookCount).toBe(2);
  });

  it("a rejected reload answers ok:false naming the cause and keeps the loaded catalog", async () => {
    home.writeRegistry("{");
    const answer = await engine.request({ op: "reload", knownCatalogChecksum: "stale" });
    expect(answer.ok).toBe(false);
    expect(answer.error).toMatch(/parsing hook registry/);
    expect(answer.code).toBe("registry-unusable");
    // a client with another checksum still gets the loaded catalog on a rejected replacement
    expect((answer.catalog as { hooks: { id: string }[] }).hooks.map((h) => h.id)).toEqual(["one"]);
  });

  it("sends the catalog only to a client whose known checksum differs", async () => {
    const status = await engine.request({ op: "status" });
    const checksum = status.state?.catalogChecksum as string;
    const parsed = RegistryFile.parse(registry("r1", ["one"]));
    expect(checksum).toBe(catalogChecksum(catalogOf(parsed)));
    const matching = await engine.request({ op: "status", knownCatalogChecksum: checksum });
    expect(matching.catalog).toBeUndefined();
    const differing = await engine.dispatch("pre_tool_use:bash", call(), { knownCatalogChecksum: "old" });
    expect(differing.catalog).toMatchObject({ checksum, release: { id: "r1" }, hooks: [{ id: "one" }] });
  });

  it("a declared checksum that matches is accepted", async () => {
    const value = registry("r1", ["one", "two"]);
    const checksum = catalogChecksum(catalogOf(RegistryFile.parse(value)));
    home.writeRegistry({ ...value, checksum });
    const answer = await engine.request({ op: "reload" });
    expect(answer.ok).toBe(true);
    expect(answer.state?.catalogChecksum).toBe(checksum);
  });

  it("coreReplacedByRelease turns true when another release's catalog is loaded", async () => {
    expect(engine.frames[0]?.state).toMatchObject({ coreReleaseId: "r1", coreReplacedByRelease: false });
    home.writeRegistry(registry("r2", ["one"]));
    const answer = await engine.request({ op: "reload" });
    expect(answer.state).toMatchObject({ coreReleaseId: "r1", loadedReleaseId: "r2", coreReplacedByRelease: true });
  });

  it("a registry without release metadata reports a null release", async () => {
    home.writeRegistry(registry(null, ["one"]));
    const answer = await engine.request({ op: "reload" });
    expect(answer.state?.loadedReleaseId).toBeNull();
  });
});

describe("toolKinds", () => {
  it("a registry's toolKinds make another tool a shell tool for the engine's matchers, and are covered by the checksum", async () => {
    const file = {
      schema: 1,
      release: null,
      toolKinds: { mcp__srv__run: "shell" },
      hooks: [{ id: "shell-only", events: ["pre_tool_use"], tools: "shell", command: [RECORD] }],
    };
    home.writeRegistry(file);
    const declared = await engine.dispatch("pre_tool_use:mcp__srv__run", { session_id: "s1", cwd: home.dir, tool_input: { command: "make" } });
    expect(resultOf(declared).results.map((r) => r.hook)).toEqual(["shell-only"]);
    const undeclared = await engine.dispatch("pre_tool_use:mcp__other__run", { session_id: "s1", cwd: home.dir, tool_input: { command: "make" } });
    expect(resultOf(undeclared).results).toEqual([]);
    const parsed = RegistryFile.parse(file);
    const without = RegistryFile.parse({ ...file, toolKinds: undefined });
    expect(catalogChecksum(catalogOf(parsed))).not.toBe(catalogChecksum(catalogOf(without)));
  });

  it("refuses a kind the declaration does not have, naming the field", async () => {
    home.writeRegistry({ schema: 1, release: null, toolKinds: { mcp__srv__run: "terminal" }, hooks: [] });
    const answer = await engine.dispatch("pre_tool_use:bash", call());
    expect(answer.ok).toBe(false);
    expect(answer.error).toMatch(/toolKinds\.mcp__srv__run/);
  });
});
