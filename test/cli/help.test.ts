// The CLI's conventions: help for every command and subcommand (--help, -h, tama help),
// the version, usage errors (exit 2, one line, a pointer to --help) and --json failures
// that look the same from every command.
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTestHome, ROOT, type TestHome } from "../support/engine-client.ts";
import { tama } from "./cli.ts";

let home: TestHome;
beforeEach(() => {
  home = makeTestHome("tama-help-");
});
afterEach(() => home.cleanup());

const COMMANDS: Record<string, string[]> = {
  install: [],
  uninstall: [],
  doctor: [],
  hook: [],
  "run-hook": [],
  hooks: ["list", "add", "remove", "enable", "disable", "import", "checksum", "running", "builtins"],
  contracts: ["status"],
  sessions: ["list", "status", "reload", "grant", "revoke"],
  help: [],
};

const every = Object.entries(COMMANDS).flatMap(([command, subs]) => [[command], ...subs.map((sub) => [command, sub])]);

describe("help", () => {
  it.each(every)("tama %s %s --help and -h print usage, options or commands, an example and exit codes; exit 0", (...words) => {
    const key = words.filter((w): w is string => typeof w === "string");
    for (const flag of ["--help", "-h"]) {
      const r = tama(home, [...key, flag]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^usage: tama ${key.join(" ")}`));
      expect(r.stdout).toMatch(/\n(Options|Commands):\n/);
      expect(r.stdout).toMatch(/\nExamples?:\n  .*tama /);
      expect(r.stdout).toMatch(/\nExit codes:\n  0  done\n/);
      expect(r.stderr).toBe("");
    }
    // tama help <command> [subcommand] prints the same
    if (key[0] !== "help") expect(tama(home, ["help", ...key]).stdout).toBe(tama(home, [...key, "--help"]).stdout);
  });

  it("--help anywhere before -- is help; after -- it belongs to the hook's argv", () => {
    expect(tama(home, ["hooks", "add", "--id", "x", "--help"]).stdout).toMatch(/^usage: tama hooks add/);
    const r = tama(home, ["hooks", "add", "--id", "x", "--event", "stop", "--json", "--", "/bin/echo", "--help"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).hook.command).toEqual(["/bin/echo", "--help"]);
  });

  it("tama --help lists every command; tama alone prints it on stderr and exits 2", () => {
    const r = tama(home, ["--help"]);
    expect(r.code).toBe(0);
    for (const command of Object.keys(COMMANDS)) expect(r.stdout).toMatch(new RegExp(`\\n  ${command} +\\S`));
    const bare = tama(home, []);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toBe(r.stdout);
  });

  it("tama --version (and -V) prints the package's version", () => {
    const { version } = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string };
    expect(tama(home, ["--version"])).toMatchObject({ code: 0, stdout: `${version}\n` });
    expect(tama(home, ["-V"]).stdout).toBe(`${version}\n`);
  });
});

describe("usage errors", () => {
  const cases: { args: string[]; cause: string; help: string }[] = [
    { args: ["doctor", "--timeout-ms", "-5"], cause: "--timeout-ms needs a value (a value starting with '-' is written --timeout-ms=-…)", help: "doctor" },
    { args: ["doctor", "--timeout-ms=-5"], cause: "--timeout-ms takes a whole number of milliseconds (how long the engine may take to answer)", help: "doctor" },
    { args: ["hooks", "list", "--bogus"], cause: "unknown option --bogus", help: "hooks list" },
    { args: ["sessions", "status", "--session"], cause: "--session needs a value", help: "sessions status" },
    { args: ["hooks", "add", "--id", "bad id", "--event", "stop", "--", "true"], cause: "--id \"bad id\" is not a hook id: 1-128 letters, digits, '.', '_', ':' or '-', starting with a letter or digit", help: "hooks add" },
    { args: ["hooks", "disable", "no-such-hook"], cause: "", help: "hooks disable" },
    { args: ["hooks", "frobnicate"], cause: "unknown command \"frobnicate\": list, add, remove, enable, disable, import, claude-sources, checksum, running, builtins", help: "hooks" },
    { args: ["sessions"], cause: "name a command: list, status, reload, grant or revoke", help: "sessions" },
    { args: ["contracts", "status"], cause: "name the harness: tama contracts status --omp", help: "contracts status" },
    { args: ["hook", "no-such-gate"], cause: "no built-in gate \"no-such-gate\"; `tama hooks builtins` lists them", help: "hook" },
    { args: ["frobnicate"], cause: "unknown command \"frobnicate\"", help: "" },
  ];
  it.each(cases)("tama $args.0 $args.1 …: exit 2, one line of cause, then where to read more", ({ args, cause, help }) => {
    home.writeRegistry({ schema: 1, release: null, hooks: [] });
    const r = tama(home, args);
    expect(r.code, r.stderr).toBe(2);
    const lines = r.stderr.split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(new RegExp(`^tama${help ? ` ${help}` : ""}: `));
    if (cause) expect(lines[0]).toBe(`tama${help ? ` ${help}` : ""}: ${cause}`);
    expect(lines[1]).toBe(`Run \`tama ${help ? `${help} ` : ""}--help\` for usage.`);
    expect(r.stdout).toBe("");
  });
});

describe("--json failures", () => {
  const failures: { args: string[]; code: number }[] = [
    { args: ["hooks", "list", "--registry", "/nonexistent/registry.json", "--json"], code: 1 },
    { args: ["hooks", "list", "--bogus", "--json"], code: 2 },
    { args: ["hooks", "disable", "nope", "--json"], code: 2 },
    { args: ["sessions", "status", "--session", "nope", "--json"], code: 3 },
    { args: ["contracts", "status", "--omp", "--agent-dir", "/nonexistent/agent", "--json"], code: 1 },
    { args: ["install", "--json"], code: 2 },
  ];
  it.each(failures)("tama $args.0 $args.1 … --json: {ok:false, exitCode, error} on stdout, the message on stderr", ({ args, code }) => {
    home.writeRegistry({ schema: 1, release: null, hooks: [] });
    const r = tama(home, args);
    expect(r.code, r.stderr).toBe(code);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(out).toEqual({ ok: false, exitCode: code, error: expect.any(String) });
    expect(r.stderr).toContain(out.error as string);
  });
});
