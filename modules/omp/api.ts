// The part of OMP's extension API (18.2.3, src/extensibility/extensions/types.ts)
// that the shell and adapter use, typed structurally so that neither needs OMP's
// sources to build. Only what is read or called is declared.

export interface OmpSessionManager {
  getSessionId(): string;
  getSessionFile(): string | undefined;
  /** The session file's header; a subagent's names its parent's session file. */
  getHeader?(): { parentSession?: string } | null;
  /** The session's entries; a resumed session's file already holds messages. */
  getEntries?(): { type: string }[];
  /** The active branch's newest entry, and any entry by id: the session as OMP holds it in memory. */
  getLeafEntry?(): object | undefined;
  getEntry?(id: string): object | undefined;
}

export interface OmpUi {
  notify(message: string, type?: "info" | "warning" | "error"): void;
  setStatus(key: string, text: string | undefined): void;
  confirm?(title: string, message: string): Promise<boolean>;
  /** A choice only the person answers (interactive mode): the chosen label, or undefined when dismissed. */
  select?(title: string, options: string[], dialogOptions?: { initialIndex?: number }): Promise<string | undefined>;
}

export interface OmpContext {
  ui: OmpUi;
  mode?: string;
  hasUI: boolean;
  cwd: string;
  sessionManager: OmpSessionManager;
  /** Abort the current agent operation (a prompt being prepared is dropped). */
  abort?(): void;
  /** The session's background jobs (bash `async`, subagents): those still running. */
  getAsyncJobSnapshot?(): { running: readonly unknown[] } | null;
}

/** What the shell forwards without reading: any event, any answer. */
export type OmpHandler = (event: unknown, ctx: OmpContext) => unknown;

export interface OmpCommand {
  description?: string;
  handler: (args: string, ctx: OmpContext) => Promise<void>;
}

export interface OmpToolResult {
  content: { type: "text"; text: string }[];
  details?: unknown;
  isError?: boolean;
}

export interface OmpTool {
  name: string;
  label: string;
  description: string;
  parameters: unknown;
  loadMode?: "essential" | "discoverable";
  execute(toolCallId: string, params: unknown, signal: AbortSignal | undefined, onUpdate: unknown, ctx: OmpContext): Promise<OmpToolResult>;
}

/** The `pi` object OMP hands an extension's factory. The shell registers untyped forwarders. */
export interface OmpApi {
  on(event: string, handler: OmpHandler): void;
  registerTool(tool: OmpTool): void;
  registerCommand(name: string, command: OmpCommand): void;
  /** OMP's bundled zod, for tool parameter schemas. */
  zod?: unknown;
  /** The session's thinking level (`off`, `minimal` … `max`, `inherit`). */
  getThinkingLevel?(): string | undefined;
  /** A message into the session; `triggerTurn` starts a run when it is idle. */
  sendMessage?(message: { customType: string; content: string; display: boolean }, options?: { triggerTurn?: boolean; deliverAs?: "steer" | "followUp" | "nextTurn" }): void;
}

// ---- events the adapter reads (fields it uses) ----------------------------

export interface ToolCallEvent {
  type: "tool_call";
  toolCallId: string;
  toolName: string;
  input: Record<string, unknown>;
}

export interface ToolResultEvent {
  type: "tool_result";
  toolCallId: string;
  toolName: string;
  input: Record<string, unknown>;
  content: { type: string; text?: string }[];
  isError: boolean;
  details?: unknown;
}

export interface SessionStopEvent {
  type: "session_stop";
  session_id: string;
  session_file?: string;
  stop_hook_active: boolean;
  /** The turn's last assistant message (OMP's AgentMessage: content blocks). */
  last_assistant_message?: { content?: unknown };
}

export interface InputEvent {
  type: "input";
  text: string;
  source: string;
}

export interface BeforeAgentStartEvent {
  type: "before_agent_start";
  prompt: string;
}

export interface BeforeProviderRequestEvent {
  type: "before_provider_request";
  payload: unknown;
}

