// How a hook reads in a table: one short line per hook; --json carries the whole of it.
import type { NewHook } from "../../claude/settings.ts";
import { DEFAULT_TIMEOUT_MS } from "../../registry/registry.ts";

/** An argv as a shell would need it typed, so a shown command can be pasted. */
export function shellJoin(argv: readonly string[]): string {
  return argv.map((word) => (/^[A-Za-z0-9_./:=@%+,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`)).join(" ");
}

/** Text cut to `max` characters, newlines shown as spaces. */
export function shorten(text: string, max = 60): string {
  const flat = text.replace(/\s*\n\s*/g, " ");
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function runsOf(hook: Pick<NewHook, "command" | "builtin">): string {
  return hook.builtin !== undefined ? `builtin ${hook.builtin}` : shorten(shellJoin(hook.command ?? []));
}

/** The events, with a result hook's kind of result (`post_tool_use(failure)`) and a session hook's reasons (`session_start(startup|resume)`). */
export function eventsOf(hook: Pick<NewHook, "events" | "results" | "when">): string {
  return hook.events
    .map((e) => {
      if (e === "post_tool_use" && hook.results !== undefined) return `${e}(${hook.results})`;
      if ((e === "session_start" || e === "session_end") && hook.when !== undefined) return `${e}(${hook.when.join("|")})`;
      return e;
    })
    .join(",");
}

export function toolsOf(hook: Pick<NewHook, "tools" | "events">): string {
  const toolEvent = hook.events.some((e) => e === "pre_tool_use" || e === "post_tool_use");
  if (!toolEvent) return "-";
  const tools = hook.tools ?? "any";
  return typeof tools === "string" ? tools : tools.join(",");
}

export function timeoutOf(ms: number = DEFAULT_TIMEOUT_MS): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
