// The one tool declaration. Every matcher and built-in gate asks this module
// whether a tool call is a shell command, a file write or code execution; none keeps
// a list of its own (a list that held "Bash" alone once let every OMP shell call
// through unread). A registry may declare the kinds of tools this list does not know
// (MCP tools, other extensions' tools) with `toolKinds`; those declarations are
// passed in here, so this stays the one place the question is answered.

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

/** Tools that run code in an interpreter: OMP's `eval` (Python and JavaScript kernels). */
const CODE_NAMES = ["eval", "code_execution", "execute_code", "run_code"] as const;

/**
 * OMP's `debug` runs a program only for these actions (launch and attach start or
 * take over a process; evaluate and custom_request run code in the debuggee or the
 * debugger's own command line, where gdb's `shell` and lldb's `platform shell` run
 * commands). Its other actions inspect or step a program one of these already
 * started, except a breakpoint with a condition: the debugger evaluates it (gdb's
 * `$_shell(…)`, a call of `system`) each time the line is reached.
 */
const DEBUG_CODE_ACTIONS = new Set(["launch", "attach", "evaluate", "custom_request"]);
/** The debug fields the debugger evaluates as expressions or commands. */
const DEBUG_EXPRESSIONS = ["expression", "condition", "hit_condition"] as const;

const FUNCTION_PREFIX = "functions.";

function withPrefixes(names: readonly string[]): ReadonlySet<string> {
  return new Set(names.flatMap((name) => [name, FUNCTION_PREFIX + name]));
}

const SHELL = withPrefixes(SHELL_NAMES);
const WRITE = withPrefixes(WRITE_NAMES);
const CODE = withPrefixes(CODE_NAMES);

export const TOOL_KINDS = ["shell", "write", "code", "other"] as const;
export type ToolKind = (typeof TOOL_KINDS)[number];

/** Kinds a registry declares for tools, by name (matched case-insensitively). */
export type DeclaredToolKinds = Readonly<Record<string, ToolKind>>;

function bareName(toolName: string): string {
  const name = toolName.toLowerCase();
  return name.startsWith(FUNCTION_PREFIX) ? name.slice(FUNCTION_PREFIX.length) : name;
}

function declaredKind(toolName: string, declared: DeclaredToolKinds | undefined): ToolKind | undefined {
  if (declared === undefined) return undefined;
  const wanted = bareName(toolName);
  for (const [name, kind] of Object.entries(declared)) {
    if (bareName(name) === wanted) return kind;
  }
  return undefined;
}

/**
 * The kind of a tool, read from its name after lower-casing. A registry's declared
 * kind counts only for a tool this list reads as "other": a declaration can make a
 * tool gated, never make a shell, write or code tool ungated.
 */
export function toolKind(toolName: string, declared?: DeclaredToolKinds): ToolKind {
  const name = toolName.toLowerCase();
  if (SHELL.has(name)) return "shell";
  if (WRITE.has(name)) return "write";
  if (CODE.has(name)) return "code";
  return declaredKind(name, declared) ?? "other";
}

/** The kind of one call: as toolKind, and `debug` is code execution only when it runs a program. */
export function callKind(toolName: string, toolInput: unknown, declared?: DeclaredToolKinds): ToolKind {
  const kind = toolKind(toolName, declared);
  if (kind !== "other" || bareName(toolName) !== "debug") return kind;
  const input = toolInput !== null && typeof toolInput === "object" ? (toolInput as Record<string, unknown>) : {};
  const action = input.action;
  if (typeof action === "string" && DEBUG_CODE_ACTIONS.has(action.toLowerCase())) return "code";
  return DEBUG_EXPRESSIONS.some((field) => typeof input[field] === "string" && (input[field] as string).trim().length > 0) ? "code" : "other";
}

export function isShellTool(toolName: string, declared?: DeclaredToolKinds): boolean {
  return toolKind(toolName, declared) === "shell";
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

/** A shell call's own environment (OMP's bash `env`), when it names one. */
export function shellEnvOf(toolInput: unknown): Record<string, string> | undefined {
  if (!toolInput || typeof toolInput !== "object") return undefined;
  const env = (toolInput as Record<string, unknown>).env;
  if (env === null || typeof env !== "object" || Array.isArray(env)) return undefined;
  const entries = Object.entries(env as Record<string, unknown>).filter((entry): entry is [string, string] => typeof entry[1] === "string");
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

export type CodeLanguage = "python" | "javascript" | "program" | "unknown";

/** What a code-execution call runs: its code and language, whatever the tool called the fields. */
export function codeOf(toolName: string, toolInput: unknown): { code: string; language: CodeLanguage } | undefined {
  if (!toolInput || typeof toolInput !== "object") return undefined;
  const input = toolInput as Record<string, unknown>;
  if (bareName(toolName) === "debug") {
    const expressions = [...DEBUG_EXPRESSIONS.map((field) => input[field]), ...stringsIn(input.arguments)].filter((p): p is string => typeof p === "string");
    if (expressions.length > 0) return { code: expressions.join("\n"), language: "unknown" };
    const parts = [input.program, ...(Array.isArray(input.args) ? input.args : [])].filter((p): p is string => typeof p === "string");
    return parts.length > 0 ? { code: parts.join(" "), language: "program" } : { code: JSON.stringify(input), language: "unknown" };
  }
  const code = [input.code, input.source, input.script, input.input].find((value): value is string => typeof value === "string");
  if (code === undefined) return undefined;
  return { code, language: languageOf(input.language ?? input.lang ?? input.kernel) };
}

/** Every string in a value (a custom DAP request's arguments), depth first, bounded. */
function stringsIn(value: unknown, depth = 0): string[] {
  if (typeof value === "string") return [value];
  if (depth > 8 || value === null || typeof value !== "object") return [];
  return Object.values(value as Record<string, unknown>).flatMap((item) => stringsIn(item, depth + 1));
}

function languageOf(value: unknown): CodeLanguage {
  if (typeof value !== "string") return "unknown";
  const lang = value.toLowerCase();
  if (["py", "python", "python3", "ipython"].includes(lang)) return "python";
  if (["js", "javascript", "ts", "typescript", "node", "bun"].includes(lang)) return "javascript";
  return "unknown";
}
