// Session control's wire protocol: the JSON messages a client (`tama sessions …`, a
// hook holding the capability) sends over the WebSocket on a session's Unix socket,
// and the answers. Every inbound message is size-bounded and validated here.
import { isUtf8 } from "node:buffer";
import * as z from "./schema.ts";
import { describeSchemaError } from "./schema.ts";
import { EngineState } from "./engine.ts";

export const SESSION_CONTROL_PROTOCOL_VERSION = 1;
/** A longer message is answered with `too-large`; the connection carries on. */
export const MAX_MESSAGE_BYTES = 64 * 1024;
/** A longer WebSocket frame is not even read: the connection is closed with 1009. */
export const MAX_FRAME_BYTES = 1024 * 1024;
export const SESSION_CONTROL_OPS = ["status", "reload-adapter"] as const;

export const MessageId = z.union([z.string().check(z.minLength(1), z.maxLength(128)), z.int().check(z.nonnegative())]);
export type MessageId = z.infer<typeof MessageId>;

export const ControlKey = z.string().check(z.regex(/^[0-9a-f]{64}$/, "a session control key is 64 lower-case hex digits"));
export const Sha256 = z.string().check(z.regex(/^[0-9a-f]{64}$/, "a SHA-256 digest is 64 lower-case hex digits"));

const StatusRequest = z.strictObject({ id: MessageId, op: z.literal("status"), key: ControlKey });
const ReloadAdapterRequest = z.strictObject({ id: MessageId, op: z.literal("reload-adapter"), key: ControlKey });
export const ControlRequest = z.discriminatedUnion("op", [StatusRequest, ReloadAdapterRequest]);
export type ControlRequest = z.infer<typeof ControlRequest>;
export type ControlOp = ControlRequest["op"];

export const ControlErrorCode = z.enum([
  "malformed-json",
  "invalid-message",
  "unknown-op",
  "too-large",
  "unauthorized",
  "reload-unsupported",
  "busy",
  "internal",
]);
export type ControlErrorCode = z.infer<typeof ControlErrorCode>;

/** The answer to reload-adapter: what is loaded now, in which process and session. */
export const ReloadReceipt = z.strictObject({
  ok: z.boolean(),
  changed: z.boolean(),
  ompPid: z.int(),
  session: z.string(),
  /** The digest of the adapter running the session now (its runtime's own, not the file's). */
  adapterDigest: z.nullable(Sha256),
  /** Where the spec names that digest: `runtime.adapterDigest` (optional only for adapters older than it). */
  runtime: z.optional(z.strictObject({ adapterDigest: z.nullable(Sha256) })),
  previousDigest: z.nullable(Sha256),
  adapterReloadSupported: z.boolean(),
  message: z.string(),
  /** Why the adoption failed; the previous adapter kept running. */
  error: z.optional(z.string()),
});
export type ReloadReceipt = z.infer<typeof ReloadReceipt>;

/** The adapter's runtime status (AdapterRuntime.status and the model gate), read loosely. */
export const AdapterStatus = z.looseObject({
  failMode: z.optional(z.string()),
  /** The engine's state, or the error that kept the adapter from reading it. */
  engine: z.optional(z.looseObject({ processId: z.optional(z.number()), state: z.optional(EngineState), error: z.optional(z.string()) })),
});
export type AdapterStatus = z.infer<typeof AdapterStatus>;

export const ControlStatus = z.strictObject({
  protocolVersion: z.int(),
  session: z.string(),
  ompPid: z.int(),
  adapterDigest: z.nullable(Sha256),
  adapterReloadSupported: z.boolean(),
  startedAtMs: z.number(),
  cwd: z.string(),
  /** serving, or retiring: this adapter is being replaced and answers only what it already took. */
  serving: z.enum(["serving", "retiring"]),
  adapter: AdapterStatus,
});
export type ControlStatus = z.infer<typeof ControlStatus>;

export const ControlError = z.strictObject({ code: ControlErrorCode, message: z.string() });
export type ControlError = z.infer<typeof ControlError>;

export const ControlResponse = z.union([
  z.strictObject({ id: MessageId, ok: z.literal(true), op: z.literal("status"), result: ControlStatus }),
  z.strictObject({ id: MessageId, ok: z.literal(true), op: z.literal("reload-adapter"), result: ReloadReceipt }),
  z.strictObject({ id: z.nullable(MessageId), ok: z.literal(false), error: ControlError }),
]);
export type ControlResponse = z.infer<typeof ControlResponse>;

export type ParsedMessage =
  | { ok: true; request: ControlRequest }
  | { ok: false; id: MessageId | null; error: ControlError };

const fail = (id: MessageId | null, code: ControlErrorCode, message: string): ParsedMessage => ({ ok: false, id, error: { code, message } });

/** Read one inbound message: its size, its JSON, its op, its shape, each refused by name. */
export function parseControlMessage(data: Buffer | string, isBinary: boolean): ParsedMessage {
  const bytes = typeof data === "string" ? Buffer.byteLength(data) : data.length;
  if (bytes > MAX_MESSAGE_BYTES) {
    return fail(null, "too-large", `the message is ${bytes} bytes; session control reads at most ${MAX_MESSAGE_BYTES}`);
  }
  if (isBinary) return fail(null, "invalid-message", "a binary frame is not a message: send JSON as text");
  // The server reads text frames unvalidated (ws would close the connection, 1007): refused here instead.
  if (typeof data !== "string" && !isUtf8(data)) return fail(null, "malformed-json", "the message is not UTF-8 text");
  let raw: unknown;
  try {
    raw = JSON.parse(typeof data === "string" ? data : data.toString("utf8"));
  } catch (error) {
    return fail(null, "malformed-json", `the message is not JSON: ${(error as Error).message}`);
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    return fail(null, "invalid-message", `the message must be a JSON object, not ${Array.isArray(raw) ? "an array" : raw === null ? "null" : typeof raw}`);
  }
  const fields = raw as Record<string, unknown>;
  const id = MessageId.safeParse(fields.id);
  const knownId = id.success ? id.data : null;
  if (typeof fields.op === "string" && !(SESSION_CONTROL_OPS as readonly string[]).includes(fields.op)) {
    return fail(knownId, "unknown-op", `unknown op ${JSON.stringify(fields.op.slice(0, 64))}: expected ${SESSION_CONTROL_OPS.join(" or ")}`);
  }
  const parsed = ControlRequest.safeParse(raw);
  if (!parsed.success) return fail(knownId, "invalid-message", describeSchemaError(parsed.error, "the message"));
  return { ok: true, request: parsed.data };
}
