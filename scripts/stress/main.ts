// `npm run stress`: the hardening checks at larger counts, with a summary table.
// Counts: TAMA_STRESS_FRAMES (100000), TAMA_STRESS_KILLS (40), TAMA_STRESS_EVENTS (5000),
// TAMA_STRESS_ADOPTIONS (60).
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { scratch, writeExecutable } from "../bench/support.ts";
import { engineFuzz } from "./engine-fuzz.ts";
import { engineKillTrials } from "./engine-kill.ts";
import { controlFuzz, startServerChild } from "./session-control-fuzz.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const tamaBin = path.join(root, "dist/bin/tama.js");
const count = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const rows: [string, string, string][] = [];

function registry(home: string, hooks: unknown[]): void {
  mkdirSync(path.join(home, "hooks"), { recursive: true });
  writeFileSync(path.join(home, "hooks", "registry.json"), JSON.stringify({ schema: 1, release: null, hooks }));
}

{
  const home = scratch("tama-stress-fuzz-");
  registry(home, [{ id: "bypass", events: ["pre_tool_use"], tools: "shell", builtin: "block-git-hook-bypass" }]);
  const s = await engineFuzz({ tamaBin, home, cwd: home, frames: count("TAMA_STRESS_FRAMES", 100_000), seed: Date.now() & 0xffff });
  const ok = s.engineAlive && s.missing === 0 && s.duplicated === 0 && s.validWrong === 0;
  rows.push([
    "engine protocol fuzz",
    `${s.frames} frames, ${s.withId} with an id: ${s.answered} answered once, ${s.missing} missing, ${s.duplicated} twice; ${s.validFrames} valid, ${s.validWrong} answered wrongly; RSS ${s.rssStartMb.toFixed(0)} → ${s.rssEndMb.toFixed(0)} MB`,
    ok ? "pass" : "FAIL",
  ]);
}
{
  const dir = scratch("tama-stress-control-");
  mkdirSync(path.join(dir, "sessions"), { mode: 0o700 });
  const server = await startServerChild(root, path.join(dir, "sessions", "fz.sock"));
  const s = await controlFuzz({ socket: server.socket, key: server.key, pid: server.pid, frames: count("TAMA_STRESS_FRAMES", 100_000), seed: Date.now() & 0xffff, exactStatus: true });
  await server.stop();
  const ok = s.serverAlive && s.missing === 0 && s.duplicated === 0 && s.wrongAnswers === 0 && s.unexpectedCloses === 0 && s.closed1009 === s.oversized && s.fdsEnd === s.fdsStart;
  rows.push([
    "session control protocol fuzz",
    `${s.frames} frames: ${s.withId} with an id, ${s.answeredOnce} answered once, ${s.duplicated} twice; ${s.withoutId} without, ${s.answeredNull} answered; ${s.missing} missing, ${s.wrongAnswers} wrong; ${s.oversized} over 1 MiB, ${s.closed1009} closed 1009, ${s.unexpectedCloses} other closes; ${s.connections} connections; RSS ${s.rssStartMb.toFixed(0)} → ${s.rssEndMb.toFixed(0)} MB (peak ${s.rssPeakMb.toFixed(0)}); fds ${s.fdsStart} → ${s.fdsEnd}`,
    ok ? "pass" : "FAIL",
  ]);
}
{
  const home = scratch("tama-stress-kill-");
  const hook = writeExecutable(path.join(home, "forever.sh"), "#!/bin/sh\ncat >/dev/null\nsleep 1000 &\nexec sleep 1001\n");
  // bounded: a request asked again of the next engine is answered at the bound
  registry(home, [{ id: "forever", events: ["pre_tool_use"], timeoutMs: 1500, command: [hook] }]);
  const s = await engineKillTrials({ tamaBin, home, cwd: home, trials: count("TAMA_STRESS_KILLS", 40), seed: Date.now() & 0xffff, inFlight: 6 });
  const left = spawnSync("sh", ["-c", `grep -l "TAMA_HOME=${home}" /proc/[0-9]*/environ 2>/dev/null | wc -l`], { encoding: "utf8" }).stdout.trim();
  rows.push([
    "engine SIGKILLed mid-dispatch",
    `${s.trials} trials, ${s.requests} requests: ${s.answered} answered (${s.failures} refused as started, ${s.askedAgain} asked again of the next engine; worst ${s.worstAnswerAfterKillMs.toFixed(0)} ms after the kill), ${s.freshEngines} fresh engines, ${left} hook processes left`,
    s.answered === s.requests && left === "0" ? "pass" : "FAIL",
  ]);
}
{
  const dir = scratch("tama-stress-load-");
  const env = { ...process.env, TAMA_HOME: path.join(dir, "tama"), PI_CODING_AGENT_DIR: path.join(dir, "agent"), HOME: dir };
  const install = spawnSync(process.execPath, [tamaBin, "install", "--omp", "--json"], { env, encoding: "utf8" });
  const report = JSON.parse(install.stdout) as { shellPath: string; adapterPath: string };
  const events = count("TAMA_STRESS_EVENTS", 5000);
  const adoptions = count("TAMA_STRESS_ADOPTIONS", 60);
  const run = spawnSync(path.join(root, "node_modules/.bin/bun"), [path.join(root, "scripts/stress/reload-under-load.ts"), report.shellPath, report.adapterPath, String(events), String(adoptions)], { env, encoding: "utf8" });
  const s = JSON.parse(run.stdout.trim().split("\n").at(-1) || "{}") as Record<string, number>;
  rows.push([
    "tool events through adoptions in place (Bun)",
    `${s.events} events, ${s.answered} answered, ${s.answeredTwice} twice, ${s.wrongDecisions} wrong; ${s.adoptions} adoptions (${s.adopted} adopted, ${s.refused} refused)`,
    s.answered === events && s.answeredTwice === 0 && s.wrongDecisions === 0 ? "pass" : "FAIL",
  ]);
}

const header = ["check", "counts", "result"];
const widths = [0, 1, 2].map((i) => Math.max(...[header, ...rows].map((r) => (r[i] ?? "").length)));
const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i] ?? 0)).join("  ");
process.stdout.write(`${line(header)}\n${widths.map((w) => "-".repeat(w)).join("  ")}\n${rows.map(line).join("\n")}\n`);
process.exitCode = rows.every((r) => r[2] === "pass") ? 0 : 1;