/** A lifecycle event; the shell marks the ones it runs for an adoption in place. */
export interface SessionLifecycleEvent {
  type: string;
  /** Set by the shell (see isAdoption in the adapter contract). */
  adoption?: boolean;
}

/** A person's `!cmd` (TUI) or an RPC host's bash command, before OMP runs it. */
export interface UserBashEvent {
  type: "user_bash";
  command: string;
  excludeFromContext: boolean;
  cwd: string;
}

/** OMP's BashResult: returned in place of running the command. */
export interface OmpBashResult {
  output: string;
  exitCode: number | undefined;
  cancelled: boolean;
  truncated: boolean;
  totalLines: number;
  totalBytes: number;
  outputLines: number;
  outputBytes: number;
}

export type UserBashEventResult = { result: OmpBashResult } | undefined;
/** A refusal, or (OMP's `input`) the arguments the call runs with instead. */
export type ToolCallEventResult = { block: true; reason: string } | { input: Record<string, unknown> } | undefined;
export type ToolResultEventResult = { content: { type: string; text?: string }[] } | undefined;
export type InputEventResult = { handled: true } | { text: string } | undefined;
export type BeforeAgentStartEventResult = { message: { customType: string; content: string; display: boolean } } | undefined;

/** OMP's session_switch: /new, /resume, a fork. */
export interface SessionSwitchEvent {
  type: "session_switch";
  reason: "new" | "resume" | "fork";
  adoption?: boolean;
}
export type SessionStopEventResult = { decision: "block"; reason: string } | undefined;

/** A run settled. `willContinue`: OMP goes on by itself (a retry, a continuation, a background job that will wake it). */
export interface AgentEndEvent {
  type: "agent_end";
  /** OMP's AgentMessages; an assistant's `stopReason` says how its answer ended ("stop", "error", "length", "toolUse", …). */
  messages: readonly { role?: string; content?: unknown; stopReason?: string }[];
  willContinue?: boolean;
}

/**
 * Each event the adapter handles with what OMP sends and what it accepts back, as in
 * OMP's own `on(event: "tool_call", handler: ExtensionHandler<ToolCallEvent, ToolCallEventResult>)`.
 */
export interface OmpEvents {
  session_start: { event: SessionLifecycleEvent; result: undefined };
  session_switch: { event: SessionSwitchEvent; result: undefined };
  session_compact: { event: SessionLifecycleEvent; result: undefined };
  session_branch: { event: SessionLifecycleEvent; result: undefined };
  session_shutdown: { event: SessionLifecycleEvent; result: undefined };
  tool_call: { event: ToolCallEvent; result: ToolCallEventResult };
  tool_result: { event: ToolResultEvent; result: ToolResultEventResult };
  input: { event: InputEvent; result: InputEventResult };
  before_agent_start: { event: BeforeAgentStartEvent; result: BeforeAgentStartEventResult };
  before_provider_request: { event: BeforeProviderRequestEvent; result: unknown };
  session_stop: { event: SessionStopEvent; result: SessionStopEventResult };
  agent_end: { event: AgentEndEvent; result: undefined };
  user_bash: { event: UserBashEvent; result: UserBashEventResult };
}

export type OmpEventName = keyof OmpEvents;

export type OmpEventHandler<K extends OmpEventName> = (
  event: OmpEvents[K]["event"],
  ctx: OmpContext,
) => OmpEvents[K]["result"] | Promise<OmpEvents[K]["result"]> | void | Promise<void>;

/** The text of an OMP message's content (its text blocks, joined), as Claude Code gives a Stop hook. */
export function messageText(message: { content?: unknown } | undefined): string | undefined {
  const content = message?.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  const texts = content.flatMap((block) =>
    block !== null && typeof block === "object" && (block as { type?: unknown }).type === "text" && typeof (block as { text?: unknown }).text === "string"
      ? [(block as { text: string }).text]
      : [],
  );
  return texts.length > 0 ? texts.join("\n") : undefined;
}
