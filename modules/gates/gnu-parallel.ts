// GNU parallel: what it runs. It joins its command's words with spaces and hands the line
// to a shell (so `parallel 'truncate -s0'` and `parallel echo x '>' f` are shell lines; `-q`
// runs the words as they are), puts each input where a replacement string stands (`{}`,
// `{.}`, `{= perl =}`) or after the line, and takes its inputs from `:::` words, `::::`
// files, `-a` files or its stdin. Options that take a value are skipped with it; one it does
// not know is read both ways, so a value is never taken for the command unread.
import { shellLine } from "../tools/code-reading.ts";
import { LISTED_IN_WORD, unmarked } from "./listed-token.ts";
import { escapeRegExp } from "../system/regexp.ts";

export interface ParallelRun {
  /** The command it runs once per input, or `sh -c LINE parallel` when a shell reads the line; empty when its inputs are the commands. */
  argv: string[];
  /** Command lines it also runs, read as scripts: `:::` words that are commands, each job of a line, Perl its replacement strings run. */
  scripts: string[];
  /** The command is handed the lines of its stdin or of a `::::` or `-a` file, as xargs hands them. */
  xargs: boolean;
  /**
   * With `xargs`, when a shell reads the line: the script one input makes (its replacement
   * strings filled in); the walker hands it each line it can tell, or the one name that
   * stands for them.
   */
  job?: (input: string) => string;
  /** The file its input lines come from (`-a FILE`, `--arg-file=FILE` however abbreviated). */
  argFile?: string;
}

/** Options that take the next word as their value (or glued: `-j4`, `--jobs=4`). */
const VALUED = new Set([
  "-j", "--jobs", "-P", "--max-procs", "-S", "--sshlogin", "--sshloginfile", "--slf", "--joblog", "--jl", "--delay", "--timeout", "-a", "--arg-file",
  "-d", "--delimiter", "-n", "--max-args", "-N", "--max-replace-args", "-L", "--max-lines", "-s", "--max-chars", "-E", "-C", "--colsep", "--tmpdir",
  "--tempdir", "--workdir", "--wd", "--results", "--res", "--halt", "--halt-on-error", "--memfree", "--memsuspend", "--load", "--retries", "--basefile",
  "--bf", "--transferfile", "--tf", "--return", "--trc", "--tag-string", "--tagstring", "--ctagstring", "--nice", "--block", "--block-size", "--blocksize",
  "--arg-sep", "--argsep", "--arg-file-sep", "--argfilesep", "--env", "--rpl", "--header", "--trim", "--recstart", "--recend", "--termseq", "--limit",
  "--group-by", "--filter", "--match", "--compress-program", "--decompress-program", "--ssh", "--sshdelay", "--semaphorename", "--id",
  "--semaphoretimeout", "--st", "--sqlmaster", "--sqlandworker", "--sqlworker", "-J", "--profile", "--minversion", "--seqreplace", "--slotreplace",
  "--extensionreplace", "--er", "--basenamereplace", "--bnr", "--dirnamereplace", "--dnr", "--basenameextensionreplace", "--bner", "--hostgroups", "--hgrp",
  "-I", "--shebang-wrap", "--eof", "--template", "--tmux-length", "--max-line-length-allowed", "--load-average",
]);

/** Options that take no value. */
const FLAGS = new Set([
  "-0", "--null", "-k", "--keep-order", "-q", "--quote", "-u", "--ungroup", "--lb", "--line-buffer", "--linebuffer", "--tag", "--ctag", "--bar", "--eta",
  "--progress", "-v", "--verbose", "-t", "--dry-run", "--dryrun", "-X", "-m", "--xargs", "-r", "--no-run-if-empty", "--will-cite", "--citation",
  "--pipe", "--spreadstdin", "--pipepart", "--group", "-g", "--keep", "--shuf", "--fg", "--bg", "--nonall", "--onall", "--plus", "--no-notice", "--noswap",
  "--files", "--files0", "--resume", "--resume-failed", "--retry-failed", "--silent", "--tty", "--tmux", "--tmuxpane", "--roundrobin", "--round-robin",
  "--shellquote", "--compress", "--cleanup", "--transfer", "--gnu", "--tollef", "--skip-first-line", "--regexp", "--cat", "--fifo", "--csv", "--embed",
  "--filter-hosts", "--number-of-cpus", "--number-of-cores", "--number-of-threads", "--number-of-sockets", "--version", "--help", "-h", "--semaphore",
  "--wait", "--open-tty", "-o", "--record-env", "--color", "--colour", "--color-failed", "-M", "--controlmaster", "--line-buffered", "--latest-line",
  "--ll", "--shebang", "--xapply", "--joblog-append",
]);

