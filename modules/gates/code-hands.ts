// What code a command runs hands a process, filled in with what the command gives the
// code. Code reading (tools/code-reading.ts) writes a computed part of a command as a
// placeholder: `os.system(sys.argv[1])` is `${_}`, `["git", "commit", sys.argv[1]]` is
// `git commit "$_"`. The code can only have built it from what it was given: its
// arguments, its stdin, the environment the line set, the files it names. So each
// placeholder is read as each of those, and code whose command is wholly computed
// (`os.system(line)`, Perl's `system $_`) runs them as command lines themselves.
import type { CodeLanguage } from "../tools/declaration.ts";
import { COMPUTED_TEXT, COMPUTED_WORD, hasComputed, readCode, shellLine } from "../tools/code-reading.ts";
import { programName, isDynamic } from "./shell-words.ts";

/**
 * Code a command runs. A file's code (`fromFile`) is read for what it hands a process
 * and writes by name, not for every literal: a program on disk is the project's as
 * often as the agent's, and its strings are messages and data.
 */
export interface RunCode {
  code: string;
  language: CodeLanguage;
  fromFile?: boolean;
}

/** Words given to code, at most: more are read as one line, never one by one. */
export const MAX_GIVEN = 64;
/** The code's own literals a computed part is filled with, at most. */
const MAX_OWN_LITERALS = 32;
/** Files the code names whose text it may run, at most. */
const MAX_NAMED_FILES = 8;

