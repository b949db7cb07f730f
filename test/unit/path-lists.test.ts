// A tool's path input read as OMP reads it (tools/path-utils.ts): outer double quotes
// stripped, a JSON-encoded list taken as its strings, an entry split on `;`, `,` or
// whitespace, `\` as `/`, a brace group's alternatives, and a glob that takes in hidden
// names. Each refused call below passed every gate before, and OMP's own tool code
// touches the protected or secret file named in it.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pathList, pathReadings, searchGlobMayMatch, searchScope } from "../../modules/tools/path-lists.ts";
import { refusingGates, scratchProject, type GatePlace, type ScratchProject } from "../support/gate-refusals.ts";

let scratch: ScratchProject;
let place: GatePlace;
beforeAll(() => {
  // `.env` is neither tracked nor ignored: a search of the project reads it.
  scratch = scratchProject("path-lists", { ".env": "PASSWORD=hunter2\n", ".tama/hooks.json": '{"gates":{"self-protection":true}}\n', "src/a.ts": "export const a = 1;\n", "src/b.ts": "export const b = 2;\n" });
  place = { project: scratch.project, tamaHome: path.join(scratch.root, "home", ".tama"), home: path.join(scratch.root, "home"), defaultsOnly: true };
});
afterAll(() => scratch.remove());

const refusedBy = (tool: string, input: Record<string, unknown>): Promise<string[]> => refusingGates(tool, input, place);
const astEdit = (paths: string[]): Record<string, unknown> => ({ ops: [{ pat: '"self-protection"', out: '"disabled"' }], paths });

describe("ast_edit's paths entries", () => {
  it.each([
    ["two paths in one entry, split on a space", "src/a.ts .tama/hooks.json"],
    ["two paths in one entry, split on ;", "src/a.ts;.tama/hooks.json"],
    ["two paths in one entry, split on ; and a space", "src/a.ts; .tama/hooks.json"],
    ["two paths in one entry, split on ,", "src/a.ts,.tama/hooks.json"],
    ["a quoted path", '".tama/hooks.json"'],
    ["a quoted path in a list", 'src/a.ts; ".tama/hooks.json"'],
    ["a backslash, which OMP's search reads as /", ".tama\\hooks.json"],
    ["a brace group", "{.tama/hooks.json,src/a.ts}"],
  ])("refuses %s (%s) by self-protection", async (_what, entry) => {
    expect(await refusedBy("ast_edit", astEdit([entry]))).toContain("self-protection");
  });

  it.each(["src/a.ts ~/notes.json", "src/a.ts;~/notes.json", "src/a.ts,~/notes.json", '"~/notes.json"'])("refuses %s by deny-writes-outside-repo", async (entry) => {
    expect(await refusedBy("ast_edit", astEdit([entry]))).toContain("deny-writes-outside-repo");
  });

  it("refuses a rewrite over a folder holding a secret file git does not ignore (its preview shows the lines it rewrites)", async () => {
    expect(await refusedBy("ast_edit", astEdit(["."]))).toContain("protect-secret-files");
  });

  it.each([["."], ["**"], ["?tama/hooks.json"], ["[.]tama/hooks.json"], ["**/*.json"]])("refuses a folder or a glob whose matches take in a hidden policy file (%s) by self-protection", async (entry) => {
    expect(await refusedBy("ast_edit", astEdit([entry]))).toContain("self-protection");
  });

  it.each([[["src/a.ts"]], [["src/a.ts", "src/b.ts"]], [["src/**/*.ts"]], [["src/{a,b}.ts"]], [["src"]], [["**/*.ts"]]])("passes an ordinary rewrite of %j", async (paths) => {
    expect(await refusedBy("ast_edit", astEdit(paths))).toEqual([]);
  });
});

describe("grep's path", () => {
  it.each([
    ["a quoted path", '".env"'],
    ["a JSON-encoded list", '[".env"]'],
    ["a list with a quoted path", 'src; ".env"'],
    ["a comma list with a quoted path", 'src,".env"'],
    ["a glob whose * takes in hidden names", "*"],
    ["a glob ending in the name", "*env"],
    ["a brace group", "{.env,x}"],
  ])("refuses %s (%s) by protect-secret-files", async (_what, searched) => {
    expect(await refusedBy("grep", { pattern: "PASSWORD", path: searched })).toContain("protect-secret-files");
  });

  it.each(["src", "src/a.ts", "src/*", "**/*.ts", "src; src/a.ts", '"src"'])("passes a search of %s", async (searched) => {
    expect(await refusedBy("grep", { pattern: "PASSWORD", path: searched })).toEqual([]);
  });
});

describe("read's path", () => {
  it.each([
    ["a ; list with a quoted part", 'src/a.ts; ".env"'],
    ["a , list with a quoted part", 'src/a.ts, ".env"'],
    ["a space list with a quoted part", 'src/a.ts ".env"'],
  ])("refuses %s (%s) by protect-secret-files", async (_what, read) => {
    expect(await refusedBy("read", { path: read })).toContain("protect-secret-files");
  });

  it.each(["src/a.ts", "src/a.ts:1-5", "src", "src/a.ts; src/b.ts"])("passes a read of %s", async (read) => {
    expect(await refusedBy("read", { path: read })).toEqual([]);
  });

  it("refuses a path too tangled to list, rather than reading part of it", async () => {
    const path = Array.from({ length: 600 }, (_v, i) => `f${i}`).join(";");
    expect((await refusedBy("read", { path }))[0]).toMatch(/^unmapped: read: its path names more than/);
  });
});

