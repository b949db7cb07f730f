// The CLI refuses policy and consent verbs to a process that descends from an OMP
// session Tama serves, however the command reached it; the same verbs run from
// outside, and reading verbs run from inside.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { recordPath, writePrivateJson } from "../../modules/session-control/records.ts";
import { processStartTicks } from "../../modules/system/process-groups.ts";
import { TAMA_BIN, makeTestHome, type TestHome } from "../support/engine-client.ts";
import { sampleRecord } from "../session-control/support.ts";
import { cliEnv, tama } from "./cli.ts";

let home: TestHome;

beforeEach(() => {
  home = makeTestHome("tama-guard-");
  const installed = tama(home, ["install", "--omp", "--agent-dir", path.join(home.dir, "agent"), "--json"]);
  expect(installed.code, installed.stderr).toBe(0);
});
afterEach(() => home.cleanup());

/**
 * Run `script` in a shell that a session record names as its OMP: the shell waits
 * for a line on stdin, so the record is written before anything runs.
 */
async function insideSession(script: string, env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn("sh", ["-c", `read go; ${script}`], { env: cliEnv(home, env), cwd: home.dir });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const sessions = path.join(home.home, "sessions");
  mkdirSync(sessions, { recursive: true, mode: 0o700 });
  const pid = child.pid as number;
  const ticks = processStartTicks(pid);
  writePrivateJson(recordPath(sessions, "agent-1"), sampleRecord(sessions, "agent-1", { ompPid: pid, ...(ticks !== undefined ? { ompStartTicks: ticks } : {}) }));
  child.stdin.end("go\n");
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  return { code, stdout, stderr };
}

const REFUSED = /refused: this tama was started from inside the OMP session agent-1 \(OMP pid \d+\).*Run it from your own terminal\./;

describe("the CLI inside an agent's session", () => {
  it("refuses each policy and consent verb with exit 9, and changes nothing", async () => {
    const before = readFileSync(home.registry, "utf8");
    for (const args of ["hooks disable block-git-hook-bypass", "hooks remove self-protection", "hooks add --id x --event stop -- /bin/true", "hooks import --from-claude", "sessions grant --session agent-1", "sessions revoke --session agent-1", "sessions reload --session agent-1", "install --omp", "uninstall --omp"]) {
      const run = await insideSession(`"${process.execPath}" "${TAMA_BIN}" ${args}`);
      expect(run.code, args).toBe(9);
      expect(run.stderr, args).toMatch(REFUSED);
    }
    expect(readFileSync(home.registry, "utf8")).toBe(before);
  });

  it("holds when the command was obfuscated past any static reading, or TAMA_HOME points elsewhere", async () => {
    const encoded = Buffer.from("hooks disable block-git-hook-bypass").toString("base64");
    const obfuscated = await insideSession(`eval "$(printf '%s' '${process.execPath}') $(printf '%s' '${TAMA_BIN}') $(echo ${encoded} | base64 -d)"`);
    expect(obfuscated.code).toBe(9);
    expect(obfuscated.stderr).toMatch(REFUSED);
    const release = path.join(home.home, "hooks-runtime", "current", "bin", "tama");
    const elsewhere = await insideSession(`TAMA_HOME=${home.dir}/elsewhere ${release} hooks disable block-git-hook-bypass --registry ${home.registry}`);
    expect(elsewhere.code).toBe(9);
    const viaRegistry = await insideSession(`TAMA_HOME=${home.dir}/elsewhere "${process.execPath}" "${TAMA_BIN}" hooks disable block-git-hook-bypass --registry ${home.registry}`);
    expect(viaRegistry.code).toBe(9);
    expect(JSON.parse(readFileSync(home.registry, "utf8")).hooks.every((h: { enabled: boolean }) => h.enabled)).toBe(true);
  });

  it("still runs the verbs that only read", async () => {
    const listed = await insideSession(`"${process.execPath}" "${TAMA_BIN}" hooks list`);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/self-protection/);
  });

  it("runs the same verbs from outside any session", () => {
    const run = tama(home, ["hooks", "disable", "block-open-todos"]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(readFileSync(home.registry, "utf8")).hooks.find((h: { id: string }) => h.id === "block-open-todos").enabled).toBe(false);
  });
});
