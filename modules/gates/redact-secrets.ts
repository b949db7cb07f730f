// redact-secrets: replaces tokens and keys in a tool's result before the model reads
// it (OMP lets a tool_result handler change the result). A secret that reached the
// model's context is in every later request, so this is the one gate that must act
// on the result, not on the call. Known token shapes only, plus `options.patterns`
// (regular expressions) of your own; a redaction says what kind of secret it was.
import * as z from "../protocol/schema.ts";
import type { HookInput } from "../protocol/hook-input.ts";
import { gateWithOptions, type GateVerdict } from "./types.ts";

/** Known shapes: each names the kind the redaction shows. */
const KNOWN: readonly { kind: string; regex: RegExp }[] = [
  { kind: "private key", regex: /-----BEGIN ([A-Z0-9 ]+ )?PRIVATE KEY-----[\s\S]*?-----END ([A-Z0-9 ]+ )?PRIVATE KEY-----/g },
  { kind: "AWS access key", regex: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { kind: "GitHub token", regex: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b/g },
  { kind: "GitLab token", regex: /\bglpat-[A-Za-z0-9_-]{20,}\b/g },
  { kind: "Slack token", regex: /\bxox[baprs]-[A-Za-z0-9-]{10,}\b/g },
  { kind: "Anthropic key", regex: /\bsk-ant-[A-Za-z0-9_-]{20,}\b/g },
  { kind: "OpenAI key", regex: /\bsk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}\b/g },
  { kind: "Stripe key", regex: /\b(?:sk|rk)_(?:live|test)_[0-9a-zA-Z]{24,}\b/g },
  { kind: "Google API key", regex: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { kind: "npm token", regex: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { kind: "JSON web token", regex: /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\b/g },
];
/** `Authorization: Bearer …` (curl -v, HTTP logs) and the password in `scheme://user:password@host`. */
const BEARER = /\b(Bearer|Basic|Token)(\s+)([A-Za-z0-9._~+/-]{16,}=*)/g;
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s:@/]+:)([^\s@/]{3,})(@)/gi;
/** `"password": "two words"`: a quoted value is the whole quoted text. */
const QUOTED_ASSIGNED = /\b([A-Za-z0-9_]*(?:SECRET|TOKEN|PASSWORD|PASSWD|API_?KEY|PRIVATE_KEY|ACCESS_KEY)[A-Za-z0-9_]*)(["']?\s*[:=]\s*)(["'])([^"'\n]*\s[^"'\n]*)\3/gi;
/** `API_KEY=…`, `"password": "…"`: the value of a variable whose name says it is secret. */
const ASSIGNED = /\b([A-Za-z0-9_]*(?:SECRET|TOKEN|PASSWORD|PASSWD|API_?KEY|PRIVATE_KEY|ACCESS_KEY)[A-Za-z0-9_]*)(["']?\s*[:=]\s*["']?)([^\s"'`,;]{8,})/gi;

const Options = z.strictObject({
  patterns: z._default(
    z.array(
      z.string().check(
        z.refine((source) => {
          try {
            new RegExp(source);
            return true;
          } catch {
            return false;
          }
        }, "not a valid regular expression"),
      ),
    ),
    [],
  ),
  assignments: z._default(z.boolean(), true),
});
type Options = z.infer<typeof Options>;

export interface Redaction {
  text: string;
  kinds: string[];
}

export function redact(text: string, options: Options): Redaction {
  const kinds = new Set<string>();
  let out = text;
  for (const { kind, regex } of KNOWN) {
    out = out.replace(regex, () => {
      kinds.add(kind);
      return `[REDACTED ${kind}]`;
    });
  }
  out = out.replace(BEARER, (_m, scheme: string, space: string) => {
    kinds.add("authorization header");
    return `${scheme}${space}[REDACTED authorization header]`;
  });
  out = out.replace(URL_PASSWORD, (_m, before: string, _password: string, at: string) => {
    kinds.add("password in a URL");
    return `${before}[REDACTED password in a URL]${at}`;
  });
  if (options.assignments) {
    out = out.replace(QUOTED_ASSIGNED, (match, name: string, sep: string, quote: string) => {
      kinds.add(`value of ${name}`);
      return `${name}${sep}${quote}[REDACTED]${quote}`;
    });
    out = out.replace(ASSIGNED, (match, name: string, sep: string, value: string) => {
      if (value.startsWith("[REDACTED")) return match;
      kinds.add(`value of ${name}`);
      return `${name}${sep}[REDACTED]`;
    });
  }
  for (const source of options.patterns) {
    out = out.replace(new RegExp(source, "g"), () => {
      kinds.add("a pattern of yours");
      return "[REDACTED]";
    });
  }
  return { text: out, kinds: [...kinds] };
}

type Part = { type: string; text?: string } & Record<string, unknown>;

export const redactSecrets = gateWithOptions<Options>({
  id: "redact-secrets",
  description: "Replaces tokens and keys in a tool's result before the model reads it.",
  events: ["post_tool_use"],
  memoryless: true,
  tools: "any",
  onByDefault: true,
  options: { help: "patterns: extra regular expressions to redact; assignments: redact NAME=value where NAME says secret", example: { patterns: ["corp_[a-z0-9]{32}"] } },
  schema: Options,
  evaluate(input: HookInput, _context, options): GateVerdict {
    // OMP's own result, which is what the model reads (Claude's per-tool shape is a view of it).
    const response = (input.omp?.tool_response ?? input.tool_response) as { content?: unknown } | undefined;
    const content = Array.isArray(response?.content) ? (response.content as Part[]) : undefined;
    if (content === undefined) return { decision: "pass" };
    const kinds = new Set<string>();
    const replaced = content.map((part) => {
      if (part.type !== "text" || typeof part.text !== "string") return part;
      const result = redact(part.text, options);
      for (const kind of result.kinds) kinds.add(kind);
      return result.kinds.length > 0 ? { ...part, text: result.text } : part;
    });
    if (kinds.size === 0) return { decision: "pass" };
    return {
      decision: "pass",
      updatedToolResponse: { ...response, content: replaced },
      additionalContext: `Tama redacted secrets from this result (${[...kinds].join(", ")}); the [REDACTED …] markers are Tama's, not the tool's.`,
    };
  },
});
