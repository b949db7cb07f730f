// What a command line says an extraction is: which program, which archive (or its stdin),
// into which folder, and how its members' names are changed on the way (tar's
// `--strip-components`, `-P`, `--transform`; unzip's `-j`, `-:`). Read as each program
// reads its options: tar's glued clusters, old-style letters and abbreviated long options.
import path from "node:path";
import { programName } from "./shell-words.ts";

/** How the program reads the archive; `unread`: a format no reader here reads (rar). */
export type Format = "tar" | "zip" | "cpio" | "unread";

/** What one command extracts: from which archive (undefined: its stdin) into which folder, read as which format. */
export interface Extraction {
  archive: string | undefined;
  dir: string;
  format: Format;
  /** Members land by their base names (`7z e`, `unzip -j`). */
  flat?: boolean;
  /** `..` in a member's name is kept (`unzip -:`); unzip otherwise drops it. */
  keepsDotDot?: boolean;
  /** Leading folders taken off each name (`tar --strip-components=N`). */
  strip?: number;
  /** Names are kept absolute (`tar -P`). */
  absolute?: boolean;
  /** Names are changed by an expression (`tar --transform`, bsdtar's `-s`): they may be any name. */
  renamed?: boolean;
}

/** Whether `arg` is long option `full` or an abbreviation of it at least `least` characters long (`--dir` for `--directory`), with or without `=value`. */
function isLong(arg: string, full: string, least: number): boolean {
  const name = arg.split("=")[0] as string;
  return name.length >= least && full.startsWith(name);
}

/** The value of long option `full` (abbreviated down to `least`) at `args[i]`, glued or the next word; and where the next option is. */
function longValue(args: readonly string[], i: number, full: string, least: number): { value: string; next: number } | undefined {
  const arg = args[i] as string;
  if (!isLong(arg, full, least)) return undefined;
  return arg.includes("=") ? { value: arg.slice(arg.indexOf("=") + 1), next: i } : { value: args[i + 1] ?? "", next: i + 1 };
}

/** tar's short options that take the next word (or the rest of their cluster) as a value. */
const TAR_SHORT_VALUED = "bCfFgHIKLNTVX";

