// Whether the installed engine starts and answers: the launcher `current` names,
// spawned as the adapter spawns it, asked for status once, then closed. One-shot
// and bounded at every step, so a hung engine cannot hang the doctor.
import { spawn } from "node:child_process";
import readline from "node:readline";
import { Answer, ReadyFrame, type EngineState } from "../../protocol/engine.ts";
import { error, INSTALL_FIX, ok, type Check } from "./check.ts";
import { describeSchemaError } from "../../protocol/schema.ts";

type Probe = { ok: true; pid: number; ms: number; state: EngineState } | { ok: false; why: string };

function probe(bin: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<Probe> {
  return new Promise((resolve) => {
    const started = performance.now();
    // Its own process group, so that a hung launcher is ended with whatever it started.
    const child = spawn(bin, ["run-hook", "--serve", "omp"], { env, stdio: ["pipe", "pipe", "pipe"], detached: true });
    const stderr: string[] = [];
    let settled = false;
    const finish = (result: Probe): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // Closing its input is how an engine is told to end; a hung one is killed.
      child.stdin.end();
      const kill = setTimeout(() => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
        } catch {
          // already gone
        }
        child.stdout.destroy();
        child.stderr.destroy();
      }, result.ok ? 3_000 : 0);
      child.once("close", () => clearTimeout(kill));
      const tail = stderr.slice(-3).join(" | ");
      resolve(result.ok || tail === "" ? result : { ok: false, why: `${result.why} (stderr: ${tail})` });
    };
    const timer = setTimeout(() => finish({ ok: false, why: `no answer within ${timeoutMs} ms` }), timeoutMs);
    child.stdin.on("error", () => {});
    child.on("error", (e) => finish({ ok: false, why: `could not start: ${e.message}` }));
    // `close`, not `exit`: the stderr it wrote before exiting has been read by then.
    child.on("close", (code, signal) => finish({ ok: false, why: `exited ${signal ? `on ${signal}` : `with code ${code}`} before answering` }));
    readline.createInterface({ input: child.stderr }).on("line", (line) => stderr.push(line));
    let ready = false;
    readline.createInterface({ input: child.stdout }).on("line", (line) => {
      let raw: unknown;
      try {
        raw = JSON.parse(line);
      } catch {
        finish({ ok: false, why: `it wrote a line that is not JSON: ${line.slice(0, 120)}` });
        return;
      }
      if (!ready) {
        const frame = ReadyFrame.safeParse(raw);
        if (!frame.success) return finish({ ok: false, why: `its first line is not a ready frame: ${describeSchemaError(frame.error)}` });
        ready = true;
        child.stdin.write(`${JSON.stringify({ id: "doctor", op: "status" })}\n`);
        return;
      }
      const answer = Answer.safeParse(raw);
      if (!answer.success) return finish({ ok: false, why: `its answer is not an answer frame: ${describeSchemaError(answer.error)}` });
      if (!answer.data.ok) return finish({ ok: false, why: `status failed: ${answer.data.error ?? "no reason given"}` });
      finish({ ok: true, pid: child.pid ?? answer.data.state.processId, ms: Math.round(performance.now() - started), state: answer.data.state });
    });
  });
}

export async function checkEngine(bin: string | undefined, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<Check> {
  if (bin === undefined) return error("engine", "not started: no release is installed", INSTALL_FIX);
  const result = await probe(bin, env, timeoutMs);
  if (!result.ok) {
    return error("engine", `${bin} run-hook --serve omp did not answer status: ${result.why}`, `run \`${bin} run-hook --serve omp\` by hand to see why; ${INSTALL_FIX}`);
  }
  const { state } = result;
  return ok("engine", `pid ${result.pid} answered status in ${result.ms} ms: ${state.registeredHookCount} hooks, release ${state.loadedReleaseId ?? "none"}`);
}
