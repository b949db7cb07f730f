// What an extraction puts in place: the names of an archive's members, read from the file
// itself (tar, gzip-compressed tar, zip, cpio), so `tar -xf a.tar` is judged by the files
// it unpacks, not by the folder alone. An archive that cannot be read (another
// compression, too large, read from stdin, written by the same line) may hold any name.
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { basename } from "./shell-words.ts";

/** Archives larger than this are not read (they may hold any name). */
const MAX_ARCHIVE_BYTES = 16 * 1024 * 1024;
/** A compressed archive unpacks to at most this much to be read. */
const MAX_UNPACKED_BYTES = 256 * 1024 * 1024;
const MAX_MEMBERS = 20_000;

/** What one command extracts: from which archive (undefined: its stdin) into which folder; `flat`: members land by their base names (`7z e`). */
export interface Extraction {
  archive: string | undefined;
  dir: string;
  flat?: boolean;
}

/** The member names of the archive at `file`, or undefined when it cannot be read. */
export function archiveMembers(file: string): string[] | undefined {
  try {
    const stat = statSync(file);
    if (!stat.isFile() || stat.size > MAX_ARCHIVE_BYTES) return undefined;
    return membersOf(readFileSync(file));
  } catch {
    return undefined;
  }
}

/** Member names of an archive's bytes, told by its magic (tar and unzip read it so, whatever the file is called). */
export function membersOf(bytes: Buffer): string[] | undefined {
  if (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      return membersOf(gunzipSync(bytes, { maxOutputLength: MAX_UNPACKED_BYTES }));
    } catch {
      return undefined;
    }
  }
  const magic = bytes.subarray(0, 6).toString("latin1");
  if (magic.startsWith("PK\u0003\u0004") || magic.startsWith("PK\u0005\u0006")) return zipMembers(bytes);
  if (magic === "070701" || magic === "070702" || magic === "070707") return cpioMembers(bytes);
  return tarMembers(bytes);
}

const cString = (bytes: Buffer): string => {
  const end = bytes.indexOf(0);
  return bytes.toString("utf8", 0, end === -1 ? bytes.length : end);
};

/** A tar header's number: octal text, or base-256 when its first byte's top bit is set. */
function tarNumber(field: Buffer): number | undefined {
  if (((field[0] as number) & 0x80) !== 0) {
    let value = (field[0] as number) & 0x7f;
    for (const byte of field.subarray(1)) value = value * 256 + byte;
    return value;
  }
  const text = field.toString("latin1").replace(/[\0 ]+$/g, "").trim();
  return /^[0-7]*$/.test(text) ? Number.parseInt(text || "0", 8) : undefined;
}

function tarMembers(bytes: Buffer): string[] | undefined {
  const names: string[] = [];
  let longName: string | undefined;
  for (let offset = 0; offset + 512 <= bytes.length; ) {
    const header = bytes.subarray(offset, offset + 512);
    if (header.every((byte) => byte === 0)) return names;
    // Each header sums to its checksum (counted with the checksum field as spaces): anything else is no tar.
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : (header[i] as number);
    const size = tarNumber(header.subarray(124, 136));
    if (size === undefined || tarNumber(header.subarray(148, 156)) !== sum) return undefined;
    const body = bytes.subarray(offset + 512, offset + 512 + size);
    offset += 512 + Math.ceil(size / 512) * 512;
    const type = String.fromCharCode(header[156] as number);
    // GNU's long names and PAX's `path=` name the member after them.
    if (type === "L") {
      longName = cString(body);
      continue;
    }
    if (type === "x") {
      longName = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(body.toString("utf8"))?.[1] ?? longName;
      continue;
    }
    if (type === "g" || type === "K") continue;
    const prefix = header.subarray(257, 262).toString("latin1") === "ustar" ? cString(header.subarray(345, 500)) : "";
    const name = cString(header.subarray(0, 100));
    names.push(longName ?? (prefix !== "" ? `${prefix}/${name}` : name));
    longName = undefined;
    if (names.length > MAX_MEMBERS) return undefined;
  }
  // Cut short: tar unpacks the members before the cut.
  return names.length > 0 ? names : undefined;
}

function zipMembers(bytes: Buffer): string[] | undefined {
  // The central directory, found from its end record near the end of the file.
  const from = Math.max(0, bytes.length - 65_557);
  let end = -1;
  for (let i = bytes.length - 22; i >= from; i--) {
    if (bytes.readUInt32LE(i) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end === -1) return undefined;
  const count = bytes.readUInt16LE(end + 10);
  const start = bytes.readUInt32LE(end + 16);
  if (count === 0xffff || start === 0xffffffff || count > MAX_MEMBERS) return undefined;
  const names: string[] = [];
  for (let at = start, i = 0; i < count; i++) {
    if (at + 46 > bytes.length || bytes.readUInt32LE(at) !== 0x02014b50) return undefined;
    const nameLength = bytes.readUInt16LE(at + 28);
    const name = bytes.toString("utf8", at + 46, at + 46 + nameLength);
    // unzip reads `\` as a folder separator too.
    names.push(name.replace(/\\/g, "/"));
    at += 46 + nameLength + bytes.readUInt16LE(at + 30) + bytes.readUInt16LE(at + 32);
  }
  return names;
}

function cpioMembers(bytes: Buffer): string[] | undefined {
  const names: string[] = [];
  for (let at = 0; at < bytes.length; ) {
    const magic = bytes.toString("latin1", at, at + 6);
    let nameSize: number;
    let fileSize: number;
    let nameAt: number;
    let align: number;
    if (magic === "070701" || magic === "070702") {
      nameSize = Number.parseInt(bytes.toString("latin1", at + 94, at + 102), 16);
      fileSize = Number.parseInt(bytes.toString("latin1", at + 54, at + 62), 16);
      nameAt = at + 110;
      align = 4;
    } else if (magic === "070707") {
      nameSize = Number.parseInt(bytes.toString("latin1", at + 59, at + 65), 8);
      fileSize = Number.parseInt(bytes.toString("latin1", at + 65, at + 76), 8);
      nameAt = at + 76;
      align = 1;
    } else return names.length > 0 ? names : undefined;
    if (!Number.isFinite(nameSize) || !Number.isFinite(fileSize) || nameSize < 1) return undefined;
    const name = bytes.toString("utf8", nameAt, nameAt + nameSize - 1);
    if (name === "TRAILER!!!") return names;
    names.push(name);
    if (names.length > MAX_MEMBERS) return undefined;
    const padded = (n: number): number => Math.ceil(n / align) * align;
    at = padded(padded(nameAt + nameSize) + fileSize);
  }
  return names;
}

/** The words after a program's options that take a value: `values` are those options. */
function operandsOf(args: readonly string[], valued: readonly string[]): string[] {
  const operands: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (valued.includes(arg)) i++;
    else if (!arg.startsWith("-") || arg === "-") operands.push(arg);
  }
  return operands;
}

