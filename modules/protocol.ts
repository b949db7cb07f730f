// The engine's wire protocol: every frame that crosses `tama run-hook --serve`'s
// stdin or stdout is described here, and every inbound frame is validated here.
import { z } from "zod";

/** Largest frame the engine reads; a longer line is refused whole (and skipped). */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;
export const PROTOCOL_VERSION = 1;

export const EVENT_KINDS = [
  "session_start",
  "user_prompt_submit",
  "pre_tool_use",
  "post_tool_use",
  "stop",
  "before_provider_request",
  "session_end",
] as const;
export const EventKind = z.enum(EVENT_KINDS);
export type EventKind = z.infer<typeof EventKind>;

const TOOL_EVENT = /^(pre_tool_use|post_tool_use):([A-Za-z0-9_.\-:]{1,200})$/;

export interface ParsedEvent {
  /** The event as sent, e.g. `pre_tool_use:bash`. */
  name: string;
  kind: EventKind;
  /** The tool of a tool event, as the harness spells it. */
  tool?: string;
}

/** Parse an event name; undefined when it is none of the events the engine knows. */
export function parseEvent(name: string): ParsedEvent | undefined {
  const tool = TOOL_EVENT.exec(name);
  if (tool) return { name, kind: tool[1] as EventKind, tool: tool[2] };
  const plain = EventKind.safeParse(name);
  if (plain.success && plain.data !== "pre_tool_use" && plain.data !== "post_tool_use") {
    return { name, kind: plain.data };
  }
  return undefined;
}

export function isToolEvent(kind: EventKind): boolean {
  return kind === "pre_tool_use" || kind === "post_tool_use";
}

const RequestId = z.union([z.string().min(1).max(512), z.number().int()]);
export type RequestId = z.infer<typeof RequestId>;

const Checksum = z.string().max(128);

/** What a harness sends with an event. Known fields are typed; the rest pass through. */
export const DispatchPayload = z.looseObject({
  session_id: z.string().max(512).optional(),
  cwd: z.string().max(8192).optional(),
  tool_name: z.string().max(256).optional(),
  tool_input: z.unknown().optional(),
  tool_call_id: z.string().max(512).optional(),
  tool_response: z.unknown().optional(),
  is_error: z.boolean().optional(),
  prompt: z.string().optional(),
  stop_hook_active: z.boolean().optional(),
  transcript_path: z.string().max(8192).optional(),
});
export type DispatchPayload = z.infer<typeof DispatchPayload>;

const StatusRequest = z.strictObject({
  id: RequestId,
  op: z.literal("status"),
  knownCatalogChecksum: Checksum.optional(),
});
const ReloadRequest = z.strictObject({
  id: RequestId,
  op: z.literal("reload"),
  knownCatalogChecksum: Checksum.optional(),
});
const DispatchRequest = z.strictObject({
  id: RequestId,
  op: z.literal("dispatch"),
  event: z.string().max(256).refine((name) => parseEvent(name) !== undefined, {
    message: `unknown event: expected one of ${EVENT_KINDS.filter((k) => k !== "pre_tool_use" && k !== "post_tool_use").join(", ")}, pre_tool_use:<tool> or post_tool_use:<tool>`,
  }),
  payload: DispatchPayload,
  knownCatalogChecksum: Checksum.optional(),
});
const CancelRequest = z.strictObject({
  id: RequestId,
  op: z.literal("cancel"),
  /** The id of the dispatch to cancel. */
  target: RequestId,
  knownCatalogChecksum: Checksum.optional(),
});

export const Request = z.discriminatedUnion("op", [StatusRequest, ReloadRequest, DispatchRequest, CancelRequest]);
export type Request = z.infer<typeof Request>;
export type DispatchRequest = z.infer<typeof DispatchRequest>;
export const REQUEST_OPS = ["status", "reload", "dispatch", "cancel"] as const;

/** How one hook's run ended, as reported in a dispatch's results. */
export const HookOutcome = z.enum([
  "pass",
  "block",
  "ask",
  "failed-open",
  "failed-closed",
  "cancelled",
]);
export type HookOutcome = z.infer<typeof HookOutcome>;

export const HookResult = z.object({
  hook: z.string(),
  outcome: HookOutcome,
  reason: z.string().optional(),
  /** The target file of an edit with several, when the call had more than one. */
  target: z.string().optional(),
  ms: z.number(),
  startMs: z.number(),
  exitCode: z.number().nullable().optional(),
  signal: z.string().nullable().optional(),
  processGroup: z.number().optional(),
  additionalContext: z.string().optional(),
  builtin: z.boolean().optional(),
});
export type HookResult = z.infer<typeof HookResult>;

export const Decision = z.enum(["pass", "block", "ask"]);
export type Decision = z.infer<typeof Decision>;

export const DispatchResult = z.object({
  event: z.string(),
  sessionId: z.string().nullable(),
  generation: z.number(),
  releaseId: z.string().nullable(),
  decision: Decision,
  reason: z.string().optional(),
  /** Hooks that could not give a verdict and passed by their fail mode: never a passing verdict. */
  failedOpen: z.array(z.object({ hook: z.string(), reason: z.string() })),
  results: z.array(HookResult),
  additionalContext: z.string().optional(),
  cancelled: z.boolean().optional(),
});
export type DispatchResult = z.infer<typeof DispatchResult>;

export const RunningHook = z.object({
  session: z.string().nullable(),
  event: z.string(),
  hook: z.string(),
  dispatchId: z.union([z.string(), z.number()]).optional(),
  processGroup: z.number().nullable(),
  runningForMs: z.number(),
  corePid: z.number().optional(),
});
export type RunningHook = z.infer<typeof RunningHook>;

export const AbandonedHook = z.object({
  hook: z.string(),
  event: z.string(),
  processGroup: z.number().nullable(),
  ranForMs: z.number(),
});
export const Abandonment = z.object({
  session: z.string(),
  reason: z.string(),
  abandonedAtMs: z.number(),
  corePid: z.number(),
  hooks: z.array(AbandonedHook),
  text: z.string(),
});
export type Abandonment = z.infer<typeof Abandonment>;

export const EngineState = z.object({
  processId: z.number(),
  generation: z.number(),
  loadedReleaseId: z.string().nullable(),
  catalogChecksum: z.string().nullable(),
  registeredHookCount: z.number(),
  reloadCount: z.number(),
  lastReloadAtMs: z.number().nullable(),
  lastReloadError: z.string().nullable(),
  coreReleaseId: z.string().nullable(),
  coreReplacedByRelease: z.boolean(),
  registryPath: z.string(),
  protocolVersion: z.number(),
  runningHooks: z.unknown().optional(),
  dispatchStages: z.unknown().optional(),
});
export type EngineState = z.infer<typeof EngineState>;

/** An answer frame, as a client reads it. */
export const Answer = z.object({
  id: RequestId.nullable(),
  ok: z.boolean(),
  result: z.unknown().optional(),
  error: z.string().optional(),
  state: EngineState,
  catalog: z.unknown().optional(),
});
export type Answer = z.infer<typeof Answer>;

export const ReadyFrame = z.object({
  type: z.literal("ready"),
  protocolVersion: z.number(),
  state: EngineState,
});
export type ReadyFrame = z.infer<typeof ReadyFrame>;

/** Human words for a zod failure: the path and what was wrong, first issues only. */
export function describeZodError(error: z.ZodError, root = "frame", limit = 3): string {
  return error.issues
    .slice(0, limit)
    .map((issue) => {
      const where = issue.path.length > 0 ? issue.path.join(".") : root;
      return `${where}: ${issue.message}`;
    })
    .join("; ");
}
