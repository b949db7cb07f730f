// What Claude Code gives its hooks about the session beyond one event: the id of the
// user prompt the event belongs to (`prompt_id`), the permission mode, why the session
// started, and the SessionStart hooks' context, kept until the next turn takes it: it
// reaches the model with that turn's prompt (Claude Code puts it at the top of the
// conversation, before the first prompt). Kept per session in the
// shell's carry store, so an adapter reload neither loses undelivered context nor
// delivers it twice; a subagent's session has its own.
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readdir, rm, stat } from "node:fs/promises";
import path from "node:path";
import { claudeEnvDir } from "../modules/system/paths.ts";
import type { AdapterHost } from "../modules/omp/adapter-contract.ts";
import type { OmpContext } from "../modules/omp/api.ts";

/** How long a turn waits for the SessionStart hooks' answer before it goes without (OMP's handler budget is 30 s). */
const CONTEXT_WAIT_MS = 20_000;

const CARRY_KEY = "tama.claude-sessions.v1";

interface SessionFacts {
  promptId?: string;
  /** The SessionStart hooks' context, until a turn takes it. */
  context?: Promise<string | undefined>;
  /** The variables SessionStart hooks wrote to their CLAUDE_ENV_FILE, for the session's bash calls. */
  env?: Promise<Record<string, string> | undefined>;
  /** What `env` gave, once it has: a bash call then reads it without a race against a timer. */
  envRead?: { vars: Record<string, string> | undefined };
}

/** Variables a shell sets for itself, never carried from the env files. */
const SHELL_OWN = new Set(["_", "SHLVL", "PWD", "OLDPWD"]);
const ENV_WAIT_MS = 10_000;

/**
 * The variables the env files set: sourced once by bash (`set -a`, so a plain
 * assignment counts too, as it would in the shell Claude Code sources them in),
 * against this process's environment; only what they add or change is kept.
 */
async function sourceEnvFiles(dir: string): Promise<Record<string, string> | undefined> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith(".sh")).sort();
  } catch {
    return undefined;
  }
  const files: string[] = [];
  for (const name of names) {
    const file = path.join(dir, name);
    if ((await stat(file).catch(() => undefined))?.size) files.push(file);
  }
  if (files.length === 0) return undefined;
  const script = 'set -a; for f in "$@"; do . "$f"; done; env -0';
  const out = await new Promise<string | undefined>((resolve) =>
    execFile("bash", ["-c", script, "tama-env", ...files], { encoding: "utf8", timeout: ENV_WAIT_MS, maxBuffer: 4 * 1024 * 1024 }, (error, stdout) => resolve(error ? undefined : stdout)),
  );
  if (out === undefined) return undefined;
  const vars: Record<string, string> = {};
  for (const entry of out.split("\0")) {
    const at = entry.indexOf("=");
    if (at <= 0) continue;
    const name = entry.slice(0, at);
    const value = entry.slice(at + 1);
    if (!SHELL_OWN.has(name) && process.env[name] !== value) vars[name] = value;
  }
  return Object.keys(vars).length > 0 ? vars : undefined;
}

/** Claude's SessionStart `source` for OMP's session_switch reasons. */
const SWITCH_SOURCES: Readonly<Record<string, string>> = { new: "clear", resume: "resume", fork: "fork" };

/** OMP's thinking levels that are an effort (not `off` or `inherit`): Claude's names for the same levels. */
const EFFORTS = new Set(["minimal", "low", "medium", "high", "xhigh", "max"]);

export const SESSION_CONTEXT_TYPE = "tama-session-context";

export class ClaudeSession {
  private readonly sessions: Map<string, SessionFacts>;

  constructor(
    host: AdapterHost,
    /** OMP's thinking level, which is Claude's effort (the same level names). */
    private readonly thinkingLevel: () => string | undefined = () => undefined,
  ) {
    const carried = host.carry?.get(CARRY_KEY);
    if (carried instanceof Map) this.sessions = carried as Map<string, SessionFacts>;
    else {
      this.sessions = new Map();
      host.carry?.set(CARRY_KEY, this.sessions);
    }
  }

  private facts(session: string): SessionFacts {
    let facts = this.sessions.get(session);
    if (facts === undefined) {
      facts = {};
      this.sessions.set(session, facts);
    }
    return facts;
  }

