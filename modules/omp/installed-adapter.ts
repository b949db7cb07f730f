// Where the shell finds the installed adapter, and the immutable copy it imports:
// `loaded/<sha256>.js`, written from the very bytes that were hashed, so what runs is
// what was named. A raw absolute path, because Bun ignores a query on a file:// URL
// and serves the module it imported first.
import { createHash } from "node:crypto";
import os from "node:os";
import path from "node:path";
import { writeFileAtomic } from "../system/atomic-write.ts";
import { checkInstalledAdapter, type AdoptionOrigin } from "./adoption-check.ts";
import { readRegularFileBytes } from "../system/regular-file.ts";

/** `tama install` writes its TAMA_HOME in place of this text in the built shell. */
const TAMA_HOME_AT_INSTALL = "__TAMA_HOME_AT_INSTALL__";

/** TAMA_HOME as the shell sees it: OMP's environment first, then the install's, then ~/.tama. */
export function shellTamaHome(): string {
  const fromEnv = process.env.TAMA_HOME;
  if (fromEnv) return path.resolve(fromEnv);
  if (!TAMA_HOME_AT_INSTALL.startsWith("__")) {
    // The adapter, the engine and the hooks read TAMA_HOME: they follow the install too.
    process.env.TAMA_HOME = TAMA_HOME_AT_INSTALL;
    return TAMA_HOME_AT_INSTALL;
  }
  return path.join(os.homedir(), ".tama");
}

export function installedAdapterPath(home: string): string {
  return path.join(home, "shared-hooks", "omp", "adapter.js");
}

/**
 * Hash the installed adapter, refuse it unless it is the one the installed release
 * records (adoption-check.ts), and make sure its digest-named copy holds those bytes:
 * a copy that does not hash to its name is written again.
 */
export function addressedCopy(adapterFile: string, origin: AdoptionOrigin = "start"): { digest: string; copy: string } {
  const bytes = readRegularFileBytes(adapterFile);
  const home = path.resolve(path.dirname(adapterFile), "..", "..");
  const checked = checkInstalledAdapter(home, adapterFile, bytes, origin);
  if (!checked.ok) throw new Error(checked.reason);
  const digest = checked.digest;
  const copy = path.join(path.dirname(adapterFile), "loaded", `${digest}.js`);
  if (!copyHolds(copy, digest)) writeFileAtomic(copy, bytes, { createDir: 0o755 });
  return { digest, copy };
}

const sha256 = (bytes: Buffer): string => createHash("sha256").update(bytes).digest("hex");

/** Whether the digest-named copy holds its bytes (anything else there is written over). */
function copyHolds(copy: string, digest: string): boolean {
  try {
    return sha256(readRegularFileBytes(copy)) === digest;
  } catch {
    return false;
  }
}
