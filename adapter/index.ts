// The OMP adapter: bundled with every module it imports into ONE file whose SHA-256
// is its identity. The shell imports it and calls register(); everything here can be
// replaced in place by /tama_reload_hook_runtime.
import { isAdoption, type AdapterApi, type AdapterHooks } from "../modules/omp/adapter-contract.ts";
import type { BeforeProviderRequestEvent, InputEvent, OmpContext, SessionStopEvent, ToolCallEvent, ToolResultEvent } from "../modules/omp/api.ts";
import { ModelGate } from "./model-gate.ts";
import { Prompts } from "./prompts.ts";
import { AdapterRuntime, PERSON_WAIT_MS } from "./runtime.ts";
import { SessionControl } from "./session-control.ts";
import { ToolEvents } from "./tool-events.ts";

/** Stop refusals in a row after which the turn may end anyway (OMP's own cap for continuations). */
const MAX_STOP_REFUSALS = 8;

export function register(api: AdapterApi): AdapterHooks {
  const stopRefusals = new Map<string, number>();
  const runtime = new AdapterRuntime(api.host, import.meta.url);
  const tools = new ToolEvents(runtime);
  const model = new ModelGate(runtime);
  const prompts = new Prompts(runtime);
  const fullStatus = async () => ({ ...(await runtime.status()), modelRequests: model.status() });
  const control = new SessionControl(api.host, runtime, fullStatus);
  runtime.onEngineState = (state) => control.observe(state);

  api.on("session_start", async (event, ctx: OmpContext) => {
    runtime.context = ctx;
    runtime.reviveEngine();
    // Started first: it reads the session's record before the engine can answer.
    const serving = control.start(ctx);
    runtime.warnStartup();
    runtime.refreshStatus();
    // An adoption in place starts no session: the session_start hooks ran when OMP's did.
    // Nothing waits on the engine here; its answer is logged.
    if (!isAdoption(event)) void runtime.verdict("session_start", runtime.basePayload(ctx)).then(() => runtime.refreshStatus());
    await serving;
    return undefined;
  });
  // /new, /resume, a fork, a branch: the socket and record move to the new session id.
  api.on("session_switch", (_event, ctx: OmpContext) => control.start(ctx));
  api.on("session_branch", (_event, ctx: OmpContext) => control.start(ctx));
  api.on("tool_call", (event, ctx) => tools.onToolCall(event as ToolCallEvent, ctx));
  api.on("tool_result", (event, ctx) => tools.onToolResult(event as ToolResultEvent, ctx));
  api.on("input", (event, ctx) => prompts.onInput(event as InputEvent, ctx));
  api.on("before_agent_start", (event, ctx) => prompts.onAgentStart(event as { prompt: string }, ctx));
  api.on("before_provider_request", (event, ctx) => model.onRequest((event as BeforeProviderRequestEvent).payload, ctx));
  api.on("session_stop", async (event, ctx: OmpContext) => {
    runtime.context = ctx;
    const stop = event as SessionStopEvent;
    tools.turnEnded();
    const verdict = await runtime.verdict("stop", {
      ...runtime.basePayload(ctx),
      ...(stop.session_file ? { transcript_path: stop.session_file } : {}),
      stop_hook_active: stop.stop_hook_active === true,
    });
    if (verdict.failure !== undefined) {
      // A turn cannot be held open forever on a missing verdict; say so instead.
      runtime.notify(`Tama could not check the end of this turn: ${verdict.failure}`, "warning");
      return undefined;
    }
    if (verdict.result?.decision === "block") {
      const reason = verdict.result.reason ?? "a stop hook refused to end the turn";
      // OMP does not cap block continuations: a hook that always refuses would loop forever.
      const count = stop.stop_hook_active ? (stopRefusals.get(stop.session_id) ?? 0) + 1 : 1;
      if (stop.stop_hook_active && count > MAX_STOP_REFUSALS) {
        stopRefusals.delete(stop.session_id);
        runtime.notify(`Tama let the turn end after ${MAX_STOP_REFUSALS} refusals in a row by stop hooks; the last said: ${reason}`, "warning");
        return undefined;
      }
      stopRefusals.set(stop.session_id, count);
      runtime.refused(reason);
      return { decision: "block", reason };
    }
    stopRefusals.delete(stop.session_id);
    return undefined;
  });
  api.on("session_shutdown", async (event, ctx: OmpContext) => {
    runtime.context = ctx;
    control.stop(event);
    if (isAdoption(event) && runtime.handOverEngine()) {
      // The session goes on under the next adapter, with this engine: no session_end.
      runtime.logger.close();
      return undefined;
    }
    await Promise.race([
      runtime.verdict("session_end", runtime.basePayload(ctx)),
      new Promise((resolve) => setTimeout(resolve, 500)),
    ]);
    // Requests still owed finish on this engine first; OMP's shutdown budget is not spent waiting.
    void runtime.closeEngine(false);
    runtime.logger.close();
    return undefined;
  });
  api.registerCommand("tama_status", {
    description: "Show Tama's runtime status: adapter digest, engine process, registry",
    handler: async (_args, ctx) => {
      runtime.context = ctx;
      const text = JSON.stringify(await fullStatus(), null, 2);
      if (ctx.hasUI || ctx.mode === "rpc") ctx.ui.notify(text, "info");
      else process.stdout.write(`${text}\n`);
    },
  });

  return {
    reloadEngine: async () => {
      const answer = await runtime.engine.request({ op: "reload" }, PERSON_WAIT_MS);
      if (answer.state) runtime.onEngineState?.(answer.state);
      if (!answer.ok) return `The engine kept its registry: ${answer.error}`;
      const result = answer.result as { changed?: boolean } | undefined;
      const state = answer.state;
      return `Engine ${state?.processId ?? "?"} reloaded its registry (${result?.changed ? "changed" : "unchanged"}; ${state?.registeredHookCount ?? 0} hooks, release ${state?.loadedReleaseId ?? "none"}).`;
    },
    status: fullStatus,
  };
}
