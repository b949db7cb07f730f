// `tama doctor`: a real install into a test TAMA_HOME and OMP agent dir, a real
// engine started from it, and each fault put there by hand.
import { spawn } from "node:child_process";
import { appendFileSync, chmodSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTestHome, type TestHome } from "../support/engine-client.ts";
import { json, tama } from "./cli.ts";
import { defaultRegistry } from "../../modules/registry/default.ts";

/** The gates a new install turns on. */
const GATES = defaultRegistry(null).hooks.length;

interface Report {
  ok: boolean;
  errors: number;
  warnings: number;
  checks: { id: string; status: "ok" | "warning" | "error"; summary: string; fix?: string }[];
}

let home: TestHome;
let agentDir: string;
beforeEach(() => {
  home = makeTestHome("tama-doctor-");
  // makeTestHome writes no registry; install lays down everything.
  rmSync(path.dirname(home.registry), { recursive: true, force: true });
  agentDir = path.join(home.dir, "omp-agent");
});
afterEach(() => home.cleanup());

const install = () => {
  const r = tama(home, ["install", "--omp", "--agent-dir", agentDir, "--json"]);
  expect(r.code, r.stderr).toBe(0);
  return json<{ releaseId: string; adapterDigest: string; shellPath: string; releaseDir: string }>(r);
};
const doctor = () => tama(home, ["doctor", "--agent-dir", agentDir, "--json"]);
const report = () => json<Report>(doctor());
const check = (r: Report, id: string) => r.checks.find((c) => c.id === id);

