// Text matched as itself inside a regular expression.

/** `text` with every character a RegExp reads specially escaped. */
export const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
