// The engine's wire protocol: every frame that crosses `tama run-hook --serve`'s
// stdin or stdout is described here, and every inbound frame is validated here.
import * as z from "./schema.ts";

/** Largest frame the engine reads; a longer line is refused whole (and skipped). */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;
/**
 * The version of this vocabulary; a client refuses an engine whose ready frame names another.
 * 2: a started frame precedes a dispatch's first hook process.
 */
export const PROTOCOL_VERSION = 2;

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

const RequestId = z.union([z.string().check(z.minLength(1), z.maxLength(512)), z.int()]);
export type RequestId = z.infer<typeof RequestId>;

const Checksum = z.string().check(z.maxLength(128));

/** What a harness sends with an event. Known fields are typed; the rest pass through. */
const text = (max: number) => z.optional(z.string().check(z.maxLength(max)));
/** The text fields' length bounds, read by the schema and by the quick check below alike. */
const TEXT_MAX = {
  session_id: 512,
  cwd: 8192,
  tool_name: 256,
  tool_call_id: 512,
  transcript_path: 8192,
  prompt_id: 512,
  permission_mode: 64,
  source: 64,
  reason: 64,
  typed_line: 65_536,
  typed_into: 256,
} as const;
/** How many open tasks OpenTodos names (a refusal lists no more), and their text's bounds. */
export const OPEN_TODOS_NAMED = 8;
export const TODO_TEXT_MAX = { phase: 512, content: 2048 } as const;
/**
 * A session's open tasks as OMP holds its todo list in memory: how many, and the first
 * of them. The adapter reads them from OMP's session, never from the session file,
 * which the agent can rewrite (adapter/session-todos.ts).
 */
export const OpenTodos = z.strictObject({
  count: z.int().check(z.minimum(0)),
  named: z.array(
    z.strictObject({
      phase: z.string().check(z.maxLength(TODO_TEXT_MAX.phase)),
      content: z.string().check(z.maxLength(TODO_TEXT_MAX.content)),
      status: z.enum(["pending", "in_progress"]),
    }),
  ).check(z.maxLength(OPEN_TODOS_NAMED)),
});
export type OpenTodos = z.infer<typeof OpenTodos>;

/** How many names a kept shell holds, and its text's length (names and values). */
export function shellKeptSize(kept: { functions: Record<string, string>; aliases: Record<string, string>; vars: Record<string, string> }): { names: number; chars: number } {
  let names = 0;
  let chars = 0;
  for (const part of [kept.functions, kept.aliases, kept.vars]) {
    for (const [name, value] of Object.entries(part)) {
      names += 1;
      chars += name.length + value.length;
    }
  }
  return { names, chars };
}

/** Bounds on what OMP's persistent shell is said to keep between calls (shell_kept). */
export const SHELL_KEPT_MAX = { names: 4096, chars: 1024 * 1024 } as const;
const keptNames = z.record(z.string().check(z.maxLength(256)), z.string().check(z.maxLength(SHELL_KEPT_MAX.chars)));
/**
 * What a session's earlier bash calls left in OMP's shell, which is one process per
 * session: the functions they defined (name → body), their aliases and their shell
 * variables, as Tama read them. A later call is read with them (gates/shell-kept.ts).
 */
export const ShellKept = z.strictObject({ functions: keptNames, aliases: keptNames, vars: keptNames }).check(
  z.refine((kept) => shellKeptSize(kept).names <= SHELL_KEPT_MAX.names && shellKeptSize(kept).chars <= SHELL_KEPT_MAX.chars, {
    message: `more than ${SHELL_KEPT_MAX.names} names or ${SHELL_KEPT_MAX.chars} characters kept`,
  }),
);
export type ShellKept = z.infer<typeof ShellKept>;

/** Files kept per session whose conflict blocks a `read` registered (conflict_files). */
export const CONFLICT_FILES_MAX = 256;
/**
 * A write to `conflict://N` (or `*`) splices into a file an earlier `read` registered a
 * merge-conflict block of, in OMP's session memory: the files the session's reads
 * reported conflicts in, as the adapter saw them. The write is judged as a write to each.
 */
