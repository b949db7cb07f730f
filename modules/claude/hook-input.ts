// OMP events in Claude Code's hook input shape, so existing Claude Code hook scripts
// run unchanged. Each OMP built-in with a Claude equivalent gets Claude's tool name
// and field names; OMP's own call stays beside it in `input.omp`. One OMP call may
// become several hook targets (an anchored edit of several files, a task batch),
// and a write whose target cannot be named is refused rather than guessed.
import path from "node:path";
import { editTargetsOf } from "../tools/edit-targets.ts";
import { localRootOf, resolveTargetPath, type PathRoots } from "../tools/tool-paths.ts";
import type { DispatchPayload, ParsedEvent } from "../protocol/engine.ts";
import { callKind, codeOf, shellCommandOf, shellEnvOf, toolKind, type DeclaredToolKinds } from "../tools/declaration.ts";
import { readCode, shellLine } from "../tools/code-reading.ts";
import { pathReadings } from "../tools/path-lists.ts";
import { HOOK_EVENT_NAMES, type HookInput } from "../protocol/hook-input.ts";
import { claudeToolError, claudeToolResponse, type OmpResult } from "./tool-response.ts";

export interface HookTarget {
  input: HookInput;
  /** "code": runs code (OMP's eval, debug launches); shell and write hooks both see it. */
  kind: "shell" | "write" | "code" | "lookup" | "other";
  /** OMP's and Claude's tool names, for registry list matchers. */
  names: string[];
  /** The file (or device URL) this target writes or reads, when the call names one. */
  target?: string;
  /** A failed call's result (Claude's PostToolUseFailure): hooks limited to one kind of result match by it. */
  failed?: boolean;
}

export type HookTargetsResult = { ok: true; targets: HookTarget[] } | { ok: false; error: string };


/** One mapped call: what a hook sees as tool_name/tool_input, and how it is matched. */
interface Mapped {
  kind: HookTarget["kind"];
  /** Claude's tool name; absent when Claude has no equivalent (OMP's name stays). */
  claudeName?: string;
  toolInput: Record<string, unknown>;
  target?: string;
  /** The OMP tool this identity belongs to, when it is not the outer call's (xd:// devices). */
  ompName?: string;
  /** The directory the call runs in, when it is not the session's (bash `cwd`). */
  cwd?: string;
  /** Fields beside Claude's in the hook input (`unnamed_writes`). */
  extra?: Fields;
}

