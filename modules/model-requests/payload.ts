// What Tama does to a model request (OMP's before_provider_request), decided at once
// from the newest verdict: OMP sends the original payload when a handler outlasts its
// budget, so waiting on gates would let prose through exactly when they are slow.
// The shape is read from the payload itself, not the provider's name: many providers
// speak the OpenAI wire formats, and the payload is what the server will parse.

export type PayloadShape = "openai-chat" | "openai-responses" | "anthropic-messages" | "no-tools" | "unknown";

/** The newest answer of the session's before_provider_request gates; none-yet before the first. */
export type RequestVerdict = "refuse" | "pass" | "none-yet";

export interface RequestDecision {
  payload: unknown;
  forced: boolean;
  shape: PayloadShape;
  /** For unknown shapes: a sentence the caller prints once per session and shape. */
  limitation?: string;
}

type Json = Record<string, unknown>;

/**
 * Chat completions: `messages` + `tools: [{type:"function", function:{name,…}}]`
 * (each tool's details under a key named by its type). Responses: `input` + flat
 * `tools: [{type:"function", name,…}]`. Anthropic Messages: `messages` + tools with
 * `name` and `input_schema` (server tools carry their own `type` instead). No
 * declared tools, or an empty list → no-tools. Anything else that declares tools,
 * including Bedrock's `toolConfig.tools` and Google's `config.tools` → unknown.
 */
export function payloadShape(payload: unknown): PayloadShape {
  if (!isRecord(payload)) return "unknown";
  const tools = payload.tools;
  if (tools === undefined || tools === null || isEmptyArray(tools)) {
    return hasNestedTools(payload) ? "unknown" : "no-tools";
  }
  if (!Array.isArray(tools) || !tools.every(isRecord)) return "unknown";
  const hasMessages = Array.isArray(payload.messages);
  if (hasMessages && tools.every(isChatTool)) return "openai-chat";
  if (hasInput(payload) && isResponsesToolList(tools)) return "openai-responses";
  if (hasMessages && tools.every(isAnthropicTool)) return "anthropic-messages";
  return "unknown";
}

/** Tool lists other wire formats keep below the top level. */
function hasNestedTools(payload: Json): boolean {
  return [payload.toolConfig, payload.config].some(
    (holder) => isRecord(holder) && Array.isArray(holder.tools) && holder.tools.length > 0,
  );
}

/** `{type:"function", function:{name}}`, or `{type:"custom", custom:{name}}`: details under the type's key. */
function isChatTool(tool: Json): boolean {
  const details = typeof tool.type === "string" ? tool[tool.type] : undefined;
  return isRecord(details) && typeof details.name === "string";
}

/** Flat function tools (`{type:"function", name}`), beside any built-in tools (`{type:"web_search"}`). */
function isResponsesToolList(tools: Json[]): boolean {
  const flatFunction = (tool: Json): boolean => tool.type === "function" && typeof tool.name === "string";
  return tools.every((tool) => typeof tool.type === "string" && !isChatTool(tool)) && tools.some(flatFunction);
}

function isAnthropicTool(tool: Json): boolean {
  if (typeof tool.name !== "string") return false;
  return isRecord(tool.input_schema) || (typeof tool.type === "string" && tool.type !== "function");
}

function hasInput(payload: Json): boolean {
  return Array.isArray(payload.input) || typeof payload.input === "string";
}

/** Shapes where `tool_choice: "required"` makes the model call a tool instead of writing prose. */
const FORCEABLE: ReadonlySet<PayloadShape> = new Set(["openai-chat", "openai-responses"]);

/**
 * A new payload with `tool_choice: "required"` for the OpenAI function-tool shapes;
 * the payload itself for every other shape. Anthropic is never forced: models that
 * reject tool_choice any/tool would fail before doing any work. A request that says
 * `tool_choice: "none"` (the harness wants prose, e.g. a summary) or already forces
 * a tool is left as it is.
 */
export function forceToolUse(payload: unknown, shape: PayloadShape): unknown {
  if (!FORCEABLE.has(shape) || !isRecord(payload)) return payload;
  if (payload.tool_choice === "none" || alreadyForced(payload.tool_choice)) return payload;
  return { ...payload, tool_choice: "required" };
}

/** `"required"`, or an object naming the one tool to call (stronger than "required", so kept). */
function alreadyForced(choice: unknown): boolean {
  return choice === "required" || (isRecord(choice) && (choice.type === "function" || choice.type === "custom"));
}

/** Refusal, and the time before the first verdict, force the supported shapes; a pass leaves the request alone. */
export function decideRequest(payload: unknown, verdict: RequestVerdict): RequestDecision {
  const shape = payloadShape(payload);
  const limitation = shape === "unknown" ? unknownShapeLimitation(payload) : undefined;
  const next = verdict === "pass" ? payload : forceToolUse(payload, shape);
  const forced = FORCEABLE.has(shape) && verdict !== "pass" && isForced(next);
  return limitation === undefined ? { payload: next, forced, shape } : { payload: next, forced, shape, limitation };
}

function isForced(payload: unknown): boolean {
  return isRecord(payload) && alreadyForced(payload.tool_choice);
}

/** Names the payload's top-level keys (never their values: a payload holds the conversation). */
function unknownShapeLimitation(payload: unknown): string {
  const keys = isRecord(payload) ? Object.keys(payload).sort().join(", ") : typeof payload;
  return (
    `Tama cannot require a tool call on this model request (top-level keys: ${keys}): it is not an OpenAI ` +
    "chat-completions or responses request with function tools, so it is sent unchanged and only the " +
    "completion gate checks the turn"
  );
}

function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isEmptyArray(value: unknown): boolean {
  return Array.isArray(value) && value.length === 0;
}

/**
 * The decided payload written into the object OMP handed over, which is then returned
 * as well. OMP 17.3.5's OpenAI chat-completions provider ignores what a
 * `before_provider_request` handler returns and sends the object it passed in (it
 * neither awaits the hook nor reads its answer), so only a change made in that object,
 * before the handler's first await, reaches the request; newer releases send what is
 * returned, which is then the same object.
 */
export function decidedInPlace(original: unknown, decided: unknown): unknown {
  if (decided === original || !isRecord(original) || !isRecord(decided)) return decided;
  const next = { ...decided };
  for (const key of Object.keys(original)) delete original[key];
  Object.assign(original, next);
  return original;
}