export const ConflictFiles = z.array(z.string().check(z.minLength(1), z.maxLength(TEXT_MAX.cwd))).check(z.maxLength(CONFLICT_FILES_MAX));

export const DispatchPayload = z.looseObject({
  session_id: text(TEXT_MAX.session_id),
  cwd: text(TEXT_MAX.cwd),
  tool_name: text(TEXT_MAX.tool_name),
  tool_input: z.optional(z.unknown()),
  tool_call_id: text(TEXT_MAX.tool_call_id),
  tool_response: z.optional(z.unknown()),
  is_error: z.optional(z.boolean()),
  /** A result's call: how many times in a row the session made it, this one included (the adapter counts). */
  call_repeats: z.optional(z.int().check(z.minimum(1))),
  prompt: z.optional(z.string()),
  stop_hook_active: z.optional(z.boolean()),
  transcript_path: text(TEXT_MAX.transcript_path),
  /** "user": a person's own command (OMP's user_bash), not the agent's tool call. */
  origin: z.optional(z.enum(["user"])),
  /** The fields of OMP's result details Claude's per-tool `tool_response` is built from. */
  tool_details: z.optional(z.unknown()),
  /** A written file's content before the call (null: there was none), for Write's `tool_response`. */
  original_file: z.optional(z.nullable(z.string())),
  /** How long the tool ran, hooks excluded. */
  duration_ms: z.optional(z.number()),
  /** Claude's: one id per user prompt, carried by that prompt's events. */
  prompt_id: text(TEXT_MAX.prompt_id),
  permission_mode: text(TEXT_MAX.permission_mode),
  /** Why a session started (`startup`, `resume`, `clear`, `compact`, `fork`) or ended (`other`, `clear`, …). */
  source: text(TEXT_MAX.source),
  reason: text(TEXT_MAX.reason),
  /** OMP's own todo list, on a turn end and a model request (absent: the gates read the transcript). */
  open_todos: z.optional(OpenTodos),
  /** A hub `send`: what earlier sends typed into the same process without ending the line (the adapter keeps it). */
  typed_line: text(TEXT_MAX.typed_line),
  /** …and the program that process was started as, when this OMP started it (a shell's history rules apply to shells). */
  typed_into: text(TEXT_MAX.typed_into),
  /** A bash call: what the session's earlier bash calls left in OMP's shell (the adapter keeps it). */
  shell_kept: z.optional(ShellKept),
  /** A write to a `conflict://` address: the files the session's reads registered conflict blocks in (the adapter keeps them). */
  conflict_files: z.optional(ConflictFiles),
});
export type DispatchPayload = z.infer<typeof DispatchPayload>;

const isBoolean = (value: unknown): boolean => typeof value === "boolean";
/** Each typed field that is not text, as a check DispatchPayload's own agrees with. */
const OTHER_FIELDS: Readonly<Record<string, (value: unknown) => boolean>> = {
  is_error: isBoolean,
  call_repeats: (value) => Number.isSafeInteger(value) && (value as number) >= 1,
  prompt: (value) => typeof value === "string",
  stop_hook_active: isBoolean,
  origin: (value) => value === "user",
  original_file: (value) => value === null || typeof value === "string",
  duration_ms: (value) => Number.isFinite(value),
  // A few small records at most: the schema itself is the check.
  open_todos: (value) => OpenTodos.safeParse(value).success,
  // Bounded by the adapter; a session's definitions, read once a call.
  shell_kept: (value) => ShellKept.safeParse(value).success,
  conflict_files: (value) => ConflictFiles.safeParse(value).success,
};
/** The fields any value passes (`unknown` in the schema). */
export const UNTYPED_PAYLOAD_FIELDS: readonly string[] = ["tool_input", "tool_response", "tool_details"];
/** Every field the quick check reads, for the test that holds it to the schema's fields. */
export const QUICK_PAYLOAD_FIELDS: readonly string[] = [...Object.keys(TEXT_MAX), ...Object.keys(OTHER_FIELDS)];

/**
 * Whether DispatchPayload accepts `payload`, told by its typed fields alone. An event
 * decided in OMP's process must be one the engine would read (local-decision.ts);
 * there, between OMP's own work, the schema's run costs about 0.1 ms an event, this a
 * few µs. Never true where the schema refuses (a test holds it to that); a payload
 * it is unsure of is the engine's to read.
 */
