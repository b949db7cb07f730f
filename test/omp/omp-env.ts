// An isolated OMP installation per test: its own HOME (OMP also reads ~/.omp, ~/.claude, ...
// regardless of PI_CODING_AGENT_DIR), its own agent dir (models.yml, config.yml, sessions,
// agent.db) and its own working directory, all under one temp dir removed by cleanup().
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { WireApi } from "./request-view.ts";

/** The project root, derived from this file so the harness works from any cwd. */
export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
/** Holds `omp` and the `bun` its `#!/usr/bin/env bun` shebang needs. */
export const BIN_DIR = path.join(PROJECT_ROOT, "node_modules", ".bin");

/** The OMP releases installed side by side (package.json aliases `omp-<version>`); the default is the main dev dependency. */
export const OMP_VERSIONS = ["17.3.5", "18.1.21", "18.2.3"] as const;
const DEFAULT_OMP = "@oh-my-pi/pi-coding-agent";

/**
 * `TAMA_TEST_OMP=<version>` runs the harness against that release. The binary is named
 * by its package, never through node_modules/.bin, where the aliases' `omp` links collide.
 */
export function ompBin(version = process.env.TAMA_TEST_OMP): string {
	const pkg = version ? `omp-${version}` : DEFAULT_OMP;
	let bin = path.join(PROJECT_ROOT, "node_modules", pkg, "dist", "cli.js");
	if (version && !existsSync(bin)) {
		// The default release is the main dev dependency, not an alias.
		const main = path.join(PROJECT_ROOT, "node_modules", DEFAULT_OMP);
		const installed = (JSON.parse(readFileSync(path.join(main, "package.json"), "utf8")) as { version: string }).version;
		if (installed === version) bin = path.join(main, "dist", "cli.js");
		else throw new Error(`TAMA_TEST_OMP=${version}: no OMP ${version} is installed (installed: ${OMP_VERSIONS.join(", ")})`);
	}
	return bin;
}

export const FAKE_PROVIDER = "fake";
export const FAKE_MODEL_ID = "fake-model";
/** What to pass to `omp --model`. */
export const FAKE_MODEL = `${FAKE_PROVIDER}/${FAKE_MODEL_ID}`;

export interface OmpEnvOptions {
	/** Root URL of the fake model server (`ModelServer.url`). */
	modelServerUrl: string;
	api?: WireApi;
	/** Extra top-level YAML for config.yml (settings), appended verbatim. */
	configYaml?: string;
	/** Extra env vars, applied last. */
	env?: Record<string, string>;
}

export interface OmpEnv {
	/** Temp root holding everything below. */
	root: string;
	home: string;
	/** PI_CODING_AGENT_DIR. */
	agentDir: string;
	/** Working directory to run omp in (a fresh, empty project). */
	cwd: string;
	/** Free scratch dir for test files (extensions, logs) outside the project cwd. */
	scratch: string;
	/** Complete environment for the omp child (not merged with process.env on purpose). */
	env: Record<string, string>;
	model: string;
	cleanup(): void;
}

function modelsYaml(baseUrl: string, api: WireApi): string {
	return [
		"providers:",
		`  ${FAKE_PROVIDER}:`,
		`    baseUrl: ${baseUrl}`,
		"    apiKey: fake-key-123", // not an env var name, so OMP uses it literally
		`    api: ${api}`,
		"    authHeader: true",
		"    models:",
		`      - id: ${FAKE_MODEL_ID}`,
		"        name: Fake Model",
		"        reasoning: false",
		"        input: [text]",
		"        contextWindow: 128000",
		"        maxTokens: 4096",
		"        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }",
		"",
	].join("\n");
}

export function makeOmpEnv(options: OmpEnvOptions): OmpEnv {
	const api = options.api ?? "openai-completions";
	const root = mkdtempSync(path.join(tmpdir(), "tama-omp-"));
	const home = path.join(root, "home");
	const agentDir = path.join(root, "agent");
	const cwd = path.join(root, "work");
	const scratch = path.join(root, "scratch");
	const bin = path.join(root, "bin");
	for (const dir of [home, agentDir, cwd, scratch, bin]) mkdirSync(dir, { recursive: true });
	// `omp` on the session's PATH is the release under test (node_modules/.bin/omp is any alias's).
	symlinkSync(ompBin(), path.join(bin, "omp"));

	// `/v1` works for all three APIs: OMP strips it again for Anthropic before adding /v1/messages.
	writeFileSync(path.join(agentDir, "models.yml"), modelsYaml(`${options.modelServerUrl}/v1`, api));
	// OMP defaults on purpose (they are what Tama runs under); tests add settings via configYaml.
	writeFileSync(path.join(agentDir, "config.yml"), `${options.configYaml ?? ""}\n`);

	const env: Record<string, string> = {
		PATH: `${bin}${path.delimiter}${BIN_DIR}${path.delimiter}${process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin"}`,
		HOME: home,
		PI_CODING_AGENT_DIR: agentDir,
		NO_COLOR: "1",
		TERM: "dumb",
		// Bun and OMP put caches/temp files under these; keep them inside the sandbox.
		TMPDIR: scratch,
		XDG_CONFIG_HOME: path.join(home, ".config"),
		XDG_CACHE_HOME: path.join(home, ".cache"),
		XDG_DATA_HOME: path.join(home, ".local", "share"),
		XDG_STATE_HOME: path.join(home, ".local", "state"),
		...(process.env.LANG ? { LANG: process.env.LANG } : {}),
		...options.env,
	};

	return {
		root,
		home,
		agentDir,
		cwd,
		scratch,
		env,
		model: FAKE_MODEL,
		cleanup() {
			rmSync(root, { recursive: true, force: true });
		},
	};
}
