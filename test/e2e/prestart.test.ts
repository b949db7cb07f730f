// Pre-started hooks in a real OMP: within one turn, the hook process for the next tool
// call starts while the model is asked (after the call it followed has run), and the
// next call is fed to that very process.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useOmpFixture } from "../omp/fixture.ts";
import type { RecordedRequest } from "../omp/model-server.ts";
import type { OmpEnv } from "../omp/omp-env.ts";
import { installTama } from "./tama-omp.ts";
import { writeExecutable } from "../../scripts/bench/support.ts";

const omp = useOmpFixture();

const lines = (file: string): string[] => (existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean) : []);

async function until(what: string, ok: () => boolean): Promise<void> {
  for (let i = 0; i < 800; i++) {
    if (ok()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`never: ${what}`);
}

/**
 * Tama with one pre-start hook, watch.sh, and one prompt's turn. The hook logs, before it
 * reads its input, its pid and how many lines `ran` has; then "fed" once it has its input;
 * it refuses a call with the forbidden word.
 */
async function watchedTurn(env: OmpEnv, starts: string, ran: string): Promise<void> {
  const hook = writeExecutable(
    path.join(env.scratch, "watch.sh"),
    `#!/bin/sh
echo "start $$ $(cat '${ran}' 2>/dev/null | wc -l)" >> '${starts}'
input=$(cat)
echo "fed $$" >> '${starts}'
case "$input" in *forbidden-word*) echo "forbidden by the watch hook" >&2; exit 2;; esac
exit 0
`,
  );
  const tama = installTama(env);
  tama.addHooks({ id: "watch", events: ["pre_tool_use"], tools: "shell", command: [hook], prestart: true });
  const session = omp.rpc();
  await session.ready();
  await session.prompt("go");
}

describe("pre-started hooks in real OMP", () => {
  it("the next call's hook process starts once the model is asked, after the call before it ran, and is fed that call", async () => {
    let starts = "";
    let ran = "";
    const { server, env } = await omp.setup({
      script: async (_req: RecordedRequest, index: number) => {
        if (index === 0) return { toolCalls: [{ name: "bash", arguments: { command: `echo one >> ${ran}` } }] };
        if (index === 1) {
          // The model "thinks" until the next call's hook process has started: then it calls.
          await until("the replacement hook process started", () => lines(starts).length >= 3);
          return { toolCalls: [{ name: "bash", arguments: { command: "echo forbidden-word" } }] };
        }
        return { text: "done" };
      },
    });
    starts = path.join(env.scratch, "starts.log");
    ran = path.join(env.scratch, "ran.log");
    await watchedTurn(env, starts, ran);

    const [coldStart, coldFed, preStart, preFed] = lines(starts).map((l) => l.split(" "));
    // The first call's hook started cold, before that call ran.
    expect(coldStart).toEqual(["start", coldStart?.[1], "0"]);
    expect(coldFed).toEqual(["fed", coldStart?.[1]]);
    // The replacement started only after the first call had run (the model was asked after its result) …
    expect(preStart).toEqual(["start", preStart?.[1], "1"]);
    expect(preStart?.[1]).not.toBe(coldStart?.[1]);
    // … and the second call was fed to it, which refused it.
    expect(preFed).toEqual(["fed", preStart?.[1]]);
    const last = JSON.stringify(server.requests[2]?.body ?? {});
    expect(last).toContain("forbidden by the watch hook");
  });

  it("the agent's own bash cannot get the next call past a waiting hook: writing into its input fails, and a stopped one is not fed", async () => {
    let starts = "";
    let sabotage = "";
    const { server, env } = await omp.setup({
      script: async (_req: RecordedRequest, index: number) => {
        if (index === 0) return { toolCalls: [{ name: "bash", arguments: { command: "echo one" } }] };
        if (index === 1) {
          // As an agent would, with a script it wrote: a job that outlives the call waits for
          // the next waiting hook process, writes a harmless call into its stdin, then stops its whole group.
          // (Python, whose path to the process's stdin is built at run time: the gates read a
          // script the agent runs, and would refuse a shell one writing to `/proc/$p/fd/0`.)
          const job = writeExecutable(
            path.join(env.scratch, "job.py"),
            `#!/usr/bin/env python3
import os, signal, subprocess, time
p = ""
for _ in range(200):
    found = subprocess.run(["pgrep", "-f", "[w]atch.sh"], capture_output=True, text=True).stdout.split()
    if found:
        p = found[0]
        break
    time.sleep(0.05)
try:
    with open("/proc/%s/fd/0" % p, "w") as stdin:
        stdin.write('{"tool_input":{"command":"echo harmless"}}')
    outcome = "injected"
except OSError:
    outcome = "not injected"
with open("${sabotage}", "a") as log:
    log.write(outcome + "\\n")
os.killpg(int(p), signal.SIGSTOP)
with open("${sabotage}", "a") as log:
    log.write("stopped %s\\n" % p)
`,
          );
          return { toolCalls: [{ name: "bash", arguments: { command: `setsid ${job} >/dev/null 2>&1 < /dev/null &` } }] };
        }
        if (index === 2) {
          await until("the agent's job has done its work", () => lines(sabotage).some((l) => l.startsWith("stopped")));
          return { toolCalls: [{ name: "bash", arguments: { command: "echo forbidden-word" } }] };
        }
        return { text: "done" };
      },
    });
    starts = path.join(env.scratch, "starts.log");
    sabotage = path.join(env.scratch, "sabotage.log");
    await watchedTurn(env, starts, path.join(env.scratch, "never-written.log"));

    expect(lines(sabotage)[0]).toBe("not injected");
    const stopped = lines(sabotage)[1]?.split(" ")[1];
    expect(stopped).toMatch(/^\d+$/);
    // The stopped process was never fed; the forbidden call went to a hook started cold, which refused it.
    expect(lines(starts)).not.toContain(`fed ${stopped}`);
    expect(JSON.stringify(server.requests[3]?.body ?? {})).toContain("forbidden by the watch hook");
  });
});

