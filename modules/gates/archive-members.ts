// What an extraction puts in place: the names of an archive's members, read from the file
// itself as the program that unpacks it reads it (tar: tar, gzip-compressed tar; unzip and
// 7-Zip: zip; cpio: cpio), so `tar -xf a.tar` is judged by the files it unpacks, not by the
// folder alone. An archive that cannot be read (another compression, too large, fed on a
// stream no reader saw, written by the same line, holding links a later member is written
// through) may hold any name under the folder.
import { readFileSync } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { lstatOf, statOf } from "../system/disk-moment.ts";
import { programName, isDynamic } from "./shell-words.ts";
import { extractionOf, type Extraction, type Format } from "./extraction.ts";
import { STDIN_FILES } from "./stdin-files.ts";
import type { WriteTarget } from "./shell-writers.ts";
import type { WrittenFiles } from "./written-files.ts";

/** Archives larger than this are not read (they may hold any name). */
const MAX_ARCHIVE_BYTES = 16 * 1024 * 1024;
/** A compressed archive unpacks to at most this much to be read. */
const MAX_UNPACKED_BYTES = 256 * 1024 * 1024;
const MAX_MEMBERS = 20_000;



/** An archive's members: their names, and whether any is a link (a later member may be written through it). */
export interface Members {
  names: string[];
  links: boolean;
}

/** The members of the archive at `file` in `format`, or undefined when it cannot be read. */
export function archiveMembers(file: string, format: Format): Members | undefined {
  try {
    const stat = statOf(file);
    if (stat === undefined || !stat.isFile() || stat.size > MAX_ARCHIVE_BYTES) return undefined;
    return membersOf(readFileSync(file), format);
  } catch {
    return undefined;
  }
}

/** Members of an archive's bytes, read as `format` (tar takes gzip off first, as tar does). */
export function membersOf(bytes: Buffer, format: Format): Members | undefined {
  if (format === "unread") return undefined;
  if (format === "zip") return zipMembers(bytes);
  if (format === "cpio") return cpioMembers(bytes);
  if (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      return tarMembers(gunzipSync(bytes, { maxOutputLength: MAX_UNPACKED_BYTES }));
    } catch {
      return undefined;
    }
  }
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

/** PAX records (`LEN key=value\n`, each by its length): the last `path` wins, as tar reads them. */
function paxPath(body: Buffer): string | undefined {
  let found: string | undefined;
  for (let at = 0; at < body.length; ) {
    const space = body.indexOf(0x20, at);
    const length = space === -1 ? Number.NaN : Number(body.toString("latin1", at, space));
    if (!Number.isInteger(length) || length <= 0) break;
    const record = body.toString("utf8", space + 1, at + length - 1);
    if (record.startsWith("path=")) found = record.slice("path=".length);
    at += length;
  }
  return found;
}

/** Header types whose size field tar does not take as data to skip: links, devices, folders, fifos. */
const NO_DATA = new Set(["1", "2", "3", "4", "5", "6"]);

function tarMembers(bytes: Buffer): Members | undefined {
  const names: string[] = [];
  let links = false;
  let longName: string | undefined;
  let globalName: string | undefined;
  // Past a zero block tar stops, unless told to go on (`-i`): what follows is read too, which only reads more.
  let ended = false;
  for (let offset = 0; offset + 512 <= bytes.length; ) {
    const header = bytes.subarray(offset, offset + 512);
    if (header.every((byte) => byte === 0)) {
      ended = true;
      offset += 512;
      continue;
    }
    // Each header sums to its checksum (counted with the checksum field as spaces): anything else is no tar.
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : (header[i] as number);
    const size = tarNumber(header.subarray(124, 136));
    if (size === undefined || tarNumber(header.subarray(148, 156)) !== sum) return ended || names.length > 0 ? { names, links } : undefined;
    const type = String.fromCharCode(header[156] as number);
    const data = NO_DATA.has(type) ? 0 : size;
    const body = bytes.subarray(offset + 512, offset + 512 + data);
    offset += 512 + Math.ceil(data / 512) * 512;
    // GNU's long names and PAX's `path=` name the member after them (a global header, every member after it).
    if (type === "L") {
      longName = cString(body);
      continue;
    }
    if (type === "x" || type === "g") {
      const named = paxPath(body);
      if (type === "x") longName = named ?? longName;
      else globalName = named ?? globalName;
      continue;
    }
    if (type === "K") continue;
    if (type === "1" || type === "2") links = true;
    const prefix = header.subarray(257, 262).toString("latin1") === "ustar" ? cString(header.subarray(345, 500)) : "";
    const name = cString(header.subarray(0, 100));
    names.push(longName ?? globalName ?? (prefix !== "" ? `${prefix}/${name}` : name));
    longName = undefined;
    if (names.length > MAX_MEMBERS) return undefined;
  }
  // Cut short: tar unpacks the members before the cut.
  return names.length > 0 || ended ? { names, links } : undefined;
}

