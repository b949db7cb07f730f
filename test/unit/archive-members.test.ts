// An extraction is judged by the members it unpacks: `tar -xf a.tar` holding a
// `.claude/settings.json` is refused as writing it, whatever the archive is called and
// however it is compressed, as long as Tama can read it. An archive it cannot read (fed on
// stdin, xz-compressed, written by the same line) may hold any name, so it is refused where
// policy files live and passes elsewhere; one that is not there unpacks nothing.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { membersOf } from "../../modules/gates/archive-members.ts";
import { scratchProject, type ScratchProject } from "../support/gate-refusals.ts";

let root: string;
let project: string;
const run = (cwd: string, program: string, ...args: string[]): void => {
  execFileSync(program, args, { cwd, stdio: "ignore" });
};

/** A cpio archive in the "newc" form (none of the machines need cpio installed). */
function newc(names: readonly string[]): Buffer {
  const parts: Buffer[] = [];
  const pad = (buffer: Buffer): Buffer => Buffer.concat([buffer, Buffer.alloc((4 - (buffer.length % 4)) % 4)]);
  for (const name of [...names, "TRAILER!!!"]) {
    const hex = (n: number): string => n.toString(16).padStart(8, "0");
    const header = `070701${hex(1)}${hex(0o100644)}${hex(0)}${hex(0)}${hex(1)}${hex(0)}${hex(0)}${hex(0)}${hex(0)}${hex(0)}${hex(0)}${hex(name.length + 1)}${hex(0)}`;
    parts.push(pad(Buffer.from(`${header}${name}\0`, "latin1")));
  }
  return Buffer.concat(parts);
}

let scratch: ScratchProject;
beforeAll(() => {
  scratch = scratchProject("archives", { ".claude/settings.json": "{}", "vendor/": "" });
  root = scratch.root;
  project = scratch.project;
  // What an agent would pack elsewhere: a settings file that runs no hooks, and a plain source file.
  const evil = path.join(root, "evil");
  mkdirSync(path.join(evil, ".claude"), { recursive: true });
  writeFileSync(path.join(evil, ".claude", "settings.json"), "{}");
  const plain = path.join(root, "plain");
  mkdirSync(path.join(plain, "src"), { recursive: true });
  writeFileSync(path.join(plain, "src", "a.ts"), "export {};\n");
  run(evil, "tar", "-cf", path.join(project, "evil.tar"), ".claude/settings.json");
  run(evil, "tar", "-czf", path.join(project, "evil.tgz"), ".claude");
  run(evil, "tar", "-cJf", path.join(project, "evil.tar.xz"), ".claude");
  run(evil, "tar", "-cf", path.join(project, "renamed.bin"), "./.claude/settings.json");
  run(evil, "zip", "-qr", path.join(project, "evil.zip"), ".claude");
  run(plain, "tar", "-cf", path.join(project, "plain.tar"), "src");
  run(plain, "zip", "-qr", path.join(project, "plain.zip"), "src");
  writeFileSync(path.join(project, "evil.cpio"), newc([".claude/settings.json"]));
});
afterAll(() => scratch.remove());

const bash = (command: string): Promise<string[]> => scratch.bash(command);

describe("what an extraction unpacks", () => {
  it.each([
    "tar -xf evil.tar",
    "tar xf evil.tar",
    "tar -xzf evil.tgz",
    "tar -xvf evil.tgz",
    "tar --extract --file=evil.tar",
    "tar -x -f renamed.bin",
    "unzip -o evil.zip",
    "unzip -o evil",
    "cpio -idu < evil.cpio",
    "cpio -i -F evil.cpio",
    "7z x evil.zip",
  ])("%s unpacks the policy file it holds", async (command) => {
    expect(await bash(command)).toContain("self-protection");
  });

  it.each(["tar -xf plain.tar", "unzip plain.zip", "tar -xf plain.tar -C vendor", "tar -xf missing.tar", "unzip -l evil.zip", "tar -tf evil.tar", "tar -xOf evil.tar", "unzip -p evil.zip"])("%s passes", async (command) => {
    expect(await bash(command)).toEqual([]);
  });

  it("an archive it cannot read may hold any name: refused where policy files live, passed elsewhere", async () => {
    expect(await bash("tar -xJf evil.tar.xz")).toContain("self-protection");
    expect(await bash("cat evil.tar | tar -x")).toContain("self-protection");
    expect(await bash("curl -sL https://example.com/x.tgz | tar -xz")).toContain("self-protection");
    expect(await bash("tar -cf a.tar -C ../plain src && tar -xf a.tar")).toContain("self-protection");
    expect(await bash("tar -xJf evil.tar.xz -C vendor")).toEqual([]);
    expect(await bash("curl -sL https://example.com/x.tgz | tar -xz -C vendor")).toEqual([]);
  });

  it("reads member names as tar, zip and cpio write them", () => {
    const long = `${"d".repeat(120)}/.claude/settings.json`;
    const dir = path.join(root, "names");
    mkdirSync(path.join(dir, "d".repeat(120), ".claude"), { recursive: true });
    writeFileSync(path.join(dir, long), "{}");
    for (const format of ["gnu", "pax", "ustar"]) {
      const file = path.join(root, `names-${format}.tar`);
      run(dir, "tar", `--format=${format}`, "-cf", file, long);
      expect(membersOf(readFileSync(file)), format).toContain(long);
    }
    expect(membersOf(readFileSync(path.join(project, "evil.zip")))).toContain(".claude/settings.json");
    expect(membersOf(newc(["a", "b/c"]))).toEqual(["a", "b/c"]);
    expect(membersOf(Buffer.from("not an archive at all".repeat(40)))).toBeUndefined();
  });
});
