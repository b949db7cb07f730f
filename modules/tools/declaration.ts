// The one tool declaration. Every matcher and built-in gate asks this module
// whether a tool call is a shell command or a file write; none keeps a list of its
// own (a list that held "Bash" alone once let every OMP shell call through unread).

/** Shell spellings across harnesses, lower-cased. */
const SHELL_NAMES = [
  "bash",
  "exec_command",
  "shell",
  "exec",
  "run_command",
  "run_package_script",
] as const;

/** Whole-file writes, anchored and multi edits, notebook and patch tools, lower-cased. */
const WRITE_NAMES = [
  // whole-file writes
  "write",
  "write_file",
  "create_file",
  // anchored, string and multi edits
  "edit",
  "multiedit",
  "multi_edit",
  "str_replace",
  "str_replace_editor",
  "str_replace_based_edit_tool",
  "ast_edit",
  "replace",
  // notebooks
  "notebookedit",
  "notebook_edit",
  "edit_notebook",
  // patches
  "apply_patch",
  "patch",
] as const;

const FUNCTION_PREFIX = "functions.";

function withPrefixes(names: readonly string[]): ReadonlySet<string> {
  return new Set(names.flatMap((name) => [name, FUNCTION_PREFIX + name]));
}

const SHELL = withPrefixes(SHELL_NAMES);
const WRITE = withPrefixes(WRITE_NAMES);

export type ToolKind = "shell" | "write" | "other";

/** The kind of a tool call, read from its name after lower-casing. */
export function toolKind(toolName: string): ToolKind {
  const name = toolName.toLowerCase();
  if (SHELL.has(name)) return "shell";
  if (WRITE.has(name)) return "write";
  return "other";
}

export function isShellTool(toolName: string): boolean {
  return toolKind(toolName) === "shell";
}

/** The shell command a call carries, whatever the harness called the field. */
export function shellCommandOf(toolInput: unknown): string | undefined {
  if (!toolInput || typeof toolInput !== "object") return undefined;
  const input = toolInput as Record<string, unknown>;
  for (const key of ["command", "cmd", "script"]) {
    const value = input[key];
    if (typeof value === "string") return value;
    if (Array.isArray(value) && value.every((part) => typeof part === "string")) return value.join(" ");
  }
  return undefined;
}
