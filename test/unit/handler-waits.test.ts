// The adapter times each handler from OMP's call to the settling of what it returned.
import { expect, it } from "vitest";
import { HandlerWaits } from "../../adapter/handler-waits.ts";

it("passes each handler's value on and counts its waits per event, a rejected one too", async () => {
  const waits = new HandlerWaits();
  const sync = waits.timed("input", (n: number) => n + 1);
  expect(sync(1)).toBe(2);
  let release: () => void = () => {};
  const slow = waits.timed("tool_call", () => new Promise<string>((resolve) => (release = () => resolve("done"))));
  const pending = slow();
  // Not yet settled: not yet a wait.
  expect(waits.summary().tool_call).toBeUndefined();
  await new Promise((resolve) => setTimeout(resolve, 20));
  release();
  expect(await pending).toBe("done");
  const failing = waits.timed("tool_call", () => Promise.reject(new Error("no")));
  await expect(failing()).rejects.toThrow("no");
  await Promise.resolve();
  const view = waits.summary();
  expect(view.input?.count).toBe(1);
  expect(view.tool_call?.count).toBe(2);
  expect(view.tool_call?.maxMs).toBeGreaterThanOrEqual(15);
});