export function plainDispatchPayload(payload: Record<string, unknown>): payload is DispatchPayload {
  for (const [field, max] of Object.entries(TEXT_MAX)) {
    const value = payload[field];
    if (value !== undefined && (typeof value !== "string" || value.length > max)) return false;
  }
  for (const [field, check] of Object.entries(OTHER_FIELDS)) {
    const value = payload[field];
    if (value !== undefined && !check(value)) return false;
  }
  return true;
}

const StatusRequest = z.strictObject({
  id: RequestId,
  op: z.literal("status"),
  knownCatalogChecksum: z.optional(Checksum),
});
const ReloadRequest = z.strictObject({
  id: RequestId,
  op: z.literal("reload"),
  knownCatalogChecksum: z.optional(Checksum),
});
export const Decision = z.enum(["pass", "block", "ask"]);
export type Decision = z.infer<typeof Decision>;

/**
 * What OMP's process already went on with for this event: decided there by the same
 * gates (engine/local-decision.ts), or let go on because no hook runs for it. Nobody
 * waits for such a dispatch's answer: one that agrees and says nothing new is not
 * written at all (engine/agreement.ts).
 */
export const DecidedHere = z.strictObject({
  decision: Decision,
  reason: z.optional(z.string()),
  additionalContext: z.optional(z.string()),
});
export type DecidedHere = z.infer<typeof DecidedHere>;

const DispatchRequest = z.strictObject({
  id: RequestId,
  op: z.literal("dispatch"),
  event: z.string().check(
    z.maxLength(256),
    z.refine((name) => parseEvent(name) !== undefined, {
      message: `unknown event: expected one of ${EVENT_KINDS.filter((k) => k !== "pre_tool_use" && k !== "post_tool_use").join(", ")}, pre_tool_use:<tool> or post_tool_use:<tool>`,
    }),
  ),
  payload: DispatchPayload,
  knownCatalogChecksum: z.optional(Checksum),
  /**
   * The key of the `hookedEvents` the client holds for this payload's cwd: an answer
   * whose own has that key names it by key alone (DispatchResult.hookedEventsKey).
   */
  knownHookedEvents: z.optional(Checksum),
  decidedHere: z.optional(DecidedHere),
});
const CancelRequest = z.strictObject({
  id: RequestId,
  op: z.literal("cancel"),
  /** The id of the dispatch to cancel. */
  target: RequestId,
  knownCatalogChecksum: z.optional(Checksum),
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
  reason: z.optional(z.string()),
  /** The target file of an edit with several, when the call had more than one. */
  target: z.optional(z.string()),
  ms: z.number(),
  startMs: z.number(),
  exitCode: z.optional(z.nullable(z.number())),
  signal: z.optional(z.nullable(z.string())),
  processGroup: z.optional(z.number()),
  additionalContext: z.optional(z.string()),
  /** A post_tool_use gate's replacement for the result the model reads (redact-secrets). */
  updatedToolResponse: z.optional(z.unknown()),
  /** A pre-tool hook's rewrite of the call (Claude's hookSpecificOutput.updatedInput). */
  updatedInput: z.optional(z.record(z.string(), z.unknown())),
  /** continue:false: the call or turn goes on as it is, then the run ends. */
  stopReason: z.optional(z.string()),
  builtin: z.optional(z.boolean()),
  /** Fed to a process started before its event. */
  prestarted: z.optional(z.boolean()),
  /** Why a pre-started process was there and not used: the hook was started cold. */
  prestartNote: z.optional(z.string()),
});
export type HookResult = z.infer<typeof HookResult>;

/** A project whose hooks a dispatch did not run: never trusted, or changed since it was trusted. */
export const HeldProject = z.object({
  project: z.string(),
  trust: z.enum(["untrusted", "changed"]),
  /** The held hooks' ids. */
  hooks: z.array(z.string()),
  /** The files that differ from the trust record (when changed). */
  changes: z.array(z.string()),
  /** What the person runs to trust the project at its content now. */
  command: z.string(),
});
export type HeldProject = z.infer<typeof HeldProject>;

