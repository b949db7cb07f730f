// `tama hook <id>` and `tama hooks …`: built-in gates alone, the registry (list, edit,
// import, checksum), and the hooks still running (live engines, engines that are
// gone, abandonments).
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { builtinGate, builtinGates } from "../../gates/index.ts";
import type { HookInput } from "../../protocol/hook-input.ts";
import { tamaPaths } from "../../system/paths.ts";
import { parseRegistry } from "../../registry/registry.ts";
import { readRecords } from "../../engine/running-records.ts";
import { readAbandonmentRecords } from "../../engine/abandonments.ts";
import { addHook, listHooks, removeHooks, setEnabled } from "./edit.ts";
import { importHooks } from "./import.ts";
import { claudeSourcesCommand } from "../claude-sources.ts";
import { CliError, printJson, readStdin, table } from "../io.ts";

/** `tama hook <id>`: run one built-in gate on a payload from stdin; the refusal goes to stdout. */
export async function hookCommand(argv: string[]): Promise<number> {
  const id = argv[0];
  if (!id) throw new CliError("name the built-in gate: tama hook <id> < payload.json (`tama hooks builtins` lists them)", 2);
  const gate = builtinGate(id);
  if (!gate) throw new CliError(`no built-in gate ${JSON.stringify(id)}; \`tama hooks builtins\` lists them`, 2);
  let input: HookInput;
  try {
    const raw: unknown = JSON.parse((await readStdin()) || "{}");
    if (!raw || typeof raw !== "object" || Array.isArray(raw)) throw new Error("not a JSON object");
    input = { hook_event_name: "PreToolUse", cwd: process.cwd(), ...(raw as Record<string, unknown>) } as HookInput;
  } catch (error) {
    throw new CliError(`the payload on stdin is not a JSON object: ${(error as Error).message}`, 1);
  }
  const paths = tamaPaths();
  const verdict = await gate.evaluate(input, { tamaHome: paths.home, registry: paths.registry, env: process.env });
  if (verdict.decision === "pass" && (verdict.additionalContext !== undefined || verdict.updatedToolResponse !== undefined)) {
    printJson({
      hookSpecificOutput: {
        hookEventName: input.hook_event_name,
        ...(verdict.additionalContext !== undefined ? { additionalContext: verdict.additionalContext } : {}),
        ...(verdict.updatedToolResponse !== undefined ? { updatedToolResponse: verdict.updatedToolResponse } : {}),
      },
    });
  }
  if (verdict.decision === "block") {
    printJson({
      decision: "block",
      reason: verdict.reason,
      hookSpecificOutput: {
        hookEventName: input.hook_event_name,
        permissionDecision: "deny",
        permissionDecisionReason: verdict.reason,
      },
    });
  }
  return 0;
}

const SUBCOMMANDS: Record<string, (argv: string[]) => number> = {
  list: listHooks,
  add: addHook,
  remove: removeHooks,
  enable: (argv) => setEnabled(argv, true),
  disable: (argv) => setEnabled(argv, false),
  import: importHooks,
  "claude-sources": claudeSourcesCommand,
  checksum,
  running,
  builtins,
};

export async function hooksCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const run = sub === undefined ? undefined : SUBCOMMANDS[sub];
  const names = Object.keys(SUBCOMMANDS).join(", ");
  if (!run) throw new CliError(sub === undefined ? `name a command: ${names}` : `unknown command ${JSON.stringify(sub)}: ${names}`, 2);
  return run(rest);
}

function checksum(argv: string[]): number {
  const { values, positionals } = parseArgs({ args: argv, options: { json: { type: "boolean" } }, allowPositionals: true });
  const file = positionals[0] ?? tamaPaths().registry;
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new CliError(`reading hook registry ${file}: ${(error as Error).message}`);
  }
  // The declared checksum is left out so a stale one does not stop its own replacement.
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    const parsed = parseRegistry(text, file);
    throw new CliError(parsed.ok ? (error as Error).message : parsed.error);
  }
  if (raw && typeof raw === "object" && !Array.isArray(raw)) delete (raw as Record<string, unknown>).checksum;
  const parsed = parseRegistry(JSON.stringify(raw), file);
  if (!parsed.ok) throw new CliError(parsed.error);
  if (values.json) printJson({ file, checksum: parsed.checksum });
  else process.stdout.write(`${parsed.checksum}\n`);
  return 0;
}

