// Real Codex, offline: an isolated HOME and CODEX_HOME whose config.toml points Codex at
// the scripted server of test/omp/model-server.ts (OpenAI responses), hooks from the
// isolated hooks.json. The version under test is the pinned dev dependency; changing it
// re-checks everything.
import { spawn } from "node:child_process";
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT } from "../support/engine-client.ts";
import { runToExit, type Exited } from "../support/run-to-exit.ts";
import type { ModelServer } from "../omp/model-server.ts";
import { isJsonObject, type JsonObject } from "../omp/request-view.ts";

export const CODEX_BIN = path.join(ROOT, "node_modules/@openai/codex/bin/codex.js");
export const CODEX_VERSION = (JSON.parse(readFileSync(path.join(ROOT, "node_modules/@openai/codex/package.json"), "utf8")) as { version: string }).version;

export interface CodexHome {
  dir: string;
  home: string;
  /** CODEX_HOME: config.toml and the user hooks.json live here. */
  codexHome: string;
  project: string;
  hooksFile: string;
  writeHooks(hooks: Record<string, unknown>): void;
  readHooks(): Record<string, unknown>;
  cleanup(): void;
}

export function makeCodexHome(server: ModelServer, prefix = "tama-codex-"): CodexHome {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  const home = path.join(dir, "home");
  const codexHome = path.join(home, ".codex");
  const project = path.join(dir, "project");
  mkdirSync(codexHome, { recursive: true });
  mkdirSync(project, { recursive: true });
  // Commands run unsandboxed and unasked (bubblewrap is not usable here), against the scripted model.
  writeFileSync(
    path.join(codexHome, "config.toml"),
    [
      'model = "fake-model"',
      'model_provider = "fake"',
      'approval_policy = "never"',
      'sandbox_mode = "danger-full-access"',
      "[model_providers.fake]",
      'name = "fake"',
      `base_url = "${server.url}/v1"`,
      'wire_api = "responses"',
      'env_key = "FAKE_KEY"',
      "",
    ].join("\n"),
  );
  const hooksFile = path.join(codexHome, "hooks.json");
  return {
    dir,
    home,
    codexHome,
    project,
    hooksFile,
    writeHooks(hooks) {
      writeFileSync(hooksFile, JSON.stringify({ hooks }, null, 2));
    },
    readHooks() {
      return JSON.parse(readFileSync(hooksFile, "utf8")) as Record<string, unknown>;
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type CodexRun = Exited;

/** `codex exec --json <prompt>` in the project; resolves when it exits. */
export function runCodex(codex: CodexHome, prompt: string, options: { env?: NodeJS.ProcessEnv; args?: string[]; timeoutMs?: number } = {}): Promise<CodexRun> {
  return runToExit("codex", process.execPath, [CODEX_BIN, "exec", "--json", "--skip-git-repo-check", ...(options.args ?? []), prompt], {
    cwd: codex.project,
    env: codexEnv(codex, options.env),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  });
}

/** The tool outputs the model read, in order, from a responses request's input. */
export function functionOutputs(body: JsonObject | undefined): string[] {
  const input = body?.input;
  if (!Array.isArray(input)) return [];
  return input.filter((item): item is JsonObject => isJsonObject(item) && item.type === "function_call_output").map((item) => String(item.output));
}

function codexEnv(codex: CodexHome, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: codex.home, CODEX_HOME: codex.codexHome, FAKE_KEY: "sk-fake", ...extra };
}

/**
 * What the person's review in /hooks records: each hook's current hash, from Codex's
 * own app-server (`hooks/list`), as `[hooks.state."<key>"] trusted_hash` in config.toml.
 * Returns the keys trusted.
 */
export function trustEveryHook(codex: CodexHome): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CODEX_BIN, "app-server"], { cwd: codex.project, env: codexEnv(codex), stdio: ["pipe", "pipe", "ignore"] });
    let buffered = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`codex app-server gave no hooks/list answer:\n${buffered}`));
    }, 60_000);
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      buffered += d;
      for (const line of buffered.split("\n")) {
        if (!line.startsWith("{")) continue;
        let message: { id?: number; result?: { data?: { hooks?: { key: string; currentHash: string }[] }[] } };
        try {
          message = JSON.parse(line) as typeof message;
        } catch {
          continue;
        }
        if (message.id !== 1) continue;
        clearTimeout(timer);
        child.kill("SIGTERM");
        const hooks = message.result?.data?.flatMap((entry) => entry.hooks ?? []) ?? [];
        appendFileSync(
          path.join(codex.codexHome, "config.toml"),
          hooks.map((hook) => `\n[hooks.state.${JSON.stringify(hook.key)}]\ntrusted_hash = ${JSON.stringify(hook.currentHash)}\n`).join(""),
        );
        resolve(hooks.map((hook) => hook.key));
        return;
      }
    });
    const requests = [
      { method: "initialize", id: 0, params: { clientInfo: { name: "tama-test", version: "1" } } },
      { method: "initialized" },
      { method: "hooks/list", id: 1, params: { cwds: [codex.project] } },
    ];
    child.stdin.write(requests.map((r) => JSON.stringify(r)).join("\n") + "\n");
  });
}