/** What the person is told about a held project, in every harness: which hooks, why, and the command that trusts them. */
export function heldNotice(held: HeldProject): string {
  const why = held.trust === "changed" ? `changed since it was trusted (${held.changes.join(", ")}); its tool calls are refused until then` : "not trusted yet";
  return `Tama holds ${held.hooks.length} hook(s) of ${held.project} (${held.hooks.join(", ")}): the project is ${why}. To run them, from your own terminal: ${held.command}`;
}

/** A hook source that does not load: none of its hooks ran, the other sources did. */
export const BrokenSource = z.object({ source: z.string(), file: z.string(), error: z.string() });
export type BrokenSource = z.infer<typeof BrokenSource>;

/**
 * The event kinds any hook of this dispatch's sources runs for (in its cwd), and the
 * files those sources were read from with their stat keys (modules/system/stat-key.ts)
 * taken before the read. While every key still holds, an event of another kind runs
 * no hook and can give no verdict: a caller may let it go on without its answer.
 */
/**
 * The hooks of the event kinds OMP's process may decide itself (engine/local-decision.ts):
 * every hook that runs for the kind is a memoryless built-in gate. The entries are the
 * registry's (the reader checks them with the registry's own schema).
 */
export const LocalHooks = z.object({
  /** The engine's build (system/build-id.ts): a plan is for an adapter running the same gate code. */
  build: z.string(),
  generation: z.number(),
  releaseId: z.nullable(z.string()),
  byEvent: z.record(z.string(), z.array(z.unknown())),
  /** The registry's tool declaration (how a call's tool reads), as the engine shapes hook inputs by it. */
  toolKinds: z.optional(z.unknown()),
  /** What the gates read beside their input, as the engine hands it to them. */
  registry: z.string(),
  hookFiles: z.array(z.string()),
});
export type LocalHooks = z.infer<typeof LocalHooks>;

export const HookedEvents = z.object({
  events: z.array(EventKind),
  files: z.array(z.tuple([z.string(), z.string()])),
  local: z.optional(LocalHooks),
});
export type HookedEvents = z.infer<typeof HookedEvents>;

export const DispatchResult = z.object({
  event: z.string(),
  sessionId: z.nullable(z.string()),
  generation: z.number(),
  releaseId: z.nullable(z.string()),
  decision: Decision,
  reason: z.optional(z.string()),
  /** Hooks that could not give a verdict and passed by their fail mode: never a passing verdict. */
  failedOpen: z.array(z.object({ hook: z.string(), reason: z.string() })),
  results: z.array(HookResult),
  additionalContext: z.optional(z.string()),
  /** The result the model should read instead of the tool's own (the last gate's that replaced it). */
  updatedToolResponse: z.optional(z.unknown()),
  /** The call as the hooks rewrote it (the last rewrite wins), in the hooks' (Claude's) field names. */
  updatedInput: z.optional(z.record(z.string(), z.unknown())),
  /** A hook answered continue:false: end the run after this call (or at once, on stop). */
  stopReason: z.optional(z.string()),
  cancelled: z.optional(z.boolean()),
  /**
   * On a dispatch whose hooks did not all answer (codes dispatch-ended and
   * hooks-cancelled): the failMode-closed hooks that owed it a verdict and gave none
   * (ended before answering, or never started). Empty when only open hooks did.
   */
  unansweredClosed: z.optional(z.array(z.string())),
  /** The session's project, when its hooks were held. */
  held: z.optional(HeldProject),
  brokenSources: z.optional(z.array(BrokenSource)),
  /** Left out when the request's `knownHookedEvents` is already its key. */
  hookedEvents: z.optional(HookedEvents),
  /** A digest of `hookedEvents`' JSON: equal keys, equal content, from any engine. */
  hookedEventsKey: z.optional(z.string()),
});
export type DispatchResult = z.infer<typeof DispatchResult>;

