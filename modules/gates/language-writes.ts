// Files a program writes through commands of its own language: awk's `print > "f"`,
// sed's `w f`, vim's `:w f` (and the files it opens for a later bare `:w`), ed's `w`,
// sqlite3's `.output` and `ATTACH`, gdb's `dump` and log file, psql's `\o`, mysql's
// `tee`, Tcl's `open f w`, Emacs Lisp's `write-region`. The texts are the ones
// command-runners.ts finds (options, operands, stdin, files the walker knows); each is
// read here for its writes, as shell-writers.ts reads a command's argv for its own.
// A reader over-approximates: a word that only looks like such a command in a text
// counts as a target, which costs a rephrasing, never a write unread.
import { readCode } from "../tools/code-reading.ts";
import { languageOf, sedSubstitutions, type FileText, type LanguageTexts } from "./command-runners.ts";
import type { WriteTarget } from "./shell-writers.ts";

/**
 * Texts longer than this are read for their first part only (a gate answers in
 * milliseconds). Every pattern below is anchored or bounded (`{0,4096}`, no lazy scan
 * to the end of a text), so a crafted text costs time in proportion to its length.
 */
const MAX_TEXT = 65_536;
/** A quoted file name in a pattern: at most this long. */
const NAME = "{1,4096}";

type Reader = (language: LanguageTexts) => WriteTarget[];

/** Each file once: a text that writes one file ten thousand times is checked once. */
const writes = (words: Iterable<string>, effect = "writes"): WriteTarget[] =>
  [...new Set(words)].filter((word) => word.length > 0).map((word) => ({ word, effect, reachesBelow: false }));

/** Each line of each text (and, where the language separates commands so, each part of a line). */
function lines(texts: readonly string[], separator: RegExp = /\r?\n/): string[] {
  return texts.flatMap((text) => text.slice(0, MAX_TEXT).split(separator));
}

/** The first capture of each match of `pattern` over `text`. */
function captures(text: string, pattern: RegExp): string[] {
  return [...text.slice(0, MAX_TEXT).matchAll(pattern)].map((match) => match.slice(1).find((group) => group !== undefined) ?? "");
}

// awk: `print … > "file"`, `printf … >> "file"`; gawk's `-i inplace` edits its input files.
const AWK_PRINT = /\bprintf?\b/;
/** A print's redirect: to a string, a parenthesized string, a variable, or `ENVIRON["X"]`. */
const AWK_REDIRECT = new RegExp(`>>?\\s*(?:"([^"\\n]${NAME})"|\\(\\s*"([^"\\n]${NAME})"\\s*\\)|ENVIRON\\s*\\[\\s*"(\\w+)"\\s*\\]|([A-Za-z_]\\w*))`);
const AWK_ASSIGNMENT = new RegExp(`(?:^|[;{\\s])([A-Za-z_]\\w*)\\s*=\\s*"([^"\\n]${NAME})"`, "g");
/** awk's own words a redirect may be followed by that name no file. */
const AWK_KEYWORDS = new Set(["getline", "in", "BEGIN", "END", "NR", "NF", "FS", "OFS", "RS", "ORS", "FILENAME"]);

/**
 * Each awk statement's redirect of a print (statements split at `;`, braces and lines,
 * each read once): a literal name, or a variable the program or `-v` sets to one. A
 * variable set some other way (`getline`, computed, the environment) names a file
 * built at run time (`$awk` in the target, which the write gates refuse as such).
 */
function awkRedirects(text: string, assigned: ReadonlyMap<string, string>): string[] {
  const vars = new Map(assigned);
  for (const match of text.slice(0, MAX_TEXT).matchAll(AWK_ASSIGNMENT)) vars.set(match[1] as string, match[2] as string);
  const targets: string[] = [];
  for (const statement of text.slice(0, MAX_TEXT).split(/[;{}\n]/)) {
    const at = statement.search(AWK_PRINT);
    if (at === -1) continue;
    const match = AWK_REDIRECT.exec(statement.slice(at));
    if (match === null) continue;
    const [, literal, parenthesized, environ, variable] = match;
    if (literal !== undefined || parenthesized !== undefined) targets.push((literal ?? parenthesized) as string);
    else if (environ !== undefined) targets.push(`\${${environ}}`);
    else if (variable !== undefined && !AWK_KEYWORDS.has(variable)) targets.push(vars.get(variable) ?? `\${awk_${variable}}`);
  }
  return targets;
}
const AWK_INPLACE = /^(?:-i|--include)(?:=|$)|^-iinplace/;

