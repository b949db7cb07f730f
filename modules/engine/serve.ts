// `tama run-hook --serve omp`: a ready frame, then one JSON request per LF-terminated
// line on stdin and one answer per line on stdout, written as requests finish.
import type { Readable, Writable } from "node:stream";
import { Engine } from "./engine.ts";
import { MAX_FRAME_BYTES, PROTOCOL_VERSION, REQUEST_OPS, Request, type Answer, type RequestId } from "../protocol/engine.ts";
import { describeSchemaError } from "../protocol/schema.ts";

/**
 * Splits a byte stream into LF-terminated lines with a bound: a line longer than
 * the bound is reported once and skipped up to its LF, never buffered whole
 * (node:readline has no bound, so a 1 GB line would be held in memory).
 */
export class BoundedLineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private skipping = false;

  constructor(
    private readonly limit: number,
    private readonly onLine: (line: string) => void,
    private readonly onOversize: (bytesSeen: number) => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const lf = chunk.indexOf(10, start);
      const end = lf === -1 ? chunk.length : lf;
      const piece = chunk.subarray(start, end);
      if (!this.skipping) {
        if (this.size + piece.length > this.limit) {
          this.skipping = true;
          this.onOversize(this.size + piece.length);
          this.parts = [];
          this.size = 0;
        } else if (piece.length > 0) {
          this.parts.push(piece);
          this.size += piece.length;
        }
      }
      if (lf === -1) return;
      if (this.skipping) {
        this.skipping = false;
      } else {
        const line = Buffer.concat(this.parts, this.size).toString("utf8");
        this.parts = [];
        this.size = 0;
        this.onLine(line);
      }
      start = lf + 1;
    }
  }

  /** Input ended: a last line without LF is not a frame (frames must end with LF). */
  end(): string | undefined {
    if (this.size === 0 || this.skipping) return undefined;
    const rest = Buffer.concat(this.parts, this.size).toString("utf8");
    this.parts = [];
    this.size = 0;
    return rest;
  }
}

/** The id of a frame that failed validation, when it had a usable one. */
function salvageId(raw: unknown): RequestId | null {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return null;
  const id = (raw as Record<string, unknown>).id;
  if (typeof id === "string" && id.length > 0 && id.length <= 512) return id;
  if (typeof id === "number" && Number.isInteger(id)) return id;
  return null;
}

/** Why a frame is not a request, in words naming the cause. */
export function frameError(raw: unknown): string {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return "frame is not a JSON object";
  const frame = raw as Record<string, unknown>;
  if (!("id" in frame)) return "frame has no id";
  if (salvageId(frame) === null) return "frame id must be a non-empty string (at most 512 characters) or an integer";
  if (typeof frame.op !== "string") return `frame has no op: expected one of ${REQUEST_OPS.join(", ")}`;
  if (!(REQUEST_OPS as readonly string[]).includes(frame.op)) {
    return `unknown op ${JSON.stringify(frame.op.slice(0, 64))}: expected one of ${REQUEST_OPS.join(", ")}`;
  }
  const parsed = Request.safeParse(raw);
  return parsed.success ? "" : `invalid ${frame.op} frame: ${describeSchemaError(parsed.error)}`;
}

export interface ServeOptions {
  engine: Engine;
  input: Readable;
  output: Writable;
}

/** Serve until the input closes; resolves when every answer owed has been written. */
export async function serve({ engine, input, output }: ServeOptions): Promise<void> {
  await engine.start();
  const write = (frame: unknown): void => {
    if (output.writable) output.write(`${JSON.stringify(frame)}\n`);
  };
  write({ type: "ready", protocolVersion: PROTOCOL_VERSION, state: engine.state() });

  const pending = new Set<Promise<void>>();
  const refuse = (id: RequestId | null, error: string): void => write(engine.answer(id, { ok: false, error }));

  const onLine = (line: string): void => {
    if (line.trim().length === 0) return;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (error) {
      refuse(null, `frame is not JSON: ${(error as Error).message}`);
      return;
    }
    const parsed = Request.safeParse(raw);
    if (!parsed.success) {
      refuse(salvageId(raw), frameError(raw));
      return;
    }
    const request = parsed.data;
    if (request.op === "dispatch" && engine.isInFlight(request.id)) {
      refuse(request.id, `request id ${JSON.stringify(request.id)} is already in flight; each request needs its own id`);
      return;
    }
    const task = engine.handle(request).then(write, (error: unknown) => refuse(request.id, `internal error: ${String(error)}`));
    pending.add(task);
    void task.finally(() => pending.delete(task));
  };

  const splitter = new BoundedLineSplitter(MAX_FRAME_BYTES, onLine, (bytes) =>
    refuse(null, `frame exceeds ${MAX_FRAME_BYTES} bytes (read ${bytes} bytes without LF); it was skipped`),
  );

  await new Promise<void>((resolve) => {
    input.on("data", (chunk: Buffer) => splitter.push(chunk));
    input.on("end", resolve);
    input.on("close", resolve);
    input.on("error", () => resolve());
  });
  const rest = splitter.end();
  if (rest !== undefined && rest.trim().length > 0) refuse(salvageId(safeParse(rest)), "frame does not end with LF");
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