/** Short options that take a value, glued or as the next word. */
const SHORT_VALUED = "jPSnNLsCdaEIJ";

/** Short options whose value is only ever glued (`-iR`, `-eEOF`, `-l2`, `-x`). */
const SHORT_OPTIONAL = "iel";

/** Replacement strings: `{}`, `{.}`, `{/}`, `{//}`, `{/.}`, their numbered forms (`{2.}`), the job and slot (`{#}`, `{%}`) and Perl ones (`{= … =}`). */
const REPLACEMENT = /\{=(.*?)=\}|\{\d*(?:\.|\/|\/\/|\/\.|#|%)?\}/;
/** With `--plus`, any other word in braces may be one (`{+/}`, `{..}`, `{:-x}`). */
const PLUS_REPLACEMENT = /\{[^{}\s]+\}/;

/** A value built at run time: what Perl makes of an input, or one of inputs past those read. */
const AT_RUN_TIME = '"$(parallel)"';

/** What a replacement string of `kind` makes of `input`, as GNU parallel fills it in; undefined when built at run time. */
function valueOf(kind: string | undefined, input: string): string | undefined {
  if (kind === "#" || kind === "%") return "1";
  if (kind === undefined || /^\$\(/.test(input)) return undefined;
  const base = input.replace(/^.*\//s, "");
  const listed = LISTED_IN_WORD.exec(input);
  // A name a listing prints may be any name there: its folder is still there, its base name any name (at no folder),
  // and with its extension taken off it no longer matches the listing's globs.
  if (listed !== null) return kind === "/" ? listed[0] : kind === "/." ? unmarked(listed[0]) : kind === "." ? unmarked(input) : input;
  if (kind === ".") return input.replace(/\.[^/.]+$/, "");
  if (kind === "/") return base;
  if (kind === "//") return input.includes("/") ? input.replace(/\/[^/]*$/, "") || "/" : ".";
  if (kind === "/.") return base.replace(/\.[^/.]+$/, "");
  return input;
}

/** Options that name another string for a kind of replacement string (`--er R`: R is `{.}`). */
const TAG_OPTIONS: Record<string, string> = {
  "--extensionreplace": ".", "--er": ".", "--basenamereplace": "/", "--bnr": "/", "--dirnamereplace": "//", "--dnr": "//",
  "--basenameextensionreplace": "/.", "--bner": "/.", "--seqreplace": "#", "--slotreplace": "%",
};

/** Inputs placed into a line, one job each, at most; past them the input is a name built at run time. */
const MAX_JOBS = 64;

/** The kind of a replacement string (`{2/.}` is `/.`), or undefined for one that runs Perl or is `--plus`'s own. */
function kindOf(tag: string): string | undefined {
  const inner = /^\{\d*(\.|\/|\/\/|\/\.|#|%)?\}$/.exec(tag);
  return inner === null ? undefined : inner[1] ?? "";
}

/** What `parallel ARGS…` runs. */
export function parallelRun(given: readonly string[]): ParallelRun {
  let argv = [...given];
  let argSep = ":::";
  let fileSep = "::::";
  let quoted = false;
  let replace: string | undefined;
  let argFile: string | undefined;
  let colsep: string | undefined;
  // Strings other options make replacement strings of, with their kind (undefined: Perl, whose result is built at run time).
  const tags = new Map<string, string | undefined>();
  let plus = false;
  const scripts: string[] = [];
  const perl: string[] = [];
  // Where an option Tama does not know ends, read as taking a value too: the command after it.
  const otherReadings: number[] = [];
  let at = 1;
  for (; at < argv.length; at++) {
    const word = argv[at] as string;
    if (!word.startsWith("-") || word === "-" || word === argSep || word === fileSep) break;
    if (word === "--") {
      at++;
      break;
    }
    const [given, glued] = word.startsWith("--") && word.includes("=") ? [word.slice(0, word.indexOf("=")), word.slice(word.indexOf("=") + 1)] : [word, undefined];
    // Perl's Getopt::Long: `--a` is `-a`, and any start of a long option that names one option is that option.
    const name = word.startsWith("--") ? longName(given) : given;
    if (/^--[A-Za-z0-9]$/.test(name) && glued === undefined) {
      argv = [...argv.slice(0, at), `-${name.slice(2)}`, ...argv.slice(at + 1)];
      at--;
      continue;
    }
    if (word.startsWith("--")) {
      const value = VALUED.has(name) ? glued ?? argv[++at] ?? "" : glued;
      if (name === "--arg-sep" || name === "--argsep") argSep = value ?? argSep;
      else if (name === "--arg-file-sep" || name === "--argfilesep") fileSep = value ?? fileSep;
      else if (name === "--quote") quoted = true;
      else if (name === "--plus") plus = true;
      else if (name === "--arg-file") argFile = value;
      else if (name === "--colsep") colsep = value;
      else if (name === "--replace") replace = glued ?? "{}";
      // `--rpl 'TAG perl'`: a replacement string that runs Perl.
      else if (name === "--rpl" && value !== undefined) {
        perl.push(value.replace(/^\S+\s*/, ""));
        tags.set(value.split(/\s/)[0] ?? "", undefined);
      } else if (TAG_OPTIONS[name] !== undefined && value !== undefined) tags.set(value, TAG_OPTIONS[name]);
      else if (!VALUED.has(name) && !FLAGS.has(name) && glued === undefined) otherReadings.push(at + 1);
      continue;
    }
    // Short options run together (`-kj4`, `-qI {}`): a letter that takes a value ends the cluster.
    for (let j = 1; j < word.length; j++) {
      const letter = word[j] as string;
      const rest = word.slice(j + 1);
      if (letter === "q") quoted = true;
      if (SHORT_VALUED.includes(letter)) {
        const value = rest !== "" ? rest : argv[++at] ?? "";
        if (letter === "I") replace = value;
        if (letter === "a") argFile = value;
        if (letter === "C") colsep = value;
        break;
      }
      if (SHORT_OPTIONAL.includes(letter)) {
        if (letter === "i") replace = rest !== "" ? rest : "{}";
        break;
      }
      if (!FLAGS.has(`-${letter}`)) {
        otherReadings.push(at + 1);
        break;
      }
    }
  }
  const isSep = (word: string): boolean => word === argSep || word === fileSep || word === `${argSep}+` || word === `${fileSep}+`;
  const sep = argv.findIndex((word, i) => i >= at && isSep(word));
  const command = argv.slice(at, sep === -1 ? undefined : sep);
  // Each `:::` (or `::::`) starts a source; parallel runs every combination of one input of each.
  const sources: string[][] = [];
  for (const word of sep === -1 ? [] : argv.slice(sep)) {
    if (isSep(word)) sources.push([]);
    else sources.at(-1)?.push(word);
  }
  const inputs = sources.flat();
  const fromLines = sep === -1 || argv[sep]?.startsWith(fileSep) === true || argFile !== undefined;
  for (const start of otherReadings) if (start < (sep === -1 ? argv.length : sep)) scripts.push(shellLine(argv.slice(start + 1, sep === -1 ? undefined : sep)));
  for (const code of perl) scripts.push(shellLine(["perl", "-e", code]));
  if (command.length === 0) {
    // `parallel ::: 'cmd a' 'cmd b'`: each input is a command; with no command and no `:::`, the lines of its stdin are.
    scripts.push(...(fromLines ? [] : inputs));
    return { argv: inputs.length > 0 && !fromLines ? [] : [...argv], scripts, xargs: false, ...(argFile !== undefined ? { argFile } : {}) };
  }
  if (replace !== undefined && replace !== "") tags.set(replace, "");
  // Literal tags first (they hold no groups), so the first group is always a Perl replacement string's code.
  const literalTags = [...tags.keys()].filter((tag) => tag !== "").map(escapeRegExp);
  const tagged = new RegExp([...literalTags, REPLACEMENT.source, ...(plus ? [PLUS_REPLACEMENT.source] : [])].join("|"), "gs");
  const replaced = (text: string): boolean => new RegExp(tagged.source, "s").test(text);
  // Plain words and no replacement string: the words run as the program and its arguments, each input after them.
  // One source and no columns: the inputs go after the words as they are; else each job is read with its own inputs.
  const plain = !command.some((word) => !quoted && /[\s;&|<>()$`\\'"*?~]/.test(word)) && !replaced(command.join(" "));
  if (plain && colsep === undefined && sources.length <= 1) {
    if (fromLines) return { argv: command, scripts, xargs: true, ...(argFile !== undefined ? { argFile } : {}) };
    return { argv: [...command, ...inputs], scripts, xargs: false };
  }
  // Perl replacement strings run their code once per input.
  for (const match of command.join(" ").matchAll(tagged)) if (match[1] !== undefined) scripts.push(shellLine(["perl", "-e", match[1]]));
  // Each replacement string filled in, quoted as parallel quotes it; Perl's and `--plus`'s are built at run time.
  // `{2}`, `{2.}`: the second input of a job (its second source's, or its second column with --colsep).
  const columns = (input: string | readonly string[]): readonly string[] =>
    typeof input !== "string" ? input : colsep === undefined || LISTED_IN_WORD.test(input) || /^\$\(/.test(input) ? [input] : input.split(columnPattern(colsep));
  const place = (tag: string, code: string | undefined, input: string | readonly string[]): string => {
    const all = columns(input);
    const n = /^\{(\d+)/.exec(tag)?.[1];
    // A column past those the walker can tell (or any, for a name standing for many): the whole input.
    const picked = n === undefined ? all.join(" ") : all[Number(n) - 1] ?? (all.length === 1 ? (all[0] as string) : "");
    const value = valueOf(tags.has(tag) ? tags.get(tag) : code !== undefined ? undefined : kindOf(tag), picked);
    return value === undefined ? AT_RUN_TIME : shellLine([value]);
  };
  // The shell reads the joined words (with -q, each word as it is), each input where a replacement string stands, else after them.
  const quotedWord = (word: string, input: string | readonly string[]): string => {
    let out = "";
    let at = 0;
    for (const match of word.matchAll(tagged)) {
      if ((match.index ?? 0) > at) out += shellLine([word.slice(at, match.index)]);
      out += place(match[0], match[1], input);
      at = (match.index ?? 0) + match[0].length;
    }
    return at < word.length || out === "" ? out + shellLine([word.slice(at)]) : out;
  };
  const placesInput = replaced(command.join(" "));
  const job = (input: string | readonly string[]): string => {
    const line = quoted ? command.map((word) => quotedWord(word, input)).join(" ") : command.join(" ").replace(tagged, (whole: string, code: string | undefined) => place(whole, code, input));
    const words = columns(input);
    return placesInput ? line : `${line} ${words.map((word) => (/^\$\(/.test(word) ? AT_RUN_TIME : shellLine([word]))).join(" ")}`;
  };
  if (fromLines) return { argv: [], scripts, xargs: true, job, ...(argFile !== undefined ? { argFile } : {}) };
  // Every combination of one input from each source, as many as are read; past them, one job built at run time.
  let combinations: string[][] = [[]];
  for (const source of sources) combinations = combinations.flatMap((combination) => source.slice(0, MAX_JOBS).map((input) => [...combination, input])).slice(0, MAX_JOBS + 1);
  scripts.push(...combinations.slice(0, MAX_JOBS).map((combination) => job(combination.length === 1 ? (combination[0] as string) : combination)));
  if (combinations.length > MAX_JOBS || sources.some((source) => source.length > MAX_JOBS)) scripts.push(job("$(parallel)"));
  return { argv: [], scripts, xargs: false };
}

/** `--colsep`'s value is a regular expression (Perl's; read as JavaScript's, a literal where it is not one). */
function columnPattern(colsep: string): RegExp | string {
  try {
    return new RegExp(colsep);
  } catch {
    return colsep;
  }
}

/** The long option `given` names: itself, or the one known option it is the start of (Getopt::Long's abbreviations). */
function longName(given: string): string {
  if (VALUED.has(given) || FLAGS.has(given) || given.length <= 3) return given;
  const starting = [...VALUED, ...FLAGS].filter((name) => name.startsWith("--") && name.startsWith(given));
  return starting.length === 1 ? (starting[0] as string) : given;
}
