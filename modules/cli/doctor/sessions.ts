// The session-control dir (0700, the user's own) and the live OMP sessions whose
// records name an adapter older than the installed one. Records are read
// defensively: they are written by session control, which may not be installed.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import * as z from "../../protocol/schema.ts";
import { processAlive, processStartTicks } from "../../system/process-groups.ts";

import { error, ok, short, warning, type Check } from "./check.ts";
import { describeSchemaError } from "../../protocol/schema.ts";

export function checkSessionsDir(dir: string): Check {
  let stat;
  try {
    stat = statSync(dir);
  } catch {
    return warning("sessions-dir", `${dir} does not exist`, "run `tama install --omp` (it creates it 0700); a session creates it too");
  }
  if (!stat.isDirectory()) return error("sessions-dir", `${dir} is not a directory`, `move it away and run \`tama install --omp\``);
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) {
    return error("sessions-dir", `${dir} is owned by uid ${stat.uid}, not you (${uid}): another user could reach your sessions' control sockets`, `chown ${uid} ${dir}`);
  }
  const mode = stat.mode & 0o777;
  if (mode !== 0o700) {
    return error("sessions-dir", `${dir} has mode 0${mode.toString(8)}, not 0700: others could reach your sessions' control sockets`, `chmod 700 ${dir}`);
  }
  return ok("sessions-dir", `${dir} (0700, yours)`);
}

// Only the fields the doctor reads (the record also holds a control key, never shown).
const SessionRecord = z.looseObject({
  ompPid: z.int().check(z.positive()),
  ompStartTicks: z.optional(z.number()),
  /** null while the session has no adapter loaded. */
  adapterDigest: z.nullable(z.string().check(z.minLength(1))),
  session: z.optional(z.string()),
});

const RECORD = /^session\.(.+)\.json$/;

export function checkLiveSessions(dir: string, installedDigest: string | undefined): Check[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => RECORD.test(n)).sort();
  } catch {
    names = [];
  }
  const checks: Check[] = [];
  let live = 0;
  let current = 0;
  for (const name of names) {
    const file = path.join(dir, name);
    let record: z.infer<typeof SessionRecord>;
    try {
      const parsed = SessionRecord.safeParse(JSON.parse(readFileSync(file, "utf8")));
      if (!parsed.success) throw new Error(describeSchemaError(parsed.error, "the record"));
      record = parsed.data;
    } catch (e) {
      checks.push(warning(`session:${name}`, `cannot read the session record ${file}: ${(e as Error).message}`, "if no OMP session uses it, remove it"));
      continue;
    }
    // A record left by a session that ended is not a live session.
    if (!processAlive(record.ompPid)) continue;
    // A pid the kernel gave to another process since is not the session either.
    if (record.ompStartTicks !== undefined && processStartTicks(record.ompPid) !== record.ompStartTicks) continue;
    live += 1;
    const session = record.session ?? RECORD.exec(name)?.[1] ?? name;
    if (record.adapterDigest === null) {
      checks.push(
        warning(`session:${session}`, `session ${session} (OMP pid ${record.ompPid}) has no Tama adapter loaded`, `run /tama_reload_hook_runtime in that session; if it fails, its message says why`),
      );
      continue;
    }
    if (installedDigest === undefined || record.adapterDigest === installedDigest) {
      current += 1;
      continue;
    }
    checks.push(
      warning(
        `session:${session}`,
        `session ${session} (OMP pid ${record.ompPid}) runs adapter ${short(record.adapterDigest)}, not the installed ${short(installedDigest)}`,
        `run /tama_reload_hook_runtime in that session (or tama sessions reload --session ${session})`,
      ),
    );
  }
  if (live === 0) checks.push(ok("sessions", "no live sessions"));
  else if (current > 0) checks.push(ok("sessions", `${current} live session${current === 1 ? "" : "s"} run${current === 1 ? "s" : ""} the installed adapter`));
  return checks;
}
