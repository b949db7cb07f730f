// OMP events in Claude Code's hook input shape, so existing Claude Code hook scripts
// run unchanged. Each OMP built-in with a Claude equivalent gets Claude's tool name
// and field names; OMP's own call stays beside it in `input.omp`. One OMP call may
// become several hook targets (an anchored edit of several files, a task batch),
// and a write whose target cannot be named is refused rather than guessed.
import { editTargetsOf, resolveTargetPath } from "../tools/edit-targets.ts";
import type { DispatchPayload, EventKind, ParsedEvent } from "../protocol/engine.ts";
import { shellCommandOf, toolKind } from "../tools/declaration.ts";
import type { HookInput } from "../protocol/hook-input.ts";

export interface HookTarget {
  input: HookInput;
  kind: "shell" | "write" | "lookup" | "other";
  /** OMP's and Claude's tool names, for registry list matchers. */
  names: string[];
  /** The file (or device URL) this target writes or reads, when the call names one. */
  target?: string;
}

export type HookTargetsResult = { ok: true; targets: HookTarget[] } | { ok: false; error: string };

const HOOK_EVENT_NAMES: Record<EventKind, string> = {
  session_start: "SessionStart",
  user_prompt_submit: "UserPromptSubmit",
  pre_tool_use: "PreToolUse",
  post_tool_use: "PostToolUse",
  stop: "Stop",
  session_end: "SessionEnd",
  before_provider_request: "BeforeProviderRequest",
};

/** One mapped call: what a hook sees as tool_name/tool_input, and how it is matched. */
interface Mapped {
  kind: HookTarget["kind"];
  /** Claude's tool name; absent when Claude has no equivalent (OMP's name stays). */
  claudeName?: string;
  toolInput: Record<string, unknown>;
  target?: string;
  /** The OMP tool this identity belongs to, when it is not the outer call's (xd:// devices). */
  ompName?: string;
}

type MapResult = { ok: true; mapped: Mapped[] } | { ok: false; error: string };

/** A tool call's fields. */
type Fields = Record<string, unknown>;

