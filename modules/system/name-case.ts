// Names as a case-insensitive file system compares them. macOS's default APFS, Windows
// drives under WSL, exFAT and ext4 or tmpfs casefold folders take `.TAMA/hooks.json` for
// `.tama/hooks.json`, and a shell there finds git under `GIT`. No identity tells the two
// names apart on all of them (FUSE's exFAT gives one file another inode number under each
// spelling), so the gates compare names folded on every file system: where case is kept,
// a name that differs from a protected one only by case is refused too, which no project
// needs. Folding is one-way: a folded name is only ever compared, never opened.

/** Printable ASCII, the common case: lower-casing folds it all. */
const PLAIN = /^[\x20-\x7e]*$/;

/**
 * `text` folded: letters in one case (upper-casing first folds `ſ` into `s` and `ı` into
 * `i`, as exFAT's and NTFS's up-case tables do; lower-casing then folds the Kelvin sign
 * into `k`), and composed characters in one form (APFS ignores the difference).
 */
export function foldName(text: string): string {
  if (PLAIN.test(text)) return text.toLowerCase();
  return text.normalize("NFC").toUpperCase().toLowerCase().normalize("NFC");
}

/** Whether `file` is `parent` or lies below it, compared folded (both absolute, normalised). */
export function foldedWithin(file: string, parent: string): boolean {
  const folded = foldName(file);
  const base = foldName(parent);
  return folded === base || folded.startsWith(base === "/" ? "/" : `${base}/`);
}
