// `tama run-hook`: the persistent engine (`--serve omp`) and the one-event
// interface (`tama run-hook <event> <agent-id>`, payload on stdin).
import { writeFileAtomic } from "../system/atomic-write.ts";
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { Engine } from "../engine/engine.ts";
import { fileLogger } from "../system/log.ts";
import { EnvError, isSafeFileComponent, readEnvText, tamaPaths, type TamaPaths } from "../system/paths.ts";
import { DispatchPayload, parseEvent, type DispatchResult } from "../protocol/engine.ts";
import { HookSelection } from "../engine/selection.ts";
import { serve } from "../engine/serve.ts";
import { DEFAULT_PRESTART, prestartSettingsFromEnv } from "../engine/prestart.ts";
import { readStdin } from "./io.ts";
import { describeSchemaError } from "../protocol/schema.ts";
import { asSentHookTargets, CLAUDE_EVENTS, claudeAnswer, codexAnswer } from "../claude/one-event.ts";

export const INFRA = "TAMA_HOOK_INFRASTRUCTURE";

/** A line on stderr; a broken stderr (the caller died) must not end the engine before its hooks. */
function stderrLine(line: string): void {
  try {
    process.stderr.write(`${line}\n`);
  } catch {
    // nobody reads it any more
  }
}

function makeEngine(paths: TamaPaths, component: string, harness?: "claude" | "codex"): Engine {
  process.stderr.on("error", () => {});
  return new Engine({
    // One-event harnesses send hook input already: it reaches the hooks as it is.
    ...(harness !== undefined ? { hookTargets: asSentHookTargets } : {}),
    // Claude Code runs the hooks of its own settings files itself; Tama adds its registry and .tama/hooks.json.
    ...(harness === "claude" ? { harnessRunsClaudeSettings: true } : {}),
    paths,
    stderr: stderrLine,
    // The engine keeps answering without its log; its caller hears why once.
    logger: fileLogger(paths.logs, component, (message) => stderrLine(`tama: ${message}`)),
    env: process.env,
    selection: HookSelection.fromEnv(process.env),
    // One event per process has no next event to start a hook for.
    prestart: component === "engine" ? prestartSettingsFromEnv(process.env) : { ...DEFAULT_PRESTART, mode: "off" },
  });
}

export async function runHookCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      serve: { type: "boolean" },
      registry: { type: "string" },
      provider: { type: "string" },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.registry) process.env.TAMA_REGISTRY = values.registry;
  let paths: TamaPaths;
  try {
    paths = tamaPaths();
  } catch (error) {
    process.stderr.write(`${INFRA}: ${(error as Error).message}\n`);
    return 1;
  }
  if (values.serve) {
    const harness = positionals[0] ?? "omp";
    if (harness !== "omp") {
      process.stderr.write(`tama run-hook --serve: unknown harness ${JSON.stringify(harness)}; only omp is served\n`);
      return 2;
    }
    let engine: Engine;
    try {
      engine = makeEngine(paths, "engine");
    } catch (error) {
      process.stderr.write(`${INFRA}: ${(error as Error).message}\n`);
      return 1;
    }
    await serve({ engine, input: process.stdin, output: process.stdout });
    return 0;
  }
  return oneEvent(paths, positionals, values.provider);
}

/** Read the one-event mode's settings; every env value that is not text is refused by name. */
function oneEventSettings(positionals: string[], providerFlag: string | undefined) {
  // Both are read even when an argument wins: a value that is not text is refused, never skipped.
  const agentFromEnv = readEnvText("TAMA_AGENT_ID");
  const providerFromEnv = readEnvText("TAMA_PROVIDER");
  const agentId = positionals[1] ?? agentFromEnv;
  const provider = (providerFlag ?? providerFromEnv ?? "claude").toLowerCase();
  return { agentId, provider };
}