function awkWrites(language: LanguageTexts, argv: readonly string[]): WriteTarget[] {
  // `-v f=/etc/x` (and `-vf=…`): a variable the program may print to.
  const assigned = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const value = argv[i] === "-v" || argv[i] === "--assign" ? argv[++i] : /^-v./.test(argv[i] as string) ? (argv[i] as string).slice(2) : undefined;
    const eq = value?.indexOf("=") ?? -1;
    if (value !== undefined && eq > 0) assigned.set(value.slice(0, eq), value.slice(eq + 1));
  }
  const targets = writes(language.texts.flatMap((text) => awkRedirects(text, assigned)));
  const inplace = argv.some((arg, i) => (AWK_INPLACE.test(arg) && /inplace/.test(arg)) || ((arg === "-i" || arg === "--include") && /^inplace(\.awk)?$/.test(argv[i + 1] ?? "")));
  if (inplace) {
    // The operands after the program (the first operand, unless -e or -f gave it).
    const files = language.texts[0] === language.operands[0] ? language.operands.slice(1) : language.operands;
    targets.push(...writes(files.filter((file) => !file.includes("=")), "edits in place"));
  }
  return targets;
}

// sed: `w FILE` and `W FILE` (after an address, `!`), and the `w FILE` flag of `s`; the
// file name is the rest of the line, `;` included, as GNU sed reads it.
const SED_W = /(?:^|[;\n{}])[ \t]*(?:(?:\d+(?:~\d+)?|\$|\/(?:[^/\\\n]|\\.)*\/[IM]*)(?:[ \t]*,[ \t]*(?:[~+]?\d+|\$|\/(?:[^/\\\n]|\\.)*\/[IM]*))?[ \t]*)?(?:![ \t]*)?[wW][ \t]+([^\n]+)/g;

function sedWrites(language: LanguageTexts): WriteTarget[] {
  const targets: string[] = [];
  for (const script of language.texts) {
    targets.push(...captures(script, SED_W));
    // `s/a/b/w FILE`: the `w` flag and the file after it (`s/a/b/wFILE` too).
    for (const { flags, rest } of sedSubstitutions(script.slice(0, MAX_TEXT))) {
      if (flags.includes("w")) targets.push(`${flags.slice(flags.indexOf("w") + 1)}${rest}`);
    }
  }
  return writes(targets.map((target) => target.trim()));
}

