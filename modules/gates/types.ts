// What a built-in gate is: a policy the engine runs in-process (no spawn), also
// runnable alone as `tama hook <id>` with a Claude-shaped payload on stdin. A gate
// with options declares their schema; the registry refuses options that do not
// parse, naming the gate and the field.
import type { HookInput } from "../protocol/hook-input.ts";
import type { EventKind } from "../protocol/engine.ts";
import { describeSchemaError, type SchemaError } from "../protocol/schema.ts";

export type GateVerdict =
  | {
      decision: "pass";
      /** Words for the model beside the call's result (a loop noticed, a secret redacted). */
      additionalContext?: string;
      /** A post_tool_use gate's replacement for the result the model will read. */
      updatedToolResponse?: unknown;
    }
  | { decision: "block"; reason: string };

export interface GateContext {
  /** Where Tama keeps its state ($TAMA_HOME). */
  tamaHome: string;
  /** The hook registry the engine reads (TAMA_REGISTRY may put it outside TAMA_HOME). */
  registry?: string;
  /** The environment the harness runs in (OMP's agent dir, HOME). */
  env?: NodeJS.ProcessEnv;
  /** The files the registered hooks run (their programs and scripts), from the loaded registry. */
  hookFiles?: () => readonly string[];
}

export type OptionsParse = { ok: true; options: unknown } | { ok: false; error: string };

export interface BuiltinGate {
  id: string;
  description: string;
  /** Events the gate reads; a registry entry may narrow them, never widen them. */
  events: readonly EventKind[];
  /** The tools its registry entry reads (default "any"). */
  tools?: "any" | "shell" | "write";
  /** Whether `tama install` turns it on. */
  onByDefault?: boolean;
  /**
   * It decides from its input and the files it names alone and keeps nothing from one
   * call to the next, so OMP's process may run it as the engine would (engine/local-decision.ts).
   */
  memoryless?: boolean;
  /** Options: how they read, and an example for `tama hooks builtins`. */
  options?: { help: string; example: unknown };
  /** Parse a registry entry's `options` (undefined when it has none). Gates without options accept none. */
  parseOptions?(raw: unknown): OptionsParse;
  evaluate(input: HookInput, context: GateContext, options?: unknown): GateVerdict | Promise<GateVerdict>;
}

interface Schema<O> {
  safeParse(value: unknown): { success: true; data: O } | { success: false; error: SchemaError };
}

/** A gate whose options are checked by `schema` once, and handed to `evaluate` parsed. */
export function gateWithOptions<O>(
  spec: Omit<BuiltinGate, "parseOptions" | "evaluate"> & {
    schema: Schema<O>;
    evaluate(input: HookInput, context: GateContext, options: O): GateVerdict | Promise<GateVerdict>;
  },
): BuiltinGate {
  const { schema, evaluate, ...rest } = spec;
  const parse = (raw: unknown): OptionsParse => {
    const parsed = schema.safeParse(raw ?? {});
    return parsed.success ? { ok: true, options: parsed.data } : { ok: false, error: describeSchemaError(parsed.error, "options") };
  };
  return {
    ...rest,
    parseOptions: parse,
    evaluate(input, context, options) {
      // The engine hands options it parsed; `tama hook <id>` alone runs with the defaults.
      const parsed = options === undefined ? parse(undefined) : { ok: true as const, options };
      if (!parsed.ok) throw new Error(parsed.error);
      return evaluate(input, context, parsed.options as O);
    },
  };
}
