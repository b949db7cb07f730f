// The `registryRefreshed` stage with every hook source in play: the user registry,
// ~/.claude/settings.json, and a trusted project's .tama/hooks.json,
// .claude/settings.json and .claude/settings.local.json, all unchanged between
// dispatches — against the same stage with the registry alone. Read from the
// engine's own stage clock (dispatchStages.lastByEvent), engine on Bun as inside OMP.
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { RACY_MS } from "../../modules/system/stat-key.ts";
import { BenchEngine, fmtMs, median, writeExecutable, type Row } from "./support.ts";

const GOAL_MS = 0.1;

const settled = () => new Promise((resolve) => setTimeout(resolve, RACY_MS + 100));

async function stageP50(tamaBin: string, runtime: string, env: NodeJS.ProcessEnv, cwd: string, rounds: number): Promise<number> {
  const engine = new BenchEngine(tamaBin, env, runtime);
  await engine.ready;
  const payload = { session_id: "bench", cwd, tool_name: "bash", tool_input: { command: "ls" } };
  const took: number[] = [];
  for (let i = 0; i < rounds + 20; i++) {
    await engine.request({ op: "dispatch", event: "pre_tool_use:bash", payload });
    const status = await engine.request({ op: "status" });
    const stages = (status.state as { dispatchStages?: { lastByEvent?: Record<string, { stages?: { registryRefreshed?: { tookMs: number } } }> } }).dispatchStages;
    const ms = stages?.lastByEvent?.["pre_tool_use:bash"]?.stages?.registryRefreshed?.tookMs;
    if (i >= 20 && typeof ms === "number") took.push(ms);
  }
  await engine.close();
  return median(took);
}

export async function sourcesRows(home: string, tamaBin: string, bun: string, rounds: number): Promise<Row[]> {
  const tamaHome = path.join(home, "tama");
  const user = path.join(home, "user");
  const project = path.join(home, "project");
  mkdirSync(path.join(project, ".git"), { recursive: true });
  // No hook of these sources is for the dispatched event: the stage alone is measured.
  const later = (id: string, command: string[]) => ({ id, events: ["session_end"], command });
  const claude = (command: string) => JSON.stringify({ hooks: { SessionEnd: [{ hooks: [{ type: "command", command }] }] } });
  writeExecutable(path.join(project, ".claude/hooks/end.sh"), "#!/bin/sh\nexit 0\n");
  writeExecutable(path.join(project, ".tama/hooks.json"), JSON.stringify({ schema: 1, hooks: [later("p", ["./.claude/hooks/end.sh"])] }));
  writeExecutable(path.join(project, ".claude/settings.json"), claude("sh .claude/hooks/end.sh"));
  writeExecutable(path.join(project, ".claude/settings.local.json"), claude('"$CLAUDE_PROJECT_DIR"/.claude/hooks/end.sh'));
  writeExecutable(path.join(user, ".claude/settings.json"), claude("true"));
  const registry = (claudeOn: boolean) =>
    JSON.stringify({ schema: 1, release: null, ...(claudeOn ? { readClaudeSettings: true } : {}), hooks: [later("u", ["/bin/true"])] });
  const env = { ...process.env, TAMA_HOME: tamaHome, HOME: user };
  writeExecutable(path.join(tamaHome, "hooks/registry.json"), registry(true));
  const trusted = spawnSync(process.execPath, [tamaBin, "trust", project], { env, encoding: "utf8" });
  if (trusted.status !== 0) throw new Error(`tama trust failed: ${trusted.stderr}`);

  // Unchanged sources, as a session's are: files changed this recently are read again every time (stat-key.ts).
  await settled();
  const five = await stageP50(tamaBin, bun, env, project, rounds);
  // The registry alone: Claude sources off, and a cwd in no project.
  writeExecutable(path.join(tamaHome, "hooks/registry.json"), registry(false));
  const loose = path.join(home, "loose");
  mkdirSync(loose, { recursive: true });
  await settled();
  const one = await stageP50(tamaBin, bun, env, loose, rounds);
  return [
    {
      name: "registryRefreshed with 5 unchanged sources (trusted project, Claude sources on) ÷ the registry alone",
      measured: `${fmtMs(five)} vs ${fmtMs(one)} (p50, n=${rounds}, engine on Bun)`,
      ratio: five / one,
      goal: `≤ ${GOAL_MS} ms`,
      met: five <= GOAL_MS,
    },
  ];
}
