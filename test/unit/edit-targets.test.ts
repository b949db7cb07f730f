import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { describe, expect, it } from "vitest";
import {
  editTargetsOf,
  parseApplyPatch,
  parseHashline,
  parsePatch,
  parseSloppy,
  PATCH_FIELDS,
  patchFormat,
} from "../../modules/tools/edit-targets.ts";
import { resolveTargetPath } from "../../modules/tools/tool-paths.ts";

const HASHLINE = [
  "*** Begin Patch",
  "[src/a.ts#ABCD]",
  "PUT 1.=1:",
  "+const a = 1;",
  "+[not/a/header.ts#ABCD]",
  "[b/c d.ts#12ef]",
  "REM",
  "*** End Patch",
  "",
].join("\n");

const APPLY_PATCH = [
  "*** Begin Patch",
  "*** Add File: hello.txt",
  "+Hello world",
  "*** Update File: src/app.py",
  "*** Move to: src/main.py",
  "@@ def greet():",
  '-print("Hi")',
  '+print("Hello")',
  " [context/row.ts#ABCD]",
  "*** Delete File: obsolete.txt",
  "*** End Patch",
  "",
].join("\n");

const SLOPPY = [
  '<SM:EDIT path="src/config.ts">',
  "<SM:FIND>",
  "const timeout = 1000;",
  "</SM:FIND>",
  "<SM:PUT>",
  "const timeout = 5000;",
  "</SM:PUT>",
  "</SM:EDIT>",
  '<SM:EDIT file="x/y.ts" all>',
  "<SM:FIND>",
  "*** Update File: raw-text-not-a-header.ts",
  "</SM:FIND>",
  "<SM:AFTER>",
  "added();",
  "</SM:AFTER>",
  "",
].join("\n");

describe("patchFormat", () => {
  it("tells the three patch languages apart", () => {
    expect(patchFormat(HASHLINE)).toBe("hashline");
    expect(patchFormat(APPLY_PATCH)).toBe("apply_patch");
    expect(patchFormat(SLOPPY)).toBe("sloppy");
  });
});

describe("parseHashline", () => {
  it("makes every [PATH#TAG] header a section and reads + rows as added text", () => {
    expect(parseHashline(HASHLINE)).toEqual([
      { path: "src/a.ts", added: ["const a = 1;", "[not/a/header.ts#ABCD]"] },
      { path: "b/c d.ts", added: [] },
    ]);
  });

  it("reads MV destinations, quoted paths, untagged and legacy ¶ headers, CRLF and a BOM", () => {
    const text = '\uFEFF["q q.ts"#ABCD]\r\nPUT 1.=1:\r\n+x\r\nMV "lib/z y.ts"\r\n[plain.ts]\n¶legacy.ts#ABCD\nCUT 1.=1\n';
    expect(parseHashline(text)).toEqual([
      { path: "q q.ts", added: ["x"], moveTo: "lib/z y.ts" },
      { path: "plain.ts", added: [] },
      { path: "legacy.ts", added: [] },
    ]);
  });
});

describe("parseApplyPatch", () => {
  it("reads Add, Update (with Move to) and Delete headers; context rows are not headers", () => {
    expect(parseApplyPatch(APPLY_PATCH)).toEqual([
      { path: "hello.txt", added: ["Hello world"] },
      { path: "src/app.py", added: ['print("Hello")'], moveTo: "src/main.py" },
      { path: "obsolete.txt", added: [] },
    ]);
  });

  it("trims header paths and needs no envelope", () => {
    expect(parseApplyPatch("*** Update File:   spaced.txt  \n@@\n-a\n+b\n")).toEqual([{ path: "spaced.txt", added: ["b"] }]);
  });

  it("does not read an added line that looks like a header as one", () => {
    const sections = parseApplyPatch("*** Update File: a.txt\n@@\n-a\n+*** Update File: fake.txt\n");
    expect(sections.map((s) => s.path)).toEqual(["a.txt"]);
  });
});

describe("parseSloppy", () => {
  it("reads path= and file= attributes and PUT/AFTER bodies; raw FIND text is not a header", () => {
    expect(parseSloppy(SLOPPY)).toEqual([
      { path: "src/config.ts", added: ["const timeout = 5000;"] },
      { path: "x/y.ts", added: ["added();"] },
    ]);
    expect(parsePatch(SLOPPY).map((s) => s.path)).toEqual(["src/config.ts", "x/y.ts"]);
  });

  it("continues the previous file on a bare <SM:EDIT>", () => {
    const text = '<SM:EDIT path="a.ts">\n<SM:FIND>\na\n</SM:FIND>\n<SM:PUT>\nb\n</SM:PUT>\n<SM:EDIT>\n<SM:FIND>\nc\n</SM:FIND>\n<SM:PUT>\nd\n</SM:PUT>\n';
    expect(parseSloppy(text)).toEqual([{ path: "a.ts", added: ["b", "d"] }]);
  });
});

