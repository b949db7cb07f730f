// The file headers of OMP's `edit` payloads, read as OMP's own parsers read them (its
// native edit engine, 18.2.3): hashline `[PATH#TAG]` headers with apply_patch noise,
// indented apply_patch headers, every sloppy `<SM:EDIT …>` spelling, and the files OMP
// looks up in place of a missing one. Each bypass a red-team ran against the real engine
// is refused; ordinary edits of project files in each mode still pass.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { editTargetsOf } from "../../modules/tools/edit-targets.ts";
import { refusingGates, type GatePlace } from "../support/gate-refusals.ts";

const FILES: Readonly<Record<string, string>> = {
  ".git/HEAD": "ref: refs/heads/topic\n",
  ".git/config": "[core]\n",
  ".tama/hooks.json": "{}\n",
  ".claude/settings.json": "{}\n",
  ".env": "TOKEN=secret\n",
  "src/a.ts": "export const a = 1;\n",
  "src/ok.ts": "export const ok = 1;\n",
};

let root: string;
let place: GatePlace;
beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), "tama-edit-headers-"));
  const project = path.join(root, "proj");
  const home = path.join(root, "home");
  place = { project, tamaHome: path.join(home, ".tama"), home, defaultsOnly: true };
  mkdirSync(place.tamaHome, { recursive: true });
  for (const [file, text] of Object.entries(FILES)) {
    mkdirSync(path.dirname(path.join(project, file)), { recursive: true });
    writeFileSync(path.join(project, file), text);
  }
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const edit = (input: string): Promise<string[]> => refusingGates("edit", { input }, place);

/** A normal first section, so a bypass cannot lean on an empty or malformed payload. */
const HASHLINE_OK = "[src/a.ts#1A2B]\nPUT 1.=1:\n+export const a = 2;\n";
const SLOPPY_OK = '<SM:EDIT path="src/a.ts">\n<SM:FIND>\nexport const a = 1;\n</SM:FIND>\n<SM:PUT>\nexport const a = 2;\n</SM:PUT>\n</SM:EDIT>\n';
const SLOPPY_BODY = "<SM:FIND>\n{}\n</SM:FIND>\n<SM:PUT>\n{\"hooks\":[]}\n</SM:PUT>\n</SM:EDIT>\n";

