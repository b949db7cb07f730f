// The OMP adapter: bundled with every module it imports into ONE file whose SHA-256
// is its identity. The shell imports it and calls register(); everything here can be
// replaced in place by /tama_reload_hook_runtime.
import { isAdoption, type AdapterApi, type AdapterHooks } from "../modules/omp/adapter-contract.ts";
import { HandlerWaits } from "./handler-waits.ts";
import { ModelGate } from "./model-gate.ts";
import { Prompts } from "./prompts.ts";
import { AdapterRuntime, PERSON_WAIT_MS } from "./runtime.ts";
import { SessionControl } from "./session-control.ts";
import { showText, statusSummary } from "./status-command.ts";
import type { OmpContext } from "../modules/omp/api.ts";
import { joinSession, leaveSession, noteTaskCall } from "./process-sessions.ts";
import { Stops, SUBAGENT_END_TOOL } from "./stop.ts";
import { KeptShells } from "./kept-shells.ts";
import { ToolEvents } from "./tool-events.ts";
import { UserBash } from "./user-bash.ts";
import { ClaudeSession, startSource, switchSource } from "./claude-session.ts";

/**
 * How long session_shutdown waits for the session_end dispatch: OMP gives shutdown
 * handlers 2 s in all, and the engine's input is closed after this either way.
 */
const SESSION_END_WAIT_MS = 500;

