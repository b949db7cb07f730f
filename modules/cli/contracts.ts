// `tama contracts status --omp [--all] [--json]`.
import { statSync } from "node:fs";
import os from "node:os";
import { parseArgs } from "node:util";
import { contractsStatus } from "../model-requests/contracts-status.ts";
import { ompAgentDir } from "../install/install.ts";
import { CliError, printJson, table } from "./io.ts";

export function contractsCommand(argv: string[]): number {
  const [sub, ...rest] = argv;
  if (sub !== "status") throw new CliError(sub === undefined ? "name a command: status" : `unknown command ${JSON.stringify(sub)}: status`, 2);
  const { values } = parseArgs({
    args: rest,
    options: { omp: { type: "boolean" }, all: { type: "boolean" }, json: { type: "boolean" }, "agent-dir": { type: "string" }, profile: { type: "string" } },
  });
  if (!values.omp) throw new CliError("name the harness: tama contracts status --omp", 2);
  const agentDir = ompAgentDir({ ...(values["agent-dir"] ? { agentDir: values["agent-dir"] } : {}), ...(values.profile ? { profile: values.profile } : {}) });
  // A wrong --agent-dir or profile would otherwise read as "no stale sessions".
  let stat;
  try {
    stat = statSync(agentDir);
  } catch (error) {
    throw new CliError(`OMP's agent dir ${agentDir} cannot be read: ${(error as Error).message}. Name the one OMP uses with --agent-dir DIR or --profile NAME (OMP's default is ~/.omp/agent)`);
  }
  if (!stat.isDirectory()) throw new CliError(`OMP's agent dir ${agentDir} is not a directory. Name the one OMP uses with --agent-dir DIR or --profile NAME`);
  const sessions = contractsStatus(agentDir, process.env.HOME || os.homedir());
  const shown = values.all ? sessions : sessions.filter((s) => s.stale);
  if (values.json) {
    printJson({ agentDir, sessions: shown });
    return 0;
  }
  if (shown.length === 0) {
    process.stdout.write(values.all ? "No OMP sessions found.\n" : "Every OMP session started after its contracts file was last written.\n");
    return 0;
  }
  process.stdout.write(
    `${values.all ? "OMP sessions:" : "Sessions that started before their contracts file was last written (their system prompt has the old block; Tama gives their model requests the new one):"}\n${table([
      ["SESSION", "STARTED", "CONTRACTS WRITTEN", "FILE"],
      ...shown.map((s) => [s.session, s.startedAt, s.contractsWrittenAt ?? "-", s.contractsFile]),
    ])}\n`,
  );
  return 0;
}
