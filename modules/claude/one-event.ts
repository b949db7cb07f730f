// The one-event interface's own payloads: Claude Code and Codex already send hook input,
// so it reaches the hooks as it is — never run back through the OMP mapping (which
// would read `file_path` as a missing `path`, drop fields OMP does not have and rescale
// Bash's timeout). And the answer each harness reads back: Claude the canonical
// decision with exit 2 on a block; Codex its minimal block response.
import { heldNotice, type DispatchPayload, type DispatchResult, type EventKind, type ParsedEvent } from "../protocol/engine.ts";
import { HOOK_EVENT_NAMES, type HookInput } from "../protocol/hook-input.ts";
import { callKind, type DeclaredToolKinds } from "../tools/declaration.ts";
import type { HookTargetsResult } from "./hook-input.ts";

/** Claude Code's event names, as `tama install --claude` writes them, and the engine event each is. */
export const CLAUDE_EVENTS: Readonly<Record<string, EventKind>> = {
  SessionStart: "session_start",
  UserPromptSubmit: "user_prompt_submit",
  PreToolUse: "pre_tool_use",
  PostToolUse: "post_tool_use",
  // A failed call's result: post-tool hooks read it, as OMP's failed results reach them.
  PostToolUseFailure: "post_tool_use",
  Stop: "stop",
  SessionEnd: "session_end",
};


function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The file a write names, in Claude's (`file_path`, `notebook_path`) or a generic (`path`) field. */
function writeTarget(input: Record<string, unknown>): string | undefined {
  for (const key of ["file_path", "notebook_path", "path"]) {
    const value = input[key];
    if (typeof value === "string" && value.length > 0) return value;
  }
  return undefined;
}

/**
 * The harness's own payload as the one hook input: every field kept (tool_use_id,
 * permission_mode, tool_response, duration_ms, …). The tool's kind comes from the
 * one tool declaration; a list matcher matches the name the harness sent.
 */
export function asSentHookTargets(event: ParsedEvent, payload: DispatchPayload, declared?: DeclaredToolKinds): HookTargetsResult {
  const { tool_input: toolInput, ...rest } = payload;
  const input: HookInput = {
    ...rest,
    ...(toolInput !== undefined ? { tool_input: record(toolInput) } : {}),
    hook_event_name: typeof payload.hook_event_name === "string" ? payload.hook_event_name : HOOK_EVENT_NAMES[event.kind],
    // The harness's cwd, else this process's (the harness starts its hooks in its project).
    cwd: payload.cwd ?? process.cwd(),
  };
  if (event.kind !== "pre_tool_use" && event.kind !== "post_tool_use") {
    return { ok: true, targets: [{ input, kind: "other", names: [] }] };
  }
  const toolName = payload.tool_name ?? event.tool;
  if (toolName === undefined) return { ok: false, error: `${event.name}: the event names no tool` };
  const kind = callKind(toolName, toolInput, declared);
  const target = kind === "write" ? writeTarget(record(payload.tool_input)) : undefined;
  const failed = event.kind === "post_tool_use" ? { failed: input.hook_event_name === "PostToolUseFailure" } : {};
  return {
    ok: true,
    targets: [{ input: { ...input, tool_name: toolName }, kind, names: [toolName], ...(target !== undefined ? { target } : {}), ...failed }],
  };
}

export interface HarnessAnswer {
  stdout: string;
  stderr: string;
  code: number;
}

/** Events whose hook output Claude Code reads `additionalContext` from and gives the model. */
const CONTEXT_EVENTS = new Set(["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure"]);

/**
 * What Claude Code reads back. A block: the canonical decision on stdout, the reason on
 * stderr (which Claude gives the model), exit 2. Otherwise Claude's own JSON: an ask
 * before a tool is `permissionDecision: "ask"` (Claude asks the person rather than
 * refusing); a rewrite is `updatedInput`; a pass's context is `additionalContext`
 * (plain stdout on a tool event reaches nobody); a hook's continue:false is passed on;
 * held project hooks are a `systemMessage` for the person on a prompt, when `tellHeld`.
 */
export function claudeAnswer(result: DispatchResult, hookEventName: string, options: { tellHeld?: boolean } = {}): HarnessAnswer {
  const notes = result.failedOpen.map((failed) => `tama: ${failed.reason}\n`).join("");
  const asks = result.decision === "ask" && hookEventName === "PreToolUse";
  if (result.decision !== "pass" && !asks) {
    const reason = result.reason ?? "refused by Tama";
    return { stdout: `${JSON.stringify({ decision: "block", reason })}\n`, stderr: `${notes}${reason}\n`, code: 2 };
  }
  const specific: Record<string, unknown> = {};
  if (asks) {
    specific.permissionDecision = "ask";
    specific.permissionDecisionReason = result.reason ?? "Tama asks before this call";
  }
  if (result.updatedInput !== undefined && hookEventName === "PreToolUse") specific.updatedInput = result.updatedInput;
  if (result.additionalContext !== undefined && CONTEXT_EVENTS.has(hookEventName)) specific.additionalContext = result.additionalContext;
  const output: Record<string, unknown> = {
    ...(result.stopReason !== undefined ? { continue: false, stopReason: result.stopReason } : {}),
    // Held project hooks are the person's to trust, so the person is told (Claude Code shows a
    // UserPromptSubmit systemMessage to the person, never to the model); the caller says when.
    ...(options.tellHeld === true && result.held !== undefined && hookEventName === "UserPromptSubmit" ? { systemMessage: heldNotice(result.held) } : {}),
    ...(Object.keys(specific).length > 0 ? { hookSpecificOutput: { hookEventName, ...specific } } : {}),
  };
  return { stdout: Object.keys(output).length > 0 ? `${JSON.stringify(output)}\n` : "", stderr: notes, code: 0 };
}

/** Codex: its minimal block response and exit 0; nothing on stdout on a pass. */
export function codexAnswer(result: DispatchResult): HarnessAnswer {
  const notes = result.failedOpen.map((failed) => `tama: ${failed.reason}\n`).join("");
  if (result.decision === "pass") return { stdout: "", stderr: notes, code: 0 };
  const reason = result.reason ?? "refused by Tama";
  return { stdout: `${JSON.stringify({ decision: "block", reason })}\n`, stderr: notes, code: 0 };
}
