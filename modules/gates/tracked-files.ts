// What git holds of a work tree's file, for gates that let through what the repository
// holds already: the index's entry compared with the file's bytes (git-index.ts), read by
// the repository's own object hash.
import path from "node:path";
import { lstatOf } from "../system/disk-moment.ts";
import { readRegularFileBytes } from "../system/regular-file.ts";
import { statKey } from "../system/stat-key.ts";
import { parseGitConfig } from "./git-config.ts";
import { commonDir, fileState, readGitIndex, repositoryAround } from "./git-index.ts";

/** Each repository's object hash, kept while its config's stat key holds. */
const formats = new Map<string, { key: string; format: "sha1" | "sha256" }>();

/** The hash a repository's objects are named by (its config's `extensions.objectFormat`). */
function objectFormat(gitDir: string): "sha1" | "sha256" {
  const file = path.join(commonDir(gitDir), "config");
  const key = statKey(file);
  const kept = formats.get(file);
  if (kept?.key === key) return kept.format;
  let format: "sha1" | "sha256" = "sha1";
  try {
    const entries = parseGitConfig(readRegularFileBytes(file, 256 * 1024).toString("utf8"));
    if (entries.filter((entry) => entry.key === "extensions.objectformat").at(-1)?.value?.toLowerCase() === "sha256") format = "sha256";
  } catch {
    // no config: git's default
  }
  if (formats.size >= 8) formats.delete(formats.keys().next().value as string);
  formats.set(file, { key, format });
  return format;
}

/**
 * How git's index holds `file` (absolute): with the bytes it has (`as-is`: what the
 * repository holds already), with other bytes (`tracked`: a path staged with bytes of
 * the agent's choosing, `git update-index --add --cacheinfo 100644,<id>,.env`, or a link,
 * whose reader reads where it leads), not at all, or `unknown` where the index cannot be
 * read (a split index, a format Tama does not read): then it may hold anything.
 */
export function trackState(file: string): "as-is" | "tracked" | "untracked" | "unknown" {
  const repo = repositoryAround(file);
  // Outside a repository git lists nothing.
  if (repo === undefined) return "untracked";
  const relative = path.relative(repo.root, file).split(path.sep).join("/");
  const index = readGitIndex(repo.gitDir, objectFormat(repo.gitDir));
  switch (fileState(index, repo.root, relative)) {
    case "unknown":
      return "unknown";
    case "missing":
    case "untracked":
      return "untracked";
    case "changed":
      return "tracked";
    case "staged":
      return lstatOf(file)?.isSymbolicLink() === true ? "tracked" : "as-is";
  }
}

/** Whether git tracks `file` (absolute) with the bytes it has: what the repository holds already (trackState). */
export const trackedAsIs = (file: string): boolean => trackState(file) === "as-is";
