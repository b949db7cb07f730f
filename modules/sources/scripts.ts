// The in-repository files a hook's command runs: what trust binds besides the hook
// sources themselves. A command is read as its author wrote it — an argv list, or
// the text after `-c` of a shell — and every word that names a file inside the
// project (relative words resolve against the project root, where project hooks run;
// $CLAUDE_PROJECT_DIR is the root) is one of its scripts. Files those scripts load in
// turn (a Python import, a sourced file) are not followed.
import { statSync } from "node:fs";
import path from "node:path";
import { isInside } from "./project.ts";

const OPERATORS = new Set([";", "&", "|", "(", ")", "<", ">", "\n"]);

/** Shell words, quotes removed; operators split words. Enough to find the paths a command names. */
export function shellWords(text: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let quote: "'" | '"' | undefined;
  const end = () => {
    if (inWord) words.push(word);
    word = "";
    inWord = false;
  };
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i] as string;
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
      else if (c === "\\" && quote === '"' && i + 1 < text.length) word += text[++i];
      else word += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === "\\" && i + 1 < text.length) {
      word += text[++i];
      inWord = true;
    } else if (c === " " || c === "\t") end();
    else if (OPERATORS.has(c)) end();
    else {
      word += c;
      inWord = true;
    }
  }
  end();
  return words;
}

function expand(word: string, root: string): string {
  return word.replace(/\$\{CLAUDE_PROJECT_DIR\}|\$CLAUDE_PROJECT_DIR(?![A-Za-z0-9_])/g, root);
}

/** The words of an argv command, with a shell's `-c` text split into its own words. */
function commandWords(argv: readonly string[]): string[] {
  const words: string[] = [];
  argv.forEach((arg, i) => {
    if (argv[i - 1] === "-c") words.push(...shellWords(arg));
    else words.push(arg);
  });
  return words;
}

/** Absolute paths inside `root` that the commands name (existing or not), in first-seen order. */
export function scriptsNamed(commands: readonly (readonly string[])[], root: string): string[] {
  const found = new Set<string>();
  for (const argv of commands) {
    for (const raw of commandWords(argv)) {
      const word = expand(raw, root);
      if (word.length === 0 || word.startsWith("-") || word.includes("=") || word.includes("$")) continue;
      const file = path.resolve(root, word);
      if (!isInside(file, root)) continue;
      // A bare word counts only when it is a file there: `python3 hook.py`, not `echo ok`.
      if (!word.includes("/") && statSync(file, { throwIfNoEntry: false })?.isFile() !== true) continue;
      found.add(file);
    }
  }
  return [...found];
}