/** What `argv` extracts, when it is an extraction by tar, unzip, cpio, 7-Zip, unrar or Python's `-m tarfile`/`-m zipfile`. */
export function extractionOf(argv: readonly string[], env?: ReadonlyMap<string, string>): Extraction | undefined {
  const program = argv[0] === undefined ? undefined : programName(argv[0]);
  const args = argv.slice(1);
  if (program === "tar" || program === "bsdtar" || program === "gtar") {
    let archive: string | undefined;
    let dir = ".";
    let extracts = false;
    let toStdout = false;
    let strip = 0;
    let absolute = false;
    let renamed = false;
    let top: string | undefined;
    // Old style (`tar xzfC a.tgz DIR`): each letter that takes a value takes the next word, in order.
    let next = 0;
    const first = args[0];
    if (first !== undefined && /^[A-Za-z]+$/.test(first)) {
      next = 1;
      for (const letter of first) {
        if (letter === "x") extracts = true;
        if (letter === "O") toStdout = true;
        if (letter === "P") absolute = true;
        if (letter === "f") archive = args[next++] ?? "";
        else if (letter === "C") dir = args[next++] ?? dir;
        else if (TAR_SHORT_VALUED.includes(letter)) next++;
      }
    }
    for (let i = next; i < args.length; i++) {
      const arg = args[i] as string;
      if (arg.startsWith("--")) {
        // tar takes any unambiguous start of a long option (`--dir=`, `--trans=`, `--abs`).
        const file = longValue(args, i, "--file", 4);
        const directory = longValue(args, i, "--directory", 4);
        const stripped = longValue(args, i, "--strip-components", 5);
        if (isLong(arg, "--extract", 4) || arg === "--get") extracts = true;
        else if (isLong(arg, "--to-stdout", 6) || isLong(arg, "--to-command", 6)) toStdout = true;
        else if (isLong(arg, "--absolute-names", 4)) absolute = true;
        else if (isLong(arg, "--transform", 4) || isLong(arg, "--xform", 3)) renamed = true;
        else if (isLong(arg, "--one-top-level", 4)) top = arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : "";
        else if (stripped !== undefined) ({ value: strip, next: i } = { value: Number(stripped.value) || 0, next: stripped.next });
        else if (file !== undefined) ({ value: archive, next: i } = file);
        else if (directory !== undefined) ({ value: dir, next: i } = directory);
        continue;
      }
      if (!arg.startsWith("-") || arg === "-") continue;
      // A cluster (`-xzf a.tgz`, `-xf/tmp/a.tar`, `-xfa.tar`): a letter that takes a value takes the rest, or the next word.
      for (let j = 1; j < arg.length; j++) {
        const letter = arg[j] as string;
        if (letter === "x") extracts = true;
        if (letter === "O") toStdout = true;
        if (letter === "P") absolute = true;
        if (letter === "s" && program === "bsdtar") renamed = true;
        if (!TAR_SHORT_VALUED.includes(letter)) continue;
        const value = j < arg.length - 1 ? arg.slice(j + 1) : args[++i] ?? "";
        if (letter === "f") archive = value;
        if (letter === "C") dir = value;
        break;
      }
    }
    if (!extracts || toStdout) return undefined;
    // With no `-f`, tar reads the archive TAPE names, else its stdin.
    const tape = archive ?? env?.get("TAPE");
    const given = tape === undefined || tape === "-" ? undefined : tape;
    // `--one-top-level[=DIR]`: the members land in DIR (the archive's name without its extension, when none is given).
    const topDir = top === undefined ? undefined : top !== "" ? top : path.basename(given ?? "stdin").replace(/\.(tar(\.\w+)?|tgz|tbz2?|txz)$/, "");
    return {
      archive: given,
      dir: topDir === undefined ? dir : path.isAbsolute(topDir) || /^[~$]/.test(topDir) ? topDir : path.join(dir, topDir),
      format: "tar",
      ...(strip > 0 ? { strip } : {}),
      ...(absolute ? { absolute } : {}),
      ...(renamed ? { renamed } : {}),
    };
  }
  if (program === "unzip") {
    if (args.some((arg) => /^-[a-zA-Z]*[lptvzZ]/.test(arg))) return undefined;
    let dir = ".";
    let archive: string | undefined;
    for (let i = 0; i < args.length; i++) {
      const arg = args[i] as string;
      if (arg === "-d") dir = args[++i] ?? dir;
      else if (arg.startsWith("-d") && arg.length > 2) dir = arg.slice(2);
      else if (arg === "-x" || arg === "-P") i++;
      else if (!arg.startsWith("-") && archive === undefined) archive = arg;
    }
    if (archive === undefined) return undefined;
    const flags = args.filter((arg) => arg.startsWith("-")).join("");
    return { archive, dir, format: "zip", ...(/j/.test(flags) ? { flat: true } : {}), ...(flags.includes(":") ? { keepsDotDot: true } : {}) };
  }
  if (program === "cpio") {
    if (!args.some((arg) => isLong(arg, "--extract", 4) || /^-[A-Za-z]*i/.test(arg))) return undefined;
    let archive: string | undefined;
    let dir = ".";
    for (let i = 0; i < args.length; i++) {
      const arg = args[i] as string;
      const file = longValue(args, i, "--file", 4);
      const directory = longValue(args, i, "--directory", 4);
      if (arg === "-F" || arg === "-I") archive = args[++i];
      else if (arg === "-D") dir = args[++i] ?? dir;
      else if (file !== undefined) ({ value: archive, next: i } = file);
      else if (directory !== undefined) ({ value: dir, next: i } = directory);
    }
    return { archive, dir, format: "cpio" };
  }
  if (program === "7z" || program === "7za" || program === "7zr") {
    const ops = args.filter((arg) => !arg.startsWith("-"));
    if ((ops[0] !== "x" && ops[0] !== "e") || ops[1] === undefined) return undefined;
    const out = args.find((arg) => arg.startsWith("-o"));
    return { archive: ops[1], dir: out === undefined ? "." : out.slice(2), format: "zip", ...(ops[0] === "e" ? { flat: true } : {}) };
  }
  if (program === "unrar") {
    const ops = args.filter((arg) => !arg.startsWith("-"));
    if ((ops[0] !== "x" && ops[0] !== "e") || ops[1] === undefined) return undefined;
    return { archive: ops[1], dir: ops[2] ?? ".", format: "unread", ...(ops[0] === "e" ? { flat: true } : {}) };
  }
  // `python3 -m tarfile -e A [DIR]`, `python3 -m zipfile -e A DIR`.
  if (program !== undefined && /^python[\d.]*$/.test(program)) {
    const at = args.indexOf("-m");
    const module = args[at + 1];
    if (at === -1 || (module !== "tarfile" && module !== "zipfile")) return undefined;
    const rest = args.slice(at + 2);
    const e = rest.findIndex((arg) => arg === "-e" || arg === "--extract");
    if (e === -1 || rest[e + 1] === undefined) return undefined;
    return { archive: rest[e + 1], dir: rest[e + 2] ?? ".", format: module === "zipfile" ? "zip" : "tar" };
  }
  return undefined;
}

