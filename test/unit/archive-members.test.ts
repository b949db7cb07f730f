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
/** A tar archive of `entries` (name, type flag, data), as an agent could craft one byte by byte. */
function tarOf(entries: readonly { name: string; type?: string; data?: string; link?: string; size?: number }[]): Buffer {
  const blocks: Buffer[] = [];
  for (const { name, type = "0", data = "", link = "", size } of entries) {
    const header = Buffer.alloc(512);
    header.write(name, 0, 100, "utf8");
    header.write("0000644\0", 100);
    header.write("0000000\0", 108);
    header.write("0000000\0", 116);
    header.write(`${(size ?? Buffer.byteLength(data)).toString(8).padStart(11, "0")}\0`, 124);
    header.write("00000000000\0", 136);
    header.write(type, 156);
    header.write(link, 157, 100, "utf8");
    header.write("ustar\u000000", 257, "latin1");
    header.fill(" ", 148, 156);
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "latin1");
    const body = Buffer.from(data);
    blocks.push(header, Buffer.concat([body, Buffer.alloc((512 - (body.length % 512)) % 512)]));
  }
  return Buffer.concat([...blocks, Buffer.alloc(1024)]);
}

const pax = (...records: string[]): string => records.map((record) => {
  // `LEN key=value\n`, LEN counting itself.
  let length = record.length + 3;
  while (`${length} ${record}\n`.length !== length) length = `${length} ${record}\n`.length;
  return `${length} ${record}\n`;
}).join("");

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
  // Crafted: a link and a file written through it; PAX names (the last `path=` wins; a global one names the next member);
  // a folder header whose size tar does not skip; a second archive after zero blocks; a git config member.
  const crafted: Record<string, Buffer> = {
    "through-link.tar": tarOf([{ name: "lnk", type: "2", link: ".claude" }, { name: "lnk/settings.json", data: "{}" }]),
    "pax-last.tar": tarOf([{ name: "", type: "x", data: pax("path=harmless.txt", "path=.claude/settings.json") }, { name: "harmless.txt", data: "{}" }]),
    "pax-global.tar": tarOf([{ name: "", type: "g", data: pax("path=.claude/settings.json") }, { name: "harmless.txt", data: "{}" }]),
    "sized-folder.tar": Buffer.concat([tarOf([{ name: "d/", type: "5", size: 1024 }]).subarray(0, 512), tarOf([{ name: ".claude/settings.json", data: "{}" }])]),
    "after-zeros.tar": Buffer.concat([tarOf([{ name: "a.txt", data: "a" }]), tarOf([{ name: ".claude/settings.json", data: "{}" }])]),
    "git-config.tar": tarOf([{ name: ".git/config", data: "[core]\n\thooksPath = /dev/null\n" }]),
    "strip.tar": tarOf([{ name: "pkg/.claude/settings.json", data: "{}" }]),
    "bare.tar": tarOf([{ name: "settings.json", data: "{}" }]),
  };
  for (const [name, bytes] of Object.entries(crafted)) writeFileSync(path.join(project, name), bytes);
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
    // What tar reads that a plain reading of the names would miss.
    "tar -xf through-link.tar",
    "tar -xf pax-last.tar",
    "tar -xf pax-global.tar",
    "tar -xf sized-folder.tar",
    "tar -xif after-zeros.tar",
    "tar -xf strip.tar --strip-components=1",
    // How tar and the others take their options: glued values, abbreviations, TAPE, Python's extractors, a stream from zcat.
    "tar -xf./evil.tar",
    "tar -xf bare.tar --dir=.claude",
    "tar -xf strip.tar --one-top=.claude --strip=2",
    "TAPE=evil.tar tar -x < plain.tar",
    "python3 -m tarfile -e evil.tar",
    "python3 -m zipfile -e evil.zip .",
    "zcat evil.tgz | tar -x",
  ])("%s unpacks the policy file it holds", async (command) => {
    expect(await bash(command)).toContain("self-protection");
  });

  it.each(["tar -xf plain.tar", "unzip plain.zip", "tar -xf plain.tar -C vendor", "unzip -l evil.zip", "tar -tf evil.tar", "tar -xOf evil.tar", "unzip -p evil.zip"])("%s passes", async (command) => {
    expect(await bash(command)).toEqual([]);
  });

  it.each([
    "tar -xf plain.tar && cd src && echo x > b.ts",
    "unzip plain.zip; cd src; make > build.log 2>&1",
    "tar -xf plain.tar -C vendor && cd vendor/src && echo x > b.ts",
  ])("%s: a cd into a folder the archive's members make is followed", async (command) => {
    expect(await bash(command)).toEqual([]);
  });

  it.each([
    "tar -xf plain.tar && cd src && echo x > ../.claude/settings.json",
    "tar -xf plain.tar && cd src/../.claude && echo x > settings.json",
    // A link member may make the folder anything: where the cd went is not known.
    "tar -xf through-link.tar && cd lnk && echo x > settings.json",
  ])("%s is refused", async (command) => {
    expect(await bash(command)).toContain("self-protection");
  });

  it("a member that lands on git's config is judged by the git gate, one outside the project by the outside gate", async () => {
    expect(await bash("tar -xf git-config.tar && git commit -m x")).toContain("block-git-hook-bypass");
    expect(await bash("tar -xf strip.tar -C /etc")).toContain("deny-writes-outside-repo");
  });

  it("an archive it cannot read may hold any name: refused where policy files live, passed elsewhere", async () => {
    expect(await bash("tar -xJf evil.tar.xz")).toContain("self-protection");
    expect(await bash("cat evil.tar | tar -x")).toContain("self-protection");
    expect(await bash("curl -sL https://example.com/x.tgz | tar -xz")).toContain("self-protection");
    expect(await bash("tar -cf a.tar -C ../plain src && tar -xf a.tar")).toContain("self-protection");
    // Not there yet: a command before may make it (`wget URL; unzip a.zip`).
    expect(await bash("wget -q https://example.com/a.zip; unzip -o a.zip")).toContain("self-protection");
    expect(await bash("tar -xf missing.tar")).toContain("self-protection");
    expect(await bash("tar -xf missing.tar -C vendor")).toEqual([]);
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
      expect(membersOf(readFileSync(file), "tar")?.names, format).toContain(long);
    }
    expect(membersOf(readFileSync(path.join(project, "evil.zip")), "zip")?.names).toContain(".claude/settings.json");
    expect(membersOf(newc(["a", "b/c"]), "cpio")?.names).toEqual(["a", "b/c"]);
    expect(membersOf(Buffer.from("not an archive at all".repeat(40)), "tar")).toBeUndefined();
  });
});