// vim and ex: a write names its file; a command that opens a file makes it the one a
// later bare `:w` writes. `|` separates commands on a line.
const VIM_VERBS = [
  // writes
  "w", "wr", "wri", "writ", "write", "wq", "wqa", "wqall", "x", "xi", "xit", "exi", "exit", "xa", "xall", "wa", "wall",
  "sav", "save", "savea", "saveas", "up", "upd", "upda", "updat", "update", "wn", "wne", "wnex", "wnext", "wN", "wNext", "wp", "wprevious",
  "mks", "mkse", "mkses", "mksess", "mksessi", "mksessio", "mksession", "mkvie", "mkview", "mkv", "mkvi", "mkvim", "mkvimr", "mkvimrc", "mk", "mke", "mkexrc",
  "wv", "wvi", "wvim", "wvimi", "wvimin", "wviminf", "wviminfo", "wsh", "wsha", "wshad", "wshada",
  // files that a later bare write changes
  "e", "ed", "edi", "edit", "sp", "spl", "spli", "split", "new", "vne", "vnew", "vs", "vsp", "vspl", "vspli", "vsplit",
  "tabe", "tabed", "tabedi", "tabedit", "tabnew", "bad", "badd", "ar", "arg", "args", "arga", "argad", "argadd", "n", "ne", "nex", "next",
  "f", "fi", "fil", "file", "fin", "find", "vi", "vis", "visu", "visua", "visual", "o", "op", "ope", "open", "sv", "svi", "svie", "sview",
];
const VIM_COMMAND = new RegExp(String.raw`^(?:${VIM_VERBS.join("|")})!?(?:\s*>>)?\s+((?:\+\+\S+\s+)*)(\S(?:[^\s\\]|\\.)*)`);
const VIM_REDIR = /^redi(?:r)?!?\s*>>?\s*(\S+)/;
const VIM_WRITEFILE = new RegExp(`\\bwritefile\\s*\\([^,)]{0,4096},\\s*["']([^"'\\n]${NAME})["']`);
/** A range before a command: line numbers, marks, patterns, `%`. */
const VIM_RANGE = /^(?:[\d.$%,;+\-\s]|'[a-zA-Z<>]|\/(?:[^/\\]|\\.)*\/|\?(?:[^?\\]|\\.)*\?)*/;

function vimWrites(language: LanguageTexts): WriteTarget[] {
  const targets: string[] = [];
  for (const raw of lines(language.texts, /\r?\n|\|/)) {
    const piece = raw.trim().replace(/^(?:[:\s]+|(?:silent!?|sil!?|exe(?:cute)?|keepalt|noautocmd|noa|keepj(?:umps)?|lockm(?:arks)?|call)\s+)+/, "").replace(VIM_RANGE, "");
    // `exe "w f"`: the string executed is the command; `call writefile([…], "f")`, Lua's `vim.fn.writefile`.
    const executed = /^"((?:[^"\\]|\\.)*)"$|^'([^']*)'$/.exec(piece);
    const command = executed ? (executed[1] ?? executed[2] ?? "").trim() : piece;
    const writefile = VIM_WRITEFILE.exec(command)?.[1];
    if (writefile !== undefined) targets.push(writefile);
    // `py3 open("f", "w")`, `lua io.open(…)`: embedded code, read for what it writes.
    const embedded = /^(py3?|python3?|pyx|lua|perl|ruby)\s+(.*)$/s.exec(command);
    if (embedded) targets.push(...readCode(embedded[2] as string, embedded[1]?.startsWith("py") ? "python" : "unknown").writes.map((w) => w.path));
    const redir = VIM_REDIR.exec(command);
    if (redir) {
      targets.push(redir[1] as string);
      continue;
    }
    const file = VIM_COMMAND.exec(command)?.[2];
    // `:w !cmd` pipes to a command (read as one by command-runners.ts), not a file.
    if (file !== undefined && !file.startsWith("!")) targets.push(file.replace(/\\(.)/g, "$1"));
  }
  return writes(targets, "edits");
}

// ed: `w FILE`, `W FILE`, `wq FILE`, and `e`/`E`/`f FILE`, which a later bare `w` writes;
// the lines an `a`, `i` or `c` command adds (up to a lone `.`) are text, not commands.
/** An ed line's command after its address (`1,$w f` → `w f`), scanned once: numbers, `.`, `$`, marks, `/re/`, `?re?`, offsets, separators. */
function edCommand(line: string): string {
  let i = 0;
  while (i < line.length) {
    const ch = line[i] as string;
    if (/[\d.$,;%+\-^ \t]/.test(ch)) i++;
    else if (ch === "'" && i + 1 < line.length) i += 2;
    else if (ch === "/" || ch === "?") {
      // A pattern address runs to the same delimiter unescaped.
      let j = i + 1;
      while (j < line.length && line[j] !== ch) j += line[j] === "\\" ? 2 : 1;
      i = j + 1;
    } else break;
  }
  return line.slice(i);
}
const ED_FILE = /^(?:wq|w|W|e|E|f)\s+(\S.*)$/;
const ED_TEXT = /^[aic]\s*$/;

function edWrites(language: LanguageTexts): WriteTarget[] {
  const targets: string[] = [];
  let inText = false;
  for (const line of lines(language.texts)) {
    if (inText) {
      inText = line !== ".";
      continue;
    }
    const command = edCommand(line);
    if (ED_TEXT.test(command)) {
      inText = true;
      continue;
    }
    const file = ED_FILE.exec(command)?.[1]?.trim();
    if (file !== undefined && !file.startsWith("!")) targets.push(file);
  }
  // ed's own file operand is written by a bare `w` (shell-writers.ts counts the editors' operands).
  return writes(targets, "edits");
}

