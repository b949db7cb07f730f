// `tama contracts status --omp`: which OMP sessions started before the installed
// contracts file was last written. Their system prompt holds the old block (OMP reads
// APPEND_SYSTEM.md once, at session start); Tama's splice gives their requests the
// new one.
import { closeSync, readdirSync, readSync, statSync } from "node:fs";
import path from "node:path";
import { contractsFilePath, contractsPathOptionsFromEnv } from "./contracts.ts";
import * as z from "../protocol/schema.ts";
import { openRegularFile } from "../system/regular-file.ts";

const SessionHeader = z.looseObject({ type: z.literal("session"), id: z.string(), timestamp: z.string(), cwd: z.string() });

export interface SessionContracts {
  session: string;
  file: string;
  cwd: string;
  startedAt: string;
  lastActiveAt: string;
  contractsFile: string;
  contractsWrittenAt: string | null;
  /** The session started before its contracts file was last written. */
  stale: boolean;
}

/** A session file's header: the `session` entry among its first lines (OMP 18.2.3 writes a `title` entry first). */
function readHeader(file: string): z.infer<typeof SessionHeader> | undefined {
  const { fd } = openRegularFile(file);
  try {
    const buffer = Buffer.alloc(64 * 1024);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    for (const line of buffer.subarray(0, read).toString("utf8").split("\n").slice(0, 8)) {
      try {
        const parsed = SessionHeader.safeParse(JSON.parse(line));
        if (parsed.success) return parsed.data;
      } catch {
        // not JSON (a torn line): not the header
      }
    }
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Every session file under `<agentDir>/sessions/<dir per cwd>/`. */
function sessionFiles(agentDir: string): string[] {
  const root = path.join(agentDir, "sessions");
  let dirs: string[];
  try {
    dirs = readdirSync(root);
  } catch {
    return [];
  }
  return dirs.flatMap((dir) => {
    try {
      return readdirSync(path.join(root, dir))
        .filter((name) => name.endsWith(".jsonl"))
        .map((name) => path.join(root, dir, name));
    } catch {
      return [];
    }
  });
}

export function contractsStatus(agentDir: string, home: string): SessionContracts[] {
  const out: SessionContracts[] = [];
  for (const file of sessionFiles(agentDir)) {
    const header = readHeader(file);
    if (!header) continue;
    const contractsFile = contractsFilePath(header.cwd, home, contractsPathOptionsFromEnv());
    let written: Date | null = null;
    try {
      written = statSync(contractsFile).mtime;
    } catch {
      written = null;
    }
    const started = new Date(header.timestamp);
    out.push({
      session: header.id,
      file,
      cwd: header.cwd,
      startedAt: started.toISOString(),
      lastActiveAt: statSync(file).mtime.toISOString(),
      contractsFile,
      contractsWrittenAt: written?.toISOString() ?? null,
      stale: written !== null && started.getTime() < written.getTime(),
    });
  }
  return out.sort((a, b) => (a.startedAt < b.startedAt ? 1 : -1));
}
