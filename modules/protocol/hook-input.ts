// The third wire vocabulary: what every hook reads on stdin. Claude Code's hook input
// shape, so existing Claude Code hook scripts run unchanged; OMP's own call beside it.
import type { EventKind, OpenTodos, ShellKept } from "./engine.ts";

/** A Claude-Code-shaped hook input, as every hook (built-in or command) receives it. */
export type HookInput = {
  session_id?: string;
  hook_event_name: string;
  cwd: string;
  tool_name?: string;
  tool_input?: Record<string, unknown>;
  tool_response?: unknown;
  tool_use_id?: string;
  prompt?: string;
  stop_hook_active?: boolean;
  transcript_path?: string;
  /** OMP's own spelling of the call, beside Claude's. */
  omp?: {
    tool_name: string;
    tool_input: unknown;
    target?: string;
    origin?: "user";
    kind?: "shell" | "write" | "code" | "lookup" | "other";
    /** OMP's own result, `{content, isError}` (a result event only). */
    tool_response?: unknown;
    /** How many times in a row the session made this same call, this one included (a result event only). */
    call_repeats?: number;
    /** The session's own cwd, when the call runs elsewhere (bash's and debug's `cwd`; `cwd` above is the call's). */
    session_cwd?: string;
    /** A bash call: the functions, aliases and variables the session's earlier bash calls left in OMP's shell, which this call runs in. */
    shell_kept?: ShellKept;
  };
  /** OMP's: its session's open tasks as OMP holds them, on Stop and a model request. */
  open_todos?: OpenTodos;
  /** A move (an LSP `rename_file`): what lies below `tool_input.file_path` changes too. */
  moves?: boolean;
  /** A code-execution call: its code can write files no hook was shown. */
  unnamed_writes?: boolean;
  [key: string]: unknown;
};

/** Claude Code's name for each engine event (`hook_event_name`). */
export const HOOK_EVENT_NAMES: Readonly<Record<EventKind, string>> = {
  session_start: "SessionStart",
  user_prompt_submit: "UserPromptSubmit",
  pre_tool_use: "PreToolUse",
  post_tool_use: "PostToolUse",
  stop: "Stop",
  session_end: "SessionEnd",
  before_provider_request: "BeforeProviderRequest",
};