describe("ast_grep's path", () => {
  it.each([
    ["a quoted path", { pat: "$A", path: '".env"', lang: "bash" }],
    ["the whole project, a .env parsed as bash", { pat: "$A", lang: "bash" }],
    ["a list with the file", { pat: "$A", path: "src; .env", lang: "bash" }],
    ["a glob that takes in hidden names", { pat: "$A", path: "*", lang: "bash" }],
  ])("refuses %s by protect-secret-files", async (_what, input) => {
    expect(await refusedBy("ast_grep", input)).toContain("protect-secret-files");
  });

  it.each([{ pat: "$A", path: "src" }, { pat: "$A", path: "src/**/*.ts" }, { pat: "$A", path: "src/a.ts", lang: "typescript" }])("passes %j", async (input) => {
    expect(await refusedBy("ast_grep", input)).toEqual([]);
  });

  it("refuses a search whose paths are too tangled to list", async () => {
    const path = Array.from({ length: 600 }, (_v, i) => `f${i}`).join(";");
    expect(await refusedBy("ast_grep", { pat: "$A", path })).toContain("protect-secret-files");
  });
});

describe("the reading itself", () => {
  it("takes a JSON-encoded string array as its strings, anything else as one path", () => {
    expect(pathList('["a.ts", "b.ts"]')).toEqual(["a.ts", "b.ts"]);
    expect(pathList('["a.ts", 1]')).toEqual(['["a.ts", 1]']);
    expect(pathList(["a.ts", 2])).toEqual(["a.ts"]);
    expect(pathList(undefined)).toEqual([]);
  });

  it("gives an ordinary path as itself, and a list as itself and each part", () => {
    expect(pathReadings("src/a.ts")).toEqual({ ok: true, paths: ["src/a.ts"] });
    expect(pathReadings(["src/a.ts", "src/b.ts"])).toEqual({ ok: true, paths: ["src/a.ts", "src/b.ts"] });
    const list = pathReadings('src/a.ts; ".env"');
    expect(list.ok && list.paths).toEqual(expect.arrayContaining(['src/a.ts; ".env"', "src/a.ts", ".env"]));
    // Braces keep their separators (path-utils' splitTopLevelDelimitedPath); the group's alternatives are readings too.
    const braces = pathReadings("src/{a,b}.ts");
    expect(braces.ok && braces.paths).toEqual(["src/{a,b}.ts", "src/a.ts", "src/b.ts"]);
  });

  it("splits a search entry at its first glob, and matches a glob loosely, hidden names too", () => {
    expect(searchScope("src/**/*.ts")).toEqual({ base: "src", glob: "**/*.ts" });
    expect(searchScope("*env")).toEqual({ base: ".", glob: "*env" });
    expect(searchScope("src\\a.ts")).toEqual({ base: "src/a.ts" });
    expect(searchGlobMayMatch("**/.env", ".env")).toBe(true);
    expect(searchGlobMayMatch("*", "src/.env")).toBe(true);
    expect(searchGlobMayMatch("[.]env", ".env")).toBe(true);
    expect(searchGlobMayMatch("{.env,x}", ".env")).toBe(true);
    expect(searchGlobMayMatch("**/*.ts", "src/.env")).toBe(false);
    // A glob of many wildcards, whose match would backtrack for seconds, may take in anything.
    expect(searchGlobMayMatch(`${"*a".repeat(12)}*b`, `.env${"a".repeat(40)}`)).toBe(true);
    expect(searchGlobMayMatch("{src,test}/**/*.ts", ".env")).toBe(false);
  });
});

describe("a search where git's ignore rules are read as OMP's search reads them", () => {
  it("one started inside an ignored folder reads it; core.excludesFile replaces XDG's git/ignore", async () => {
    const ignored = scratchProject("ignored-search", { ".gitignore": "secrets/\n", "secrets/.env": "S=1\n", ".env.production": "S=2\n", "src/a.ts": "x\n" });
    const home = path.join(ignored.root, "home");
    const here: GatePlace = { project: ignored.project, tamaHome: path.join(home, ".tama"), home, defaultsOnly: true };
    const saved = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };
    try {
      // Git's own excludes file lists .env.production; the XDG file (which it replaces) does not.
      mkdirSync(path.join(home, ".config", "git"), { recursive: true });
      writeFileSync(path.join(home, ".config", "git", "ignore"), "");
      writeFileSync(path.join(home, "excludes"), ".env.production\n");
      writeFileSync(path.join(home, ".gitconfig"), `[core]\n\texcludesFile = ${path.join(home, "excludes")}\n`);
      process.env.HOME = home;
      delete process.env.XDG_CONFIG_HOME;
      expect(await refusingGates("grep", { pattern: "S", path: "." }, here)).toEqual([]);
      for (const searched of ["secrets", "secrets/*", "secrets/**"]) expect(await refusingGates("grep", { pattern: "S", path: searched }, here), searched).toContain("protect-secret-files");
      expect(await refusingGates("ast_grep", { pat: "$A", path: "secrets", lang: "bash" }, here)).toContain("protect-secret-files");
      // Listed in the XDG file instead, which git no longer reads: the search reads it.
      writeFileSync(path.join(home, "excludes"), "");
      writeFileSync(path.join(home, ".config", "git", "ignore"), ".env.production\n");
      expect(await refusingGates("grep", { pattern: "S", path: "." }, here)).toContain("protect-secret-files");
    } finally {
      for (const [name, value] of Object.entries(saved)) if (value === undefined) delete process.env[name];
      else process.env[name] = value;
      ignored.remove();
    }
  });
});