export function register(omp: AdapterApi): AdapterHooks {
  const waits = new HandlerWaits();
  // Every handler is timed from OMP's call to the settling of what it returns.
  const api: AdapterApi = {
    on: (event, handler) => omp.on(event, waits.timed(event, handler)),
    registerTool: (tool) => omp.registerTool(tool),
    registerCommand: (name, command) => omp.registerCommand(name, command),
    host: omp.host,
    pi: omp.pi,
  };
  const runtime = new AdapterRuntime(api.host, import.meta.url);
  const claude = new ClaudeSession(api.host, () => api.pi.getThinkingLevel?.());
  const tools = new ToolEvents(runtime, new KeptShells(api.host.carry), (session) => claude.envFor(session));
  const stops = new Stops(runtime, tools, api.pi);
  const model = new ModelGate(runtime);
  runtime.sessionFields = (session) => claude.fields(session);
  const prompts = new Prompts(runtime, claude);
  const userBash = new UserBash(runtime);
  const fullStatus = async () => ({ ...(await runtime.status()), modelRequests: model.status(), handlerWaits: waits.summary() });
  const control = new SessionControl(api.host, runtime, fullStatus);
  runtime.onEngineState = (state) => control.observe(state);

  /** The session this adapter serves, as the process's session table knows it. */
  let joined: string | undefined;
  const join = (ctx: OmpContext): void => {
    const session = runtime.sessionId(ctx);
    if (session === undefined) return;
    joinSession(ctx, session, runtime.sessionFile(ctx), joined);
    joined = session;
  };

  /** SessionStart hooks, with why the session started; their context waits for the next turn. */
  const sessionStarted = (ctx: OmpContext, source: string): void => {
    const verdict = runtime.verdict("session_start", { ...runtime.basePayload(ctx), source });
    const session = runtime.sessionId(ctx);
    claude.started(session, verdict.then((v) => v.result?.additionalContext));
    claude.hooksDone(session, verdict, runtime.home);
    // Nothing waits on the engine here; its answer is logged.
    void verdict.then(() => runtime.refreshStatus());
  };

  api.on("session_start", async (event, ctx) => {
    runtime.lifetime.revive();
    // Before session control publishes the record: a subagent's record names its parent.
    join(ctx);
    // Started first: it reads the session's record before the engine can answer.
    const serving = control.start(ctx);
    runtime.warnStartup();
    runtime.refreshStatus();
    // An adoption in place starts no session: the session_start hooks ran when OMP's did.
    if (!isAdoption(event)) sessionStarted(ctx, startSource(ctx));
    await serving;
  });
  /** /new, /resume, a fork, a branch: the old session ends and the new one starts, as Claude's /clear and /resume. */
  const switched = (ctx: OmpContext, source: string): Promise<void> => {
    const previous = joined;
    join(ctx);
    if (previous !== undefined && previous !== joined) {
      void runtime.verdict("session_end", { session_id: previous, cwd: ctx.cwd, ...claude.fields(previous), reason: source === "clear" ? "clear" : source === "resume" ? "resume" : "other" });
      claude.ended(previous, runtime.home);
    }
    if (joined !== previous) sessionStarted(ctx, source);
    // The socket and record move to the new session id.
    return control.start(ctx);
  };
  api.on("session_switch", (event, ctx) => switched(ctx, switchSource(event)));
  api.on("session_branch", (_event, ctx) => switched(ctx, "fork"));
  // Compaction summarised the session's context away: SessionStart hooks give it again (Claude's source "compact").
  api.on("session_compact", (_event, ctx) => sessionStarted(ctx, "compact"));
  api.on("tool_call", async (event, ctx) => {
    const refused = await tools.onToolCall(event, ctx);
    if (refused !== undefined) return refused;
    // A subagent ends by submitting its result: that is its turn end, where the stop gates run.
    if (event.toolName === SUBAGENT_END_TOOL) return stops.onSubagentEnd(event, ctx);
    if (event.toolName === "task") noteTaskCall(runtime.sessionId(ctx));
    return undefined;
  });
  api.on("tool_result", (event, ctx) => tools.onToolResult(event, ctx));
  api.on("input", (event, ctx) => prompts.onInput(event, ctx));
  api.on("before_agent_start", (event, ctx) => prompts.onAgentStart(event, ctx));
  api.on("before_provider_request", (event, ctx) => model.onRequest(event.payload, ctx));
  api.on("session_stop", (event, ctx) => stops.onStop(event, ctx));
  api.on("agent_end", (event, ctx) => stops.onSettle(event, ctx));
  api.on("user_bash", (event, ctx) => userBash.onUserBash(event, ctx));
  api.on("session_shutdown", async (event, ctx) => {
    runtime.warmUp.stop();
    control.stop(event);
    if (isAdoption(event) && runtime.lifetime.handOver()) {
      // The session goes on under the next adapter, with this engine: no session_end.
      runtime.logger.close();
      return;
    }
    const ending = runtime.verdict("session_end", { ...runtime.basePayload(ctx), reason: "other" });
    leaveSession(joined);
    claude.ended(joined, runtime.home);
    joined = undefined;
    await Promise.race([
      ending,
      new Promise((resolve) => setTimeout(resolve, SESSION_END_WAIT_MS)),
    ]);
    // Requests still owed finish on this engine first; OMP's shutdown budget is not spent waiting.
    // The engine is the process's: it ends when the last session holding it gives it back.
    void runtime.lifetime.close(false);
    runtime.logger.close();
  });
  api.registerCommand("tama_status", {
    description: "Show Tama's status in short (adapter, engine, gates, last refusal); --json for all of it",
    handler: async (args, ctx) => {
      const status = await fullStatus();
      showText(ctx, args.trim() === "--json" ? JSON.stringify(status, null, 2) : statusSummary(status));
    },
  });

  return {
    reloadEngine: async () => {
      const answer = await runtime.engine.request({ op: "reload" }, PERSON_WAIT_MS);
      if (answer.state) runtime.onEngineState?.(answer.state);
      if (!answer.ok) {
        return answer.code === "registry-unusable" ? `The engine kept its registry: ${answer.error}` : `The engine did not reload (${answer.code ?? "internal"}): ${answer.error}`;
      }
      const result = answer.result as { changed?: boolean } | undefined;
      const state = answer.state;
      return `Engine ${state?.processId ?? "?"} reloaded its registry (${result?.changed ? "changed" : "unchanged"}; ${state?.registeredHookCount ?? 0} hooks, release ${state?.loadedReleaseId ?? "none"}).`;
    },
    status: fullStatus,
  };
}
