// Listing a directory of records: a missing directory holds none; any other failure
// to read it is reported by name, never taken for an empty directory.
import { readdirSync } from "node:fs";

export function recordNames(dir: string, unread: { file: string; error: string }[]): string[] {
  try {
    return readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") unread.push({ file: dir, error: (error as Error).message });
    return [];
  }
}
