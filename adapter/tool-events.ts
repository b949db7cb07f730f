// tool_call → pre_tool_use:<tool> → {block, reason}; tool_result → post_tool_use:<tool>,
// a refusal appended for the model. A call with no verdict is refused by default.
import type { OmpContext, ToolCallEvent, ToolCallEventResult, ToolResultEvent, ToolResultEventResult } from "../modules/omp/api.ts";
import type { AdapterRuntime } from "./runtime.ts";
import { ompInputOf } from "../modules/claude/updated-input.ts";
import { hubKeys, toHookTargets } from "../modules/claude/hook-input.ts";
import { parseEvent, CONFLICT_FILES_MAX } from "../modules/protocol/engine.ts";
import path from "node:path";
import { detailsToKeep } from "../modules/claude/tool-response.ts";
import { localRootOf, resolveTargetPath } from "../modules/tools/tool-paths.ts";
import { readRegularFileUpTo } from "../modules/system/regular-file.ts";
import type { KeptShells } from "./kept-shells.ts";
import type { ShellKept } from "../modules/protocol/engine.ts";

/** What may be typed into one hub process, all of it read again before each send: past it, a new process. */
const MAX_TYPED_CHARS = 16_000;
/** Hub processes whose typed lines are kept (OMP shares a project's processes among its sessions). */
const MAX_TYPED_PROCESSES = 4096;

/** What was typed into one hub process, and the program it was started as (when this OMP started it). */
interface Typed {
  text: string;
  into?: string;
}


/** Largest file whose content before a write is kept for the hooks' `originalFile`. */
const ORIGINAL_FILE_MAX_BYTES = 1024 * 1024;

/**
 * The content a `write` replaces (null: no such file), read while the call is checked,
 * so Claude's Write `tool_response` can say create or update and show the patch.
 * A device URL or an unreadable or large file gives undefined: the response then says nothing of it.
 */
