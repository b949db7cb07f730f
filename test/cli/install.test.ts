// `tama install --omp` is idempotent and swaps only the release and adapter;
// `tama uninstall --omp` removes what install wrote and nothing else.
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTestHome, type TestHome } from "../support/engine-client.ts";
import { json, tama } from "./cli.ts";
import { catalogChecksum, catalogOf, parseRegistry } from "../../modules/registry/registry.ts";

let home: TestHome;
let agentDir: string;
beforeEach(() => {
  home = makeTestHome("tama-install-");
  rmSync(path.dirname(home.registry), { recursive: true, force: true });
  agentDir = path.join(home.dir, "omp-agent");
});
afterEach(() => home.cleanup());

const install = () => json<{ releaseId: string; registry: { action: string }; shellPath: string }>(tama(home, ["install", "--omp", "--agent-dir", agentDir, "--json"]));

describe("install and uninstall", () => {
  it("a second install keeps the registry's hooks and the same release; uninstall removes exactly what install wrote", async () => {
    const first = install();
    expect(first.registry.action).toBe("created");
    // the user's own edits and files that are not Tama's
    const registry = JSON.parse(readFileSync(home.registry, "utf8")) as { hooks: unknown[] };
    writeFileSync(home.registry, JSON.stringify({ ...registry, checksum: undefined, hooks: [...registry.hooks, { id: "mine", events: ["stop"], command: ["/bin/true"] }] }));
    const otherExtension = path.join(agentDir, "extensions", "someone-elses.js");
    writeFileSync(otherExtension, "export default function () {}\n");
    mkdirSync(path.join(home.home, "notes"), { recursive: true });
    writeFileSync(path.join(home.home, "notes", "keep.txt"), "mine");

    const second = install();
    expect(second.releaseId).toBe(first.releaseId);
    expect(second.registry.action).toBe("kept");
    expect(JSON.parse(readFileSync(home.registry, "utf8")).hooks.map((h: { id: string }) => h.id)).toContain("mine");
    expect(readlinkSync(path.join(home.home, "hooks-runtime", "current"))).toBe(path.join("releases", first.releaseId));

    const removed = json<{ removed: string[]; kept: string[] }>(tama(home, ["uninstall", "--omp", "--agent-dir", agentDir, "--json"]));
    expect(removed.removed.sort()).toEqual(
      [second.shellPath, path.join(home.home, "hooks-runtime"), path.join(home.home, "shared-hooks", "omp")].sort(),
    );
    expect(existsSync(otherExtension)).toBe(true);
    expect(existsSync(path.join(home.home, "notes", "keep.txt"))).toBe(true);
    expect(existsSync(home.registry)).toBe(true);
    expect(() => lstatSync(path.join(home.home, "hooks-runtime", "current"))).toThrow();

    const purged = json<{ removed: string[] }>(tama(home, ["uninstall", "--omp", "--agent-dir", agentDir, "--purge", "--json"]));
    expect(purged.removed).toContain(path.dirname(home.registry));
    expect(existsSync(home.registry)).toBe(false);
    expect(existsSync(path.join(home.home, "notes", "keep.txt"))).toBe(true);
  });

  it("a new release gives a built-in gate's entry this release's tools where it still holds an earlier default", async () => {
    install();
    const registry = JSON.parse(readFileSync(home.registry, "utf8")) as { release: { id: string }; hooks: { id: string; tools: unknown }[] };
    const gate = (r: typeof registry) => r.hooks.find((h) => h.id === "block-git-hook-bypass");
    expect(gate(registry)?.tools).toBe("any");
    // As an earlier release wrote it, and another gate narrowed by the person.
    const earlier = { ...registry, checksum: undefined, release: { id: "earlier" }, hooks: registry.hooks.map((h) => (h.id === "block-git-hook-bypass" ? { ...h, tools: "shell" } : h.id === "deny-writes-outside-repo" ? { ...h, tools: "write" } : h)) };
    // With its checksum, as install writes one: it must cover the widened entry.
    const parsed = parseRegistry(JSON.stringify(earlier), home.registry);
    if (!parsed.ok) throw new Error(parsed.error);
    writeFileSync(home.registry, JSON.stringify({ ...earlier, checksum: catalogChecksum(catalogOf(parsed.file)) }));
    expect(install().registry.action).toBe("release-updated");
    const after = JSON.parse(readFileSync(home.registry, "utf8")) as typeof registry;
    expect(gate(after)?.tools).toBe("any");
    expect(after.hooks.find((h) => h.id === "deny-writes-outside-repo")?.tools).toBe("write");
    // Read back as a valid registry, its checksum whole.
    const reread = parseRegistry(readFileSync(home.registry, "utf8"), home.registry);
    expect(reread.ok ? reread.file.checksum : reread.error).toBe(catalogChecksum(catalogOf(reread.ok ? reread.file : parsed.file)));
    expect(tama(home, ["hooks", "list", "--json"]).code).toBe(0);
  });
});
