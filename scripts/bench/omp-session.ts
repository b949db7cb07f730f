// What the OMP benchmark scenarios share: the no-op extension (OMP's own cost of an
// extension that listens where Tama does and does nothing) and one RPC session whose
// prompts are timed end to end, closed with its model server and environment.
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { ModelServer, RecordedRequest, Reply } from "../../test/omp/model-server.ts";
import type { OmpEnv } from "../../test/omp/omp-env.ts";
import { startRpcSession } from "../../test/omp/rpc-session.ts";

/**
 * The model of every OMP scenario: one bash call a turn, then "ok". Each turn's call is
 * its own (`true N`, N the turn): one call repeated turn after turn is what Tama's
 * repeat-call gate is there to notice, and the note it adds to each result would grow
 * the conversation every request carries, which is a gate's answer, not Tama's cost.
 */
export function oneCallATurn(delayMs = 0): (req: RecordedRequest) => Reply {
  return (req) => {
    if (req.turns.at(-1)?.role === "tool") return { text: "ok" };
    const turn = req.turns.filter((t) => t.role === "user").length;
    return { toolCalls: [{ name: "bash", arguments: { command: `true ${turn}` } }], ...(delayMs > 0 ? { delayMs } : {}) };
  };
}

export interface TimedSession {
  /** The session's isolated environment (HOME, TAMA_HOME, agent dir). */
  env: OmpEnv;
  /** OMP's process. */
  pid: number;
  prompt(i: number): Promise<number>;
  close(): Promise<void>;
}

const TAMA_EVENTS = ["session_start", "tool_call", "tool_result", "input", "before_agent_start", "before_provider_request", "session_stop", "session_shutdown"];

export function noopExtension(dir: string): string {
  const file = path.join(dir, "noop.js");
  writeFileSync(file, `export default function (pi) { for (const e of ${JSON.stringify(TAMA_EVENTS)}) pi.on(e, () => undefined); }\n`);
  return file;
}

export async function timedSession(server: ModelServer, env: OmpEnv, extensionPaths: string[]): Promise<TimedSession> {
  const session = startRpcSession({ env: env.env, cwd: env.cwd, extensionPaths });
  await session.ready(60_000);
  return {
    env,
    pid: session.pid,
    async prompt(i) {
      const t = performance.now();
      await session.prompt(`call ${i}`);
      return performance.now() - t;
    },
    async close() {
      await session.close();
      await server.close();
      env.cleanup();
    },
  };
}