function builtins(argv: string[]): number {
  const { values } = parseArgs({ args: argv, options: { json: { type: "boolean" } } });
  const gates = builtinGates().map((gate) => ({
    id: gate.id,
    events: [...gate.events],
    tools: gate.tools ?? "any",
    onByDefault: gate.onByDefault !== false,
    description: gate.description,
    ...(gate.options ? { options: gate.options.help, example: { id: gate.id, events: [...gate.events], builtin: gate.id, options: gate.options.example } } : {}),
  }));
  if (values.json) {
    printJson(gates);
    return 0;
  }
  process.stdout.write(`${table(gates.map((g) => [g.id, g.events.join(","), g.onByDefault ? "on" : "off", g.description]))}\n`);
  const configurable = gates.filter((g) => g.options !== undefined);
  if (configurable.length > 0) {
    process.stdout.write("\nOptions (a registry entry's \"options\"):\n");
    for (const g of configurable) process.stdout.write(`  ${g.id}: ${g.options}\n    e.g. ${JSON.stringify(g.example)}\n`);
  }
  return 0;
}

/** Every hook still running, from engines' records, and the last abandonment of every session. */
function running(argv: string[]): number {
  const { values } = parseArgs({ args: argv, options: { json: { type: "boolean" } } });
  const paths = tamaPaths();
  const records = readRecords(paths.running);
  const now = Date.now();
  const all = [...records.live.map((r) => ({ r, engine: "live" })), ...records.gone.map((r) => ({ r, engine: "gone" }))];
  const hooks = all.flatMap(({ r, engine }) =>
    r.hooks
      .filter((hook) => hook.prestarted !== true)
      .map((hook) => ({
        engine,
        corePid: r.corePid,
        session: hook.session,
        event: hook.event,
        hook: hook.hook,
        processGroup: hook.processGroup,
        runningForMs: now - hook.startedAtMs,
      })),
  );
  // Started before their event and waiting on stdin for it: not running a hook yet.
  const prestarted = all.flatMap(({ r, engine }) =>
    r.hooks
      .filter((hook) => hook.prestarted === true)
      .map((hook) => ({ engine, corePid: r.corePid, session: hook.session, event: hook.event, hook: hook.hook, processGroup: hook.processGroup, waitingForMs: now - hook.startedAtMs })),
  );
  const bounds = all.flatMap(({ r, engine }) => (r.prestart !== undefined ? [{ engine, corePid: r.corePid, ...r.prestart }] : []));
  const read = readAbandonmentRecords(paths.sessions);
  const abandoned = read.abandoned;
  const unread = [...records.unread, ...read.unread];
  if (values.json) {
    printJson({ running: hooks, prestarted, prestartBounds: bounds, abandoned, recordsUnread: unread });
  } else {
    const lines: string[] = [];
    lines.push(
      hooks.length === 0
        ? "No hook is running."
        : table([
            ["HOOK", "EVENT", "SESSION", "PGID", "RUNNING", "ENGINE"],
            ...hooks.map((h) => [h.hook, h.event, h.session ?? "-", String(h.processGroup ?? "-"), `${h.runningForMs} ms`, `${h.corePid} (${h.engine})`]),
          ]),
    );
    if (prestarted.length > 0) {
      lines.push(
        "",
        "Pre-started, waiting for their event:",
        table([
          ["HOOK", "EVENT", "SESSION", "PGID", "WAITING", "ENGINE"],
          ...prestarted.map((h) => [h.hook, h.event, h.session ?? "-", String(h.processGroup ?? "-"), `${h.waitingForMs} ms`, `${h.corePid} (${h.engine})`]),
        ]),
      );
      for (const b of bounds) {
        const queued = b.queued ? `, ${b.queued} to start when their session's model is asked` : "";
        lines.push(`  engine ${b.corePid}: ${b.held} held${queued} of ${b.total} in all, ${b.perSession} per session; ${Math.round(b.rssKb / 1024)} MiB resident`);
      }
    }
    if (abandoned.length > 0) {
      lines.push("", "Last abandonment per session:");
      for (const a of abandoned) lines.push(`  ${a.session}: ${a.text}`);
    }
    for (const u of unread) lines.push(`cannot read ${u.file}: ${u.error}`);
    process.stdout.write(`${lines.join("\n")}\n`);
  }
  return unread.length > 0 ? 1 : 0;
}