function zipMembers(bytes: Buffer): Members | undefined {
  // The central directory, found from its end record near the end of the file (as unzip finds it, whatever comes first).
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
  const size = bytes.readUInt32LE(end + 12);
  const stated = bytes.readUInt32LE(end + 16);
  if (count === 0xffff || stated === 0xffffffff || count > MAX_MEMBERS) return undefined;
  // A stub before the archive (a self-extractor, another archive) moves it: unzip finds the directory right before its end.
  const start = end - size;
  const names: string[] = [];
  let links = false;
  for (let at = start, i = 0; i < count; i++) {
    if (at < 0 || at + 46 > bytes.length || bytes.readUInt32LE(at) !== 0x02014b50) return undefined;
    const nameLength = bytes.readUInt16LE(at + 28);
    const name = bytes.toString("utf8", at + 46, at + 46 + nameLength);
    // A Unix symlink: the high half of the external attributes holds its mode.
    if (((bytes.readUInt32LE(at + 38) >>> 16) & 0o170000) === 0o120000) links = true;
    // unzip reads `\` as a folder separator too.
    names.push(name.replace(/\\/g, "/"));
    at += 46 + nameLength + bytes.readUInt16LE(at + 30) + bytes.readUInt16LE(at + 32);
  }
  return { names, links };
}

function cpioMembers(bytes: Buffer): Members | undefined {
  const names: string[] = [];
  let links = false;
  for (let at = 0; at < bytes.length; ) {
    const magic = bytes.toString("latin1", at, at + 6);
    let nameSize: number;
    let fileSize: number;
    let mode: number;
    let nameAt: number;
    let align: number;
    if (magic === "070701" || magic === "070702") {
      mode = Number.parseInt(bytes.toString("latin1", at + 14, at + 22), 16);
      fileSize = Number.parseInt(bytes.toString("latin1", at + 54, at + 62), 16);
      nameSize = Number.parseInt(bytes.toString("latin1", at + 94, at + 102), 16);
      nameAt = at + 110;
      align = 4;
    } else if (magic === "070707") {
      mode = Number.parseInt(bytes.toString("latin1", at + 18, at + 24), 8);
      nameSize = Number.parseInt(bytes.toString("latin1", at + 59, at + 65), 8);
      fileSize = Number.parseInt(bytes.toString("latin1", at + 65, at + 76), 8);
      nameAt = at + 76;
      align = 1;
    } else return names.length > 0 ? { names, links } : undefined;
    if (!Number.isFinite(nameSize) || !Number.isFinite(fileSize) || nameSize < 1) return undefined;
    const name = bytes.toString("utf8", nameAt, nameAt + nameSize - 1);
    if (name === "TRAILER!!!") return { names, links };
    if ((mode & 0o170000) === 0o120000) links = true;
    names.push(name);
    if (names.length > MAX_MEMBERS) return undefined;
    const padded = (n: number): number => Math.ceil(n / align) * align;
    at = padded(padded(nameAt + nameSize) + fileSize);
  }
  return { names, links };
}