describe("editTargetsOf", () => {
  it.each(PATCH_FIELDS)("reads a multi-file patch from %s", (field) => {
    const found = editTargetsOf({ [field]: HASHLINE });
    expect(found).toEqual({
      ok: true,
      targets: [{ path: "src/a.ts", added: "const a = 1;\n[not/a/header.ts#ABCD]" }, { path: "b/c d.ts" }],
    });
  });

  it("makes a move destination its own target", () => {
    const found = editTargetsOf({ input: APPLY_PATCH });
    expect(found.ok && found.targets.map((t) => t.path)).toEqual(["hello.txt", "src/app.py", "src/main.py", "obsolete.txt"]);
  });

  it("unions OMP's derived path/paths with the headers, each target once", () => {
    const found = editTargetsOf({ input: HASHLINE, path: "src/a.ts", paths: ["src/a.ts", "extra.ts"] });
    expect(found.ok && found.targets.map((t) => t.path)).toEqual(["src/a.ts", "extra.ts", "b/c d.ts"]);
  });

  it("reads replace mode's path and patch mode's path, renames and added lines", () => {
    expect(editTargetsOf({ path: "r.ts", old_string: "a", new_string: "b" })).toEqual({ ok: true, targets: [{ path: "r.ts" }] });
    const patchMode = editTargetsOf({
      path: "p.ts",
      edits: [{ op: "update", rename: "q.ts", diff: "@@\n-a\n+b\n" }],
    });
    expect(patchMode).toEqual({ ok: true, targets: [{ path: "p.ts", added: "b" }, { path: "q.ts", added: "b" }] });
    expect(editTargetsOf({ path: "new.txt", edits: [{ op: "create", diff: "Hello\n" }] })).toEqual({
      ok: true,
      targets: [{ path: "new.txt", added: "Hello\n" }],
    });
  });

  it("reads `_path` as OMP forwards it on some hosts", () => {
    expect(editTargetsOf({ _path: "u.ts", old_string: "a", new_string: "b" })).toEqual({ ok: true, targets: [{ path: "u.ts" }] });
  });

  it("does not read content as a patch beside a named path (it is the file's text)", () => {
    const found = editTargetsOf({ path: "doc.md", content: "*** Update File: other.ts\n" });
    expect(found.ok && found.targets.map((t) => t.path)).toEqual(["doc.md"]);
  });

  it("refuses a call that names no file, and says why", () => {
    const none = editTargetsOf({});
    expect(none.ok).toBe(false);
    expect(!none.ok && none.error).toMatch(/no path and no patch in patch, input, _input, raw_input, content/);
    const headerless = editTargetsOf({ input: "PUT 1.=1:\n+x\n" });
    expect(headerless.ok).toBe(false);
    expect(!headerless.ok && headerless.error).toMatch(/no file header/);
    expect(editTargetsOf({ path: "   ", input: "" }).ok).toBe(false);
  });
});

describe("resolveTargetPath", () => {
  it("resolves relative paths against cwd and keeps absolute ones", () => {
    expect(resolveTargetPath("src/a.ts", "/repo")).toBe("/repo/src/a.ts");
    expect(resolveTargetPath("/etc/passwd", "/repo")).toBe("/etc/passwd");
    // OMP reads a bare "/" as the workspace root (path-utils.ts resolveToCwd).
    expect(resolveTargetPath("/", "/repo")).toBe("/repo");
  });

  it("expands ~, file:// and an @ prefix; keeps internal URLs", () => {
    expect(resolveTargetPath("~/.ssh/config", "/repo")).toBe(`${homedir()}/.ssh/config`);
    expect(resolveTargetPath("file:///tmp/x.ts", "/repo")).toBe("/tmp/x.ts");
    expect(resolveTargetPath("@/abs/y.ts", "/repo")).toBe("/abs/y.ts");
    expect(resolveTargetPath("@my-file.txt", "/repo")).toBe("/repo/@my-file.txt");
    expect(resolveTargetPath("local://notes.md", "/repo")).toBe("local://notes.md");
  });
});

// OMP's own parser (the native addon its edit tool applies with): our targets must
// name every file it would touch. Skipped where the linux-x64 addon is absent.
interface NativeInspection {
  paths: string[];
  fileOps: { kind: string; path: string; to?: string }[];
}
interface NativeEdit {
  editInspect(mode: string, argsJson: string): NativeInspection;
}
const ADDON = new URL("../../node_modules/@oh-my-pi/pi-natives-linux-x64/pi_natives.linux-x64-baseline.node", import.meta.url)
  .pathname;
const native: NativeEdit | undefined =
  process.platform === "linux" && process.arch === "x64" && existsSync(ADDON)
    ? (createRequire(import.meta.url)(ADDON) as NativeEdit)
    : undefined;

describe.skipIf(native === undefined)("agrees with OMP's native edit inspection", () => {
  const cases: [string, Record<string, unknown>][] = [
    ["hashline", { input: HASHLINE }],
    ["hashline", { input: "[src/a.ts#ABCD]\nPUT 1.=1:\n+x\nMV lib/z.ts\n" }],
    ["hashline", { input: "  [src/a.ts#ABCD]  \nPUT 1.=1:\n+x\n" }],
    ["apply_patch", { input: APPLY_PATCH }],
    ["sloppy", { input: SLOPPY }],
    ["patch", { path: "p.ts", edits: [{ op: "update", rename: "q.ts", diff: "@@\n-a\n+b\n" }] }],
    ["replace", { path: "r.ts", old_string: "a", new_string: "b" }],
  ];
  it.each(cases)("%s %j", (mode, args) => {
    const inspection = (native as NativeEdit).editInspect(mode, JSON.stringify(args));
    const touched = new Set([
      ...inspection.paths,
      ...inspection.fileOps.flatMap((op) => (op.to === undefined ? [] : [op.to])),
    ]);
    const found = editTargetsOf(args);
    expect(found.ok).toBe(true);
    expect(new Set(found.ok ? found.targets.map((t) => t.path) : [])).toEqual(touched);
  });
});
