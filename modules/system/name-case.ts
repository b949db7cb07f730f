// Names as a case-insensitive file system compares them. macOS's default APFS, Windows
// drives under WSL, exFAT and ext4 or tmpfs casefold folders take `.TAMA/hooks.json` for
// `.tama/hooks.json`, and a shell there finds git under `GIT`. No identity tells the two
// names apart on all of them (FUSE's exFAT gives one file another inode number under each
// spelling), so the gates compare names folded on every file system: where case is kept,
// a name that differs from a protected one only by case is refused too, which no project
// needs. Folding is one-way: a folded name is only ever compared, never opened.

/** Printable ASCII with no capital: folded already (most names and words, asked on every command). */
const FOLDED = /^[\x20-\x40\x5b-\x7e]*$/;
/** Printable ASCII: lower-casing folds it all. */
const PLAIN = /^[\x20-\x7e]*$/;

/** Characters HFS+ leaves out of a name when it compares names (`.g\u200cit` is `.git` there; git's CVE-2014-9390). */
const IGNORED = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

/**
 * `text` folded: letters in one case (upper-casing first folds `ſ` into `s` and `ı` into
 * `i`, as exFAT's and NTFS's up-case tables do; lower-casing then folds the Kelvin sign
 * into `k`), composed characters in one form (APFS ignores the difference), and without
 * the characters HFS+ ignores.
 */
export function foldName(text: string): string {
  if (FOLDED.test(text)) return text;
  if (PLAIN.test(text)) return text.toLowerCase();
  return text.replace(IGNORED, "").normalize("NFC").toUpperCase().toLowerCase().normalize("NFC");
}

/** Whether `file` is `parent` or lies below it, compared folded (both absolute, normalised). */
export function foldedWithin(file: string, parent: string): boolean {
  const folded = foldName(file);
  const base = foldName(parent);
  return folded === base || folded.startsWith(base === "/" ? "/" : `${base}/`);
}