/** Where each member lands under the folder: by its base name when flat; with `..` parts dropped, as unzip drops them, and as written. */
function memberPaths(members: readonly string[], extraction: Extraction): string[] {
  return members.flatMap((member) => {
    if (member === "" || member === "./") return [];
    // `--strip-components=N` takes N leading folders off (a name with no more is not unpacked).
    const parts = member.replace(/^\.\//, "").split("/").filter((part, i) => part !== "" || i === 0);
    const kept = extraction.strip !== undefined ? parts.slice(extraction.strip) : parts;
    if (kept.length === 0 || (kept.length === 1 && kept[0] === "")) return [];
    const whole = kept.join("/");
    if (extraction.absolute === true && whole.startsWith("/")) return [whole];
    const name = extraction.flat === true ? path.basename(whole) : whole.replace(/^\/+/, "");
    const dropped = name.split("/").filter((part) => part !== "..").join("/");
    const as = extraction.keepsDotDot === true || dropped === name ? [name] : [name, dropped];
    return as.map((one) => path.join(extraction.dir, one));
  });
}

/** The effect of a member an archive Tama read unpacks: the folders above it exist once it ran. */
export const UNPACKS = "unpacks";

/** Programs that print a file's bytes for a pipe (`zcat a.tgz | tar x`): the file is the archive read. */
const ARCHIVE_PRINTERS = /^(cat|zcat|gzcat|pv)$/;

/**
 * The files an extraction writes, as write targets: each member where it lands, or any
 * name under the folder for an archive that cannot be read or is not there yet. None for
 * a command that is no extraction.
 */
export function extractionWrites(
  argv: readonly string[],
  stdinFile: string | undefined,
  pipedFrom: readonly string[] | undefined,
  cwd: string | undefined,
  written: WrittenFiles,
  env: ReadonlyMap<string, string>,
): WriteTarget[] {
  const extraction = extractionOf(argv, env);
  if (extraction === undefined) return [];
  const fed = pipedFrom?.[0] === undefined ? undefined : programName(pipedFrom[0]);
  const printedFile = fed !== undefined && (ARCHIVE_PRINTERS.test(fed) || ((fed === "gzip" || fed === "gunzip") && pipedFrom?.some((word) => /^-[a-z]*c/.test(word)))) ? pipedFrom?.slice(1).filter((word) => !word.startsWith("-")) : undefined;
  const given = extraction.archive ?? stdinFile ?? (printedFile?.length === 1 ? printedFile[0] : undefined);
  const anyName: WriteTarget[] = [{ word: extraction.dir, effect: "unpacks an archive Tama cannot read (which may hold any name) under", reachesBelow: true, creates: true }];
  if (extraction.absolute === true) anyName.push({ word: "/", effect: "unpacks members at the absolute paths an archive Tama cannot read names, anywhere under", reachesBelow: true, creates: true });
  if (extraction.renamed === true) return [{ ...(anyName[0] as WriteTarget), effect: "unpacks members renamed by an expression (any name) under" }];
  if (given === undefined || isDynamic(given) || given.startsWith("<(") || STDIN_FILES.has(given) || (cwd === undefined && !path.isAbsolute(given))) return anyName;
  const file = path.resolve(cwd ?? "/", given.replace(/^~(?=\/|$)/, env.get("HOME") ?? "~"));
  const lineWrote = (at: string): boolean => !written.isEmpty() && written.state(written.keyFor(at)) !== undefined;
  // unzip tries the name with `.zip` added.
  const candidates = extraction.format === "zip" && programName(argv[0] ?? "") === "unzip" ? [file, `${file}.zip`] : [file];
  const found = candidates.find((at) => lineWrote(at) || lstatOf(at) !== undefined);
  // Not there now: a command before may make it however it likes (`wget URL; unzip a.zip`, `npm pack x && tar xzf x-1.0.0.tgz`).
  if (found === undefined) return anyName;
  const members = lineWrote(found) ? undefined : archiveMembers(found, extraction.format);
  // A link member may lead a later one anywhere (`l -> .claude`, then `l/settings.json`).
  if (members === undefined || members.links) return anyName;
  return memberPaths(members.names, extraction).map((word) => ({ word, effect: UNPACKS, reachesBelow: false }));
}
