// The one zod import: zod/mini (tree-shakes to a few KB, where classic zod put
// ~730 KB into the adapter every adoption imports) with English messages.
import * as z from "zod/mini";
import en from "zod/v4/locales/en.js";

z.config(en());

export { z };

/** What a failed parse reports, whichever zod flavour made it. */
export interface SchemaError {
  issues: readonly { path: readonly PropertyKey[]; message: string }[];
}

/** Human words for a schema failure: the path and what was wrong, first issues only. */
export function describeSchemaError(error: SchemaError, root = "frame", limit = 3): string {
  return error.issues
    .slice(0, limit)
    .map((issue) => `${issue.path.length > 0 ? issue.path.map(String).join(".") : root}: ${issue.message}`)
    .join("; ");
}