export const AbandonedHook = z.object({
  hook: z.string(),
  event: z.string(),
  processGroup: z.nullable(z.number()),
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

/**
 * Why an answer is ok:false, for programs: the `error` beside it is the sentence for
 * people and may be reworded; a code is not. A code is only added, never renamed.
 */
export const ENGINE_ERROR_CODES = [
  /** The line is not JSON. */
  "frame-not-json",
  /** The line is longer than MAX_FRAME_BYTES; it was skipped unread. */
  "frame-too-large",
  /** The input ended inside a line: frames end with LF. */
  "frame-unterminated",
  /** JSON, but not a request: not an object, no usable id, no op, a bad field. */
  "invalid-frame",
  /** An op the engine does not have. */
  "unknown-op",
  /** A dispatch under an id still in flight. */
  "duplicate-id",
  /** A dispatch of an event the engine does not know. */
  "unknown-event",
  /** The registry cannot be read, parsed or trusted; no hook was run. */
  "registry-unusable",
  /** A cancel whose target is not in flight. */
  "not-in-flight",
  /** The harness's own signal (cancel, the call's result, turn end, closed input) ended the dispatch. */
  "dispatch-ended",
  /** Hooks were ended before they answered (a newer turn event superseded them). */
  "hooks-cancelled",
  /** A fault of the engine itself. */
  "internal",
] as const;
export const EngineErrorCode = z.enum(ENGINE_ERROR_CODES);
export type EngineErrorCode = z.infer<typeof EngineErrorCode>;

/** The stages a dispatch passes through, in order (the spec's names). */
export const STAGES = [
  "received",
  "runtimeLocked",
  "registryRefreshed",
  "threadStarted",
  "sessionStateRead",
  "hooksEnded",
  "answered",
] as const;
export const Stage = z.enum(STAGES);
export type Stage = z.infer<typeof Stage>;

/** A hook a live dispatch of this engine runs now. */
export const DispatchedHook = z.object({
  session: z.nullable(z.string()),
  event: z.string(),
  hook: z.string(),
  dispatchId: RequestId,
  processGroup: z.nullable(z.number()),
  runningForMs: z.number(),
});
/** A hook an engine that is gone left running, from its record. */
export const LeftRunningHook = z.object({
  session: z.nullable(z.string()),
  event: z.string(),
  hook: z.string(),
  processGroup: z.nullable(z.number()),
  runningForMs: z.number(),
  corePid: z.number(),
});
export const UnreadRecord = z.object({ file: z.string(), error: z.string() });
/** A hook process started before its event, waiting on stdin for it. */
export const PrestartedHook = z.object({
  session: z.string(),
  event: z.string(),
  hook: z.string(),
  processGroup: z.nullable(z.number()),
  waitingForMs: z.number(),
  rssKb: z.nullable(z.number()),
});
/** The bounds on pre-started processes (per session, in all) and what is held now. */
export const PrestartBounds = z.object({
  mode: z.enum(["opt-in", "all", "off"]),
  perSession: z.number(),
  total: z.number(),
  held: z.number(),
  /** Offered and not started yet: they start one at a time. */
  queued: z.optional(z.number()),
  rssKb: z.number(),
});
export const RunningHooks = z.object({
  dispatched: z.array(DispatchedHook),
  running: z.array(LeftRunningHook),
  recordsUnread: z.array(UnreadRecord),
  abandoned: z.array(Abandonment),
  prestarted: z.optional(z.array(PrestartedHook)),
  prestart: z.optional(PrestartBounds),
});
export type RunningHooks = z.infer<typeof RunningHooks>;

export const StageTiming = z.object({ atMs: z.number(), tookMs: z.number() });
export type StageTiming = z.infer<typeof StageTiming>;
export const RunningDispatch = z.object({
  id: RequestId,
  event: z.string(),
  session: z.nullable(z.string()),
  stage: Stage,
  inStageForMs: z.number(),
});
export const FinishedDispatch = z.object({
  id: RequestId,
  stages: z.partialRecord(Stage, StageTiming),
  slowestStage: z.nullable(Stage),
  totalMs: z.number(),
});
export type FinishedDispatch = z.infer<typeof FinishedDispatch>;
export const DispatchStages = z.object({
  running: z.array(RunningDispatch),
  lastByEvent: z.record(z.string(), FinishedDispatch),
});
export type DispatchStages = z.infer<typeof DispatchStages>;

/** A status answer's result (also copied into its state). */
export const StatusResult = z.object({ runningHooks: RunningHooks, dispatchStages: DispatchStages });
export type StatusResult = z.infer<typeof StatusResult>;

export const EngineState = z.object({
  processId: z.number(),
  generation: z.number(),
  loadedReleaseId: z.nullable(z.string()),
  catalogChecksum: z.nullable(z.string()),
  registeredHookCount: z.number(),
  reloadCount: z.number(),
  lastReloadAtMs: z.nullable(z.number()),
  lastReloadError: z.nullable(z.string()),
  coreReleaseId: z.nullable(z.string()),
  coreReplacedByRelease: z.boolean(),
  registryPath: z.string(),
  protocolVersion: z.number(),
  /** Tool calls the self-protection gate refused in this engine process. */
  selfProtectionRefusals: z.optional(z.number()),
  /** Project hooks held across the projects this engine served (count for a footer), and broken sources. */
  heldProjectHooks: z.optional(z.object({ count: z.number(), projects: z.array(HeldProject), broken: z.array(BrokenSource) })),
  runningHooks: z.optional(RunningHooks),
  dispatchStages: z.optional(DispatchStages),
});
export type EngineState = z.infer<typeof EngineState>;

/** An answer frame without its state: what a client reads once it validated an equal state before. */
export const AnswerEnvelope = z.object({
  id: z.nullable(RequestId),
  ok: z.boolean(),
  result: z.optional(z.unknown()),
  error: z.optional(z.string()),
  /**
   * Beside every error: the stable code programs branch on. A code this reader does
   * not know (a newer engine added it) reads as internal, so the answer is kept.
   */
  code: z.optional(z.catch(EngineErrorCode, "internal")),
  catalog: z.optional(z.unknown()),
});

export type AnswerEnvelope = z.infer<typeof AnswerEnvelope>;

const KNOWN_CODES: ReadonlySet<string> = new Set(ENGINE_ERROR_CODES);
const isRequestId = (value: unknown): boolean =>
  (typeof value === "string" && value.length >= 1 && value.length <= 512) || Number.isSafeInteger(value);

/**
 * What AnswerEnvelope reads from `raw`, told without running it; undefined when unsure
 * (the schema then reads it, and names what is wrong). OMP's process reads a few
 * answers a turn between its own work, where the schema's run costs about 0.1 ms and
 * this a few µs. A test holds it to the schema: it gives what the schema gives, or nothing.
 */
export function plainAnswerEnvelope(raw: unknown): AnswerEnvelope | undefined {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return undefined;
  const { id, ok, result, error, code, catalog } = raw as Record<string, unknown>;
  if (!(id === null || isRequestId(id)) || typeof ok !== "boolean") return undefined;
  if (error !== undefined && typeof error !== "string") return undefined;
  const envelope: AnswerEnvelope = { id: id as RequestId | null, ok };
  if (result !== undefined) envelope.result = result;
  if (error !== undefined) envelope.error = error;
  // As the schema's catch: any code this reader does not know reads as internal.
  if (code !== undefined) envelope.code = typeof code === "string" && KNOWN_CODES.has(code) ? (code as EngineErrorCode) : "internal";
  if (catalog !== undefined) envelope.catalog = catalog;
  return envelope;
}

/**
 * Written once per dispatch, before its first hook process starts (cold or pre-started).
 * A request an engine died holding without one ran nothing outside the engine, so a
 * client may ask the next engine instead; after one, a hook may have acted.
 */
export const StartedFrame = z.strictObject({ type: z.literal("started"), id: RequestId });
export type StartedFrame = z.infer<typeof StartedFrame>;


/** An answer frame, as a client reads it. */
export const Answer = z.extend(AnswerEnvelope, { state: EngineState });
export type Answer = z.infer<typeof Answer>;

/**
 * The first thing read of a ready frame: its version, before the rest is trusted to
 * have this version's shape (an engine speaking another may describe its state otherwise).
 */
export const ReadyHeader = z.object({ type: z.literal("ready"), protocolVersion: z.number() });

export const ReadyFrame = z.object({
  type: z.literal("ready"),
  protocolVersion: z.number(),
  state: EngineState,
});
export type ReadyFrame = z.infer<typeof ReadyFrame>;
