// The one zod import: zod/mini with English messages. Modules take it as
// `import * as z from "./schema.ts"`; the star re-export keeps tree-shaking working
// (a namespace object exported as a value would pull every locale and check into
// the adapter, which each adoption imports anew).
import { config } from "zod/mini";
import en from "zod/v4/locales/en.js";

export * from "zod/mini";

config(en());

/** What a failed parse reports. */
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
