// OMP tool calls as a pre_tool_use gate is handed them (Claude's fields, and OMP's own
// under `omp`): the shared shape unit tests build write and bash calls with.
import path from "node:path";
import type { HookInput } from "../../modules/protocol/hook-input.ts";

/** A write tool call of `file` (relative to `project` or absolute) made in `project`. */
export const writeCallIn =
  (project: string) =>
  (file: string): HookInput => ({
    hook_event_name: "PreToolUse",
    cwd: project,
    tool_name: "Write",
    tool_input: { file_path: path.resolve(project, file), content: "x" },
    omp: { tool_name: "write", tool_input: { path: file }, target: path.resolve(project, file) },
  });

/** A bash tool call of `command` made in `cwd`. */
export const bashCallIn =
  (cwd: string) =>
  (command: string): HookInput => ({ hook_event_name: "PreToolUse", cwd, tool_name: "Bash", tool_input: { command }, omp: { tool_name: "bash", tool_input: { command } } });
