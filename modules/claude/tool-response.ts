// A tool's result in Claude Code's own `tool_response` shape, per tool, built from what
// OMP reports (the model-visible content and the tool's details). Claude Code 2.1.328
// sends Bash `{stdout, stderr, interrupted, isImage, noOutputExpected}`, Write
// `{type, filePath, content, structuredPatch, originalFile, userModified}`, Read
// `{type: "text", file: {filePath, content, numLines, startLine, totalLines}}` and Edit
// `{filePath, oldString, newString, originalFile, structuredPatch, userModified,
// replaceAll}`; a failed call is PostToolUseFailure's `{error, is_interrupt}` instead.
// Tools without such a shape keep OMP's `{content, isError}`.

import { closeSync, readSync } from "node:fs";
import { openRegularFile } from "../system/regular-file.ts";

type Fields = Record<string, unknown>;

/** Whether a file's last byte is a newline: OMP's read shows lines, Claude's the file's text. */
function endsWithNewline(file: string): boolean {
  let fd: number | undefined;
  try {
    const opened = openRegularFile(file);
    fd = opened.fd;
    const size = opened.stats.size;
    if (size === 0) return false;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] === 0x0a;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** What OMP reported of one call's result, as the adapter sends it. */
export interface OmpResult {
  content: unknown;
  isError?: boolean;
}

/** One unified-diff hunk, as Claude's `structuredPatch` holds them. */
export interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

const CONTEXT_LINES = 3;

function record(value: unknown): Fields {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Fields) : {};
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** The text parts of OMP's content, joined; whether an image was among them. */
function textOf(content: unknown): { text: string; image: boolean } {
  if (!Array.isArray(content)) return { text: typeof content === "string" ? content : "", image: false };
  const texts: string[] = [];
  let image = false;
  for (const part of content) {
    const p = record(part);
    if (p.type === "text" && typeof p.text === "string") texts.push(p.text);
    if (p.type === "image") image = true;
  }
  return { text: texts.join("\n"), image };
}

/** Remove a trailing notice line OMP appended (the line and the blank line before it). */
function stripNotice(text: string, notice: string): string {
  const at = text.lastIndexOf(notice);
  if (at === -1) return text;
  let start = at;
  let end = at + notice.length;
  if (text[start - 1] === "\n") start -= 1;
  if (text[end] === "\n") end += 1;
  return (text.slice(0, start) + text.slice(end)).trimEnd();
}

/** A bash result's output without OMP's own `Wall time:` and exit-code lines. */
function bashOutput(text: string, details: Fields): string {
  let out = text;
  const exitCode = typeof details.exitCode === "number" ? details.exitCode : undefined;
  if (exitCode !== undefined) out = stripNotice(out, `Command exited with code ${exitCode}`);
  if (typeof details.wallTimeMs === "number") out = stripNotice(out, `Wall time: ${(details.wallTimeMs / 1000).toFixed(2)} seconds`);
  return out.trimEnd();
}

/**
 * The hunks that turn `before` into `after`: the changed middle between their common
 * first and last lines, with three lines of context, as one hunk. Linear in the
 * files' length; a change in two far-apart places is one larger (still exact) hunk.
 */
export function structuredPatch(before: string, after: string): Hunk[] {
  if (before === after) return [];
  const a = before.split("\n");
  const b = after.split("\n");
  // A trailing newline is no line of its own in a diff.
  if (a.at(-1) === "" && a.length > 1) a.pop();
  if (b.at(-1) === "" && b.length > 1) b.pop();
  if (before === "") a.length = 0;
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const from = Math.max(0, head - CONTEXT_LINES);
  const keepAfter = Math.min(tail, CONTEXT_LINES);
  const lines = [
    ...a.slice(from, head).map((l) => ` ${l}`),
    ...a.slice(head, a.length - tail).map((l) => `-${l}`),
    ...b.slice(head, b.length - tail).map((l) => `+${l}`),
    ...a.slice(a.length - tail, a.length - tail + keepAfter).map((l) => ` ${l}`),
  ];
  const oldLines = a.length - tail + keepAfter - from;
  const newLines = b.length - tail + keepAfter - from;
  // As in a unified diff, an empty side starts at the line before it.
  return [{ oldStart: oldLines === 0 ? from : from + 1, oldLines, newStart: newLines === 0 ? from : from + 1, newLines, lines }];
}

/** What a call's `tool_response` is built from: its tool, its Claude-shaped input, OMP's result and details. */
export interface ResponseSource {
  /** OMP's tool name. */
  ompTool: string;
  /** Claude's tool name for this target, when it has one. */
  claudeTool: string | undefined;
  toolInput: Fields;
  result: OmpResult;
  /** OMP's `details` of the result (the fields the adapter kept). */
  details: unknown;
  /** A written file's content before the call, when the adapter read it (null: there was none). */
  originalFile?: string | null;
}

/** Claude Code's `tool_response` for a call that succeeded. */
export function claudeToolResponse(source: ResponseSource): unknown {
  const { text, image } = textOf(source.result.content);
  const details = record(source.details);
  const filePath = str(source.toolInput.file_path);
  const ompTool = source.ompTool.toLowerCase();
  if (source.claudeTool === "Bash" && ompTool === "bash") {
    return { stdout: bashOutput(text, details), stderr: "", interrupted: details.timedOut === true, isImage: image, noOutputExpected: false };
  }
  if (source.claudeTool === "Read" && ompTool === "read" && filePath !== undefined) {
    const display = record(details.displayContent);
    let content = str(display.text) ?? text;
    const startLine = typeof display.startLine === "number" ? display.startLine : 1;
    const ompTotal = typeof details.totalLines === "number" ? details.totalLines : undefined;
    // OMP shows lines; Claude the text, so a final newline is the start of one more (empty) line.
    const newline = ompTotal !== undefined && endsWithNewline(filePath);
    const reachedEnd = ompTotal !== undefined && startLine - 1 + content.split("\n").length >= ompTotal;
    if (reachedEnd && newline && !content.endsWith("\n")) content += "\n";
    const numLines = content.split("\n").length;
    const totalLines = ompTotal !== undefined ? ompTotal + (newline ? 1 : 0) : startLine - 1 + numLines;
    return { type: "text", file: { filePath, content, numLines, startLine, totalLines } };
  }
  if (source.claudeTool === "Write" && ompTool === "write" && filePath !== undefined && source.originalFile !== undefined) {
    const content = str(source.toolInput.content) ?? "";
    const original = source.originalFile;
    return {
      type: original === null ? "create" : "update",
      filePath,
      content,
      structuredPatch: original === null ? [] : structuredPatch(original, content),
      originalFile: original,
      userModified: false,
    };
  }
  if (source.claudeTool === "Edit" && ompTool === "edit" && filePath !== undefined) {
    const perFile = Array.isArray(details.perFileResults) ? details.perFileResults.map(record).find((r) => r.path === filePath) : undefined;
    const site = perFile ?? details;
    const oldText = str(site.oldText);
    const newText = str(site.newText);
    return {
      filePath,
      oldString: str(source.toolInput.old_string) ?? "",
      newString: str(source.toolInput.new_string) ?? "",
      originalFile: oldText ?? null,
      structuredPatch: oldText !== undefined && newText !== undefined ? structuredPatch(oldText, newText) : [],
      userModified: false,
      replaceAll: source.toolInput.replace_all === true,
    };
  }
  return source.result;
}

/** PostToolUseFailure's fields for a call that failed: Claude's `error` text and `is_interrupt`. */
export function claudeToolError(source: Pick<ResponseSource, "ompTool" | "result" | "details">): { error: string; is_interrupt: boolean } {
  const { text } = textOf(source.result.content);
  const details = record(source.details);
  if (source.ompTool.toLowerCase() !== "bash") return { error: text, is_interrupt: false };
  const interrupted = /^\[Command cancelled\]|\[Command aborted\]|^Command aborted/.test(text);
  // Claude: "Exit code 3\n<output>"; OMP appends its notices at the end instead.
  const exitCode = typeof details.exitCode === "number" ? details.exitCode : undefined;
  const output = bashOutput(text, details);
  return { error: exitCode !== undefined ? `Exit code ${exitCode}${output ? `\n${output}` : ""}` : output, is_interrupt: interrupted };
}

/** The fields of OMP's result details the per-tool responses read; the rest is not sent to the engine. */
export function detailsToKeep(ompTool: string, details: unknown): Fields | undefined {
  const d = record(details);
  switch (ompTool.toLowerCase()) {
    case "bash":
      return { exitCode: d.exitCode, wallTimeMs: d.wallTimeMs, timedOut: d.timedOut };
    case "read": {
      const display = record(d.displayContent);
      return { totalLines: d.totalLines, displayContent: { text: display.text, startLine: display.startLine } };
    }
    case "edit":
      return {
        oldText: d.oldText,
        newText: d.newText,
        perFileResults: Array.isArray(d.perFileResults)
          ? d.perFileResults.map((r) => {
              const f = record(r);
              return { path: f.path, oldText: f.oldText, newText: f.newText };
            })
          : undefined,
      };
    default:
      return undefined;
  }
}
