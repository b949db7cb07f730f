// A hook's answer, read the way Claude Code reads it (exit 0, exit 2, JSON on
// stdout), and judged by the hook's failMode when there is none: a hook that gave
// no verdict fails open (and says so) or, opted in, closed.
import type { EventKind, HookOutcome, HookResult } from "../protocol/engine.ts";
import type { HookEntry } from "../registry/registry.ts";
import type { ExecEnd } from "./hook-process.ts";

/** A hook's answer before its fail mode is applied. */
export type HookAnswer =
  | { verdict: "pass"; additionalContext?: string; updatedToolResponse?: unknown; updatedInput?: Record<string, unknown>; stopReason?: string }
  | { verdict: "block"; reason: string; additionalContext?: string }
  | { verdict: "ask"; reason: string }
  | { verdict: "failed"; why: string }
  | { verdict: "cancelled"; why: string };

/** How much of a failing hook's stderr its reason quotes (the end, where the error is). */
const STDERR_TAIL_CHARS = 400;

function firstText(...values: unknown[]): string | undefined {
  for (const value of values) if (typeof value === "string" && value.trim().length > 0) return value.trim();
  return undefined;
}

function tail(text: string, max = STDERR_TAIL_CHARS): string {
  const trimmed = text.trim();
  return trimmed.length > max ? `…${trimmed.slice(-max)}` : trimmed;
}

/** Events whose plain stdout Claude Code gives the model; on the others it is for the transcript only. */
const PLAIN_STDOUT_IS_CONTEXT = new Set<EventKind>(["session_start", "user_prompt_submit"]);

function plainText(text: string, event: EventKind | undefined): HookAnswer {
  const context = text.length > 0 && (event === undefined || PLAIN_STDOUT_IS_CONTEXT.has(event));
  return context ? { verdict: "pass", additionalContext: text } : { verdict: "pass" };
}

/** Read exit 0 stdout: JSON decisions are honoured; plain text is context where Claude Code makes it so. */
function readStdout(stdout: string, hookId: string, event: EventKind | undefined): HookAnswer {
  const text = stdout.trim();
  if (!text.startsWith("{")) return plainText(text, event);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return plainText(text, event);
  }
  if (!parsed || typeof parsed !== "object") return { verdict: "pass" };
  const answer = parsed as Record<string, unknown>;
  const specific =
    answer.hookSpecificOutput && typeof answer.hookSpecificOutput === "object"
      ? (answer.hookSpecificOutput as Record<string, unknown>)
      : {};
  const additionalContext = firstText(specific.additionalContext);
  // continue:false outranks every decision: the call (or turn) goes on as it is, then the run ends.
  if (answer.continue === false) {
    const stopReason = firstText(answer.stopReason) ?? `hook ${hookId} asked to stop`;
    return { verdict: "pass", stopReason, ...(additionalContext ? { additionalContext } : {}) };
  }
  const permission = specific.permissionDecision;
  const permissionReason = firstText(specific.permissionDecisionReason, answer.reason);
  if (permission === "deny") {
    return { verdict: "block", reason: permissionReason ?? `hook ${hookId} denied the call`, additionalContext };
  }
  if (permission === "ask") return { verdict: "ask", reason: permissionReason ?? `hook ${hookId} asks for confirmation` };
  if (answer.decision === "block") {
    return { verdict: "block", reason: firstText(answer.reason) ?? `hook ${hookId} blocked without a reason`, additionalContext };
  }
  const updated = specific.updatedInput;
  const updatedInput = updated !== null && typeof updated === "object" && !Array.isArray(updated) ? (updated as Record<string, unknown>) : undefined;
  return { verdict: "pass", ...(additionalContext ? { additionalContext } : {}), ...(updatedInput ? { updatedInput } : {}) };
}

/** What a command hook's end says, as Claude Code reads it. */
export function readHookAnswer(end: ExecEnd, hookId: string, timeoutMs: number, event?: EventKind): HookAnswer {
  switch (end.kind) {
    case "cancelled":
      return { verdict: "cancelled", why: end.why };
    case "spawn-error":
      return { verdict: "failed", why: `could not start: ${end.message}` };
    case "timeout":
      return { verdict: "failed", why: `gave no answer within ${timeoutMs} ms, so its process group was ended` };
    case "flooded":
      return { verdict: "failed", why: `wrote more than ${end.limitBytes} bytes on stdout, so its process group was ended` };
    case "exited": {
      if (end.signal) return { verdict: "failed", why: `was ended by ${end.signal}${end.stderr.trim() ? `: ${tail(end.stderr)}` : ""}` };
      if (end.code === 0) return readStdout(end.stdout, hookId, event);
      if (end.code === 2) {
        return { verdict: "block", reason: end.stderr.trim() || `hook ${hookId} exited 2 without a reason on stderr` };
      }
      const detail = tail(end.stderr);
      return { verdict: "failed", why: `exited with code ${end.code}${detail ? `: ${detail}` : ""}` };
    }
  }
}

export type JudgedAnswer = { outcome: HookOutcome } & Pick<HookResult, "reason" | "additionalContext" | "updatedToolResponse" | "updatedInput" | "stopReason">;

/** An answer as the dispatch reports it: a hook without a verdict resolved by its failMode. */
export function judgeAnswer(hook: Pick<HookEntry, "id" | "failMode">, answer: HookAnswer): JudgedAnswer {
  switch (answer.verdict) {
    case "pass":
      return {
        outcome: "pass",
        ...(answer.additionalContext !== undefined ? { additionalContext: answer.additionalContext } : {}),
        ...(answer.updatedToolResponse !== undefined ? { updatedToolResponse: answer.updatedToolResponse } : {}),
        ...(answer.updatedInput !== undefined ? { updatedInput: answer.updatedInput } : {}),
        ...(answer.stopReason !== undefined ? { stopReason: answer.stopReason } : {}),
      };
    case "block":
      return { outcome: "block", reason: answer.reason };
    case "ask":
      return { outcome: "ask", reason: answer.reason };
    case "cancelled":
      return { outcome: "cancelled", reason: answer.why };
    case "failed":
      return hook.failMode === "closed"
        ? {
            outcome: "failed-closed",
            reason: `Tama hook ${hook.id} ${answer.why}; its failMode is closed, so this is refused`,
          }
        : { outcome: "failed-open", reason: `hook ${hook.id} ${answer.why}; it failed open, so it gave no verdict` };
  }
}

/** A command hook's end, read and judged. */
export function commandOutcome(hook: Pick<HookEntry, "id" | "failMode" | "timeoutMs">, end: ExecEnd, event?: EventKind): JudgedAnswer {
  return judgeAnswer(hook, readHookAnswer(end, hook.id, hook.timeoutMs, event));
}
