// The built-in gates, by id. The registry names them with `builtin`; the engine runs
// them in-process, and `tama hook <id>` runs one alone.
import type { BuiltinGate } from "./types.ts";
import { blockDestructiveDeletes } from "./block-destructive-deletes.ts";
import { blockGitHookBypass } from "./block-git-hook-bypass.ts";
import { blockOpenTodos } from "./block-open-todos.ts";
import { blockPipeToShell } from "./block-pipe-to-shell.ts";
import { blockSudo } from "./block-sudo.ts";
import { blockTextOutsideToolCalls } from "./block-text-outside-tool-calls.ts";
import { denyWritesOutsideRepo } from "./deny-writes-outside-repo.ts";
import { selfProtection } from "./self-protection.ts";
import { protectBranches } from "./protect-branches.ts";
import { protectSecretFiles } from "./protect-secret-files.ts";
import { redactSecrets } from "./redact-secrets.ts";
import { repeatedCallLoop } from "./repeated-call-loop.ts";

const GATES: readonly BuiltinGate[] = [
  selfProtection,
  blockGitHookBypass,
  blockOpenTodos,
  blockTextOutsideToolCalls,
  denyWritesOutsideRepo,
  blockDestructiveDeletes,
  protectBranches,
  protectSecretFiles,
  redactSecrets,
  blockPipeToShell,
  blockSudo,
  repeatedCallLoop,
];

const BY_ID = new Map(GATES.map((gate) => [gate.id, gate]));

export function builtinGate(id: string): BuiltinGate | undefined {
  return BY_ID.get(id);
}

export function builtinGates(): readonly BuiltinGate[] {
  return GATES;
}