describe("hashline headers carrying apply_patch noise (OMP strips it: hashline input.ts stripApplyPatchPathNoise)", () => {
  it.each([
    '[Update File: .tama/hooks.json#1A2B]\nPUT 1.=1:\n+{"hooks":[]}\n',
    "[***.claude/settings.json#1A2B]\nPUT 1.=1:\n+{}\n",
    "[Delete File: .claude/settings.json#1A2B]\nREM\n",
    "[Update File: .git/config#1A2B]\nPUT 1.=1:\n+[core]\n+\thooksPath = /dev/null\n",
    "[***.env#ABCD]\nCUT 1.=30\n",
    `${HASHLINE_OK}[update-file:.tama/hooks.json#1A2B]\nPUT 1.=1:\n+{}\n`,
    `${HASHLINE_OK}[Update(File):.tama/hooks.json]\nREM\n`,
    `${HASHLINE_OK}[Move to: .claude/settings.json#1A2B]\nREM\n`,
    `${HASHLINE_OK}[*** Add File: *** .tama/hooks.json #1A2B ]\nREM\n`,
    `${HASHLINE_OK}["Update File: .tama/hooks.json"#1A2B]\nREM\n`,
    // U+0085 is space to 18.x's Rust engine, not to 17.x's TypeScript: both readings are targets.
    `${HASHLINE_OK}[\u0085Update File: .tama/hooks.json#1A2B]\nREM\n`,
  ])("refuses %j", async (input) => {
    expect(await edit(input)).not.toEqual([]);
  });

  it("refuses a move whose MV is followed by a tab or a colon-less tab", async () => {
    expect(await edit("[src/a.ts#1A2B]\nMV\t.tama/hooks.json\n")).not.toEqual([]);
  });

  it("refuses a header line longer than any path, quickly (OMP's header patterns are quadratic on one)", async () => {
    const started = performance.now();
    const refused = await edit(`[update${" ".repeat(50_000)}.tama/hooks.json#1A2B]\nREM\n`);
    expect(refused.some((id) => id.startsWith("unmapped:"))).toBe(true);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("fails closed on a header OMP would reject (it names no path Tama can know)", async () => {
    const refused = await edit(`${HASHLINE_OK}[.tama#x/hooks.json#1A2B]\nREM\n`);
    expect(refused.some((id) => id.startsWith("unmapped:"))).toBe(true);
  });
});

describe("apply_patch file headers off column 0 (OMP trims a hunk header line)", () => {
  it.each([
    "*** Begin Patch\n*** Add File: src/ok.ts\n+x\n *** Add File: .tama/evil.json\n+{}\n *** Delete File: .claude/settings.json\n*** End Patch\n",
    "*** Begin Patch\n*** Add File: src/new.ts\n+x\n\t*** Add File: .tama/evil.json\n+{}\n*** End Patch\n",
    "*** Begin Patch\n*** Add File: src/new.ts\n+x\n\u00a0*** Delete File: .claude/settings.json\n*** End Patch\n",
    "*** Begin Patch\n*** Delete File: src/ok.ts\n  *** Update File: .env\n@@\n-TOKEN=secret\n+TOKEN=x\n*** End Patch\n",
    "*** Begin Patch\n*** Add File: src/new.ts\n+x\n\u3000*** Add File: .git/hooks/pre-commit\n+exit 0\n*** End Patch\n",
  ])("refuses %j", async (input) => {
    expect(await edit(input)).not.toEqual([]);
  });
});

describe("sloppy <SM:EDIT> spellings OMP accepts", () => {
  it.each([
    "<SM:EDIT path='.tama/hooks.json'>",
    "<SM:EDIT path=.tama/hooks.json>",
    "<SM:EDIT path=~/.bashrc>",
    '<SM:EDIT path = ".tama/hooks.json">',
    '<SM:EDIT PATH=".tama/hooks.json">',
    "<SM:EDIT file='.claude/settings.json'>",
    '<SM:EDIT filepath=".claude/settings.json">',
    '<SM:EDIT file_path=".tama/hooks.json">',
    '<SM:EDIT file-path=".tama/hooks.json">',
    '<sm:edit path=".tama/hooks.json">',
    '<\u017fm:edit path=".tama/hooks.json">',
    '  <SM:Edit\tpath=".tama/hooks.json"  all >  ',
    '<SM:EDIT:path=".tama/hooks.json">',
    '<SM:EDIT,path=".tama/hooks.json">',
    '<SM:EDIT path="src/nope.ts" file=".tama/hooks.json">',
  ])("refuses a second block opened by %j", async (open) => {
    expect(await edit(`${SLOPPY_OK}${open}\n${SLOPPY_BODY}`)).not.toEqual([]);
  });

  it("reads an open tag inside a PUT or AFTER body as OMP does: it ends the body and opens the file", async () => {
    const inPut = '<SM:EDIT path="src/a.ts">\n<SM:FIND>\nexport const a = 1;\n</SM:FIND>\n<SM:PUT>\n<SM:EDIT path=".tama/hooks.json">\n' + SLOPPY_BODY;
    const inAfter = '<SM:EDIT path="src/a.ts">\n<SM:FIND>\nexport const a = 1;\n</SM:FIND>\n<SM:AFTER>\nx\n<SM:EDIT path=".tama/hooks.json">\n' + SLOPPY_BODY;
    expect(await edit(inPut)).not.toEqual([]);
    expect(await edit(inAfter)).not.toEqual([]);
  });

  it("fails closed on a tag it cannot read for certain", async () => {
    for (const open of ['<SM:EDIT path=".tama/hooks.json" junk>', '<SM:EDIT path=.tama/hooks.json">', '<SM:EDIT target=".tama/hooks.json">']) {
      const refused = await edit(`${SLOPPY_OK}${open}\n${SLOPPY_BODY}`);
      expect(refused.some((id) => id.startsWith("unmapped:")), open).toBe(true);
    }
  });
});

describe("ordinary edits of project files still pass", () => {
  it.each([
    ["hashline", HASHLINE_OK],
    ["hashline in an envelope, with a move", "*** Begin Patch\n[src/a.ts#1A2B]\nPUT 1.=1:\n+x\n[src/ok.ts#3C4D]\nMV src/moved.ts\n*** End Patch\n"],
    ["apply_patch", "*** Begin Patch\n*** Add File: src/new.ts\n+x\n*** Update File: src/a.ts\n@@\n-export const a = 1;\n+export const a = 2;\n *** Add File: not-a-header.ts\n*** Delete File: src/ok.ts\n*** End Patch\n"],
    ["sloppy", `${SLOPPY_OK}<SM:EDIT path="src/ok.ts" all>\n<SM:FIND>\nok\n</SM:FIND>\n<SM:AFTER>\n[.tama/hooks.json#1A2B]\n*** Add File: .tama/hooks.json\n</SM:AFTER>\n</SM:EDIT>\n`],
  ])("%s", async (_mode, input) => {
    expect(await edit(input)).toEqual([]);
  });
});

describe("a missing file OMP would look up elsewhere (its path recovery)", () => {
  // OMP edits a missing bare name's unique namesake in the tree (`hooks.json` → `.tama/hooks.json`),
  // and a missing tagged hashline section's namesake read this session: the file written is not the one named.
  const where = (): { cwd: string } => ({ cwd: place.project });
  it.each<[string, Record<string, unknown>]>([
    ["hashline", { input: "[hooks.json#1A2B]\nREM\n" }],
    ["hashline in the wrong folder", { input: "[src/settings.json#1A2B]\nPUT 1.=1:\n+{}\n" }],
    ["apply_patch", { input: "*** Begin Patch\n*** Delete File: settings.json\n*** End Patch\n" }],
    ["sloppy", { input: '<SM:EDIT path="hooks.json">\n' + SLOPPY_BODY }],
    ["replace", { path: "settings.json", old_string: "{}", new_string: '{"x":1}' }],
    ["patch", { path: "hooks.json", edits: [{ op: "update", diff: "@@\n-{}\n+{}\n" }] }],
  ])("is refused in %s mode", (_mode, input) => {
    const found = editTargetsOf(input, where());
    expect(found.ok).toBe(false);
    expect(!found.ok && found.error).toMatch(/not a file/);
  });

  it("leaves files that exist and files a call creates alone", () => {
    const names = (input: Record<string, unknown>): string[] | false => {
      const found = editTargetsOf(input, where());
      return found.ok && found.targets.map((t) => t.path);
    };
    expect(names({ input: HASHLINE_OK })).toEqual(["src/a.ts"]);
    expect(names({ input: "*** Begin Patch\n*** Add File: src/new.ts\n+x\n*** Update File: src/a.ts\n*** Move to: src/b.ts\n@@\n-a\n+b\n*** End Patch\n" })).toEqual(["src/new.ts", "src/a.ts", "src/b.ts"]);
    expect(names({ input: SLOPPY_OK })).toEqual(["src/a.ts"]);
    expect(names({ path: "src/a.ts", old_string: "a", new_string: "b" })).toEqual(["src/a.ts"]);
    expect(names({ path: "src/new.ts", edits: [{ op: "create", diff: "x\n" }] })).toEqual(["src/new.ts"]);
    expect(names({ path: "notes.md", content: "x" })).toEqual(["notes.md"]);
    // A missing name with a folder is not looked for elsewhere (OMP fails it), unless a tagged hashline section names it;
    // an untagged one may make the file.
    expect(names({ path: "src/gone.ts", old_string: "a", new_string: "b" })).toEqual(["src/gone.ts"]);
    expect(names({ input: "*** Begin Patch\n*** Delete File: src/gone.ts\n*** End Patch\n" })).toEqual(["src/gone.ts"]);
    expect(names({ input: "[NOTES.md]\nPUT 1.=1:\n+x\n" })).toEqual(["NOTES.md"]);
  });
});
