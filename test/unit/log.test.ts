// Tama's logs never throw and never hang: a log that cannot be opened or written is
// given up with one warning, and closing it returns at once.
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { fileLogger } from "../../modules/system/log.ts";

const root = mkdtempSync(path.join(os.tmpdir(), "tama-log-"));

function exercise(logsDir: string): string[] {
  const warnings: string[] = [];
  const logger = fileLogger(logsDir, "adapter", (message) => warnings.push(message));
  for (let i = 0; i < 200; i++) logger.info({ event: "pre_tool_use", count: i }, "dispatch answered");
  logger.flush();
  logger.close();
  logger.warn({ note: "after close" }, "still no throw");
  logger.close();
  return warnings;
}

describe("fileLogger", () => {
  it("writes JSON lines, in order, gathered into few writes", () => {
    const dir = path.join(root, "ok");
    expect(exercise(dir)).toEqual([]);
    const lines = readFileSync(path.join(dir, "adapter.log"), "utf8").trim().split("\n");
    expect(lines).toHaveLength(201);
    expect(JSON.parse(lines[199] as string)).toMatchObject({ count: 199, msg: "dispatch answered" });
  });

  it("a logs path that is a file (ENOTDIR, EEXIST): one warning", () => {
    const file = path.join(root, "a-file");
    writeFileSync(file, "");
    const warnings = exercise(file);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^Tama cannot write its log .*a-file\/adapter\.log: .*; it goes on without that log/);
  });

  it("a directory where the log should be (EISDIR): one warning", () => {
    const dir = path.join(root, "isdir");
    mkdirSync(path.join(dir, "adapter.log"), { recursive: true });
    expect(exercise(dir)).toEqual([expect.stringMatching(/EISDIR/)]);
  });

  it("a full disk (ENOSPC, /dev/full): one warning, close does not hang", () => {
    const dir = path.join(root, "full");
    mkdirSync(dir);
    symlinkSync("/dev/full", path.join(dir, "adapter.log"));
    expect(exercise(dir)).toEqual([expect.stringMatching(/ENOSPC/)]);
  });

  it("a missing directory that cannot be made: one warning", () => {
    const dir = path.join(root, "dangling");
    symlinkSync("/proc/self/no-such-dir/logs", dir);
    expect(exercise(dir)).toHaveLength(1);
  });
});