// sqlite3: dot commands that name an output or a database file, SQL that attaches or
// vacuums into a file, and the database operand itself when the SQL changes it.
const SQLITE_DOT = /^\s*\.(?:o|ou|out|outp|outpu|output|once|save|backup|clone|log|trace|open)\b((?:\s+\S+)*)\s*$/;
const SQLITE_ATTACH = new RegExp(`\\battach\\s+(?:database\\s+)?(['"])([^'"]${NAME})\\1`, "gi");
const SQL_INTO = new RegExp(`\\binto\\s+(['"])([^'"]${NAME})\\1`, "i");
/** `writefile('f', …)`: SQLite's function that writes a file. */
const SQLITE_WRITEFILE = new RegExp(`\\bwritefile\\s*\\(\\s*(['"])([^'"]${NAME})\\1`, "gi");
const SQL_CHANGES = /\b(?:create|insert|update|delete|drop|alter|replace|vacuum|reindex|pragma\s+[\w.]+\s*=)\b|^\s*\.(?:import|restore|read|recover)\b/im;
/** Words `.output` and `.log` take that are not files. */
const SQLITE_STREAMS = new Set(["stdout", "stderr", "off", "on", "-x", "-e", "--bom", "-w", "--wrap", "--plain", "--keep"]);

function sqliteWrites(language: LanguageTexts): WriteTarget[] {
  const targets: string[] = [];
  for (const line of lines(language.texts)) {
    const dot = SQLITE_DOT.exec(line);
    if (dot) {
      // `.backup main FILE`: the file is the last word.
      const words = (dot[1] ?? "").trim().split(/\s+/).filter((word) => word.length > 0 && !SQLITE_STREAMS.has(word) && !word.startsWith("-"));
      const file = words.at(-1);
      if (file !== undefined) targets.push(file.replace(/^(['"])(.*)\1$/, "$2"));
    }
  }
  for (const text of language.texts) {
    for (const pattern of [SQLITE_ATTACH, SQLITE_WRITEFILE]) targets.push(...[...text.slice(0, MAX_TEXT).matchAll(pattern)].map((match) => match[2] as string));
    // `VACUUM INTO 'file'`, statement by statement.
    for (const statement of text.slice(0, MAX_TEXT).split(";")) {
      if (/\bvacuum\b/i.test(statement)) {
        const file = SQL_INTO.exec(statement)?.[2];
        if (file !== undefined) targets.push(file);
      }
    }
  }
  const database = language.operands[0];
  if (database !== undefined && database !== ":memory:" && language.texts.some((text) => SQL_CHANGES.test(text.slice(0, MAX_TEXT)))) targets.push(database);
  return writes(targets);
}

// gdb and lldb: commands that dump memory or values, log, save or write a core to a file.
const GDB_FILE = [
  /^\s*(?:dump|append)\s+(?:(?:binary|ihex|srec|tekhex|verilog)\s+)?(?:memory|value)\s+(\S+)/,
  /^\s*set\s+logging\s+file\s+(\S+)/,
  /^\s*set\s+history\s+filename\s+(\S+)/,
  /^\s*save\s+(?:breakpoints|gdb-index)\s+(?:-\S+\s+)*(\S+)/,
  /^\s*(?:gcore|generate-core-file)\s+(\S+)/,
  /^\s*(?:me|mem|memory)\s+(?:read|r)\b.*?(?:--outfile|-o)\s+(\S+)/,
  /^\s*log\s+enable\b.*?(?:-f|--file)\s+(\S+)/,
  /^\s*process\s+save-core\b(?:.*\s)?(\S+)\s*$/,
  /^\s*session\s+save\s+(\S+)/,
  /^\s*platform\s+get-file\s+\S+\s+(\S+)/,
];

function debuggerWrites(language: LanguageTexts): WriteTarget[] {
  return writes(lines(language.texts).flatMap((line) => GDB_FILE.map((pattern) => pattern.exec(line)?.[1]).filter((file): file is string => file !== undefined)));
}

// psql: `\o FILE`, `\g FILE`, `\w FILE`, `\s FILE`, `\copy … to FILE`, `COPY … TO 'file'`;
// mysql: `tee FILE`, `\T FILE`, `INTO OUTFILE|DUMPFILE 'file'`.
const PSQL_FILE = /(?:^|\s)\\(?:o|out|g|gx|w|write|s)\s+(?!\|)(\S+)/g;
const SQL_TO = new RegExp(`\\bto\\s+(?:program\\s+)?(?:'([^']${NAME})'|(?!program\\b|stdout\\b|pstdout\\b)([^\\s';]+))`, "i");
const SQL_OUTFILE = new RegExp(`\\binto\\s+(?:outfile|dumpfile)\\s+(['"])([^'"]${NAME})\\1`, "i");
const MYSQL_TEE = /(?:^|[;\n])\s*(?:tee|\\T)\s+([^\s;]+)/gi;

function databaseShellWrites(language: LanguageTexts): WriteTarget[] {
  const targets: string[] = [];
  for (const text of language.texts) {
    targets.push(...captures(text, PSQL_FILE), ...captures(text, MYSQL_TEE));
    // `COPY … TO 'file'`, `\copy … to file`, `SELECT … INTO OUTFILE 'file'`, statement by statement.
    for (const statement of text.slice(0, MAX_TEXT).split(/[;\n]/)) {
      if (/\bcopy\b/i.test(statement)) {
        const to = SQL_TO.exec(statement);
        if (to) targets.push((to[1] ?? to[2]) as string);
      }
      const outfile = SQL_OUTFILE.exec(statement)?.[2];
      if (outfile !== undefined) targets.push(outfile);
    }
  }
  return writes(targets.map((file) => file.replace(/^(['"])(.*)\1$/, "$2")));
}

// Tcl and expect: `open FILE w` (any mode that writes), `file copy|rename|delete|link|mkdir … TARGET`.
const TCL_OPEN = new RegExp(`\\bopen\\s+(?:"([^"]${NAME})"|\\{([^}]${NAME})\\}|([^\\s\\]"{};]${NAME}))\\s+["{]?(?:[wa]\\+?|r\\+|[^"}\\]\\n]{0,200}\\b(?:WRONLY|RDWR|CREAT|APPEND|TRUNC)\\b)`, "g");
const TCL_FILE = /\bfile\s+(?:copy|rename|delete|link|mkdir)\s+([^\]\n;]{1,4096})/g;

function tclWrites(language: LanguageTexts): WriteTarget[] {
  const targets: string[] = [];
  for (const text of language.texts) {
    targets.push(...captures(text, TCL_OPEN));
    for (const words of captures(text, TCL_FILE)) targets.push(...words.trim().split(/\s+/).filter((word) => !word.startsWith("-")).map((word) => word.replace(/^["{](.*)["}]$/, "$1")));
  }
  return writes(targets);
}

// Emacs Lisp: the string literals of a form that writes, copies, renames, links or deletes a file.
const ELISP_FORM = /\((?:write-region|append-to-file|write-file|save-buffer|find-file\S*|copy-file|rename-file|make-symbolic-link|add-name-to-file|delete-file|delete-directory|copy-directory|make-directory|set-visited-file-name|with-temp-file)\b([^()]*(?:\([^()]*\)[^()]*)*)\)/g;

function elispWrites(language: LanguageTexts): WriteTarget[] {
  const targets: string[] = [];
  for (const text of language.texts) {
    for (const form of captures(text, ELISP_FORM)) targets.push(...[...form.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((match) => match[1] as string));
  }
  return writes(targets);
}

const READERS: Readonly<Record<string, Reader>> = {
  sed: sedWrites,
  vim: vimWrites,
  ed: edWrites,
  sqlite3: sqliteWrites,
  gdb: debuggerWrites,
  lldb: debuggerWrites,
  psql: databaseShellWrites,
  mysql: databaseShellWrites,
  tclsh: tclWrites,
  expect: tclWrites,
  emacs: elispWrites,
};

/**
 * The files `program` writes through its own language in this command (argv as the
 * shell runs it, stdin its here-documents and piped text, fileText the files the
 * walker knows). Empty for every program whose language is not read here.
 */
export function languageWrites(program: string | undefined, argv: readonly string[], stdin: readonly string[], fileText: FileText): WriteTarget[] {
  const language = languageOf(program, argv, stdin, fileText);
  if (language === undefined) return [];
  if (language.language === "awk") return awkWrites(language, argv.slice(1));
  return READERS[language.language]?.(language) ?? [];
}
