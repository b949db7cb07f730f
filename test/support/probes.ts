// Values that sit on, and just past, the bounds a schema's fields have: the tests that
// hold a quick check to its schema probe every field with them.

/** Missing and null, numbers on each side of what JSON and safe integers allow, booleans, containers. */
export const EDGE_VALUES: readonly unknown[] = [
  undefined,
  null,
  "",
  "x",
  0,
  1,
  -1,
  2.5,
  Number.MAX_SAFE_INTEGER,
  2 ** 60,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  true,
  false,
  {},
  [],
];

/** Strings of `n` and `n + 1` characters, for each length bound `n`. */
export const aroundLengths = (...bounds: number[]): string[] => bounds.flatMap((n) => ["a".repeat(n), "a".repeat(n + 1)]);
