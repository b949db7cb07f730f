// The name a listing prints (`git ls-files`, `ls`, `rg -l`), as the shell walker hands it
// on to the commands that read it (`| xargs sed -i`, `| while read f`) and self-protection
// reads it: any name under the place listed, narrowed by the listing's marks.

/**
 * What `listedName` stands for: one name a listing printed, a file in the place it listed.
 * It starts with a NUL, which no word of a command can hold, so no path typed into one
 * (`.claude/x/../settings.json` with such a part) is read as a listing; its marks
 * (`:*.ts` name globs, `:!hidden`) end at a second NUL, so text around it stays apart.
 */
const LISTED = "\u0000listed";
/** The mark of a listing that skips hidden names, as rg and fd do unless told. */
export const LISTED_VISIBLE = "!hidden";
/** The mark of a listing of the files git tracks only (`git ls-files`, `git grep -l`): no file it does not track. */
export const LISTED_TRACKED = "!untracked";
/** The mark of a listing that prints `..` too (`ls -a`): the name may be the folder above. */
export const LISTED_PARENT = "..";
/** Of a listing's marks, the name globs (`*.ts`): the others are flags, `!…` and `..`. */
export const nameGlobMarks = (marks: readonly string[]): string[] => marks.filter((mark) => !mark.startsWith("!") && mark !== LISTED_PARENT);

/** A listed name in a word: its marks, and the word's text before and after it. */
export const LISTED_IN_WORD = /\u0000listed((?::[^\u0000]*)?)\u0000/;

/**
 * The listed name with its marks. A mark holding `:` is left out: it would read as more
 * marks (a pathspec `'*:!untracked'` as the mark of a listing of tracked names), and a
 * listing with fewer marks is read as naming more.
 */
export const listedToken = (marks: readonly string[] = []): string => `${LISTED}${marks.filter((mark) => !mark.includes(":")).map((mark) => `:${mark}`).join("")}\u0000`;

/** `text` with each listed name shown as words, for a refusal. */
export const shownListed = (text: string): string => text.replace(new RegExp(LISTED_IN_WORD.source, "g"), "<a name the listing prints>");

/** The name without its marks: what is left of it after a change no mark survives (`{.}` takes the extension off). */
export const unmarked = (text: string): string => text.replace(new RegExp(LISTED_IN_WORD.source, "g"), listedToken());