/** What `argv` extracts, when it is an extraction by tar, bsdtar, unzip, cpio, 7-Zip or unrar. */
export function extractionOf(argv: readonly string[]): Extraction | undefined {
  const program = argv[0] === undefined ? undefined : basename(argv[0]);
  const args = argv.slice(1);
  if (program === "tar" || program === "bsdtar" || program === "gtar") {
    let archive: string | undefined;
    let dir = ".";
    let extracts = args.some((arg) => arg === "--extract" || arg === "--get");
    // Old style (`tar xzfC a.tgz DIR`): each letter that takes a value takes the next word, in order.
    let next = 1;
    const first = args[0];
    const take = (): string => args[next++] ?? "";
    if (first !== undefined && /^[A-Za-z]+$/.test(first)) {
      if (first.includes("x")) extracts = true;
      for (const letter of first) {
        if (letter === "f") archive = take();
        else if (letter === "C") dir = take();
      }
    } else next = 0;
    for (let i = next; i < args.length; i++) {
      const arg = args[i] as string;
      if (arg === "-f" || arg === "--file") archive = args[++i];
      else if (arg.startsWith("--file=")) archive = arg.slice("--file=".length);
      else if (arg === "-C" || arg === "--directory") dir = args[++i] ?? dir;
      else if (arg.startsWith("--directory=")) dir = arg.slice("--directory=".length);
      else if (/^-[A-Za-z]+$/.test(arg)) {
        if (arg.includes("x")) extracts = true;
        // `-xzf a.tgz`, `-xfa.tar`: the `f` takes the rest of the cluster, or the next word.
        const f = arg.indexOf("f");
        if (f > 0) archive = f < arg.length - 1 ? arg.slice(f + 1) : args[++i];
      }
    }
    // `tar xO`, `--to-stdout`: the members go to stdout, no file is made.
    const toStdout = args.some((arg) => arg === "--to-stdout" || arg.startsWith("--to-command") || (/^-?[A-Za-z]+$/.test(arg) && arg.includes("O")));
    if (!extracts || toStdout) return undefined;
    return { archive: archive === undefined || archive === "-" ? undefined : archive, dir };
  }
  if (program === "unzip") {
    if (args.some((arg) => /^-[a-zA-Z]*[lptvzZ]/.test(arg) && !arg.startsWith("--"))) return undefined;
    const dirAt = args.indexOf("-d");
    const glued = args.find((arg) => arg.startsWith("-d") && arg.length > 2);
    const [archive] = operandsOf(args, ["-d", "-x", "-P"]);
    if (archive === undefined) return undefined;
    return { archive, dir: dirAt !== -1 ? args[dirAt + 1] ?? "." : glued !== undefined ? glued.slice(2) : "." };
  }
  if (program === "cpio") {
    if (!args.some((arg) => arg === "--extract" || /^-[A-Za-z]*i/.test(arg))) return undefined;
    let archive: string | undefined;
    let dir = ".";
    for (let i = 0; i < args.length; i++) {
      const arg = args[i] as string;
      if (arg === "-F" || arg === "--file" || arg === "-I") archive = args[++i];
      else if (arg.startsWith("--file=")) archive = arg.slice("--file=".length);
      else if (arg === "-D" || arg === "--directory") dir = args[++i] ?? dir;
      else if (arg.startsWith("--directory=")) dir = arg.slice("--directory=".length);
    }
    return { archive, dir };
  }
  if (program === "7z" || program === "7za" || program === "7zr") {
    const ops = args.filter((arg) => !arg.startsWith("-"));
    if ((ops[0] !== "x" && ops[0] !== "e") || ops[1] === undefined) return undefined;
    const out = args.find((arg) => arg.startsWith("-o"));
    return { archive: ops[1], dir: out === undefined ? "." : out.slice(2), ...(ops[0] === "e" ? { flat: true } : {}) };
  }
  if (program === "unrar") {
    const ops = args.filter((arg) => !arg.startsWith("-"));
    if ((ops[0] !== "x" && ops[0] !== "e") || ops[1] === undefined) return undefined;
    return { archive: ops[1], dir: ops[2] ?? ".", ...(ops[0] === "e" ? { flat: true } : {}) };
  }
  return undefined;
}

/** Where each member lands under `dir` (a flat extraction by its base name). */
export function memberPaths(members: readonly string[], extraction: Extraction): string[] {
  return members.filter((member) => member !== "" && member !== "./").map((member) => path.join(extraction.dir, extraction.flat === true ? path.basename(member) : member.replace(/^\/+/, "")));
}