function asRecord(value: unknown): Fields {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Fields) : {};
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** Drop undefined fields so hooks see Claude's optional fields absent, not null-ish. */
function defined(fields: Fields): Fields {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

function ok(mapped: Mapped): MapResult {
  return { ok: true, mapped: [mapped] };
}

// ---------------------------------------------------------------------------
// read: `path` carries an inline selector (tools/path-utils.ts splitPathAndSel)

const URL_PATH = /^https?:\/\//i;
const LINE_RANGE = /^L?(\d+)(?:(\.\.|[-+])L?(\d+)?)?$/i;
const DISPLAY_MODE = /^(raw|conflicts|img)$/i;

/**
 * Split `file.ts:10-20` (also `:N`, `:N+K`, `:N..M`, `:-N`, with or without
 * `:raw`) into file and offset/limit. OMP additionally probes the filesystem for a
 * literal `name:1-2` file; a pure mapping cannot, so the selector reading wins.
 */
function splitReadSelector(raw: string): { file: string; offset?: number; limit?: number } {
  let file = raw;
  let range: string | undefined;
  for (let i = 0; i < 2; i++) {
    const colon = file.lastIndexOf(":");
    if (colon <= 0) break;
    const chunk = file.slice(colon + 1);
    if (DISPLAY_MODE.test(chunk)) file = file.slice(0, colon);
    else if (range === undefined && (LINE_RANGE.test(chunk) || /^-\d+$/.test(chunk))) {
      range = chunk;
      file = file.slice(0, colon);
    } else break;
  }
  const match = range === undefined ? null : LINE_RANGE.exec(range);
  if (!match) return { file };
  const start = Number.parseInt(match[1] ?? "", 10);
  const rhs = match[3] === undefined ? undefined : Number.parseInt(match[3], 10);
  if (rhs === undefined) return { file, offset: start };
  const limit = match[2] === "+" ? rhs : rhs - start + 1;
  return { file, offset: start, limit };
}

function mapRead(input: Fields, cwd: string): MapResult {
  const raw = str(input.path);
  if (raw === undefined) return ok({ kind: "other", claudeName: "Read", toolInput: {} });
  // OMP's read fetches URLs; Claude does that with WebFetch.
  if (URL_PATH.test(raw)) return ok({ kind: "other", claudeName: "WebFetch", toolInput: { url: raw }, target: raw });
  const { file, offset, limit } = splitReadSelector(raw);
  const filePath = resolveTargetPath(file, cwd);
  return ok({ kind: "other", claudeName: "Read", toolInput: defined({ file_path: filePath, offset, limit }), target: filePath });
}

// ---------------------------------------------------------------------------
// lsp, called directly or as a write to xd://lsp

/** OMP's LSP_READONLY_ACTIONS (src/lsp/servers.ts), plus the spellings the spec uses. */
const LSP_READ_ONLY = new Set([
  "status",
  "capabilities",
  "diagnostics",
  "definition",
  "references",
  "hover",
  "symbols",
  "type_definition",
  "implementation",
]);

function lspActionKey(action: string): string {
  return action.trim().toLowerCase().replace(/[-\s]+/g, "_");
}

function mapLsp(request: Fields, cwd: string, where: string): MapResult {
  const action = request.action;
  if (typeof action !== "string") {
    return { ok: false, error: `${where}: the request has no string "action"` };
  }
  // Rename, rename_file, code actions (which can apply edits), reload, raw
  // requests and unknown actions may change files: never read-only.
  const kind = LSP_READ_ONLY.has(lspActionKey(action)) ? "lookup" : "write";
  const file = str(request.file);
  return ok({
    kind,
    claudeName: "LSP",
    toolInput: request,
    ompName: "lsp",
    ...(file ? { target: resolveTargetPath(file, cwd) } : {}),
  });
}

// ---------------------------------------------------------------------------
// write, including xd:// tool devices

const XD_PREFIX = "xd://";

/**
 * `write xd://<tool>` runs <tool> with `content` as its JSON args
 * (src/tools/xdev.ts), so it is classified as that tool, never as a file write:
 * a `write xd://bash` is a shell call. `?` asks for the device's docs.
 */
function mapDevice(device: string, content: unknown, cwd: string): MapResult {
  const where = `${XD_PREFIX}${device}`;
  if (device.length === 0 || /[/?#]/.test(device)) {
    return { ok: false, error: `write to ${where}: not a tool device URL (expected xd://<tool>)` };
  }
  if (typeof content !== "string") return { ok: false, error: `${where}: content must be a JSON args object` };
  if (content.trim() === "?") return ok({ kind: "lookup", toolInput: { path: where, content }, target: where });
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch (error) {
    return { ok: false, error: `${where}: content is not JSON (${error instanceof Error ? error.message : String(error)})` };
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    return { ok: false, error: `${where}: content must be a JSON object, got ${Array.isArray(parsed) ? "array" : typeof parsed}` };
  }
  const args = parsed as Fields;
  if (device.toLowerCase() === "lsp") return mapLsp(args, cwd, where);
  const inner = mapTool(device, args, cwd);
  if (!inner.ok) return inner;
  return { ok: true, mapped: inner.mapped.map((mapped) => ({ ompName: device, ...mapped })) };
}

function mapWrite(input: Fields, cwd: string): MapResult {
  const target = str(input.path);
  if (target !== undefined && target.trim().toLowerCase().startsWith(XD_PREFIX)) {
    return mapDevice(target.trim().slice(XD_PREFIX.length), input.content, cwd);
  }
  if (target === undefined || target.trim().length === 0) {
    return { ok: false, error: "write names no target file: it has no path" };
  }
  const filePath = resolveTargetPath(target, cwd);
  return ok({ kind: "write", claudeName: "Write", toolInput: defined({ file_path: filePath, content: input.content }), target: filePath });
}

// ---------------------------------------------------------------------------
// edits and other writes

/** Anchored edits, patches and other file writes: one target per file they write. */
function mapFileWrites(name: string, input: Fields, cwd: string): MapResult {
  const found = editTargetsOf(input);
  if (!found.ok) return { ok: false, error: `${name}: ${found.error}` };
  const lower = name.toLowerCase();
  // OMP's edit (all modes) and the patch tools are Claude's Edit, one file at a time.
  const isEdit = lower === "edit" || lower === "apply_patch" || lower === "patch";
  const replace = isEdit && typeof input.old_string === "string" && typeof input.new_string === "string";
  return {
    ok: true,
    mapped: found.targets.map((edit) => {
      const filePath = resolveTargetPath(edit.path, cwd);
      if (!isEdit) return { kind: "write", toolInput: input, target: filePath };
      const toolInput = replace
        ? defined({ file_path: filePath, old_string: input.old_string, new_string: input.new_string, replace_all: input.replace_all })
        : defined({ file_path: filePath, new_string: edit.added });
      return { kind: "write", claudeName: "Edit", toolInput, target: filePath };
    }),
  };
}

/** ast_edit rewrites every file under `paths` (files, directories, globs). */
function mapAstEdit(input: Fields, cwd: string): MapResult {
  const paths = Array.isArray(input.paths) ? input.paths.filter((p): p is string => typeof p === "string" && p.trim().length > 0) : [];
  if (paths.length === 0) return { ok: false, error: "ast_edit names no target file: its paths is empty" };
  return { ok: true, mapped: paths.map((p) => ({ kind: "write", toolInput: input, target: resolveTargetPath(p, cwd) })) };
}

// ---------------------------------------------------------------------------
// the rest of OMP's built-ins

/** Every shell spelling is Claude's Bash; only OMP's `bash` timeout is known to be seconds. */
function mapShell(name: string, input: Fields): Mapped {
  const seconds = name.toLowerCase() === "bash" ? num(input.timeout) : undefined;
  return {
    kind: "shell",
    claudeName: "Bash",
    toolInput: defined({
      command: shellCommandOf(input),
      // OMP's timeout is seconds (0 disables it); Claude's is milliseconds.
      timeout: seconds !== undefined && seconds > 0 ? seconds * 1000 : undefined,
      run_in_background: typeof input.async === "boolean" ? input.async : undefined,
    }),
  };
}

function mapGrep(input: Fields): Mapped {
  return {
    kind: "other",
    claudeName: "Grep",
    toolInput: defined({
      pattern: input.pattern,
      path: input.path,
      // OMP's `case` asks for case-sensitivity; Claude's `-i` for its opposite.
      "-i": typeof input.case === "boolean" ? !input.case : undefined,
    }),
  };
}

function mapTask(input: Fields): Mapped[] {
  const item = (fields: Fields): Mapped => ({
    kind: "other",
    claudeName: "Task",
    toolInput: defined({ description: str(fields.name), prompt: fields.task, subagent_type: str(fields.agent) }),
  });
  // A batch spawns one subagent per item, as Claude issues one Task per subagent.
  if (Array.isArray(input.tasks)) return input.tasks.map((task) => item(asRecord(task)));
  return [item(input)];
}

/** Only `init` replaces the whole list, as TodoWrite does; the incremental ops have no Claude twin. */
function mapTodo(input: Fields): Mapped {
  if (input.op !== "init") return { kind: "other", toolInput: input };
  const contents: unknown[] = Array.isArray(input.list)
    ? input.list.flatMap((phase) => {
        const items = asRecord(phase).items;
        return Array.isArray(items) ? items : [];
      })
    : Array.isArray(input.items)
      ? input.items
      : [];
  const todos = contents.filter((c): c is string => typeof c === "string").map((content) => ({ content, status: "pending" }));
  return { kind: "other", claudeName: "TodoWrite", toolInput: { todos } };
}

/** One OMP call, by the OMP tool name it was made with. */
function mapTool(name: string, input: Fields, cwd: string): MapResult {
  const kind = toolKind(name);
  switch (name.toLowerCase()) {
    case "read":
      return mapRead(input, cwd);
    case "write":
      return mapWrite(input, cwd);
    case "ast_edit":
      return mapAstEdit(input, cwd);
    case "lsp":
      return mapLsp(input, cwd, "lsp");
    case "grep":
    case "search":
      return ok(mapGrep(input));
    case "glob":
    case "find":
      // OMP's glob takes the glob (or directory) in `path`; Claude's in `pattern`.
      return ok({ kind: "other", claudeName: "Glob", toolInput: defined({ pattern: input.path }) });
    case "web_search":
      return ok({ kind: "other", claudeName: "WebSearch", toolInput: defined({ query: input.query }) });
    case "task":
      return { ok: true, mapped: mapTask(input) };
    case "todo":
      return ok(mapTodo(input));
  }
  if (kind === "shell") return ok(mapShell(name, input));
  if (kind === "write") return mapFileWrites(name, input, cwd);
  // No Claude equivalent: OMP's name and input, kind from the one tool declaration.
  return ok({ kind, toolInput: input });
}

/** A patch tool whose whole input arrived as the raw patch string (custom wire). */
function toolInputRecord(name: string, raw: unknown): Fields {
  if (typeof raw === "string" && toolKind(name) === "write" && name.toLowerCase() !== "write") return { input: raw };
  return asRecord(raw);
}

function commonFields(event: ParsedEvent, payload: DispatchPayload): HookInput {
  return defined({
    session_id: payload.session_id,
    transcript_path: payload.transcript_path,
    // The harness's cwd, else this process's: never a guessed directory.
    cwd: payload.cwd ?? process.cwd(),
    hook_event_name: HOOK_EVENT_NAMES[event.kind],
    prompt: event.kind === "user_prompt_submit" ? payload.prompt : undefined,
    stop_hook_active: event.kind === "stop" ? payload.stop_hook_active : undefined,
  }) as HookInput;
}

/**
 * The Claude-shaped hook inputs for one OMP event: one per target. Non-tool events
 * have one target of kind "other". A tool call that cannot be read (a write with
 * no target, a malformed xd:// request) is refused with the cause.
 */
export function toHookTargets(event: ParsedEvent, payload: DispatchPayload): HookTargetsResult {
  const common = commonFields(event, payload);
  const toolName = event.tool ?? payload.tool_name;
  if (event.kind !== "pre_tool_use" && event.kind !== "post_tool_use") {
    return { ok: true, targets: [{ input: common, kind: "other", names: [] }] };
  }
  if (toolName === undefined) return { ok: false, error: `${event.name}: the event names no tool` };

  const rawInput = payload.tool_input;
  const mapped = mapTool(toolName, toolInputRecord(toolName, rawInput), common.cwd);
  if (!mapped.ok) return mapped;

  const callFields = defined({
    tool_use_id: payload.tool_call_id,
    tool_response: event.kind === "post_tool_use" ? payload.tool_response : undefined,
  });
  return {
    ok: true,
    targets: mapped.mapped.map((m) => {
      const ompName = m.ompName ?? toolName;
      const hookToolName = m.claudeName ?? ompName;
      const omp = defined({ tool_name: toolName, tool_input: rawInput ?? {}, target: m.target, origin: payload.origin }) as HookInput["omp"];
      return {
        input: { ...common, tool_name: hookToolName, tool_input: m.toolInput, ...callFields, omp },
        kind: m.kind,
        names: [...new Set([ompName, hookToolName])],
        ...(m.target !== undefined ? { target: m.target } : {}),
      };
    }),
  };
}