/** What mapping a call needs beyond its own fields. */
interface MapContext {
  cwd: string;
  roots: PathRoots;
  declared: DeclaredToolKinds | undefined;
  /** A hub `send`'s process: what was typed into it so far (payload `typed_line`), and the program it runs (`typed_into`). */
  typedBefore?: string;
  typedInto?: string;
  /** The files the session's reads registered merge-conflict blocks in (payload `conflict_files`). */
  conflictFiles?: readonly string[];
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

/**
 * One Read (or WebFetch) per path OMP's read may take `path` as: a path that names no
 * file is read as a `;`, `,` or whitespace list, unquoted, each part read again
 * (tools/read.ts #tryReadDelimitedPaths). A path too tangled to list is refused.
 */
function mapRead(input: Fields, ctx: MapContext): MapResult {
  const raw = str(input.path);
  if (raw === undefined) return ok({ kind: "other", claudeName: "Read", toolInput: {} });
  // OMP's read fetches URLs; Claude does that with WebFetch.
  if (URL_PATH.test(raw)) return ok({ kind: "other", claudeName: "WebFetch", toolInput: { url: raw }, target: raw });
  const readings = pathReadings(raw);
  if (!readings.ok) return { ok: false, error: `read: its path ${readings.error}` };
  const mapped = new Map<string, Mapped>();
  for (const reading of readings.paths) {
    if (URL_PATH.test(reading)) {
      mapped.set(reading, { kind: "other", claudeName: "WebFetch", toolInput: { url: reading }, target: reading });
      continue;
    }
    const { file, offset, limit } = splitReadSelector(reading);
    const filePath = resolveTargetPath(file, ctx.cwd, ctx.roots);
    if (!mapped.has(filePath)) mapped.set(filePath, { kind: "other", claudeName: "Read", toolInput: defined({ file_path: filePath, offset, limit }), target: filePath });
  }
  return { ok: true, mapped: [...mapped.values()] };
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

function mapLsp(request: Fields, ctx: MapContext, where: string): MapResult {
  const action = request.action;
  if (typeof action !== "string") {
    return { ok: false, error: `${where}: the request has no string "action"` };
  }
  // Rename, rename_file, code actions (which can apply edits), reload, raw
  // requests and unknown actions may change files: never read-only.
  const kind = LSP_READ_ONLY.has(lspActionKey(action)) ? "lookup" : "write";
  const file = str(request.file);
  const call: Mapped = {
    kind,
    claudeName: "LSP",
    toolInput: request,
    ompName: "lsp",
    ...(file ? { target: resolveTargetPath(file, ctx.cwd, ctx.roots) } : {}),
  };
  if (kind === "lookup") return ok(call);
  // The files it changes by name, each as a write the gates read (`rename_file` moves
  // `file`, which may be a directory, to `new_name`; a rename or code action edits
  // `file`), then the call itself. They keep OMP's name: Claude has no tool that moves
  // a file, and its Write hooks would look for content at a path that is gone.
  const moves = lspActionKey(action) === "rename_file";
  const named = [file, moves ? str(request.new_name) : undefined].filter((p): p is string => p !== undefined && p.length > 0);
  if (named.length === 0) return ok(call);
  const writes: Mapped[] = named.map((p) => {
    const filePath = resolveTargetPath(p, ctx.cwd, ctx.roots);
    return { kind: "write", ompName: "lsp", toolInput: { file_path: filePath }, target: filePath, ...(moves ? { extra: { moves: true } } : {}) };
  });
  const { target: _named, ...rest } = call;
  return { ok: true, mapped: [...writes, rest] };
}

// ---------------------------------------------------------------------------
// write, including xd:// tool devices

const XD_PREFIX = "xd://";

/**
 * Devices whose content is plain text, not JSON args (src/tools/resolve.ts,
 * report-tool-issue.ts): `resolve` applies the preview a checked call staged,
 * `reject` discards it, `propose` submits a plan, `report_issue` files a note.
 */
const PLAIN_TEXT_DEVICES = new Set(["resolve", "reject", "propose", "report_issue"]);

/** OMP answers an empty, `?` or `help` device write with the device's docs (xdev.ts HELP_CONTENT_RE). */
const DEVICE_HELP = /^\s*(\?|help)?\s*$/i;

/**
 * `write xd://<tool>` runs <tool> with `content` as its JSON args
 * (src/tools/xdev.ts), so it is classified as that tool, never as a file write:
 * a `write xd://bash` is a shell call. Plain-text devices are read by their own
 * rules; a JSON device whose content is not a JSON object never runs (OMP refuses
 * it), so it is nothing but a lookup of that device.
 */
function mapDevice(device: string, content: unknown, ctx: MapContext): MapResult {
  const where = `${XD_PREFIX}${device}`;
  if (/[/?#]/.test(device)) {
    return { ok: false, error: `write to ${where}: not a tool device URL (expected xd://<tool>)` };
  }
  if (device.length === 0) return { ok: false, error: `write to ${where}: not a tool device URL (expected xd://<tool>)` };
  const name = device.toLowerCase();
  // The LSP device's own rule: malformed JSON or a missing action is refused with its cause.
  if (name === "lsp" && typeof content !== "string") return { ok: false, error: `${where}: content must be a JSON args object` };
  const text = typeof content === "string" ? content : "";
  if (DEVICE_HELP.test(text)) return ok({ kind: "lookup", toolInput: { path: where, content: text }, target: where });
  if (PLAIN_TEXT_DEVICES.has(name)) {
    return ok({ kind: "other", toolInput: { device: name, text }, ompName: name, target: where });
  }
  let parsed: unknown;
  let why: string | undefined;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    why = `content is not JSON (${error instanceof Error ? error.message : String(error)})`;
  }
  if (why === undefined && (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))) {
    why = `content must be a JSON object, got ${Array.isArray(parsed) ? "array" : parsed === null ? "null" : typeof parsed}`;
  }
  if (why !== undefined) {
    if (name === "lsp") return { ok: false, error: `${where}: ${why}` };
    // OMP refuses the write itself (xdev.ts parseDeviceArgs): the device never runs.
    return ok({ kind: "lookup", toolInput: { path: where, content: text }, target: where });
  }
  const args = parsed as Fields;
  if (name === "lsp") return mapLsp(args, ctx, where);
  const inner = mapTool(device, args, ctx);
  if (!inner.ok) return inner;
  return { ok: true, mapped: inner.mapped.map((mapped) => ({ ompName: device, ...mapped })) };
}

function mapWrite(input: Fields, ctx: MapContext): MapResult {
  const raw = str(input.path);
  // OMP unwraps `[PATH#TAG]` before it decides whether the target is a device.
  const target = raw === undefined ? undefined : unwrapForDevice(raw);
  if (target !== undefined && target.trim().toLowerCase().startsWith(XD_PREFIX)) {
    return mapDevice(target.trim().slice(XD_PREFIX.length), input.content, ctx);
  }
  if (raw === undefined || raw.trim().length === 0) {
    return { ok: false, error: "write names no target file: it has no path" };
  }
  const filePath = resolveTargetPath(raw, ctx.cwd, ctx.roots);
  const write = (file: string): Mapped => ({ kind: "write", claudeName: "Write", toolInput: defined({ file_path: file, content: input.content }), target: file });
  if (!CONFLICT_ADDRESS.test(raw)) return ok(write(filePath));
  // `conflict://N` (or `*`, or `<file>:conflict://N`): OMP splices `content` into a conflict block an earlier read
  // registered, in whichever file that was; it is judged as a write to each file the session's reads registered one in.
  const files = ctx.conflictFiles ?? [];
  if (files.length === 0) {
    return { ok: false, error: `write to ${raw.trim()} splices into a file where a read registered a merge-conflict block, and Tama saw no read in this session register one; read the file again (its :conflicts selector), or edit it by its path` };
  }
  return { ok: true, mapped: [...new Set([filePath, ...files])].map(write) };
}

/** A `conflict://` address anywhere in a write's path (OMP also takes `<file>:conflict://N`). */
const CONFLICT_ADDRESS = /conflict:\/\//i;

function unwrapForDevice(raw: string): string {
  const trimmed = raw.trim();
  if (!trimmed.startsWith("[") || !trimmed.endsWith("]")) return raw;
  const inner = trimmed.slice(1, -1).replace(/#[0-9A-Fa-f]{4}$/, "");
  return inner.includes("#") ? raw : inner;
}

// ---------------------------------------------------------------------------
// edits and other writes

/** Anchored edits, patches and other file writes: one target per file they write. */
function mapFileWrites(name: string, input: Fields, ctx: MapContext): MapResult {
  const found = editTargetsOf(input, { cwd: ctx.cwd, roots: ctx.roots });
  if (!found.ok) return { ok: false, error: `${name}: ${found.error}` };
  const lower = name.toLowerCase();
  // OMP's edit (all modes) and the patch tools are Claude's Edit, one file at a time.
  const isEdit = lower === "edit" || lower === "apply_patch" || lower === "patch";
  const replace = isEdit && typeof input.old_string === "string" && typeof input.new_string === "string";
  return {
    ok: true,
    mapped: found.targets.map((edit) => {
      const filePath = resolveTargetPath(edit.path, ctx.cwd, ctx.roots);
      if (!isEdit) return { kind: "write", toolInput: input, target: filePath };
      const toolInput = replace
        ? { file_path: filePath, old_string: input.old_string, new_string: input.new_string, replace_all: input.replace_all === true }
        : defined({ file_path: filePath, new_string: edit.added });
      return { kind: "write", claudeName: "Edit", toolInput, target: filePath };
    }),
  };
}

/**
 * ast_edit rewrites every file under `paths` (files, directories, globs): each path
 * is Claude's Edit of that `file_path`, so an `Edit|Write` guard runs once per path.
 * Each entry counts as every path OMP may read it as (unquoted, split on `;`, `,` or
 * whitespace, `\` as `/`, a brace group's alternatives: tools/path-utils.ts
 * resolveToolSearchScope). A directory or glob is shown resolved, as written; the
 * files under it are not listed.
 */
function mapAstEdit(input: Fields, ctx: MapContext): MapResult {
  const readings = pathReadings(Array.isArray(input.paths) ? input.paths : []);
  if (!readings.ok) return { ok: false, error: `ast_edit: its paths list ${readings.error}` };
  if (readings.paths.length === 0) return { ok: false, error: "ast_edit names no target file: its paths is empty" };
  const targets = new Set(readings.paths.map((p) => resolveTargetPath(p, ctx.cwd, ctx.roots)));
  return {
    ok: true,
    mapped: [...targets].map((filePath) => ({ kind: "write", claudeName: "Edit", toolInput: { file_path: filePath, ops: input.ops }, target: filePath })),
  };
}

// ---------------------------------------------------------------------------
// code execution: eval, debug launches, tools a registry declares as code

/**
 * A code-execution call is, for hooks, first what a reader can see of it — each
 * literal command line it hands a process API as Claude's Bash, each literal file it
 * writes as Claude's Write — and then the call itself, under OMP's tool name with
 * `tool_input.code` and `tool_input.language` ("python", "javascript", "program" for
 * a debug launch) and `unnamed_writes: true`: the code can write files no hook was
 * shown, and a hook that must not allow that refuses on this field.
 */
function mapCode(name: string, input: Fields, ctx: MapContext): MapResult {
  const code = codeOf(name, input);
  const readable: Mapped[] = [];
  const isDebug = name.toLowerCase() === "debug";
  if (isDebug) {
    const program = str(input.program);
    const args = Array.isArray(input.args) ? input.args.filter((a): a is string => typeof a === "string") : [];
    if (program !== undefined) readable.push({ kind: "shell", claudeName: "Bash", toolInput: { command: shellLine([program, ...args]) } });
  } else if (code !== undefined) {
    const reading = readCode(code.code, code.language);
    for (const command of reading.commands) readable.push({ kind: "shell", claudeName: "Bash", toolInput: { command } });
    for (const write of reading.writes) {
      const filePath = resolveTargetPath(write.path, ctx.cwd, { ...ctx.roots, brackets: false });
      readable.push({ kind: "write", claudeName: "Write", toolInput: defined({ file_path: filePath, content: write.content }), target: filePath });
    }
  }
  const debugCwd = isDebug ? str(input.cwd) : undefined;
  const cwd = debugCwd === undefined ? undefined : resolveTargetPath(debugCwd, ctx.cwd, ctx.roots);
  const own: Fields = isDebug ? input : Object.fromEntries(Object.entries(input).filter(([key]) => key !== "code" && key !== "language"));
  const call: Mapped = {
    kind: "code",
    toolInput: { ...own, code: code?.code ?? "", language: code?.language ?? "unknown" },
    extra: { unnamed_writes: true },
  };
  return { ok: true, mapped: [...readable, call].map((m) => (cwd === undefined ? m : { ...m, cwd })) };
}

// ---------------------------------------------------------------------------
// the rest of OMP's built-ins

/**
 * Every shell spelling is Claude's Bash; only OMP's `bash` timeout is known to be
 * seconds. OMP's bash also takes `env` (added to the command's environment) and `cwd`
 * (resolved against the session's cwd, tools/bash.ts): both stay in `tool_input`, and
 * the hook runs in that cwd, as the command will.
 */
function mapShell(name: string, input: Fields, ctx: MapContext): Mapped {
  const seconds = name.toLowerCase() === "bash" ? num(input.timeout) : undefined;
  const rawCwd = str(input.cwd);
  const cwd = rawCwd === undefined || rawCwd.trim().length === 0 ? undefined : resolveTargetPath(rawCwd, ctx.cwd, { ...ctx.roots, brackets: false });
  return {
    kind: "shell",
    claudeName: "Bash",
    toolInput: defined({
      command: shellCommandOf(input),
      // OMP's timeout is seconds (0 disables it); Claude's is milliseconds.
      timeout: seconds !== undefined && seconds > 0 ? seconds * 1000 : undefined,
      run_in_background: typeof input.async === "boolean" ? input.async : undefined,
      env: shellEnvOf(input),
      cwd,
    }),
    ...(cwd !== undefined ? { cwd } : {}),
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

/**
 * OMP's `hub` starts a supervised process from `application` and `args` (through the
 * user's shell as `exec …`, with `env`, in `cwd`), and `send` with a process `name`
 * types `text` into it: both run what a shell call would, so both are read as one
 * (a `restart` runs again what a `start` the gates read ran). Its other operations
 * message peers, wait and inspect.
 */
function mapHub(input: Fields, ctx: MapContext): MapResult {
  const op = str(input.op);
  const application = str(input.application);
  if (op === "start" && application !== undefined) {
    const args = Array.isArray(input.args) ? input.args.filter((a): a is string => typeof a === "string") : [];
    return ok(mapShell("hub", { command: shellLine([application, ...args]), env: input.env, cwd: input.cwd }, ctx));
  }
  if (op === "send" && str(input.name) !== undefined) {
    // Every line typed into the process so far, then this one: a shell there keeps its directory, variables and aliases.
    const line = ((ctx.typedBefore ?? "") + (str(input.text) ?? "")).replace(/\r\n?/g, "\n");
    const unreadable = unreadableTyping(line, input.keys, ctx.typedInto === undefined || INTERACTIVE_SHELLS.has(ctx.typedInto));
    if (unreadable !== undefined) return { ok: false, error: `hub send: ${unreadable}; type the whole command line as text` };
    if (line.length > 0) return ok(mapShell("hub", { command: line }, ctx));
  }
  return ok({ kind: "other", toolInput: input });
}

/** A hub send's `keys` as OMP reads them (trimmed, upper-cased). */
export const hubKeys = (keys: unknown): string[] => (Array.isArray(keys) ? keys.filter((k): k is string => typeof k === "string").map((k) => k.trim().toUpperCase()) : []);

/** Keys that recall, complete or move within a line (readline's Escape starts an edit: `Esc .` yanks an argument): what a shell then runs is not the text sent. */
const LINE_EDITING_KEYS = new Set(["TAB", "UP", "DOWN", "LEFT", "RIGHT", "ESCAPE"]);

/**
 * Why a line typed into a process cannot be read as the command it runs: a key or a
 * control character that edits, recalls or completes it, or an interactive shell's
 * history expansion (`!!`, `!?verify?`, `^a^b`) and re-run commands (`fc -s`, zsh's `r`).
 */
/** Programs whose typed lines an interactive shell's history rules rewrite; a process of unknown program is read as one. */
const INTERACTIVE_SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "fish", "tcsh", "csh", "busybox", "env"]);

function unreadableTyping(line: string, keys: unknown, shell: boolean): string | undefined {
  const named = hubKeys(keys);
  const editing = named.find((key) => LINE_EDITING_KEYS.has(key));
  if (editing !== undefined) return `the ${editing} key recalls, completes or edits a typed line, which Tama cannot read (CTRL_C and CTRL_D are fine)`;
  // Tab, carriage return and newline are typed text; other control characters edit the line (^U, ^W, backspace, escape sequences).
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(line)) return "its text holds control characters that edit the typed line, which Tama cannot read";
  if (shell && /![^\s=("]|^\s*\^|(^|[;&|\n]\s*)(fc|r)(\s|$)/m.test(line)) return "an interactive shell would replace part of the line from its history (`!…`, `^…^`, `fc`, `r`), which Tama cannot read";
  return undefined;
}

/**
 * OMP tools a person can turn on that write or read files they name: `tts` writes its
 * audio to `output_path`; `security_scan` moves an existing `output_root` aside
 * (`archive_existing`), recreates it and writes its report there, and hands each of
 * `knowledge_base_paths` to a scan session no extension sees; `generate_image` uploads
 * each `input[].path`. Each file comes first, as a write (under OMP's name) or a Read,
 * then the call itself.
 */
function mapNamedFiles(name: string, input: Fields, ctx: MapContext): Mapped[] {
  const files: Mapped[] = [];
  const write = (raw: unknown, moves: boolean): void => {
    const named = str(raw);
    if (named === undefined || named.trim().length === 0) return;
    const filePath = resolveTargetPath(named, ctx.cwd, ctx.roots);
    files.push({ kind: "write", ompName: name, toolInput: { file_path: filePath }, target: filePath, ...(moves ? { extra: { moves: true } } : {}) });
  };
  const read = (raw: unknown): void => {
    const named = str(raw);
    if (named === undefined || named.trim().length === 0) return;
    const filePath = resolveTargetPath(named, ctx.cwd, ctx.roots);
    files.push({ kind: "other", claudeName: "Read", ompName: name, toolInput: { file_path: filePath }, target: filePath });
  };
  if (name === "tts") write(input.output_path, false);
  if (name === "security_scan") {
    write(input.output_root, true);
    if (Array.isArray(input.knowledge_base_paths)) input.knowledge_base_paths.forEach(read);
  }
  if (name === "generate_image" && Array.isArray(input.input)) for (const item of input.input) read(asRecord(item).path);
  return [...files, { kind: "other", toolInput: input }];
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
function mapTool(name: string, input: Fields, ctx: MapContext): MapResult {
  const kind = callKind(name, input, ctx.declared);
  switch (name.toLowerCase()) {
    case "read":
      return mapRead(input, ctx);
    case "write":
      return mapWrite(input, ctx);
    case "ast_edit":
      return mapAstEdit(input, ctx);
    case "lsp":
      return mapLsp(input, ctx, "lsp");
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
    case "hub":
      return mapHub(input, ctx);
    case "tts":
    case "security_scan":
    case "generate_image":
      return { ok: true, mapped: mapNamedFiles(name.toLowerCase(), input, ctx) };
  }
  if (kind === "shell") return ok(mapShell(name, input, ctx));
  if (kind === "write") return mapFileWrites(name, input, ctx);
  if (kind === "code") return mapCode(name, input, ctx);
  // No Claude equivalent: OMP's name and input, kind from the one tool declaration.
  return ok({ kind, toolInput: input });
}

/** A patch tool whose whole input arrived as the raw patch string (custom wire). */
function toolInputRecord(name: string, raw: unknown, declared: DeclaredToolKinds | undefined): Fields {
  if (typeof raw === "string" && toolKind(name, declared) === "write" && name.toLowerCase() !== "write") return { input: raw };
  return asRecord(raw);
}

/** Claude's `effort`: `{level}`, as the harness sent it. */
function effortOf(value: unknown): { level: string } | undefined {
  const level = asRecord(value).level;
  return typeof level === "string" ? { level } : undefined;
}

/** Whether a result event reports a failed call (Claude's PostToolUseFailure rather than PostToolUse). */
export function isFailedResult(event: ParsedEvent, payload: DispatchPayload): boolean {
  return event.kind === "post_tool_use" && payload.is_error === true;
}

function commonFields(event: ParsedEvent, payload: DispatchPayload): HookInput {
  const text = (key: string): string | undefined => str(payload[key]);
  return defined({
    session_id: payload.session_id,
    transcript_path: payload.transcript_path,
    // The harness's cwd, else this process's: never a guessed directory.
    cwd: payload.cwd ?? process.cwd(),
    // Claude's: one id per user prompt, on that prompt's events (none before the first).
    prompt_id: event.kind === "session_start" ? undefined : text("prompt_id"),
    permission_mode: event.kind === "session_start" || event.kind === "session_end" ? undefined : text("permission_mode"),
    effort: event.kind === "pre_tool_use" || event.kind === "post_tool_use" || event.kind === "stop" ? effortOf(payload.effort) : undefined,
    hook_event_name: isFailedResult(event, payload) ? "PostToolUseFailure" : HOOK_EVENT_NAMES[event.kind],
    source: event.kind === "session_start" ? text("source") : undefined,
    reason: event.kind === "session_end" ? text("reason") : undefined,
    prompt: event.kind === "user_prompt_submit" ? payload.prompt : undefined,
    stop_hook_active: event.kind === "stop" ? payload.stop_hook_active : undefined,
    last_assistant_message: event.kind === "stop" && typeof payload.last_assistant_message === "string" ? payload.last_assistant_message : undefined,
    open_todos: event.kind === "stop" || event.kind === "before_provider_request" ? payload.open_todos : undefined,
  }) as HookInput;
}

/**
 * A result's fields as Claude Code gives them: PostToolUse's per-tool `tool_response`, or
 * PostToolUseFailure's `error` and `is_interrupt`; then `duration_ms`. OMP's own result
 * stays in `omp.tool_response`. The per-tool response is built when a hook first reads
 * it (a command hook's stdin, a gate that asks), not for every result.
 */
function resultFields(input: HookInput, mapped: Mapped, toolName: string, payload: DispatchPayload, failed: boolean): HookInput {
  // OMP's own result; a tool without a Claude shape keeps it as it is.
  const response = asRecord(payload.tool_response);
  const result: OmpResult = { ...response, content: response.content };
  const source = { ompTool: mapped.ompName ?? toolName, claudeTool: mapped.claudeName, toolInput: mapped.toolInput, result, details: payload.tool_details };
  const duration = num(payload.duration_ms);
  if (failed) return { ...input, ...claudeToolError(source), ...(duration !== undefined ? { duration_ms: Math.round(duration) } : {}) };
  // A response OMP did not give in its own shape (another harness, a test) is passed on as it is.
  if (!Array.isArray(result.content)) return { ...input, tool_response: payload.tool_response, ...(duration !== undefined ? { duration_ms: Math.round(duration) } : {}) };
  const originalFile = payload.original_file === null || typeof payload.original_file === "string" ? payload.original_file : undefined;
  let built: { value: unknown } | undefined;
  Object.defineProperty(input, "tool_response", {
    enumerable: true,
    configurable: true,
    get: () => (built ??= { value: claudeToolResponse({ ...source, ...(originalFile !== undefined ? { originalFile } : {}) }) }).value,
  });
  if (duration !== undefined) input.duration_ms = Math.round(duration);
  return input;
}

/**
 * The Claude-shaped hook inputs for one OMP event: one per target. Non-tool events
 * have one target of kind "other". A tool call that cannot be read (a write with
 * no target, a malformed xd:// request) is refused with the cause.
 */
export function toHookTargets(event: ParsedEvent, payload: DispatchPayload, declared?: DeclaredToolKinds): HookTargetsResult {
  const common = commonFields(event, payload);
  const toolName = event.tool ?? payload.tool_name;
  if (event.kind !== "pre_tool_use" && event.kind !== "post_tool_use") {
    return { ok: true, targets: [{ input: common, kind: "other", names: [] }] };
  }
  if (toolName === undefined) return { ok: false, error: `${event.name}: the event names no tool` };

  const rawInput = payload.tool_input;
  const roots: PathRoots = {};
  const localRoot = localRootOf(payload.transcript_path, payload.session_id);
  if (localRoot !== undefined) roots.localRoot = localRoot;
  const typedBefore = typeof payload.typed_line === "string" && payload.typed_line.length > 0 ? payload.typed_line : undefined;
  const typedInto = typeof payload.typed_into === "string" && payload.typed_into.length > 0 ? payload.typed_into : undefined;
  const conflictFiles = payload.conflict_files;
  const mapped = mapTool(toolName, toolInputRecord(toolName, rawInput, declared), {
    cwd: common.cwd,
    roots,
    declared,
    ...(typedBefore !== undefined ? { typedBefore } : {}),
    ...(typedInto !== undefined ? { typedInto } : {}),
    ...(conflictFiles !== undefined ? { conflictFiles } : {}),
  });
  if (!mapped.ok) return mapped;
  // A cwd OMP expands from an address of its own (`skill://…`) is a directory no hook can be shown or run in.
  const unplaced = mapped.mapped.find((m) => m.cwd !== undefined && !path.isAbsolute(m.cwd))?.cwd;
  if (unplaced !== undefined) return { ok: false, error: `${event.name}: its cwd ${unplaced} is an address Tama cannot place; give the directory as a path` };

  const post = event.kind === "post_tool_use";
  const failed = isFailedResult(event, payload);
  const callFields = defined({ tool_use_id: payload.tool_call_id });
  return {
    ok: true,
    targets: mapped.mapped.map((m) => {
      const ompName = m.ompName ?? toolName;
      const hookToolName = m.claudeName ?? ompName;
      const omp = defined({
        tool_name: toolName,
        tool_input: rawInput ?? {},
        target: m.target,
        origin: payload.origin,
        kind: m.kind,
        tool_response: post ? payload.tool_response : undefined,
        call_repeats: post ? payload.call_repeats : undefined,
        // The project stays the session's wherever the call runs.
        session_cwd: m.cwd !== undefined && m.cwd !== common.cwd ? common.cwd : undefined,
        // OMP's bash runs in the session's one shell, with what earlier calls left there.
        shell_kept: m.kind === "shell" && toolName === "bash" ? payload.shell_kept : undefined,
      }) as HookInput["omp"];
      const cwd = m.cwd ?? common.cwd;
      const input: HookInput = { ...common, cwd, tool_name: hookToolName, tool_input: m.toolInput, ...m.extra, ...callFields, omp };
      return {
        input: post ? resultFields(input, m, toolName, payload, failed) : input,
        kind: m.kind,
        names: [...new Set([ompName, hookToolName])],
        ...(m.target !== undefined ? { target: m.target } : {}),
        ...(post ? { failed } : {}),
      };
    }),
  };
}
