// The part of OMP's extension API (18.2.3, src/extensibility/extensions/types.ts)
// that the shell and adapter use, typed structurally so that neither needs OMP's
// sources to build. Only what is read or called is declared.

export interface OmpSessionManager {
  getSessionId(): string;
  getSessionFile(): string | undefined;
}

export interface OmpUi {
  notify(message: string, type?: "info" | "warning" | "error"): void;
  setStatus(key: string, text: string | undefined): void;
  confirm?(title: string, message: string): Promise<boolean>;
}

export interface OmpContext {
  ui: OmpUi;
  mode?: string;
  hasUI: boolean;
  cwd: string;
  sessionManager: OmpSessionManager;
  /** Abort the current agent operation (a prompt being prepared is dropped). */
  abort?(): void;
}

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

/** The `pi` object OMP hands an extension's factory. */
export interface OmpApi {
  on(event: string, handler: OmpHandler): void;
  registerTool(tool: OmpTool): void;
  registerCommand(name: string, command: OmpCommand): void;
  /** OMP's bundled zod, for tool parameter schemas. */
  zod?: unknown;
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
