// Which files a shell command changes: the targets of redirections and of the
// common writers (cp, mv, rm, sed -i, chmod, ln, tee, dd of=, …), read from the argv
// the shell would run. Reading stays out of it: `cat`, `cp`'s sources, `grep` name
// no target. A target is reported as written (the word, not yet resolved), with
// whether the change reaches what lies below a directory (rm -r, mv, chmod -R),
// so that removing or moving a parent of a protected file counts as changing it.
import path from "node:path";
import { programName, type ShellCommand } from "./shell-words.ts";
import { globMatches } from "./paths.ts";
import { extractionOf } from "./extraction.ts";

export interface WriteTarget {
  /** The word as the command names it (relative, `~`, `$VAR` kept). */
  word: string;
  /** What the command does to it, for the refusal: "writes", "removes", "moves", "changes the mode of", … */
  effect: string;
  /** Removing, moving or re-moding a directory changes everything below it. */
  reachesBelow: boolean;
  /** What lies below may be made by it (a copy or extraction into the folder), not only changed where it is there. */
  creates?: boolean;
  /** Only what exists below it, with a name one of these globs matches (`find … -name '*.log' -delete`). */
  names?: string[];
  /** Only what lies below it by a path with no hidden part (a listing that skips hidden names, `rg -l x | xargs sed -i`). */
  visibleOnly?: boolean;
}

/**
 * Beside each glob target, the paths it names when the command runs, as targets of
 * their own: `cp x [h]/` with h a link is `cp x h/`, judged through h, and `.gi[t]/config`
 * is `.git/config`. The glob itself stays, for what it may name that is not there yet.
 * `cwd`: undefined when the command's directory is unknown (relative globs are not expanded).
 */
