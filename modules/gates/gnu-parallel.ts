// GNU parallel: what it runs. It joins its command's words with spaces and hands the line
// to a shell (so `parallel 'truncate -s0'` and `parallel echo x '>' f` are shell lines; `-q`
// runs the words as they are), puts each input where a replacement string stands (`{}`,
// `{.}`, `{= perl =}`) or after the line, and takes its inputs from `:::` words, `::::`
// files, `-a` files or its stdin. Options that take a value are skipped with it; one it does
// not know is read both ways, so a value is never taken for the command unread.
import { shellLine } from "../tools/code-reading.ts";

export interface ParallelRun {
  /** The command it runs once per input, or `sh -c LINE parallel` when a shell reads the line; empty when its inputs are the commands. */
  argv: string[];
  /** Command lines it also runs, read as scripts: `:::` words that are commands, each job of a line, Perl its replacement strings run. */
  scripts: string[];
  /** The command is handed the lines of its stdin or of a `::::` or `-a` file, as xargs hands them. */
  xargs: boolean;
  /** Each name handed on goes after `argv` (the line already reads it as `$1`), whatever replacement options say. */
  appends: boolean;
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
const REPLACEMENT = /\{=(.*?)=\}|\{(\d+)?(\.|\/|\/\/|\/\.)?\}|\{[#%]\}/gs;

/** What `parallel ARGS…` runs. */
export function parallelRun(argv: readonly string[]): ParallelRun {
  let argSep = ":::";
  let fileSep = "::::";
  let quoted = false;
  let replace: string | undefined;
  let argFile = false;
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
    const [name, glued] = word.startsWith("--") && word.includes("=") ? [word.slice(0, word.indexOf("=")), word.slice(word.indexOf("=") + 1)] : [word, undefined];
    if (word.startsWith("--")) {
      const value = VALUED.has(name) ? glued ?? argv[++at] ?? "" : glued;
      if (name === "--arg-sep" || name === "--argsep") argSep = value ?? argSep;
      else if (name === "--arg-file-sep" || name === "--argfilesep") fileSep = value ?? fileSep;
      else if (name === "--quote") quoted = true;
      else if (name === "--arg-file") argFile = true;
      else if (name === "--replace") replace = glued ?? "{}";
      // `--rpl 'TAG perl'`: a replacement string that runs Perl.
      else if (name === "--rpl" && value !== undefined) perl.push(value.replace(/^\S+\s*/, ""));
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
        if (letter === "a") argFile = true;
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
  const sep = argv.findIndex((word, i) => i >= at && (word === argSep || word === fileSep || word === `${argSep}+` || word === `${fileSep}+`));
  const command = argv.slice(at, sep === -1 ? undefined : sep);
  const inputs = sep === -1 ? [] : argv.slice(sep + 1).filter((word) => word !== argSep && word !== fileSep && word !== `${argSep}+` && word !== `${fileSep}+`);
  const fromLines = sep === -1 || argv[sep]?.startsWith(fileSep) === true || argFile;
  for (const start of otherReadings) if (start < (sep === -1 ? argv.length : sep)) scripts.push(shellLine(argv.slice(start + 1, sep === -1 ? undefined : sep)));
  for (const code of perl) scripts.push(shellLine(["perl", "-e", code]));
  if (command.length === 0) {
    // `parallel ::: 'cmd a' 'cmd b'`: each input is a command; with no command and no `:::`, the lines of its stdin are.
    scripts.push(...(fromLines ? [] : inputs));
    return { argv: inputs.length > 0 && !fromLines ? [] : [...argv], scripts, xargs: false, appends: false };
  }
  const replaced = (text: string): boolean => (replace !== undefined && replace !== "" && text.includes(replace)) || new RegExp(REPLACEMENT.source, "s").test(text);
  // `-q`, or plain words and no replacement string: the words run as the program and its arguments, each input after them.
  if (quoted || !command.some((word) => /[\s;&|<>()$`\\'"*?~]/.test(word) || replaced(word))) {
    if (fromLines) return { argv: command, scripts, xargs: true, appends: false };
    return { argv: [...command, ...inputs], scripts, xargs: false, appends: false };
  }
  // The shell reads the joined words; each input stands where a replacement string does, else after the line.
  let line = command.join(" ");
  if (replace !== undefined && replace !== "") line = line.split(replace).join('"$1"');
  line = line.replace(REPLACEMENT, (_whole, code: string | undefined, _n, _kind, offset: number, all: string) => {
    if (code !== undefined) scripts.push(shellLine(["perl", "-e", code]));
    return all[offset + 1] === "#" || all[offset + 1] === "%" ? "1" : '"$1"';
  });
  const script = line.includes('"$1"') ? line : `${line} "$@"`;
  if (fromLines) return { argv: ["sh", "-c", script, "parallel"], scripts, xargs: true, appends: true };
  for (const input of inputs.slice(0, 16)) scripts.push(shellLine(["sh", "-c", script, "parallel", input]));
  return { argv: [], scripts, xargs: false, appends: false };
}