async function contentBefore(input: Record<string, unknown>, ctx: OmpContext, sessionFile: string | undefined, session: string | undefined): Promise<string | null | undefined> {
  const raw = input.path;
  if (typeof raw !== "string" || raw.trim().length === 0 || /^\s*\[?xd:\/\//i.test(raw)) return undefined;
  const file = resolveTargetPath(raw, ctx.cwd, { localRoot: localRootOf(sessionFile, session) });
  if (!path.isAbsolute(file)) return undefined;
  try {
    // The agent names the path: a FIFO or a device there must not hold this call's result.
    const bytes = await readRegularFileUpTo(file, ORIGINAL_FILE_MAX_BYTES);
    return bytes?.toString("utf8");
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? null : undefined;
  }
}

/** The content of a replacement result, when it has OMP's shape ({content: [{type, text?}]}). */
function replacedContent(response: unknown): { type: string; text?: string }[] | undefined {
  if (response === null || typeof response !== "object") return undefined;
  const content = (response as { content?: unknown }).content;
  if (!Array.isArray(content)) return undefined;
  const valid = content.every((part) => part !== null && typeof part === "object" && typeof (part as { type?: unknown }).type === "string");
  return valid ? (content as { type: string; text?: string }[]) : undefined;
}

/** A write whose path (or device arguments) names a `conflict://` address: OMP splices into a file a read registered. */
function writesConflict(tool: string, input: Record<string, unknown>): boolean {
  if (tool !== "write") return false;
  return CONFLICT_ADDRESS.test(typeof input.path === "string" ? input.path : "") || (typeof input.content === "string" && CONFLICT_ADDRESS.test(input.content));
}
const CONFLICT_ADDRESS = /conflict:\/\//i;
/** The line a merge-conflict block opens with. */
const CONFLICT_MARKER = "<<<<<<<";
/** Largest file read for a conflict marker; a larger or unreadable one is taken to hold one. */
const CONFLICT_SCAN_BYTES = 8 * 1024 * 1024;

/** Whether `file` holds a conflict block now: one that does not cannot be spliced into. */
async function holdsConflict(file: string): Promise<boolean> {
  try {
    const bytes = await readRegularFileUpTo(file, CONFLICT_SCAN_BYTES);
    return bytes === undefined || bytes.includes(CONFLICT_MARKER);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ENOENT";
  }
}

export class ToolEvents {
  /** Each call's input as its pre-tool check saw it: the post-tool dispatch must name the same call. */
  private readonly inputs = new Map<string, Record<string, unknown>>();
  private readonly redactionTold = new Set<string>();
  /** Calls a hook answered continue:false for: the call runs, then the run ends. */
  private readonly stopAfter = new Map<string, string>();
  /** When each allowed call started running (Claude's `duration_ms` excludes hook time). */
  private readonly started = new Map<string, number>();
  /** A write's file content before it ran, read while its check runs. */
  private readonly before = new Map<string, Promise<string | null | undefined>>();

  /** Calls a hook rewrote: their result's check always waits for its answer. */
  private readonly rewritten = new Set<string>();
  /** Per session, the newest result's call and how many times in a row it was made (repeated-call-loop reads the count). */
  private readonly lastCall = new Map<string, { key: string; count: number }>();
  /** This session's tool checks in flight (pre and post). */
  private readonly checking = new Set<Promise<unknown>>();
  /**
   * Per project and hub process (OMP shares them among the project's sessions), every
   * line typed into it and what was typed after the last Enter: a send is read after
   * them, so a command typed in pieces, or after a `cd` or a variable an earlier send
   * set, is read as the process runs it. Kept when OMP ran the call (its result).
   */
  private readonly typed = new Map<string, Typed>();
  /** Hub processes a checked send is typing into until its result: a second send beside it would be read without it. */
  private readonly sending = new Set<string>();
  /**
   * Per session, the files its reads registered merge-conflict blocks in (OMP keeps the
   * blocks by id in the session's memory): a write to `conflict://N` splices into one of
   * them, so it is judged as a write to each.
   */
  private readonly conflictFiles = new Map<string, string[]>();
  /** Sessions whose reads showed conflicts in more files than are kept. */
  private readonly conflictsOverflowed = new Set<string>();

  constructor(
    private readonly runtime: AdapterRuntime,
    /** What each session's earlier bash calls left in OMP's shell. */
    private readonly shells: KeptShells,
    /** The variables SessionStart hooks set for the session's bash calls (CLAUDE_ENV_FILE). */
    private readonly sessionEnv: (session: string | undefined) => Promise<Record<string, string> | undefined> = async () => undefined,
  ) {}

  private tracked<T>(check: Promise<T>): Promise<T> {
    this.checking.add(check);
    void check.finally(() => this.checking.delete(check));
    return check;
  }

  /**
   * Every tool check of the session in flight has answered. A subagent's end arrives
   * as a tool call that may run beside others of the same message: its stop must not
   * end their checks (the engine ends a session's tool hooks when its stop arrives).
   */
  async checksAnswered(): Promise<void> {
    await Promise.allSettled([...this.checking]);
  }

  async onToolCall(event: ToolCallEvent, ctx: OmpContext): Promise<ToolCallEventResult> {
    let answer = await this.checkCall(event, ctx);
    if (event.toolName === "bash" && !(answer !== undefined && "block" in answer)) answer = this.keepShell(answer?.input ?? event.input, ctx) ?? answer;
    if (answer !== undefined && "block" in answer) {
      this.before.delete(event.toolCallId);
      return answer;
    }
    const withEnv = event.toolName === "bash" ? await this.withSessionEnv(answer?.input ?? event.input, ctx) : undefined;
    this.started.set(event.toolCallId, Date.now());
    return withEnv !== undefined ? { input: withEnv } : answer;
  }

  /**
   * A bash call that runs: what it defines stays in OMP's shell for the session's later
   * calls, which are read with it. One that would leave more than Tama reads is refused.
   */
  private keepShell(input: Record<string, unknown>, ctx: OmpContext, ran = false): ToolCallEventResult {
    const session = this.runtime.sessionId(ctx);
    const after = this.shells.after(session, input, ctx.cwd);
    if (after === undefined || session === undefined) return undefined;
    if (after.ok) {
      this.shells.ran(session, after.kept);
      return undefined;
    }
    // Read again once it ran, past the bound: what was kept stays; the next call that adds to it is refused.
    if (ran) return undefined;
    const reason = `Tama refused bash: ${after.error}`;
    this.runtime.refused(reason);
    return { block: true, reason };
  }

  /** A bash call with the variables SessionStart hooks set for the session (the call's own `env` wins). */
  private async withSessionEnv(input: Record<string, unknown>, ctx: OmpContext): Promise<Record<string, unknown> | undefined> {
    const vars = await this.sessionEnv(this.runtime.sessionId(ctx));
    if (vars === undefined) return undefined;
    const own = input.env !== null && typeof input.env === "object" && !Array.isArray(input.env) ? (input.env as Record<string, unknown>) : {};
    return { ...input, env: { ...vars, ...own } };
  }

  private async checkCall(event: ToolCallEvent, ctx: OmpContext): Promise<ToolCallEventResult> {
    this.inputs.set(event.toolCallId, event.input);
    if (event.toolName === "write") {
      this.before.set(event.toolCallId, contentBefore(event.input, ctx, this.runtime.sessionFile(ctx), this.runtime.sessionId(ctx)));
    }
    const typing = event.toolName === "hub" && event.input.op === "send" ? this.typingKey(event.input, ctx) : undefined;
    const typed = typing === undefined ? undefined : this.typed.get(typing);
    const typedLine = typed?.text;
    const onlySignals = typeof event.input.text !== "string" && hubKeys(event.input.keys).every((k) => k === "CTRL_C" || k === "CTRL_D");
    if (typing !== undefined && this.sending.has(typing)) {
      const reason = `Tama refused hub send: another send to ${String(event.input.name)} has not finished, and each is read after the ones before it; send one at a time`;
      this.inputs.delete(event.toolCallId);
      this.runtime.refused(reason);
      return { block: true, reason };
    }
    if (typedLine !== undefined && typedLine.length > MAX_TYPED_CHARS && !onlySignals) {
      const reason = `Tama refused hub send: more than ${MAX_TYPED_CHARS} characters were typed into ${String(event.input.name)}, past what Tama reads as one script; stop it and start a new process`;
      this.inputs.delete(event.toolCallId);
      this.runtime.refused(reason);
      return { block: true, reason };
    }
    const verdict = await this.tracked(this.runtime.verdict(`pre_tool_use:${event.toolName}`, {
      ...this.runtime.basePayload(ctx),
      tool_name: event.toolName,
      tool_input: event.input,
      tool_call_id: event.toolCallId,
      ...(typedLine !== undefined && typedLine.length > 0 ? { typed_line: typedLine } : {}),
      ...(typed?.into !== undefined ? { typed_into: typed.into } : {}),
      ...(event.toolName === "bash" ? this.keptFor(ctx) : {}),
      ...(await this.conflictsFor(event.toolName, event.input, ctx)),
    }));
    if (verdict.failure !== undefined) return this.unchecked(event, verdict.failure);
    const result = verdict.result;
    if (!result || result.decision === "pass") {
      if (typing !== undefined) this.sending.add(typing);
      this.runtime.passed();
      if (result?.stopReason !== undefined) this.stopAfter.set(event.toolCallId, result.stopReason);
      if (result?.updatedInput === undefined) return undefined;
      // A hook rewrote the call (Claude's updatedInput): it runs as rewritten, or not at all.
      const rewrite = ompInputOf(event.toolName, event.input, result.updatedInput);
      if (!rewrite.ok) {
        const reason = `Tama refused ${event.toolName}: a hook rewrote it, and the rewrite cannot be applied (${rewrite.why})`;
        this.runtime.refused(reason);
        return { block: true, reason };
      }
      this.inputs.set(event.toolCallId, rewrite.input);
      this.rewritten.add(event.toolCallId);
      return { input: rewrite.input };
    }
    if (result.decision === "ask" && ctx.hasUI && ctx.ui.confirm) {
      const allowed = await ctx.ui.confirm("Tama asks", `${result.reason ?? "A hook asks before this call."}\n\nAllow ${event.toolName}?`);
      if (allowed) return undefined;
    }
    const reason = result.reason ?? `Tama refused ${event.toolName}`;
    this.inputs.delete(event.toolCallId);
    this.runtime.refused(reason);
    this.runtime.logger.info({ event: "pre_tool_use", tool: event.toolName, decision: result.decision }, "tool call refused");
    return { block: true, reason };
  }

  /** A bash call runs in the session's shell, with what earlier calls left there. */
  private keptFor(ctx: OmpContext): { shell_kept?: ShellKept } {
    const kept = this.shells.before(this.runtime.sessionId(ctx));
    return kept === undefined ? {} : { shell_kept: kept };
  }

  /** No verdict: refuse with the cause, or with TAMA_FAIL_MODE=open let it through and say so. */
  private unchecked(event: ToolCallEvent, cause: string): ToolCallEventResult {
    this.runtime.logger.error({ event: "pre_tool_use", tool: event.toolName, note: "no verdict" }, "tool call unchecked");
    if (this.runtime.failMode === "open") {
      this.runtime.notify(`Tama could not check ${event.toolName} and let it through (TAMA_FAIL_MODE=open): ${cause}`, "warning");
      return undefined;
    }
    this.inputs.delete(event.toolCallId);
    const reason = `Tama could not check this ${event.toolName} call, so it is refused: ${cause}`;
    this.runtime.refused(reason);
    return { block: true, reason };
  }

  async onToolResult(event: ToolResultEvent, ctx: OmpContext): Promise<ToolResultEventResult> {
    const checked = this.inputs.get(event.toolCallId);
    const input = checked ?? event.input;
    // A file the call wrote and then sourced (`echo 'f() { …; }' > d.sh; . ./d.sh`) is there now: read again, kept beside what was.
    if (event.toolName === "bash" && checked !== undefined && this.shells.sources(input)) this.keepShell(input, ctx, true);
    if (event.toolName === "hub") {
      const key = input.op === "send" ? this.typingKey(input, ctx) : undefined;
      if (key !== undefined) this.sending.delete(key);
      if (!event.isError) this.hubRan(input, ctx);
    }
    // A call its pre-tool check did not see as it runs (rewritten, or never checked here) waits for its result's answer.
    const wait = this.rewritten.delete(event.toolCallId) || checked === undefined;
    this.inputs.delete(event.toolCallId);
    const stopBefore = this.stopAfter.get(event.toolCallId);
    this.stopAfter.delete(event.toolCallId);
    const started = this.started.get(event.toolCallId);
    this.started.delete(event.toolCallId);
    const before = this.before.get(event.toolCallId);
    this.before.delete(event.toolCallId);
    const originalFile = before === undefined ? undefined : await before;
    if (event.toolName === "read" && !event.isError) this.conflictsRead(event.details, input, event.content, ctx);
    const details = detailsToKeep(event.toolName, event.details);
    const repeats = this.repeats(this.runtime.sessionId(ctx) ?? "", event.toolName, input);
    const verdict = await this.tracked(this.runtime.verdict(`post_tool_use:${event.toolName}`, {
      ...this.runtime.basePayload(ctx),
      tool_name: event.toolName,
      tool_input: input,
      tool_call_id: event.toolCallId,
      tool_response: { content: event.content, isError: event.isError },
      is_error: event.isError,
      call_repeats: repeats,
      ...(details !== undefined ? { tool_details: details } : {}),
      ...(originalFile !== undefined ? { original_file: originalFile } : {}),
      ...(started !== undefined ? { duration_ms: Date.now() - started } : {}),
      ...(await this.conflictsFor(event.toolName, input, ctx, true)),
    }, { wait }));
    if (verdict.failure !== undefined) {
      this.runtime.notify(`Tama could not check the result of ${event.toolName}: ${verdict.failure}`, "warning");
      return undefined;
    }
    const result = verdict.result;
    // continue:false (before the call or after it): the call's result stands, then the run ends.
    const stopReason = result?.stopReason ?? stopBefore;
    if (stopReason !== undefined) {
      this.runtime.notify(`Tama ended the run: ${stopReason}`, "warning");
      ctx.abort?.();
    }
    const notes: string[] = [];
    if (result?.decision === "block" || result?.decision === "ask") notes.push(`Tama: ${result.reason ?? "a hook refused this result"}`);
    if (result?.additionalContext) notes.push(result.additionalContext);
    // A gate that rewrote the result (redact-secrets) decides what the model reads.
    const content = replacedContent(result?.updatedToolResponse) ?? event.content;
    if (content !== event.content) this.toldOfRedaction(ctx);
    if (notes.length === 0) return content === event.content ? undefined : { content };
    if (result?.decision === "block") this.runtime.refused(result.reason ?? "result refused");
    return { content: [...content, { type: "text", text: notes.join("\n\n") }] };
  }

  /** A hub operation on a process by name: the key what is typed into it is kept under (OMP's processes are the project's). */
  private typingKey(input: Record<string, unknown>, ctx: OmpContext): string | undefined {
    if (typeof input.name !== "string" || input.name.trim().length === 0) return undefined;
    return `${ctx.cwd}\u0000${input.name.trim()}`;
  }

  /**
   * A hub call OMP ran (its result came without an error), as it ran (a hook's rewrite
   * included): a start or restart begins a new process; a stop ends it; a send types its
   * text, then Enter (unless `enter: false`), then its keys.
   */
  private hubRan(input: Record<string, unknown>, ctx: OmpContext): void {
    const key = this.typingKey(input, ctx);
    if (key === undefined) return;
    const before = this.typed.get(key);
    this.typed.delete(key);
    if (input.op === "start") {
      const application = typeof input.application === "string" ? path.basename(input.application) : undefined;
      this.typed.set(key, { text: "", ...(application !== undefined ? { into: application } : {}) });
    } else if (input.op === "restart") {
      this.typed.set(key, { text: "", ...(before?.into !== undefined ? { into: before.into } : {}) });
    } else if (input.op === "send") {
      const text = typeof input.text === "string" ? input.text : "";
      const ended = (text.length > 0 && input.enter !== false) || hubKeys(input.keys).includes("ENTER");
      const typed = ((before?.text ?? "") + text).replace(/\r\n?/g, "\n") + (ended ? "\n" : "");
      this.typed.set(key, { text: typed, ...(before?.into !== undefined ? { into: before.into } : {}) });
    } else if (before !== undefined && input.op !== "stop") {
      this.typed.set(key, before);
    }
    if (this.typed.size > MAX_TYPED_PROCESSES) this.typed.delete(this.typed.keys().next().value ?? "");
  }

  /**
   * A write to a `conflict://` address (its call and its result) carries the files it may
   * splice into: those the session's reads showed a conflict block of that hold one now
   * (OMP checks the block on disk before it splices). Past the bound of files kept, none
   * is sent, and the write is refused: a file let go may be the one.
   */
  private async conflictsFor(tool: string, input: Record<string, unknown>, ctx: OmpContext, ran = false): Promise<{ conflict_files?: string[] }> {
    if (!writesConflict(tool, input)) return {};
    const session = this.runtime.sessionId(ctx) ?? "";
    if (this.conflictsOverflowed.has(session)) return {};
    const files = this.conflictFiles.get(session) ?? [];
    // Once it ran, the block it resolved is gone: its result names every file it may have been.
    if (ran) return { conflict_files: files };
    const held = await Promise.all(files.map(async (file) => ((await holdsConflict(file)) ? [file] : [])));
    return { conflict_files: held.flat() };
  }

  /**
   * A read that showed a merge-conflict block (OMP registers the blocks a read shows, by
   * id): every file it may have read is kept, as named (each path OMP may take the input
   * as) and as OMP resolved it (a name found elsewhere in the project, each part of a list).
   */
  private conflictsRead(details: unknown, input: Record<string, unknown>, content: readonly { type: string; text?: string }[], ctx: OmpContext): void {
    const fields = details !== null && typeof details === "object" ? (details as { conflictCount?: unknown; resolvedPath?: unknown; displayReadTargetLinks?: unknown; meta?: { source?: { type?: unknown; value?: unknown } } }) : {};
    const shown = content.some((part) => typeof part.text === "string" && (part.text.includes(CONFLICT_MARKER) || /conflict/i.test(part.text)));
    if (!shown && !(typeof fields.conflictCount === "number" && fields.conflictCount > 0)) return;
    const read: string[] = [];
    if (typeof fields.resolvedPath === "string") read.push(fields.resolvedPath);
    if (fields.meta?.source?.type === "path" && typeof fields.meta.source.value === "string") read.push(fields.meta.source.value);
    if (Array.isArray(fields.displayReadTargetLinks)) for (const link of fields.displayReadTargetLinks) if (typeof link === "string") read.push(link);
    const event = parseEvent("pre_tool_use:read");
    const shaped = event === undefined ? undefined : toHookTargets(event, { ...this.runtime.basePayload(ctx), tool_name: "read", tool_input: input });
    if (shaped?.ok === true) {
      for (const target of shaped.targets) {
        const file = (target.input.tool_input as { file_path?: unknown } | undefined)?.file_path;
        if (typeof file === "string") read.push(file);
      }
    }
    const session = this.runtime.sessionId(ctx) ?? "";
    const files = new Set(this.conflictFiles.get(session) ?? []);
    for (const file of read) if (file.length > 0 && path.isAbsolute(file)) files.add(file);
    if (files.size > CONFLICT_FILES_MAX) this.conflictsOverflowed.add(session);
    this.conflictFiles.delete(session);
    this.conflictFiles.set(session, [...files].slice(-CONFLICT_FILES_MAX));
    if (this.conflictFiles.size > 256) this.conflictFiles.delete(this.conflictFiles.keys().next().value ?? "");
  }

  /** How many times in a row the session has now made this call (same tool, same input). */
  private repeats(session: string, tool: string, input: unknown): number {
    const key = `${tool}\u0000${JSON.stringify(input ?? null)}`;
    const last = this.lastCall.get(session);
    const count = last?.key === key ? last.count + 1 : 1;
    this.lastCall.delete(session);
    this.lastCall.set(session, { key, count });
    if (this.lastCall.size > 256) this.lastCall.delete(this.lastCall.keys().next().value ?? "");
    return count;
  }

  /** Once per session: a gate rewrote a result (redact-secrets) before the model read it. */
  private toldOfRedaction(ctx: OmpContext): void {
    const session = this.runtime.sessionId(ctx) ?? "";
    if (this.redactionTold.has(session)) return;
    this.redactionTold.add(session);
    this.runtime.notify("Tama replaced secrets in a tool result before the model read it (redact-secrets); the tool itself ran unchanged.", "warning");
  }

  /** The turn ended: calls that never produced a result are over. */
  turnEnded(): void {
    this.sending.clear();
    this.inputs.clear();
    this.rewritten.clear();
    this.stopAfter.clear();
    this.started.clear();
    this.before.clear();
  }
}