/** Code that reads its stdin: Python's sys.stdin, input() and fd 0, Perl's <STDIN> and <>, Ruby's gets, Node's fd 0, Lua's io.read, PHP's php://stdin. */
const READS_STDIN = /\bstdin\b|<>|<<>>|\binput\s*\(|\bfileinput\b|readFileSync\(\s*0\b|\bopen\(\s*0\b|\bread\(\s*0\b|\/dev\/(?:stdin|fd\/0)|\/proc\/self\/fd\/0|\bgets\b|\bARGF\b|\breadline\b|\breadlines\b|\bio\.(?:read|lines)\b/i;
/** Code that reads the environment. */
const READS_ENV = /\benviron\b|\bgetenv\b|\bENV\b|process\.env|\bENVIRON\b|Deno\.env|\$_ENV|\$ENV\{/;
/** Code that runs text as code of its own language (`exec(sys.argv[1])`, `eval`, `new Function`). */
const RUNS_AS_CODE = /\b(?:exec|eval)\s*[(\s$]|\bnew\s+Function\b|\bFunction\s*\(/;
/** Options of an interpreter that name its code or script file. */
const SCRIPT_FROM = new Set(["-", "/dev/stdin", "/dev/fd/0"]);

export interface CodeHands {
  /** Command lines the code may run besides its own: what it is given, when its command is wholly computed. */
  lines: string[];
  /** The code's command lines with each computed part filled in with what it is given (left as they are when nothing is). */
  filled(lines: readonly string[]): string[];
  /** The code runs commands it builds from its stdin: fed text no reader can tell runs unread. */
  runsInput: boolean;
  /** More words are given than are read one by one: the code may run any of them. */
  tooMany: boolean;
}

const NONE: CodeHands = { lines: [], filled: (lines) => [...lines], runsInput: false, tooMany: false };

export function codeHands(given: {
  program: string | undefined;
  argv: readonly string[];
  code: readonly RunCode[];
  /** The script files read (absolute): the word naming one is the code's, not given to it. */
  scriptFiles: readonly string[];
  /** What is fed to the command's stdin, where the walker can tell. */
  stdin: readonly string[];
  env: ReadonlyMap<string, string>;
  textAt: (word: string) => string | undefined;
}): CodeHands {
  const { program, argv, code, scriptFiles, stdin, env, textAt } = given;
  if (code.length === 0) return NONE;
  const readings = code.map((c) => readCode(c.code, c.language));
  const computing = readings.some((reading) => reading.runsComputed);
  const filling = readings.some((reading) => reading.commands.some(hasComputed) || reading.literals.some(hasComputed));
  const asCode = code.some((c) => RUNS_AS_CODE.test(c.code));
  if (!computing && !filling && !asCode) return NONE;
  const { words, codeAt } = givenWords(argv, code, scriptFiles);
  const readsStdin = (program === "perl" || program === "ruby") && argv.slice(1).some((word) => /^-[A-Za-z]*[np][A-Za-z]*$/.test(word)) ? true : code.some((c) => READS_STDIN.test(c.code));
  const fed = readsStdin ? stdin.filter((text) => !code.some((c) => c.code === text)).map((text) => text.replace(/\n$/, "")) : [];
  const splits = code.some((c) => /\bsplit\b/.test(c.code));
  // What the line sets in the code's environment (not what this process has).
  const envValues = code.some((c) => READS_ENV.test(c.code)) ? [...env].filter(([name, value]) => process.env[name] !== value).map(([, value]) => value) : [];
  // Files the code names that it may read its command from (`os.system(open("c").read())`).
  const named = computing || filling
    ? readings
        .flatMap((reading) => reading.literals)
        .filter((literal) => /^[\w./~-]{1,256}$/.test(literal))
        .slice(0, 32)
        .flatMap((literal) => textAt(literal) ?? [])
        .slice(0, MAX_NAMED_FILES)
    : [];
  // The code's own literals too: a value it assigns and uses later (`x = "-n"; os.system("git commit " + x)`).
  const own = readings.flatMap((reading) => reading.literals).filter((literal) => !hasComputed(literal) && literal.length > 0 && literal.length <= 4096).slice(0, MAX_OWN_LITERALS);
  const texts = [...new Set([...words, ...(words.length > 1 ? [words.join(" "), words.join("")] : []), ...fed, ...envValues, ...named, ...own])];
  // A computed word is one of them as one word, or several: the given words spread (`*sys.argv[1:]`), the fed text split.
  const spreads: [words: string, text: string][] = [
    ...(words.length > 1 ? [[shellLine(words), words.join(" ")] as [string, string]] : []),
    ...(splits ? fed.map((text): [string, string] => [shellLine(text.split(/\s+/).filter((word) => word.length > 0)), text]) : []),
    // The code's own lists, spread (`a = ["commit", "-n"]; run(["git"] + a)`).
    ...readings.flatMap((reading) => reading.lists.filter((line) => !hasComputed(line))).slice(0, MAX_OWN_LITERALS).map((line): [string, string] => [line, line]),
  ];
  const variants: [words: string, text: string][] = [...texts.map((text): [string, string] => [shellLine([text]), text]), ...spreads];
  // Code handed nothing (no words, stdin or environment) builds its computed words from its own constants,
  // which may spell -n (`["git", "commit", chr(45) + "n"]`): a git command keeps them as they are too, and the
  // git gate reads a word built at run time as one that may be --no-verify.
  const fromConstants = words.length === 0 && fed.length === 0 && envValues.length === 0;
  const filled = (lines: readonly string[]): string[] =>
    variants.length === 0
      ? [...lines]
      : lines.flatMap((line) => (hasComputed(line) ? [...new Set([...variants.map(([word, text]) => fill(line, word, text)), ...(fromConstants && GIT_LINE.test(line) ? [line] : [])])] : [line]));
  // Text run as code of the code's own language (given, or its own literals: `exec("import os; …")`): read as that code.
  const asCodeLines = asCode
    ? code.flatMap((c) =>
        texts.flatMap((text) => {
          const reading = readCode(text, c.language);
          return [...reading.commands, ...(reading.startsProcesses ? reading.literals : [])];
        }),
      )
    : [];
  return {
    lines: [...(computing ? texts : []), ...filled(asCodeLines)],
    filled,
    runsInput: computing && readsStdin,
    tooMany: computing && codeAt !== -1 && argv.length - codeAt - 1 > MAX_GIVEN,
  };
}

/**
 * The words a command gives its code, after the code (`python3 -c CODE a b`, `node
 * --eval=CODE a`, `python3 f.py a`, `python3 - a <<< CODE`), MAX_GIVEN at most; `codeAt`:
 * where the code (or its file) stands in argv, -1 when nowhere.
 */
export function givenWords(argv: readonly string[], code: readonly RunCode[], scriptFiles: readonly string[]): { words: string[]; codeAt: number } {
  const codeAt = argv.findIndex(
    (word, i) => i > 0 && (code.some((c) => c.code === word || (word.startsWith("-") && word.endsWith(c.code))) || scriptFiles.some((file) => programName(file) === programName(word)) || SCRIPT_FROM.has(word) || word.startsWith("<(")),
  );
  let words = codeAt === -1 ? [] : argv.slice(codeAt + 1, codeAt + 1 + MAX_GIVEN);
  // Node, Perl and Ruby take `--` as the end of their own options; Python hands it on.
  if (words[0] === "--" && code[0]?.language !== "python") words = words.slice(1);
  return { words, codeAt };
}

/** A line that runs git by name. */
const GIT_LINE = /^\s*(?:\S*\/)?git(?:\s|$)/;

/** A command line with its computed words read as `word` and its computed text (`${_}`, an f-string's `$_`) as `text`. */
const fill = (line: string, word: string, text: string): string =>
  line
    .split(COMPUTED_WORD)
    .join(word)
    .split(COMPUTED_TEXT)
    .join(text)
    .replace(/\$_(?!\w)/g, () => text);

/** Modules code imports from beside it (and PYTHONPATH), at most, those modules' own imports included: each is read once. */
const MAX_IMPORTED = 8;
const MAX_IMPORTED_BYTES = 64 * 1024;
const PY_IMPORT = /^[ \t]*(?:from[ \t]+([\w.]+)[ \t]+import\b|import[ \t]+([\w.]+(?:[ \t]+as[ \t]+\w+)?(?:[ \t]*,[ \t]*[\w.]+(?:[ \t]+as[ \t]+\w+)?)*))/gm;
const JS_IMPORT = /\brequire\(\s*["'`](\.{1,2}\/[^"'`]+)["'`]\s*\)|\bimport\s*(?:[^"'`;]*?\bfrom\s*)?["'`](\.{1,2}\/[^"'`]+)["'`]|\bimport\(\s*["'`](\.{1,2}\/[^"'`]+)["'`]/g;

/**
 * The project's own modules code imports (`import mod`, `from pkg import x`,
 * `require("./x")`): Python finds one beside the code before the library's, so an agent's
 * `mod.py` runs as part of `python3 -c 'import mod'`. Read as that code's files are.
 */
export function importedCode(code: readonly RunCode[], textAt: (word: string) => string | undefined, env: ReadonlyMap<string, string> = new Map()): RunCode[] {
  const pythonPath = ["", ...(env.get("PYTHONPATH") ?? "").split(":").filter((dir) => dir.length > 0 && !isDynamic(dir)).map((dir) => `${dir}/`)];
  const found: RunCode[] = [];
  const seen = new Set<string>();
  const take = (candidates: readonly string[], language: CodeLanguage): void => {
    for (const candidate of candidates) {
      if (seen.has(candidate) || found.length >= MAX_IMPORTED) return;
      const text = textAt(candidate);
      if (text === undefined) continue;
      seen.add(candidate);
      // Larger code runs unread, as a code file that large does (shell-walk.ts MAX_CODE_FILE).
      if (text.length > MAX_IMPORTED_BYTES) return;
      found.push({ code: text, language, fromFile: true });
      return;
    }
  };
  // The modules found import in turn: read breadth first, within the bound.
  const queue = [...code];
  for (let at = 0; at < queue.length; at++) {
    const c = queue[at] as RunCode;
    const before = found.length;
    if (c.language === "python") {
      for (const match of c.code.matchAll(PY_IMPORT)) {
        const names = (match[1] ?? match[2] ?? "").split(",").map((name) => name.trim().split(/\s+/)[0] ?? "");
        for (const name of names.filter((n) => n.length > 0)) {
          const base = name.replace(/\./g, "/");
          take(pythonPath.flatMap((dir) => [`${dir}${base}.py`, `${dir}${base}/__init__.py`]), "python");
        }
      }
    } else if (c.language === "javascript") {
      for (const match of c.code.matchAll(JS_IMPORT)) {
        const word = (match[1] ?? match[2] ?? match[3]) as string;
        take([word, `${word}.js`, `${word}.mjs`, `${word}.cjs`, `${word}.ts`, `${word}/index.js`], "javascript");
      }
    }
    queue.push(...found.slice(before));
  }
  return found;
}