export function withGlobMatches<T extends { word: string }>(targets: readonly T[], cwd: string | undefined, links?: ReadonlyMap<string, string>): T[] {
  const globs = targets.filter((t) => /[*?[]/.test(t.word) && !/[$`]/.test(t.word) && !t.word.startsWith("~") && (cwd !== undefined || t.word.startsWith("/")));
  if (globs.length === 0) return targets as T[];
  return [...targets, ...globs.flatMap((t) => globMatches(t.word, cwd ?? "/", links).slice(1).map((word) => ({ ...t, word })))];
}

/** Split `args` into operands and the values of the options that take one. */
function operands(args: readonly string[], withValue: readonly string[] = []): { operands: string[]; values: Map<string, string> } {
  const out: string[] = [];
  const values = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--") {
      out.push(...args.slice(i + 1));
      break;
    }
    if (arg.startsWith("--") && arg.includes("=")) {
      const eq = arg.indexOf("=");
      values.set(arg.slice(0, eq), arg.slice(eq + 1));
    } else if (withValue.includes(arg)) {
      values.set(arg, args[i + 1] ?? "");
      i++;
    } else if (arg.startsWith("-") && arg.length > 1) {
      // A short option cluster whose last letter takes the next word (`install -Dt DIR`), or a value glued on (`-tDIR`).
      const last = /^-[A-Za-z]{2,}$/.test(arg) ? withValue.find((option) => option === `-${arg.at(-1)}`) : undefined;
      const glued = withValue.find((option) => option.length === 2 && arg.startsWith(option) && arg.length > 2);
      if (last) {
        values.set(last, args[i + 1] ?? "");
        i++;
      } else if (glued) values.set(glued, arg.slice(2));
    } else {
      out.push(arg);
    }
  }
  return { operands: out, values };
}

const hasShort = (args: readonly string[], letter: string): boolean =>
  args.some((arg) => /^-[A-Za-z]+$/.test(arg) && arg.includes(letter));
const hasLong = (args: readonly string[], ...names: string[]): boolean =>
  args.some((arg) => names.some((name) => arg === name || arg.startsWith(`${name}=`)));

const all = (words: readonly string[], effect: string, reachesBelow: boolean): WriteTarget[] =>
  words.map((word) => ({ word, effect, reachesBelow }));

/** cp, mv, install, ln, rsync: the destination (`-t DIR` or the last operand). */
function destination(args: readonly string[], withValue: readonly string[]): { dest: string | undefined; sources: string[] } {
  const { operands: ops, values } = operands(args, ["-t", "--target-directory", ...withValue]);
  const target = values.get("-t") ?? values.get("--target-directory");
  if (target !== undefined) return { dest: target, sources: ops };
  return { dest: ops.at(-1), sources: ops.slice(0, -1) };
}

type WriterRule = (args: string[]) => WriteTarget[];

/**
 * `rename 's/evil/.mcp/' evil.json` (Perl's rename) and `rename FROM TO FILES` (util-linux's):
 * each file moves to the name the expression makes of its path. A Perl expression other than
 * a plain `s///` or `y///` is not worked out here: the files may then take any name in their folders.
 */
function renameTargets(args: readonly string[], form?: "perl" | "util-linux"): WriteTarget[] {
  const { operands: ops } = operands(args, ["-e", "-E"]);
  if (hasShort(args, "n") || hasLong(args, "--no-act", "--nono", "--dry-run")) return [];
  const expressions = args.filter((arg, i) => args[i - 1] === "-e" || args[i - 1] === "-E");
  // A bare `rename` is Perl's on some systems and util-linux's on others: code-like text is read as Perl's.
  const perl = form === "perl" || (form === undefined && (expressions.length > 0 || ops.length < 3 || /^(?:s|y|tr)\W|[$;=(){}\s"'\\]/.test(ops[0] ?? "")));
  let rename: ((file: string) => string | undefined) | undefined;
  let files: readonly string[];
  if (perl) {
    files = expressions.length > 0 ? ops : ops.slice(1);
    const code = expressions.length > 0 ? expressions : [ops[0] ?? ""];
    rename = code.length === 1 ? perlSubstitution(code[0] as string) : undefined;
  } else {
    const [from, to, ...rest] = ops;
    files = rest;
    // `-s` renames a link's target, which the words do not name.
    rename = from === undefined || to === undefined || hasShort(args, "s") || hasLong(args, "--symlink") ? undefined : (file) => file.replace(from, () => to);
  }
  // Names read from stdin (Perl's rename with no file), or an expression not worked out here: any name in their folders.
  if (rename === undefined || files.length === 0) {
    const folders = files.length === 0 ? ["."] : [...new Set(files.map((file) => path.dirname(file)))];
    return [...all(files, "moves", true), ...folders.map((word) => ({ word, effect: "renames files to names built at run time in", reachesBelow: true, creates: true }))];
  }
  return files.flatMap((file) => {
    const moved = rename(file);
    return [{ word: file, effect: "moves", reachesBelow: true }, ...(moved !== undefined && moved !== file ? [{ word: moved, effect: "moves a file over", reachesBelow: false }] : [])];
  });
}

/** A Perl `s/A/B/flags` or `y/A/B/` as a function of a path; undefined for any other code. */
function perlSubstitution(code: string): ((file: string) => string | undefined) | undefined {
  // One plain delimiter, no escape of it, no code in the replacement (`\.`, `$x`, `/e`, a second statement).
  const match = /^(s|y|tr)([/|#,!:@%])(.*)$/s.exec(code);
  if (match === null) return undefined;
  const [, op, delimiter, rest] = match as unknown as [string, string, string, string];
  if (rest.includes(`\\${delimiter}`)) return undefined;
  const parts = rest.split(delimiter);
  if (parts.length !== 3 || /[^gi]/.test(parts[2] as string)) return undefined;
  const [from, to, flags] = parts as [string, string, string];
  if (/\\|\$(?!\d)|@/.test(to) || (op !== "s" && /[-\\]/.test(from + to)) || /\\[AzZGKQEl-u]|\(\?[{<#?]/.test(from)) return undefined;
  if (op !== "s") {
    // y/abc/xyz/: each character for the one at its place.
    return (file) => [...file].map((c) => { const at = from.indexOf(c); return at === -1 ? c : (to[Math.min(at, to.length - 1)] ?? c); }).join("");
  }
  try {
    const pattern = new RegExp(from, flags.replace(/x/g, ""));
    // Perl's $1 is JavaScript's.
    return (file) => file.replace(pattern, to);
  } catch {
    return undefined;
  }
}

const WRITERS: Readonly<Record<string, WriterRule>> = {
  tee: (args) => all(operands(args).operands, "writes", false),
  cp: (args) => {
    const { dest } = destination(args, ["-S", "--suffix"]);
    return dest === undefined ? [] : [{ word: dest, effect: "copies over", reachesBelow: false }];
  },
  install: (args) => {
    // `install -d A B`: every operand is a directory it makes.
    if (hasShort(args, "d") || hasLong(args, "--directory")) return all(operands(args, ["-m", "--mode", "-o", "--owner", "-g", "--group", "-S", "--suffix", "-t", "--target-directory"]).operands, "makes a directory in", false);
    const { dest } = destination(args, ["-m", "--mode", "-o", "--owner", "-g", "--group", "-S", "--suffix"]);
    return dest === undefined ? [] : [{ word: dest, effect: "installs over", reachesBelow: false }];
  },
  rsync: (args) => {
    const { dest } = destination(args, ["-e", "--rsh", "--exclude", "--include", "--filter", "-f", "--backup-dir", "--log-file", "--partial-dir", "--temp-dir", "-T", "--write-batch", "--only-write-batch"]);
    // Backups, logs and batches land where their options say.
    const aside = outputs(args, ["--backup-dir", "--log-file", "--partial-dir", "--temp-dir", "-T", "--write-batch", "--only-write-batch"], "writes into");
    return [...aside, ...(dest === undefined ? [] : [{ word: dest, effect: "syncs over", reachesBelow: false }])];
  },
  mv: (args) => {
    const { dest, sources } = destination(args, ["-S", "--suffix"]);
    return [...all(sources, "moves", true), ...(dest === undefined ? [] : [{ word: dest, effect: "moves a file over", reachesBelow: false }])];
  },
  ln: (args) => {
    const { dest } = destination(args, ["-S", "--suffix"]);
    return dest === undefined ? [] : [{ word: dest, effect: "links over", reachesBelow: false }];
  },
  rename: (args) => renameTargets(args),
  "rename.ul": (args) => renameTargets(args, "util-linux"),
  prename: (args) => renameTargets(args, "perl"),
  "file-rename": (args) => renameTargets(args, "perl"),
  "perl-rename": (args) => renameTargets(args, "perl"),
  // `link FILE NAME`: a hard link at NAME.
  link: (args) => operands(args).operands.slice(1, 2).map((word) => ({ word, effect: "links over", reachesBelow: false })),
  // `ar rcs LIB.a FILES`: the archive (the first operand after the key letters).
  ar: (args) => {
    const ops = args.filter((arg) => !arg.startsWith("-") || /^-[A-Za-z]+$/.test(arg));
    const key = ops[0] ?? "";
    return /[dmqrs]/.test(key.replace(/^-/, "")) && ops[1] !== undefined ? [{ word: ops[1], effect: "writes", reachesBelow: false }] : [];
  },
  // `mktemp -p DIR`, `mktemp --tmpdir=DIR`, `mktemp DIR/xXXXX`: a new file (or directory) there.
  mktemp: (args) => {
    const { operands: ops, values } = operands(args, ["-p", "--tmpdir", "--suffix"]);
    const dir = values.get("-p") ?? values.get("--tmpdir");
    const template = ops[0];
    return [
      ...(dir !== undefined && dir.length > 0 ? [{ word: dir, effect: "makes a file in", reachesBelow: false }] : []),
      ...(template !== undefined && template.includes("/") ? [{ word: dir !== undefined && !path.isAbsolute(template) ? path.join(dir, template) : template, effect: "makes a file in", reachesBelow: false }] : []),
    ];
  },
  rm: (args) => all(operands(args).operands, "removes", true),
  rmdir: (args) => all(operands(args).operands, "removes", true),
  unlink: (args) => all(operands(args).operands, "removes", true),
  shred: (args) => all(operands(args, ["-n", "--iterations", "-s", "--size"]).operands, "overwrites", false),
  truncate: (args) => all(operands(args, ["-s", "--size", "-r", "--reference"]).operands, "truncates", false),
  touch: (args) => all(operands(args, ["-d", "--date", "-t", "-r", "--reference"]).operands, "touches", false),
  mkdir: (args) => all(operands(args, ["-m", "--mode"]).operands, "makes a directory in", false),
  mkfifo: (args) => all(operands(args, ["-m", "--mode"]).operands, "makes a file in", false),
  mknod: (args) => all(operands(args, ["-m", "--mode"]).operands.slice(0, 1), "makes a file in", false),
  chmod: (args) => modeChange(args, "changes the mode of", ["--reference"]),
  chown: (args) => modeChange(args, "changes the owner of", ["--reference", "--from"]),
  chgrp: (args) => modeChange(args, "changes the group of", ["--reference"]),
  // The attribute word (`+i`, `-a`, `=e`) is no file; every other operand is.
  chattr: (args) => all(operands(args, ["-v", "-p"]).operands.filter((word) => !/^[-+=]/.test(word)), "changes the attributes of", true),
  setfacl: (args) => all(operands(args, ["-m", "-M", "-x", "-X", "--set", "--set-file"]).operands, "changes the ACL of", true),
  sed: (args) => (inPlace(args, "-i", "--in-place") ? all(sedFiles(args), "edits in place", false) : []),
  perl: (args) => (args.some((arg) => /^-[A-Za-z0-9]*i/.test(arg)) ? all(perlFiles(args), "edits in place", false) : []),
  ruby: (args) => (args.some((arg) => /^-[A-Za-z0-9]*i/.test(arg)) ? all(perlFiles(args), "edits in place", false) : []),
  dd: (args) => args.filter((arg) => arg.startsWith("of=")).map((arg) => ({ word: arg.slice(3), effect: "writes", reachesBelow: false })),
  patch: (args) => {
    const { operands: ops, values } = operands(args, ["-o", "--output", "-i", "--input", "-d", "--directory", "-p", "-r", "-B", "-z"]);
    const out = values.get("-o") ?? values.get("--output");
    // `patch -d DIR`: the files the patch names are under DIR.
    const dir = values.get("-d") ?? values.get("--directory");
    return [
      ...(ops[0] !== undefined ? [{ word: dir !== undefined && !path.isAbsolute(ops[0]) ? path.join(dir, ops[0]) : ops[0], effect: "patches", reachesBelow: false }] : []),
      ...(out ? [{ word: out, effect: "writes", reachesBelow: false }] : []),
      ...(dir !== undefined ? [{ word: dir, effect: "patches files under", reachesBelow: true }] : []),
    ];
  },
  curl: (args) => [
    ...outputs(args, ["-o", "--output"], "downloads over"),
    ...outputs(args, ["--output-dir"], "downloads into"),
    // Headers, cookies, traces and logs it is told to write.
    ...outputs(args, ["-D", "--dump-header", "-c", "--cookie-jar", "--trace", "--trace-ascii", "--stderr", "--libcurl", "--etag-save", "--hsts", "--alt-svc"], "writes"),
  ],
  // Editors run without a terminal too (`vim -c wq`, `ex -sc`, `ed -s f <<< …`).
  ...Object.fromEntries(["vi", "vim", "nvim", "ex", "ed", "nano", "emacs"].map((editor) => [editor, (args: string[]) => all(operands(args, ["-c", "--cmd", "-S", "-u", "-i", "-p"]).operands.filter((w) => !w.startsWith("+")), "edits", false)])),
  git: (args) => {
    // `git clone URL DIR` writes DIR; other git commands write inside the repository git finds,
    // and `diff`/`log`/`show --output=FILE`, `format-patch -o DIR` write where they are told.
    let at = 0;
    for (; at < args.length && (args[at] as string).startsWith("-"); at++) if (["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env"].includes(args[at] as string)) at++;
    const rest = args.slice(at + 1);
    const sub = args[at];
    // `--work-tree=DIR` (or `-C DIR` before `init`): the tree a checkout, reset or init writes.
    const workTree = outputs(args.slice(0, at), ["--work-tree"], "writes files under").map((target) => ({ ...target, reachesBelow: true }));
    const here = sub === "init" ? outputs(args.slice(0, at), ["-C"], "makes a repository in") : [];
    // A command that changes the repository writes in the one `-C` or `--git-dir` names (`git -C ../x commit`, `git --git-dir=d init`):
    // the place itself is judged (where it is), not each file under it (the project's own policy files are not rewritten by a commit).
    const repository = sub !== undefined && GIT_WRITES.has(sub) && sub !== "init" && sub !== "clone" ? outputs(args.slice(0, at), ["-C"], "changes the repository in") : [];
    const gitDir = sub !== undefined && GIT_WRITES.has(sub) ? outputs(args.slice(0, at), ["--git-dir"], sub === "init" ? "makes a repository in" : "changes the repository in") : [];
    const told = [
      ...outputs(rest, ["--output"], "writes"),
      ...(sub === "format-patch" ? outputs(rest, ["-o", "--output-directory"], "writes into") : []),
      ...(sub === "archive" ? outputs(rest, ["-o", "--output"], "writes") : []),
      // `git mv SRC… DST` moves its sources (a folder with all below it); `git rm` removes what it names, from the index only with `--cached`.
      ...(sub === "mv" ? gitMoves(rest) : []),
      ...(sub === "rm" ? gitRemoves(rest) : []),
      // `git bundle create FILE`, `git worktree add PATH`, `git init DIR`.
      ...(sub === "bundle" && rest[0] === "create" && rest[1] !== undefined ? [{ word: rest[1], effect: "writes", reachesBelow: false }] : []),
      ...(sub === "worktree" && rest[0] === "add" ? operands(rest.slice(1), ["-b", "-B", "--reason"]).operands.slice(0, 1).map((word) => ({ word, effect: "makes a worktree in", reachesBelow: false })) : []),
      ...(sub === "init" ? operands(rest, ["--template", "--separate-git-dir", "-b", "--initial-branch", "--shared", "--object-format"]).operands.slice(0, 1).map((word) => ({ word, effect: "makes a repository in", reachesBelow: false })) : []),
      // `git init --separate-git-dir=D`, `git clone --separate-git-dir D`: the repository itself goes to D.
      ...(sub === "init" || sub === "clone" ? outputs(rest, ["--separate-git-dir"], "makes a repository in") : []),
      // `git config --global …`, `--system`, `--file F` (a setting written, not read).
      ...(sub === "config" ? gitConfigFile(rest) : []),
      ...workTree,
      ...gitDir,
      ...here,
    ];
    // Paths git is handed are read from where `-C` took it (each -C from the one before).
    const dirs = args.slice(0, at).flatMap((arg, i, all) => (arg === "-C" && all[i + 1] !== undefined ? [all[i + 1] as string] : []));
    const fromDir = (target: WriteTarget): WriteTarget => {
      if (dirs.length === 0 || path.isAbsolute(target.word) || /^[~$]/.test(target.word)) return target;
      return { ...target, word: dirs.reduceRight((word, dir) => (path.isAbsolute(word) || /^[~$]/.test(word) ? word : path.join(dir, word)), target.word) };
    };
    if (sub !== "clone") return [...told.filter((t) => !here.includes(t) && !gitDir.includes(t)).map(fromDir), ...here, ...gitDir, ...repository];
    const ops = operands(args.slice(at + 1), ["-o", "--origin", "-b", "--branch", "-u", "--upload-pack", "--reference", "--separate-git-dir", "--depth", "--shallow-since", "--shallow-exclude", "-c", "--config", "--filter", "-j", "--jobs", "--template", "--server-option", "--bundle-uri"]).operands;
    // `git clone URL` alone clones into a directory named after the URL, where -C took git.
    const into = ops[1] ?? (ops[0] === undefined ? undefined : path.basename(ops[0].replace(/\/+$/, "").replace(/\.git$/, "").replace(/^.*:/, "")));
    return [...told.filter((t) => t.effect === "makes a repository in").map(fromDir), ...(into === undefined || into === "" ? [] : [fromDir({ word: into, effect: "clones into", reachesBelow: false })])];
  },
  sort: (args) => outputs(args, ["-o", "--output"], "writes"),
  // `script [FILE]`: the session's typescript (`typescript` when none is named).
  script: (args) => {
    const { operands: ops } = operands(args, ["-c", "--command", "-E", "--echo", "-I", "--log-in", "-O", "--log-out", "-B", "--log-io", "-T", "--log-timing", "-t", "--timing", "-m", "--logging-format", "-o", "--output-limit"]);
    const logs = outputs(args, ["-I", "--log-in", "-O", "--log-out", "-B", "--log-io", "-T", "--log-timing"], "writes");
    return [...logs, { word: ops[0] ?? "typescript", effect: "writes", reachesBelow: false }];
  },
  // `zip ARCHIVE FILES…`, `zip -r ARCHIVE DIR`: the archive.
  zip: (args) => {
    const ops = operands(args, ["-b", "-n", "-t", "-tt", "-x", "-i", "-O", "--output-file", "-P", "--password", "-Z"]).operands;
    // `zip -m`: the files put in the archive are deleted.
    const moves = hasShort(args, "m") || hasLong(args, "--move");
    return [...all(ops.slice(0, 1), "writes", false), ...outputs(args, ["-O", "--output-file"], "writes"), ...(moves ? all(ops.slice(1), "removes", true) : [])];
  },
  cargo: (args) => outputs(args, ["--target-dir", "--root", "--out-dir", "--artifact-dir"], "writes into"),
  ...Object.fromEntries(["pip", "pip3"].map((name) => [name, (args: string[]) => outputs(args, ["-t", "--target", "-d", "--dest", "--prefix", "--root", "--src", "--log", "-r"].filter((option) => option !== "-r"), "installs into")])),
  npm: (args) => [
    // `-C DIR` is npm's short --prefix.
    ...outputs(args, ["--prefix", "-C", "--pack-destination", "--cache"], "writes into"),
    // `npm pkg set|delete` edits package.json (its scripts too), where --prefix says.
    ...(args.includes("pkg") && (args.includes("set") || args.includes("delete") || args.includes("fix")) ? [{ word: path.join(outputs(args, ["--prefix", "-C"], "").at(0)?.word ?? ".", "package.json"), effect: "edits", reachesBelow: false }] : []),
  ],
  virtualenv: (args) => all(operands(args, ["-p", "--python", "--prompt"]).operands.slice(0, 1), "makes an environment in", false),
  uv: (args) => (args[0] === "venv" ? all(operands(args.slice(1), ["-p", "--python", "--prompt"]).operands.slice(0, 1), "makes an environment in", false) : outputs(args, ["-t", "--target", "--prefix", "-o", "--output-file", "--cache-dir"], "writes into")),
  // `scp SRC… DEST`: a local destination (not `host:path`).
  scp: (args) => {
    const ops = operands(args, ["-P", "-i", "-o", "-F", "-S", "-c", "-l", "-J"]).operands;
    const dest = ops.length > 1 ? ops.at(-1) : undefined;
    return dest === undefined || /^[^/]*:/.test(dest) ? [] : [{ word: dest, effect: "copies over", reachesBelow: false }];
  },
  brotli: (args) => outputs(args, ["-o", "--output"], "writes"),
  tsc: (args) => outputs(args, ["--outDir", "--outFile", "--out", "--declarationDir", "--tsBuildInfoFile"], "writes into"),
  esbuild: (args) => outputs(args, ["--outfile", "--outdir", "--metafile"], "writes into"),
  // Making or changing a key writes it and its .pub; printing one (`-l`, `-y`, `-e`, …) only reads.
  "ssh-keygen": (args) => ([..."lyeiBFDLQ"].some((letter) => hasShort(args, letter)) ? [] : outputs(args, ["-f"], "writes").flatMap((target) => [target, { ...target, word: `${target.word}.pub` }])),
  openssl: (args) => outputs(args, ["-out", "-keyout"], "writes"),
  // `xxd IN OUT`, `xxd -r IN OUT`: the second operand.
  xxd: (args) => all(operands(args, ["-c", "-cols", "-g", "-groupsize", "-l", "-len", "-o", "-offset", "-s", "-seek", "-n", "-name"]).operands.slice(1, 2), "writes", false),
  uniq: (args) => all(operands(args, ["-f", "--skip-fields", "-s", "--skip-chars", "-w", "--check-chars"]).operands.slice(1, 2), "writes", false),
  cpio: (args) => [...outputs(args, ["-F", "--file", "-O"], "writes"), ...outputs(args, ["-D", "--directory"], "extracts into"), ...(hasShort(args, "i") || hasLong(args, "--extract") || hasShort(args, "p") || hasLong(args, "--pass-through") ? all(hasShort(args, "p") || hasLong(args, "--pass-through") ? operands(args, ["-F", "--file", "-O", "-I", "-H", "--format", "-R", "--owner", "-D", "--directory"]).operands : ["."], "extracts into", false) : [])],
  less: (args) => outputs(args, ["-o", "-O", "--log-file", "--LOG-FILE"], "writes"),
  tree: (args) => outputs(args, ["-o"], "writes"),
  psql: (args) => outputs(args, ["-o", "--output", "-L", "--log-file"], "writes"),
  mysql: (args) => outputs(args, ["--tee"], "writes"),
  // `objcopy IN OUT`: the second operand (the first, changed in place, when there is none).
  objcopy: (args) => {
    const ops = operands(args, ["-I", "-O", "-B", "-j", "-R", "--input-target", "--output-target", "--only-section", "--remove-section", "--add-section", "--set-section-flags", "-K", "-N", "-L", "-W"]).operands;
    return all(ops.length > 1 ? ops.slice(1, 2) : ops.slice(0, 1), "writes", false);
  },
  strace: (args) => outputs(args, ["-o", "--output"], "writes"),
  ltrace: (args) => outputs(args, ["-o", "--output"], "writes"),
  valgrind: (args) => args.filter((arg) => /^--(log|xml)-file=/.test(arg)).map((arg) => ({ word: arg.slice(arg.indexOf("=") + 1), effect: "writes", reachesBelow: false })),
  gpg: (args) => outputs(args, ["-o", "--output"], "writes"),
  pandoc: (args) => outputs(args, ["-o", "--output"], "writes"),
  iconv: (args) => outputs(args, ["-o", "--output"], "writes"),
  // moreutils' sponge soaks up its input and writes it to FILE.
  sponge: (args) => all(operands(args).operands, "writes", false),
  csplit: (args) => outputs(args, ["-f", "--prefix"], "writes").map((target) => ({ ...target, word: `${target.word}*` })),
  // yq -i edits its files in place.
  yq: (args) => (hasShort(args, "i") || hasLong(args, "--inplace") ? all(operands(args, ["-o", "--output-format", "-p", "--input-format", "--expression", "-e"]).operands.slice(1), "edits in place", false) : []),
  // Compressors replace FILE with FILE.gz (and the reverse) unless they write to stdout.
  ...Object.fromEntries(
    ["gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "lzma", "unlzma", "zstd", "unzstd", "lz4", "compress", "uncompress"].map((name) => [
      name,
      (args: string[]) => {
        const out = outputs(args, ["-o", "--output"], "writes");
        if (out.length > 0 || hasShort(args, "c") || hasLong(args, "--stdout", "--to-stdout") || hasShort(args, "t") || hasShort(args, "l") || hasLong(args, "--test", "--list")) return out;
        return all(operands(args, ["-S", "--suffix", "-T", "--threads", "-b", "--block-size", "-M", "--memlimit", "-F", "--format", "-C", "--check"]).operands, "replaces", false);
      },
    ]),
  ),
  // Compilers and linkers: `-o FILE`, `-oFILE`.
  ...Object.fromEntries(["cc", "gcc", "g++", "c++", "clang", "clang++", "ld", "as", "rustc", "strip", "tcc", "nasm", "javac"].map((name) => [name, (args: string[]) => outputs(args, name === "javac" ? ["-d"] : name === "rustc" ? ["-o", "--out-dir"] : ["-o", "-MF"], "writes")])),
  go: (args) => (args[0] === "build" || args[0] === "test" ? [...outputs(args.slice(1), ["-o"], "writes"), ...args.filter((arg) => arg.startsWith("-o=")).map((arg) => ({ word: arg.slice(3), effect: "writes", reachesBelow: false }))] : []),
  split: (args) => {
    const ops = operands(args, ["-a", "-b", "-C", "-l", "-n", "-t", "--suffix-length", "--bytes", "--line-bytes", "--lines", "--number", "--additional-suffix", "--separator", "--filter"]).operands;
    return ops[1] === undefined ? [] : [{ word: `${ops[1]}*`, effect: "writes", reachesBelow: false }];
  },
  wget: (args) => [...outputs(args, ["-O", "--output-document"], "downloads over"), ...outputs(args, ["-P", "--directory-prefix"], "downloads into"), ...outputs(args, ["-o", "--output-file", "-a", "--append-output", "--save-cookies"], "writes")],
  // 7-Zip: `7z a ARCHIVE …` writes the archive; `7z x|e ARCHIVE -oDIR` extracts into DIR (here without one).
  ...Object.fromEntries(["7z", "7za", "7zr"].map((name) => [name, (args: string[]) => {
    const ops = args.filter((arg) => !arg.startsWith("-"));
    const out = args.find((arg) => arg.startsWith("-o"));
    if (ops[0] === "a" || ops[0] === "u" || ops[0] === "d" || ops[0] === "rn") return ops[1] === undefined ? [] : [{ word: ops[1], effect: "writes", reachesBelow: false }];
    return ops[0] === "x" || ops[0] === "e" ? [{ word: out === undefined ? "." : out.slice(2), effect: "extracts into", reachesBelow: false }] : [];
  }])),
  // `unrar x ARCHIVE [DIR/]`.
  unrar: (args) => {
    const ops = args.filter((arg) => !arg.startsWith("-"));
    return ops[0] === "x" || ops[0] === "e" ? [{ word: ops[2] ?? ".", effect: "extracts into", reachesBelow: false }] : [];
  },
  tar: (args) => {
    // The mode letters: the first word (`tar xzf`, `tar -czf`) or a dashed cluster.
    const modes = args.filter((arg, i) => (i === 0 && /^[A-Za-z]+$/.test(arg)) || /^-[A-Za-z]+$/.test(arg)).join("");
    const extracts = modes.includes("x") || hasLong(args, "--extract", "--get");
    const creates = !extracts && (/[cru]/.test(modes) || hasLong(args, "--create", "--append", "--update"));
    // `--remove-files`: the files put in the archive are deleted.
    const removed = creates && hasLong(args, "--remove-files") ? all(operands(args, ["-C", "--directory", "-f", "--file", "-T", "--files-from", "-X", "--exclude-from", "--transform", "--xform"]).operands.filter((word, i) => !(i === 0 && word === args[0] && /^[A-Za-z]+$/.test(word))), "removes", true) : [];
    // Renamed as they go in (`--transform 's,^stage,.omp/extensions,'`), they land where the expression says when the archive is unpacked here.
    const renamed = creates && renamesIntoPolicy(args) ? [{ word: ".", effect: "archives members renamed by an expression, which unpack anywhere under", reachesBelow: true, creates: true }] : [];
    if (creates) return [...archiveFile(args), ...removed, ...renamed];
    // Where it extracts, read as tar reads its options (extraction.ts); what lands there is the archive's (archive-members.ts).
    const extraction = extractionOf(["tar", ...args]);
    if (!extracts && extraction === undefined) return [];
    const dir = extraction?.dir ?? ".";
    // `--transform`/`--xform` (and bsdtar's `-s`) rename the members as they land: where, only the archive and the expression know.
    if (extraction?.renamed === true || args.includes("-s")) return [{ word: dir, effect: "extracts members renamed by an expression under", reachesBelow: true, creates: true }];
    // `-P` keeps their absolute names, which only the archive knows.
    return [
      { word: dir, effect: "extracts into", reachesBelow: false },
      ...(extraction?.absolute === true ? [{ word: "/", effect: "extracts members at the absolute paths the archive names, anywhere under", reachesBelow: true, creates: true }] : []),
    ];
  },
  unzip: (args) => [{ word: extractionOf(["unzip", ...args])?.dir ?? operands(args, ["-d", "-x"]).values.get("-d") ?? ".", effect: "extracts into", reachesBelow: false }],
  find: (args) => {
    // `-exec cat {} +`, `-exec grep -l x {} \;`: a program that only reads what it is named changes nothing.
    const execs = args.flatMap((arg, i) => (["-exec", "-execdir", "-ok", "-okdir"].includes(arg) ? [args[i + 1] ?? ""] : []));
    // By its bare name only: `./cat` may be anything.
    const acts = args.some((arg) => ["-delete", "-fprint", "-fprint0", "-fprintf", "-fls"].includes(arg)) || execs.some((program) => !NAME_READERS.has(program));
    // `-fprint FILE`, `-fprint0 FILE`, `-fprintf FILE FMT`, `-fls FILE`: a file it writes.
    const printed = args.flatMap((arg, i) => (["-fprint", "-fprint0", "-fprintf", "-fls"].includes(arg) && args[i + 1] !== undefined ? [{ word: args[i + 1] as string, effect: "writes", reachesBelow: false }] : []));
    if (!acts) return [];
    const starts: string[] = [];
    for (const arg of args) {
      if (arg.startsWith("-") || arg === "(" || arg === "!") break;
      starts.push(arg);
    }
    // What the branches that act select, by name: `-name '*.tmp' -delete`, `-name node_modules -prune -o -name '*.log' -delete`.
    const names = findActingNames(args.slice(starts.length));
    return [...printed, ...(starts.length > 0 ? starts : ["."]).map((word) => ({ word, effect: "changes files under", reachesBelow: true, ...(names !== undefined ? { names } : {}) }))];
  },
};

/** Programs that only read the files they are named, as `find -exec` and `xargs` run them. */
export const NAME_READERS: ReadonlySet<string> = new Set(["cat", "head", "tail", "grep", "egrep", "fgrep", "wc", "ls", "stat", "file", "du", "md5sum", "sha1sum", "sha256sum", "sha512sum", "cksum", "jq", "diff", "cmp", "readlink", "realpath", "basename", "dirname", "echo", "printf", "test", "["]);

/** find's actions that change or hand on what a branch selects. */
const FIND_ACTIONS = new Set(["-delete", "-exec", "-execdir", "-ok", "-okdir"]);

/** A find expression split at its top-level `-o` (parentheses kept whole). */
function findBranches(tokens: readonly string[]): string[][] {
  const branches: string[][] = [[]];
  let depth = 0;
  for (const token of tokens) {
    if (token === "(") depth++;
    else if (token === ")") depth--;
    if (depth === 0 && (token === "-o" || token === "-or")) branches.push([]);
    else branches.at(-1)?.push(token);
  }
  return branches;
}

/**
 * The names an expression limits what it selects to (globs on a file's name; a `-path`
 * test by its last part), or undefined when a branch selects by something else too
 * (`-name x -o -type f` selects every file). Each branch must limit it; in one branch
 * (tests joined by and) any limit will do, so they are all kept.
 */
function findNames(tokens: readonly string[]): string[] | undefined {
  const branches = findBranches(tokens);
  if (branches.length > 1) {
    const each = branches.map(findNames);
    return each.some((names) => names === undefined) ? undefined : each.flat() as string[];
  }
  const chain = branches[0] ?? [];
  const found: string[] = [];
  let limited = false;
  for (let i = 0; i < chain.length; i++) {
    const token = chain[i] as string;
    const negated = i > 0 && (chain[i - 1] === "!" || chain[i - 1] === "-not");
    if (token === "(") {
      // The group's tokens, to its matching parenthesis.
      let depth = 1;
      let j = i + 1;
      for (; j < chain.length && depth > 0; j++) depth += chain[j] === "(" ? 1 : chain[j] === ")" ? -1 : 0;
      const inner = negated ? undefined : findNames(chain.slice(i + 1, j - 1));
      if (inner !== undefined) {
        found.push(...inner);
        limited = true;
      }
      i = j - 1;
      continue;
    }
    if (negated) continue;
    if (token === "-name" || token === "-iname") {
      found.push(chain[i + 1] ?? "*");
      limited = true;
    } else if (/^-i?(?:path|wholename)$/.test(token)) {
      found.push((chain[i + 1] ?? "*").split("/").at(-1) || "*");
      limited = true;
    }
  }
  return limited ? found : undefined;
}

/** The names the acting branches of a find expression (those that delete or run a command) are limited to; undefined when any is not. */
function findActingNames(expression: readonly string[]): string[] | undefined {
  const acting = findBranches(expression).filter((branch) => branch.some((token) => FIND_ACTIONS.has(token)));
  if (acting.length === 0) return undefined;
  const each = acting.map(findNames);
  return each.some((names) => names === undefined) ? undefined : (each.flat() as string[]);
}

/** tar's `--transform`/`--xform`/`-s` expressions that rename members into a folder OMP or Tama loads code and policy from. */
function renamesIntoPolicy(args: readonly string[]): boolean {
  const expressions = args.flatMap((arg, i) => (arg === "--transform" || arg === "--xform" || arg === "-s" ? [args[i + 1] ?? ""] : /^--(?:transform|xform)=/.test(arg) ? [arg.slice(arg.indexOf("=") + 1)] : []));
  return expressions.some((expression) => /\.(?:omp|claude|codex|gemini|cursor|opencode|tama|git)\b|opencode\.json|[$`]/.test(expression));
}

/** `git mv [-f] [-k] SRC… DST`: each source moved, the destination written (or each source's name inside it). */
function gitMoves(args: readonly string[]): WriteTarget[] {
  if (args.some((a) => a === "-n" || a === "--dry-run" || /^-[a-z]*n/.test(a))) return [];
  const words = operands(args).operands;
  const dest = words.at(-1);
  if (dest === undefined || words.length < 2) return [];
  const sources = words.slice(0, -1);
  return [
    ...sources.map((word) => ({ word, effect: "moves", reachesBelow: true })),
    { word: dest, effect: "moves a file over", reachesBelow: false },
    ...sources.map((source) => ({ word: path.join(dest, path.basename(source)), effect: "moves a file over", reachesBelow: false })),
  ];
}

/** `git rm [-r] PATH…` without `--cached`: the files (with `-r` the folders) it deletes. */
function gitRemoves(args: readonly string[]): WriteTarget[] {
  if (args.some((a) => a === "--cached" || a === "-n" || a === "--dry-run" || /^-[a-z]*n/.test(a))) return [];
  const recursive = args.some((a) => /^-[a-z]*r/.test(a));
  // `git ls-files | git rm --pathspec-from-file=-`: pathspecs read from a file or stdin may name any tracked path below.
  // git takes any unambiguous start of a long option (`--pathspec-from=-`).
  const fromFile = args.some((a) => { const name = a.split("=")[0] as string; return name.length >= "--pathspec-fr".length && "--pathspec-from-file".startsWith(name); });
  const named = operands(args, ["--pathspec-from-file"]).operands.map((word) => ({ word, effect: "removes", reachesBelow: recursive }));
  return fromFile ? [...named, { word: ".", effect: "removes what a pathspec file names under", reachesBelow: true }] : named;
}

/** git commands that change the repository they run in (its objects, refs, index or work tree). */
const GIT_WRITES = new Set([
  "add", "am", "apply", "branch", "checkout", "cherry-pick", "clean", "commit", "fetch", "gc", "init", "merge", "mv", "notes", "prune", "pull", "rebase", "replace",
  "reset", "restore", "revert", "rm", "stash", "submodule", "switch", "tag", "update-index", "update-ref", "worktree", "sparse-checkout",
]);

/** The file `git config` writes a setting to: `--global` (~/.gitconfig), `--system`, `--file F`; none when it only reads. */
function gitConfigFile(args: readonly string[]): WriteTarget[] {
  const { operands: ops, values } = operands(args, ["-f", "--file", "--blob", "--type", "--default", "--comment", "--value"]);
  const reads = args.some((arg) => /^(--get|--get-all|--get-regexp|--get-urlmatch|--list|-l|--show-origin|--show-scope|--name-only|--null|-z)$/.test(arg)) || ops[0] === "get" || ops[0] === "list";
  const writes = !reads && (ops.length >= 2 || args.some((arg) => /^--(unset|unset-all|add|replace-all|rename-section|remove-section|edit)$/.test(arg) || arg === "-e") || ops[0] === "set" || ops[0] === "unset" || ops[0] === "edit");
  if (!writes) return [];
  const file = values.get("-f") ?? values.get("--file") ?? args.find((arg) => arg.startsWith("--file="))?.slice("--file=".length);
  if (file !== undefined) return [{ word: file, effect: "writes a setting to", reachesBelow: false }];
  if (args.includes("--global")) return [{ word: "~/.gitconfig", effect: "writes a setting to", reachesBelow: false }];
  if (args.includes("--system")) return [{ word: "/etc/gitconfig", effect: "writes a setting to", reachesBelow: false }];
  return [];
}

/** `tar -cf ARCHIVE …`, `tar -czvf ARCHIVE`: the archive it writes (the `f` of a cluster takes the next word). */
function archiveFile(args: readonly string[]): WriteTarget[] {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg.startsWith("--file=")) return [{ word: arg.slice("--file=".length), effect: "writes", reachesBelow: false }];
    if (arg === "--file" || (i === 0 && /^[A-Za-z]*f$/.test(arg)) || /^-[A-Za-z]*f$/.test(arg)) {
      const file = args[i + 1];
      return file === undefined || file === "-" ? [] : [{ word: file, effect: "writes", reachesBelow: false }];
    }
    if (/^-f./.test(arg)) return [{ word: arg.slice(2), effect: "writes", reachesBelow: false }];
  }
  return [];
}

function inPlace(args: readonly string[], short: string, long: string): boolean {
  // A cluster of flags before the i (`-ni`, `-bi`, `-Ei`), not one where a letter takes a value first (`-e`, `-f`, `-l`).
  return args.some((arg) => arg === long || arg.startsWith(`${long}=`) || (arg.startsWith(short) && !arg.startsWith("--")) || /^-[A-Za-dg-km-z]*i/.test(arg));
}

/** sed's files: the operands after the script (the first operand, unless -e/-f gave it). */
function sedFiles(args: readonly string[]): string[] {
  const { operands: ops, values } = operands(args, ["-e", "--expression", "-f", "--file", "-l", "--line-length"]);
  const scripted = values.has("-e") || values.has("--expression") || values.has("-f") || values.has("--file") || args.some((a) => /^--(expression|file)=/.test(a));
  return scripted ? ops : ops.slice(1);
}

/** perl -i's files: the operands, after the script file when no -e gave the code. */
function perlFiles(args: readonly string[]): string[] {
  const { operands: ops, values } = operands(args, ["-e", "-E", "-M", "-I"]);
  // `-pie CODE` leaves the code as the first operand, as a script file would be.
  return values.has("-e") || values.has("-E") ? ops : ops.slice(1);
}

function modeChange(args: string[], effect: string, withValue: readonly string[]): WriteTarget[] {
  const { operands: ops, values } = operands(args, [...withValue]);
  const recursive = hasShort(args, "R") || hasLong(args, "--recursive");
  // With --reference there is no mode operand; otherwise the first operand is the mode (or owner).
  // `chmod -x FILE`: a mode may start with a dash, and then every operand is a file.
  const dashMode = effect === "changes the mode of" && args.some((arg) => /^-[rwxXst]+$/.test(arg));
  const files = values.has("--reference") || dashMode ? ops : ops.slice(1);
  return all(files, effect, recursive);
}

function outputs(args: readonly string[], options: readonly string[], effect: string): WriteTarget[] {
  const { values } = operands(args, [...options]);
  return options.flatMap((option) => {
    const value = values.get(option);
    return value === undefined ? [] : [{ word: value, effect, reachesBelow: false }];
  });
}

/** Whether `program` is one of the writers whose targets writeTargets reads from its argv. */
/** The programs whose writes are read, by name. */
export function writerNames(): string[] {
  return Object.keys(WRITERS);
}

export function isWriter(program: string): boolean {
  return Object.hasOwn(WRITERS, program) || Object.hasOwn(WRITERS, program.replace(/^(?:g|bsd)(?=[a-z])/, ""));
}

/**
 * Every file `command` changes: its redirections' targets and its writer's targets.
 * `argv` is the command after its wrappers (env, sudo, nohup, …) are taken off.
 */
/**
 * The files a link command gives another name: `ln SRC… DEST`, `cp -l`/`-s`; with `hard`,
 * only hard links (`ln` without `-s`, `cp -l`, `link SRC NAME`), the same file under the new
 * name, so a later write there changes it wherever it is.
 */
export function linkSources(argv: readonly string[], hard = false): WriteTarget[] {
  const program = argv[0] === undefined ? undefined : programName(argv[0]);
  const args = argv.slice(1);
  const symbolic = args.some((a) => a === "--symbolic" || a === "--symbolic-link" || /^-[A-Za-z]*s/.test(a));
  const links = hard
    ? (program === "ln" && !symbolic) || program === "link" || (program === "cp" && args.some((a) => a === "--link" || /^-[A-Za-z]*l/.test(a)))
    : program === "ln" || (program === "cp" && args.some((a) => /^-[A-Za-z]*[ls]/.test(a) || a === "--link" || a === "--symbolic-link"));
  if (!links) return [];
  const words = args.filter((a) => !a.startsWith("-"));
  return words.slice(0, words.length > 1 ? -1 : undefined).map((word) => ({ word, effect: "makes a link to", reachesBelow: false }));
}

export function writeTargets(command: ShellCommand, argv: readonly string[]): WriteTarget[] {
  const redirected = command.redirects
    .filter((r) => r.op === ">" || r.op === ">>" || r.op === ">|" || r.op === "<>")
    .map((r) => ({ word: r.target, effect: "writes", reachesBelow: false }));
  const program = argv[0] === undefined ? undefined : programName(argv[0]);
  const rule = program === undefined ? undefined : WRITERS[program] ?? WRITERS[program.replace(/^(?:g|bsd)(?=[a-z])/, "")];
  return [...redirected, ...(rule ? rule(argv.slice(1)) : [])];
}
