// The registry is re-read at every dispatch unless its settled stat key is the one
// the loaded text was read under: each change that matters gives another key.
import { chmodSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { setImmediate as nextTurn } from "node:timers/promises";
import { afterEach, beforeEach, expect, it } from "vitest";
import { RegistryStore } from "../../modules/registry/registry.ts";
import { RACY_MS } from "../../modules/system/stat-key.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "tama-registry-refresh-"));
  chmodSync(dir, 0o755);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const registry = (id: string): string =>
  JSON.stringify({ schema: 1, release: null, hooks: [{ id, events: ["stop"], command: ["/bin/true"] }] });
const settle = () => new Promise((resolve) => setTimeout(resolve, RACY_MS + 100));

it("keeps a settled registry loaded while its key holds, and reads again a new mode, new bytes or a file put in its place", async () => {
  const file = path.join(dir, "registry.json");
  writeFileSync(file, registry("aaaa"), { mode: 0o644 });
  await settle();
  const store = new RegistryStore(file);
  const first = await store.refresh();
  expect(first.ok && first.changed).toBe(true);
  await nextTurn();
  const again = await store.refresh();
  expect(again.ok && !again.changed).toBe(true);
  expect(again.generation?.number).toBe(1);

  // A mode others can write moves the key: the trust check runs again and refuses it.
  chmodSync(file, 0o666);
  await nextTurn();
  const loose = await store.refresh();
  expect(loose.ok).toBe(false);
  expect(loose.ok ? "" : loose.error).toMatch(/not trusted/);
  chmodSync(file, 0o644);
  await nextTurn();
  expect((await store.refresh()).ok).toBe(true);

  // Same size, other bytes, read at once (unsettled) and again once settled.
  writeFileSync(file, registry("bbbb"));
  await nextTurn();
  const rewritten = await store.refresh();
  expect(rewritten.ok && rewritten.generation?.file.hooks.map((h) => h.id)).toEqual(["bbbb"]);
  await settle();
  await nextTurn();
  expect((await store.refresh()).generation?.file.hooks.map((h) => h.id)).toEqual(["bbbb"]);

  // Another file renamed into its place is another inode.
  const other = path.join(dir, "other.json");
  writeFileSync(other, registry("cccc"), { mode: 0o644 });
  await settle();
  renameSync(other, file);
  await nextTurn();
  expect((await store.refresh()).generation?.file.hooks.map((h) => h.id)).toEqual(["cccc"]);
});
