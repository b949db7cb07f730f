// Which adapter the shell may adopt: only the one `tama install` installed. Its
// bytes must hash to the digest the installed release records, the release record,
// the adapter and its shared chunk must be files nobody but this user (or root) can
// change (StrictModes), and the copy the shell imports is written from the very bytes
// that were checked. The shell calls this before every import — at OMP's start, for
// the slash command, for session control and for the model's reload tool alike —
// so a file the agent wrote is never adopted. (installed-adapter.ts makes the copy.)
import { createHash } from "node:crypto";
import path from "node:path";
import { readReleaseRecord } from "../install/release-record.ts";
import { trustProblem } from "../system/strict-modes.ts";
import { readRegularFileBytes } from "../system/regular-file.ts";

/** Who asked for the adoption: OMP starting, a person (slash command, `tama sessions reload`), or the model (the tool). */
export type AdoptionOrigin = "start" | "command" | "session-control" | "tool" | (string & {});

export type AdapterCheck = { ok: true; digest: string } | { ok: false; digest: string; reason: string };

const sha256 = (bytes: Buffer): string => createHash("sha256").update(bytes).digest("hex");

function howToFix(origin: AdoptionOrigin): string {
  return origin === "tool"
    ? "the reload tool adopts only the release `tama install` installed; ask the person to run `tama install --omp` from their own terminal"
    : "run `tama install --omp` from your own terminal to install an adapter";
}

/**
 * Whether `bytes`, read from `adapterFile` under `home`, may be adopted. The digest
 * comes back either way, for the refusal message and the shell's comparison.
 */
export function checkInstalledAdapter(home: string, adapterFile: string, bytes: Buffer, origin: AdoptionOrigin): AdapterCheck {
  const digest = sha256(bytes);
  const refuse = (reason: string): AdapterCheck => ({ ok: false, digest, reason: `${reason}; ${howToFix(origin)}` });
  const adapterUntrusted = trustProblem(adapterFile);
  if (adapterUntrusted !== undefined) return refuse(adapterUntrusted);
  const release = readReleaseRecord(path.join(home, "hooks-runtime", "current"));
  if (!release.ok) return refuse(`the installed release cannot vouch for an adapter: ${release.error}`);
  if (release.record.adapterDigest !== digest) {
    return refuse(
      `${adapterFile} (${digest}) is not the adapter release ${release.record.releaseId} installed (${release.record.adapterDigest}), so it is not adopted`,
    );
  }
  if (release.record.vendor !== null) {
    const chunk = path.join(path.dirname(adapterFile), "loaded", release.record.vendor);
    const chunkUntrusted = trustProblem(chunk);
    if (chunkUntrusted !== undefined) return refuse(chunkUntrusted);
    let chunkBytes: Buffer;
    try {
      chunkBytes = readRegularFileBytes(chunk);
    } catch (error) {
      return refuse(`the adapter's shared chunk ${chunk} cannot be read: ${(error as Error).message}`);
    }
    const named = /^vendor-([0-9a-f]{64})\.js$/.exec(release.record.vendor)?.[1];
    if (sha256(chunkBytes) !== named) return refuse(`${chunk} does not hold the bytes its name promises`);
  }
  return { ok: true, digest };
}
