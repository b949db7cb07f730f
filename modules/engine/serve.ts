// `tama run-hook --serve omp`: a ready frame, then one JSON request per LF-terminated
// line on stdin and one answer per line on stdout, written as requests finish.
import type { Readable, Writable } from "node:stream";
import { Engine } from "./engine.ts";
import { onlyAgrees } from "./agreement.ts";
import { BoundedLineSplitter } from "./line-splitter.ts";
import {
  MAX_FRAME_BYTES,
  parseEvent,
  PROTOCOL_VERSION,
  REQUEST_OPS,
  Request,
  type Answer,
  type EngineErrorCode,
  type RequestId,
  type StartedFrame,
} from "../protocol/engine.ts";
import { describeSchemaError } from "../protocol/schema.ts";

/** The id of a frame that failed validation, when it had a usable one. */
function salvageId(raw: unknown): RequestId | null {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return null;
  const id = (raw as Record<string, unknown>).id;
  if (typeof id === "string" && id.length > 0 && id.length <= 512) return id;
  if (typeof id === "number" && Number.isInteger(id)) return id;
  return null;
}

/** Why a frame is not a request: the code, and words naming the cause. */
export function frameError(raw: unknown): { code: EngineErrorCode; error: string } {
  const invalid = (error: string) => ({ code: "invalid-frame" as const, error });
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return invalid("frame is not a JSON object");
  const frame = raw as Record<string, unknown>;
  if (!("id" in frame)) return invalid("frame has no id");
  if (salvageId(frame) === null) return invalid("frame id must be a non-empty string (at most 512 characters) or an integer");
  if (typeof frame.op !== "string") return invalid(`frame has no op: expected one of ${REQUEST_OPS.join(", ")}`);
  if (!(REQUEST_OPS as readonly string[]).includes(frame.op)) {
    return { code: "unknown-op", error: `unknown op ${JSON.stringify(frame.op.slice(0, 64))}: expected one of ${REQUEST_OPS.join(", ")}` };
  }
  const parsed = Request.safeParse(raw);
  if (parsed.success) return invalid("");
  const error = `invalid ${frame.op} frame: ${describeSchemaError(parsed.error)}`;
  // An event name the engine does not know is its own code; the words stay the schema's.
  const unknownEvent = frame.op === "dispatch" && typeof frame.event === "string" && parseEvent(frame.event) === undefined;
  return unknownEvent ? { code: "unknown-event", error } : invalid(error);
}

export interface ServeOptions {
  engine: Engine;
  input: Readable;
  output: Writable;
}

/** Serve until the input closes; resolves when every answer owed has been written. */
export async function serve({ engine, input, output }: ServeOptions): Promise<void> {
  await engine.start();
  // A caller that died (a SIGKILLed OMP) leaves a broken pipe: a failed write must not
  // end the engine before it has ended its hooks, so it is dropped, never thrown.
  let outputBroken = false;
  output.on("error", () => {
    outputBroken = true;
  });
  const write = (frame: unknown): void => {
    if (outputBroken || !output.writable) return;
    try {
      output.write(`${JSON.stringify(frame)}\n`);
    } catch {
      outputBroken = true;
    }
  };
  write({ type: "ready", protocolVersion: PROTOCOL_VERSION, state: engine.state() });

  const pending = new Set<Promise<void>>();
  const refuse = (id: RequestId | null, code: EngineErrorCode, error: string): void => write(engine.answer(id, { ok: false, code, error }));

  const onLine = (line: string): void => {
    if (line.trim().length === 0) return;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (error) {
      refuse(null, "frame-not-json", `frame is not JSON: ${(error as Error).message}`);
      return;
    }
    const parsed = Request.safeParse(raw);
    if (!parsed.success) {
      const why = frameError(raw);
      refuse(salvageId(raw), why.code, why.error);
      return;
    }
    const request = parsed.data;
    if (request.op === "dispatch" && engine.isInFlight(request.id)) {
      refuse(request.id, "duplicate-id", `request id ${JSON.stringify(request.id)} is already in flight; each request needs its own id`);
      return;
    }
    const started = (): void => write({ type: "started", id: request.id } satisfies StartedFrame);
    const task = engine.handle(request, started).then(
      (answer) => {
        if (!onlyAgrees(request, answer)) write(answer);
      },
      (error: unknown) => refuse(request.id, "internal", `internal error: ${String(error)}`),
    );
    pending.add(task);
    void task.finally(() => pending.delete(task));
  };

  const splitter = new BoundedLineSplitter(MAX_FRAME_BYTES, onLine, (bytes) =>
    refuse(null, "frame-too-large", `frame exceeds ${MAX_FRAME_BYTES} bytes (read ${bytes} bytes without LF); it was skipped`),
  );

  await new Promise<void>((resolve) => {
    input.on("data", (chunk: Buffer) => splitter.push(chunk));
    input.on("end", resolve);
    input.on("close", resolve);
    input.on("error", () => resolve());
  });
  const rest = splitter.end();
  if (rest !== undefined && rest.trim().length > 0) refuse(salvageId(safeParse(rest)), "frame-unterminated", "frame does not end with LF");
  await engine.shutdown();
  await Promise.allSettled([...pending]);
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export type { Answer };
