// Engine killed: SIGKILL the engine while dispatches are in flight, at seeded random
// moments. Every request the adapter's client holds is answered: one the dead engine
// had started a hook for by failure as soon as its pipes close, one it had not by the
// next engine (asked again); a fresh engine ends the hook processes the dead one left running.
import { EngineClient } from "../../modules/engine/client.ts";
import { Random } from "./random.ts";

export interface KillSummary {
  trials: number;
  requests: number;
  answered: number;
  /** Answered `engine-died`: the dead engine had started a hook for them. */
  failures: number;
  /** Answered by the next engine: the dead one had started no hook for them. */
  askedAgain: number;
  freshEngines: number;
  /** The longest wait, from the kill, for the last held request's answer. */
  worstAnswerAfterKillMs: number;
}

export async function engineKillTrials(options: { tamaBin: string; home: string; cwd: string; trials: number; seed: number; inFlight: number }): Promise<KillSummary> {
  const r = new Random(options.seed);
  const client = new EngineClient({
    command: () => [process.execPath, options.tamaBin, "run-hook", "--serve", "omp"],
    env: { ...process.env, TAMA_HOME: options.home },
  });
  const summary: KillSummary = { trials: options.trials, requests: 0, answered: 0, failures: 0, askedAgain: 0, freshEngines: 0, worstAnswerAfterKillMs: 0 };
  let lastPid: number | undefined;
  for (let trial = 0; trial < options.trials; trial++) {
    // a status first: it starts (or restarts) the engine
    const status = await client.request({ op: "status" });
    const pid = status.ok ? status.state?.processId : undefined;
    if (pid !== undefined && pid !== lastPid) summary.freshEngines += 1;
    lastPid = pid;
    const held = Array.from({ length: options.inFlight }, (_, i) =>
      client.dispatch("pre_tool_use:bash", { session_id: `s${i % 3}`, cwd: options.cwd, tool_input: { command: `sleep-${trial}-${i}` } }),
    );
    summary.requests += held.length;
    await new Promise((resolve) => setTimeout(resolve, r.int(60)));
    const killedAt = performance.now();
    if (pid !== undefined) process.kill(pid, "SIGKILL");
    const answers = await Promise.all(held.map((p) => p.then((a) => ({ a, at: performance.now() }))));
    for (const { a, at } of answers) {
      summary.answered += 1;
      if (!a.ok && a.code === "engine-died") summary.failures += 1;
      else if (a.state !== undefined && a.state.processId !== pid) summary.askedAgain += 1;
      summary.worstAnswerAfterKillMs = Math.max(summary.worstAnswerAfterKillMs, at - killedAt);
    }
  }
  const last = await client.request({ op: "status" });
  if (last.ok && last.state?.processId !== lastPid) summary.freshEngines += 1;
  await client.close();
  return summary;
}
