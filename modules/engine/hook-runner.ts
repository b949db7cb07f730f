// Running one hook of a dispatch: a built-in gate in process, or a command in its
// own process group (hook-process.ts) with the session's environment, tracked as
// active while it runs; its answer read and judged by hook-answer.ts.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { HookTarget } from "../claude/hook-input.ts";
import { claudeEnvFile, tamaHome } from "../system/paths.ts";
import type { GateContext } from "../gates/types.ts";
import { SELF_PROTECTION_ID } from "../gates/self-protection.ts";
import type { HookResult } from "../protocol/engine.ts";
import type { HookInput } from "../protocol/hook-input.ts";
import type { HookEntry } from "../registry/registry.ts";
import { runContextOf, type SourcedHook } from "../sources/sources.ts";
import type { SessionGrants } from "../session-control/grants.ts";
import { HOOK_RUN_VARIABLE } from "../system/process-groups.ts";
import { round, type ActiveHook, type DispatchRun } from "./dispatch-run.ts";
import { commandOutcome, judgeAnswer, type HookAnswer, type JudgedAnswer } from "./hook-answer.ts";
import { GateRuns } from "./gate-run.ts";
import { startHookProcess, type HookProcess } from "./hook-process.ts";
import type { PrestartIdentity, PrestartPool } from "./prestart.ts";
import type { Lifecycle } from "./lifecycle.ts";
import type { RunningRecordWriter } from "./running-records.ts";

export interface HookRunnerOptions {
  /** The environment hooks inherit. */
  env: NodeJS.ProcessEnv;
  gateContext: GateContext;
  grants: SessionGrants;
  records: RunningRecordWriter;
  lifecycle: Lifecycle;
  /** The TAMA_HOOK_RUN prefix marking this engine's hook processes. */
  hookRunPrefix: string;
  pool: PrestartPool;
}

export class HookRunner {
  private hookRuns = 0;
  /** Tool calls the self-protection gate refused in this process (the engine's state counts them). */
  selfProtectionRefusals = 0;

  private readonly gates = new GateRuns();

  constructor(private readonly options: HookRunnerOptions) {}

  async run(run: DispatchRun, hook: SourcedHook, target: HookTarget, multiTarget: boolean): Promise<HookResult> {
    const startMs = round(performance.now() - run.receivedAt);
    const started = performance.now();
    const base = { hook: hook.id, startMs, ...(multiTarget && target.target ? { target: target.target } : {}) };
    let judged: JudgedAnswer;
    let extra: Partial<HookResult> = {};
    if (hook.builtin !== undefined) {
      judged = judgeAnswer(hook, await this.runBuiltin(hook, hook.builtin, target.input));
      extra = { builtin: true };
    } else {
      this.options.lifecycle.supersede(run, hook.id);
      const context = runContextOf(hook, target.input.cwd, run.projectRoot);
      const request = { argv: hook.command ?? [], cwd: context.cwd, env: { ...this.hookEnv(run, hook), ...context.env } };
      const input = JSON.stringify(target.input);
      const { pool } = this.options;
      run.processStarting();
      let process_: HookProcess | undefined;
      if (run.session !== null && run.generation !== undefined && pool.wants(hook)) {
        const identity: PrestartIdentity = { session: run.session, event: run.event.name, hook: hook.id, generation: run.generation, ...request };
        const taken = pool.take(identity);
        if (taken !== undefined && "spawned" in taken) {
          process_ = taken.spawned.feed(input, hook.timeoutMs);
          extra.prestarted = true;
        } else if (taken !== undefined) {
          extra.prestartNote = taken.note;
        }
        run.prestartNext.push({ identity, request });
      }
      process_ ??= startHookProcess({ ...request, input, timeoutMs: hook.timeoutMs });
      const active: ActiveHook = { hook: hook.id, run, pgid: process_.pgid ?? null, startedAt: started, process: process_ };
      run.active.add(active);
      this.options.records.changed();
      const end = await process_.ended;
      run.active.delete(active);
      this.options.records.changed();
      judged = commandOutcome(hook, end, run.event.kind);
      extra = {
        ...extra,
        ...(process_.pgid !== undefined ? { processGroup: process_.pgid } : {}),
        ...(end.kind === "exited" ? { exitCode: end.code, signal: end.signal } : {}),
      };
    }
    const ms = round(performance.now() - started);
    return { ...base, ...extra, ms, ...judged };
  }

  /**
   * Once a dispatch answered: offer its pre-start hooks again for the session's next such
   * event, each with a fresh run mark. `releasesAtAnswer`: the session's model requests
   * counted as it answered. The pool spawns them later, never before the answer.
   */
  prestartAfter(run: DispatchRun, releasesAtAnswer: number): void {
    for (const { identity, request } of run.prestartNext) {
      this.options.pool.offer(identity, { ...request, env: { ...request.env, [HOOK_RUN_VARIABLE]: `${this.options.hookRunPrefix}${++this.hookRuns}` } }, releasesAtAnswer);
    }
  }

  private async runBuiltin(hook: HookEntry, id: string, input: HookInput): Promise<HookAnswer> {
    const answer = await this.gates.run(hook, id, input, this.options.gateContext);
    if (id === SELF_PROTECTION_ID && answer.verdict === "block") this.selfProtectionRefusals += 1;
    return answer;
  }

  /**
   * Claude Code's CLAUDE_ENV_FILE for a SessionStart hook: a file of its own whose
   * variables the session's later bash calls get (the adapter reads them once the
   * session_start dispatch has answered). A harness that sets one (Claude Code
   * running `tama run-hook`) keeps its own.
   */
  private envFile(run: DispatchRun, hook: SourcedHook): Record<string, string> {
    if (run.event.kind !== "session_start" || run.session === null || this.options.env.CLAUDE_ENV_FILE !== undefined) return {};
    const file = claudeEnvFile(tamaHome(this.options.env), run.session, hook.id);
    try {
      mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      // Each start of the session writes it afresh (a resume, a compaction).
      writeFileSync(file, "", { mode: 0o600 });
    } catch {
      return {};
    }
    return { CLAUDE_ENV_FILE: file };
  }

  private hookEnv(run: DispatchRun, hook: SourcedHook): NodeJS.ProcessEnv {
    // The session control capability is the operator's grant for the registry's catalog: other sources never get it.
    return this.options.grants.applyTo(hook.origin.label === "registry" ? run : {}, {
      ...this.options.env,
      ...this.envFile(run, hook),
      TAMA_HOOK_ID: hook.id,
      TAMA_EVENT: run.event.name,
      TAMA_SESSION_ID: run.session ?? "",
      TAMA_CORE_PID: String(process.pid),
      [HOOK_RUN_VARIABLE]: `${this.options.hookRunPrefix}${++this.hookRuns}`,
    });
  }
}
