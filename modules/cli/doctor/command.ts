// `tama doctor [--json]`: what is installed and whether it works, each check ok,
// warning or error with the fix in words. Exits 0 when no check is an error.
import path from "node:path";
import { parseArgs } from "node:util";
import type { Check } from "./check.ts";
import { runDoctor } from "./index.ts";
import { tamaPaths } from "../../system/paths.ts";
import { CliError, printJson, table } from "../io.ts";

export async function doctorCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      json: { type: "boolean" },
      "agent-dir": { type: "string" },
      profile: { type: "string" },
      "timeout-ms": { type: "string" },
      project: { type: "string" },
    },
  });
  const timeout = values["timeout-ms"] ?? "10000";
  if (!/^\d+$/.test(timeout)) throw new CliError("--timeout-ms takes a whole number of milliseconds (how long the engine may take to answer)", 2);
  const checks = await runDoctor({
    paths: tamaPaths(),
    env: process.env,
    engineTimeoutMs: Number(timeout),
    ...(values["agent-dir"] ? { agentDir: values["agent-dir"] } : {}),
    ...(values.profile ? { profile: values.profile } : {}),
    ...(values.project ? { project: path.resolve(values.project) } : {}),
  });
  const errors = checks.filter((c) => c.status === "error").length;
  const warnings = checks.filter((c) => c.status === "warning").length;
  if (values.json) printJson({ ok: errors === 0, errors, warnings, checks });
  else process.stdout.write(`${render(checks)}\n${summary(errors, warnings)}\n`);
  return errors === 0 ? 0 : 1;
}

function render(checks: Check[]): string {
  // The fix sits on its own row under the check it belongs to, in the same column.
  return table(checks.flatMap((c) => [[c.status, c.id, c.summary], ...(c.fix ? [["", "", `→ ${c.fix}`]] : [])]));
}

function summary(errors: number, warnings: number): string {
  if (errors === 0 && warnings === 0) return "All checks passed.";
  const counts = [errors > 0 ? `${errors} error${errors === 1 ? "" : "s"}` : "", warnings > 0 ? `${warnings} warning${warnings === 1 ? "" : "s"}` : ""].filter(Boolean);
  return `${counts.join(", ")}.${errors > 0 ? " Fix the errors first: Tama does not work as installed until they are gone." : ""}`;
}