  /**
   * The fields every event of the session carries (the engine keeps each on the events
   * Claude Code sends it on). OMP tells extensions no approval or plan mode: Claude's
   * ordinary one. Effort is the thinking level, when reasoning is on.
   */
  fields(session: string | undefined): Record<string, unknown> {
    const promptId = session === undefined ? undefined : this.sessions.get(session)?.promptId;
    let level: string | undefined;
    try {
      level = this.thinkingLevel();
    } catch {
      level = undefined;
    }
    const effort = level !== undefined && EFFORTS.has(level) ? { effort: { level } } : {};
    return { permission_mode: "default", ...(promptId !== undefined ? { prompt_id: promptId } : {}), ...effort };
  }

  /** A user prompt arrived: its events carry a new id. */
  newPrompt(session: string | undefined): void {
    if (session !== undefined) this.facts(session).promptId = randomUUID();
  }

  /**
   * SessionStart hooks run: their context waits for the session's next turn. (OMP puts
   * a message an extension sends while a prompt is being prepared nowhere, so the turn
   * takes it rather than racing it in.)
   */
  started(session: string | undefined, context: Promise<string | undefined>): void {
    if (session === undefined) return;
    const facts = this.facts(session);
    const pending = context.catch(() => undefined);
    facts.context = pending;
    // Nothing to give: nothing kept.
    void pending.then((text) => {
      if ((text === undefined || text.length === 0) && facts.context === pending) delete facts.context;
    });
  }

  /** The SessionStart hooks have answered (or the wait is over): a prompt's hooks run after them, as in Claude Code. */
  async startAnswered(session: string | undefined): Promise<void> {
    const pending = session === undefined ? undefined : this.sessions.get(session)?.context;
    if (pending === undefined) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([pending, new Promise<void>((resolve) => (timer = setTimeout(resolve, CONTEXT_WAIT_MS)))]);
    clearTimeout(timer);
  }

  /**
   * For a turn that starts: the context SessionStart hooks gave, once (the first turn
   * takes it). Waited for, as Claude Code waits for its SessionStart hooks; one that is
   * not there in time stays for the next turn.
   */
  async take(session: string | undefined): Promise<string | undefined> {
    if (session === undefined) return undefined;
    const facts = this.sessions.get(session);
    const pending = facts?.context;
    if (facts === undefined || pending === undefined) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const late = Symbol("late");
    const text = await Promise.race([pending, new Promise<typeof late>((resolve) => (timer = setTimeout(() => resolve(late), CONTEXT_WAIT_MS)))]);
    clearTimeout(timer);
    if (text === late || facts.context !== pending) return undefined;
    delete facts.context;
    return text;
  }

  /** SessionStart hooks finished: what they wrote to CLAUDE_ENV_FILE is read once, for the bash calls after. */
  hooksDone(session: string | undefined, done: Promise<unknown>, home: string): void {
    if (session === undefined) return;
    const facts = this.facts(session);
    const env = done.then(() => sourceEnvFiles(claudeEnvDir(home, session))).catch(() => undefined);
    facts.env = env;
    delete facts.envRead;
    void env.then((vars) => {
      if (facts.env === env) facts.envRead = { vars };
    });
  }

  /** The variables a bash call of the session gets from its SessionStart hooks' env files. */
  async envFor(session: string | undefined): Promise<Record<string, string> | undefined> {
    const facts = session === undefined ? undefined : this.sessions.get(session);
    if (facts?.envRead !== undefined) return facts.envRead.vars;
    const env = facts?.env;
    if (env === undefined) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const vars = await Promise.race([env, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ENV_WAIT_MS)))]);
    clearTimeout(timer);
    return vars;
  }

  /** The session ended: nothing of it is kept, its env files neither. */
  ended(session: string | undefined, home: string): void {
    if (session === undefined) return;
    this.sessions.delete(session);
    void rm(claudeEnvDir(home, session), { recursive: true, force: true }).catch(() => undefined);
  }
}

/** Why OMP's session started, as Claude's `source`: a session file that already holds messages was resumed. */
export function startSource(ctx: OmpContext): "startup" | "resume" {
  try {
    const entries = ctx.sessionManager.getEntries?.() ?? [];
    return entries.some((entry) => entry.type === "message") ? "resume" : "startup";
  } catch {
    return "startup";
  }
}

/** Claude's `source` for a session OMP switched to (/new is Claude's /clear). */
export function switchSource(event: unknown): string {
  const reason = event !== null && typeof event === "object" ? (event as { reason?: unknown }).reason : undefined;
  return (typeof reason === "string" ? SWITCH_SOURCES[reason] : undefined) ?? "startup";
}