describe("tama doctor", () => {
  it("a fresh install passes every check, in short aligned lines", () => {
    const installed = install();
    const r = doctor();
    expect(r.code).toBe(0);
    const result = json<Report>(r);
    expect(result).toMatchObject({ ok: true, errors: 0, warnings: 0 });
    expect(result.checks.map((c) => [c.id, c.status])).toEqual([
      ["environment", "ok"],
      ["agent-dir", "ok"],
      ["release", "ok"],
      ["adapter", "ok"],
      ["adapter-release", "ok"],
      ["adapter-chunk", "ok"],
      ["shell", "ok"],
      ["engine", "ok"],
      ["registry", "ok"],
      ["self-protection", "ok"],
      ["trust", "ok"],
      ["logs", "ok"],
      ["commands", "ok"],
      ["sources", "ok"],
      ["sessions-dir", "ok"],
      ["sessions", "ok"],
    ]);
    expect(check(result, "release")?.summary).toBe(`${installed.releaseId} (current → releases/${installed.releaseId})`);
    expect(check(result, "adapter")?.summary).toBe(`${installed.adapterDigest.slice(0, 12)}, the same as this build's`);
    expect(check(result, "engine")?.summary).toMatch(new RegExp(`^pid \\d+ answered status in \\d+ ms: ${GATES} hooks, release ${installed.releaseId}$`));
    expect(check(result, "sessions")?.summary).toBe("no live sessions");

    const text = tama(home, ["doctor", "--agent-dir", agentDir]);
    expect(text.code).toBe(0);
    const lines = text.stdout.trimEnd().split("\n");
    expect(lines.at(-1)).toBe("All checks passed.");
    // STATUS, CHECK, SUMMARY: the summary starts at the same column on every line.
    const checks = lines.slice(0, -1);
    expect(checks.every((l) => /^ok {2}\S+ +\S/.test(l))).toBe(true);
    expect(new Set(checks.map((l) => /^\S+ +\S+ +/.exec(l)?.[0].length)).size).toBe(1);
  });

  it("with nothing installed, says so check by check and exits 1", () => {
    const r = doctor();
    expect(r.code).toBe(1);
    const result = json<Report>(r);
    expect(result.ok).toBe(false);
    for (const id of ["release", "adapter", "shell", "engine", "registry"]) {
      expect(check(result, id)).toMatchObject({ status: "error", fix: expect.stringContaining("tama install --omp") });
    }
    expect(check(result, "shell")?.summary).toBe(`OMP will not load Tama: no ${path.join(agentDir, "extensions", "omp-shared-hooks.js")}`);
  });

  it("names a registry that does not load by path and line; the engine still answers", () => {
    install();
    writeFileSync(path.join(home.home, "hooks", "registry.json"), '{\n  "schema": 1,\n  "hooks": [\n');
    const result = report();
    expect(check(result, "registry")).toMatchObject({
      status: "error",
      summary: expect.stringMatching(/^parsing hook registry .*\/hooks\/registry\.json: .* at line 4 column 0$/),
      fix: expect.stringContaining("every dispatch answers ok:false and runs no hook"),
    });
    expect(check(result, "engine")?.status).toBe("ok");
    expect(check(result, "commands")).toBeUndefined();
  });

  it("hook commands: a missing one is an error when it fails closed, a warning when it fails open", () => {
    install();
    const hook = home.script("present.sh", "#!/bin/sh\nexit 0\n");
    const add = (...args: string[]) => expect(tama(home, ["hooks", "add", ...args]).code).toBe(0);
    add("--id", "present", "--event", "stop", "--", hook);
    add("--id", "on-path", "--event", "stop", "--", "sh", "-c", "true");
    add("--id", "closed-gone", "--event", "pre_tool_use", "--fail-mode", "closed", "--", "/nonexistent/gate.sh");
    add("--id", "open-gone", "--event", "stop", "--", "no-such-program-xyz", "arg");
    add("--id", "script-gone", "--event", "stop", "--", "sh", "-c", "/nonexistent/claude-hook.sh --flag");
    add("--id", "relative", "--event", "stop", "--", "./hooks/x.sh");
    add("--id", "off", "--event", "stop", "--disabled", "--", "/nonexistent/off.sh");
    const notExecutable = home.script("plain.txt", "");
    chmodSync(notExecutable, 0o644);
    add("--id", "not-exec", "--event", "stop", "--", notExecutable);

    const r = doctor();
    expect(r.code).toBe(1);
    const result = json<Report>(r);
    const commands = result.checks.filter((c) => c.id.startsWith("command"));
    expect(commands.map((c) => [c.id, c.status])).toEqual([
      ["command:closed-gone", "error"],
      ["command:open-gone", "warning"],
      ["command:script-gone", "warning"],
      ["command:relative", "warning"],
      ["command:not-exec", "warning"],
    ]);
    expect(commands[0]).toMatchObject({
      summary: "closed-gone: /nonexistent/gate.sh does not exist; its failMode is closed, so every call it matches is refused",
      fix: "install /nonexistent/gate.sh (on OMP's PATH, which may differ from this shell's), fix the command, or tama hooks disable closed-gone",
    });
    expect(commands[1]?.summary).toBe("open-gone: no-such-program-xyz is not on PATH; it fails open, so it never gives a verdict");
    expect(commands[2]?.summary).toBe("script-gone: /nonexistent/claude-hook.sh does not exist; it fails open, so it never gives a verdict");
    // A relative path resolves against the project, as a hook's cwd is the session's.
    expect(commands[3]?.summary).toBe(`relative: ${home.dir}/hooks/x.sh does not exist (./hooks/x.sh from ${home.dir}); it fails open, so it never gives a verdict`);
    expect(commands[4]?.summary).toBe(`not-exec: ${notExecutable} is not executable (chmod +x ${notExecutable}); it fails open, so it never gives a verdict`);

    // Warnings alone do not fail the doctor.
    expect(tama(home, ["hooks", "remove", "closed-gone"]).code).toBe(0);
    expect(doctor().code).toBe(0);
  });

  it("the session-control dir must be 0700", () => {
    install();
    const dir = path.join(home.home, "sessions");
    chmodSync(dir, 0o755);
    const result = report();
    expect(check(result, "sessions-dir")).toEqual({
      id: "sessions-dir",
      status: "error",
      summary: `${dir} has mode 0755, not 0700: others could reach your sessions' control sockets`,
      fix: `chmod 700 ${dir}`,
    });
  });

  it("live sessions: an older adapter is a warning with the reload to run; ended sessions and other files are not sessions", async () => {
    const installed = install();
    const sessions = path.join(home.home, "sessions");
    const ended = spawn("true");
    const endedPid = await new Promise<number>((resolve) => ended.on("exit", () => resolve(ended.pid ?? 0)));
    const record = (name: string, value: unknown) => writeFileSync(path.join(sessions, name), typeof value === "string" ? value : JSON.stringify(value));
    record("session.old.json", { session: "old", ompPid: process.pid, adapterDigest: "a".repeat(64), key: "secret-key-never-shown" });
    record("session.current.json", { session: "current", ompPid: process.pid, adapterDigest: installed.adapterDigest });
    record("session.ended.json", { session: "ended", ompPid: endedPid, adapterDigest: "b".repeat(64) });
    record("abandoned.x.json", { not: "a session record" });

    let result = report();
    expect(result.checks.filter((c) => c.id.startsWith("session:") || c.id === "sessions")).toEqual([
      {
        id: "session:old",
        status: "warning",
        summary: `session old (OMP pid ${process.pid}) runs adapter aaaaaaaaaaaa, not the installed ${installed.adapterDigest.slice(0, 12)}`,
        fix: "run /tama_reload_hook_runtime in that session (or tama sessions reload --session old)",
      },
      { id: "sessions", status: "ok", summary: "1 live session runs the installed adapter" },
    ]);
    expect(doctor().stdout).not.toContain("secret-key-never-shown");

    record("session.broken.json", "{not json");
    result = report();
    expect(check(result, "session:session.broken.json")).toMatchObject({ status: "warning", summary: expect.stringContaining("cannot read the session record") });
    expect(result.errors).toBe(0);
  });

  it("an engine that does not start is an error naming what it said", () => {
    const installed = install();
    writeFileSync(path.join(installed.releaseDir, "bin", "tama"), "#!/bin/sh\necho 'cannot find node' >&2\nexit 127\n", { mode: 0o755 });
    const result = report();
    expect(check(result, "engine")).toMatchObject({
      status: "error",
      summary: expect.stringMatching(/did not answer status: exited with code 127 before answering \(stderr: cannot find node\)$/),
    });
  });

  it("a shell that is not the one installed is a warning; an adapter its release did not install is an error the shell refuses", () => {
    const installed = install();
    appendFileSync(path.join(home.home, "shared-hooks", "omp", "adapter.js"), "\n// changed\n");
    appendFileSync(installed.shellPath, "\n// changed\n");
    const result = report();
    expect(check(result, "adapter")).toMatchObject({ status: "warning", summary: expect.stringContaining(`is not the one release ${installed.releaseId} was installed with`) });
    expect(check(result, "shell")).toMatchObject({ status: "warning", fix: expect.stringContaining("restart OMP") });
    expect(check(result, "adapter-release")).toMatchObject({ status: "error", summary: expect.stringContaining("the shell refuses to adopt it") });
    expect(result.errors).toBe(1);
    expect(readFileSync(installed.shellPath, "utf8")).toContain(home.home);
  });

  it("an adapter whose shared chunk is missing or altered is an error: the shell could not load it", () => {
    install();
    const loaded = path.join(home.home, "shared-hooks", "omp", "loaded");
    const chunk = readdirSync(loaded).find((name) => name.startsWith("vendor-"));
    expect(chunk).toBeDefined();
    appendFileSync(path.join(loaded, chunk as string), "\n// altered\n");
    expect(check(report(), "adapter-chunk")).toMatchObject({ status: "error", summary: expect.stringContaining("does not hold the bytes its name promises") });
    rmSync(path.join(loaded, chunk as string));
    expect(check(report(), "adapter-chunk")).toMatchObject({ status: "error", summary: expect.stringContaining("which is missing") });
    // installing again puts it back
    install();
    expect(check(report(), "adapter-chunk")?.status).toBe("ok");
  });
});