async function oneEvent(paths: TamaPaths, positionals: string[], providerFlag: string | undefined): Promise<number> {
  const fail = (message: string): number => {
    process.stderr.write(`${INFRA}: ${message}\n`);
    return 1;
  };
  const eventArg = positionals[0];
  if (!eventArg) return fail("tama run-hook needs an event: tama run-hook <event> <agent-id>");
  let settings: ReturnType<typeof oneEventSettings>;
  try {
    settings = oneEventSettings(positionals, providerFlag);
  } catch (error) {
    if (error instanceof EnvError) return fail(error.message);
    throw error;
  }
  if (!settings.agentId) {
    return fail("tama run-hook needs an agent id: pass it after the event or set TAMA_AGENT_ID");
  }
  if (settings.provider !== "claude" && settings.provider !== "codex") {
    return fail(`TAMA_PROVIDER must be claude or codex, not ${JSON.stringify(settings.provider)}`);
  }
  let raw: unknown;
  try {
    const text = await readStdin();
    raw = text.trim().length === 0 ? {} : JSON.parse(text);
  } catch (error) {
    return fail(`the payload on stdin is not JSON: ${(error as Error).message}`);
  }
  const payload = DispatchPayload.safeParse(raw);
  if (!payload.success) return fail(`the payload on stdin is not a hook payload: ${describeSchemaError(payload.error, "the payload")}`);
  const kind = CLAUDE_EVENTS[eventArg] ?? eventArg;
  const eventName =
    (kind === "pre_tool_use" || kind === "post_tool_use") && payload.data.tool_name ? `${kind}:${payload.data.tool_name}` : kind;
  if (!parseEvent(eventName)) return fail(`unknown event ${JSON.stringify(eventArg)}`);

  let engine: Engine;
  try {
    engine = makeEngine(paths, "run-hook", settings.provider);
  } catch (error) {
    return fail((error as Error).message);
  }
  await engine.start();
  if (engine.store.current === undefined || engine.store.lastReloadError) {
    return fail(engine.store.lastReloadError ?? "no hook registry is loaded");
  }
  const answer = await engine.handle({ id: "one-event", op: "dispatch", event: eventName, payload: payload.data });
  // The running-hook record is written in batches: leave none behind for a hook that ended.
  await engine.shutdown();
  publishAgentRecord(paths, settings.agentId, settings.provider, eventName, payload.data.session_id);
  if (!answer.ok) return fail(answer.error ?? "the dispatch failed");
  const result = answer.result as DispatchResult;
  const hookEventName = typeof payload.data.hook_event_name === "string" ? payload.data.hook_event_name : eventArg;
  const tellHeld =
    settings.provider === "claude" && hookEventName === "UserPromptSubmit" && result.held !== undefined && firstTold(paths, payload.data.session_id, result.held);
  if (kind === "session_end") forgetTold(paths, payload.data.session_id);
  const written = settings.provider === "codex" ? codexAnswer(result) : claudeAnswer(result, hookEventName, { tellHeld });
  process.stdout.write(written.stdout);
  process.stderr.write(written.stderr);
  return written.code;
}

/** Where a one-event session notes which held projects its person was told of. */
function toldFile(paths: TamaPaths, session: string | undefined): string | undefined {
  return session !== undefined && isSafeFileComponent(session) ? path.join(paths.sessions, `held-told.${session}.json`) : undefined;
}

/**
 * Whether this is the first time this session meets this held state (project, trust,
 * changes): OMP tells its session once per state, and so does one-event mode, which has
 * no memory between events but this file. A session it cannot note is told every time.
 */
function firstTold(paths: TamaPaths, session: string | undefined, held: NonNullable<DispatchResult["held"]>): boolean {
  const file = toldFile(paths, session);
  if (file === undefined) return true;
  const key = [held.project, held.trust, ...held.changes].join("\u0000");
  let told: string[] = [];
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, "utf8"));
    if (Array.isArray(parsed)) told = parsed.filter((k): k is string => typeof k === "string");
  } catch {
    // none yet, or unreadable: tell
  }
  if (told.includes(key)) return false;
  try {
    writeFileAtomic(file, JSON.stringify([...told, key].slice(-32)), { mode: 0o600, createDir: 0o700 });
  } catch {
    // told again next time rather than never
  }
  return true;
}

function forgetTold(paths: TamaPaths, session: string | undefined): void {
  const file = toldFile(paths, session);
  if (file !== undefined) rmSync(file, { force: true });
}

/** One-event adapters publish their own session record: which agent ran what, last. */
function publishAgentRecord(paths: TamaPaths, agentId: string, provider: string, event: string, session: string | undefined): void {
  if (!isSafeFileComponent(agentId)) return;
  try {
    const file = path.join(paths.sessions, `agent.${agentId}.json`);
    const record = { agentId, provider, session: session ?? null, lastEvent: event, lastEventAtMs: Date.now() };
    writeFileAtomic(file, JSON.stringify(record), { mode: 0o600, createDir: 0o700 });
  } catch {
    // A record that cannot be written changes no decision.
  }
}
