// The shell OMP imports once. It imports the installed adapter under the SHA-256 of
// its bytes, forwards every event, tool and command the adapter registers, and
// adopts a newer adapter in place. It stays small: everything that changes lives
// in the adapter.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync, existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  ADAPTER_CONTRACT_VERSION,
  loadedMessage,
  RELOAD_TOOL,
  refusedMessage,
  type AdapterApi,
  type AdapterHooks,
  type AdapterModule,
  type AdoptionReceipt,
} from "../modules/omp/adapter-contract.ts";
import type { OmpApi, OmpCommand, OmpContext, OmpHandler, OmpTool, OmpToolResult } from "../modules/omp/api.ts";

const SHELL_VERSION = "1";
/** `tama install` writes its TAMA_HOME here; TAMA_HOME in OMP's environment wins. */
const TAMA_HOME_AT_INSTALL = "__TAMA_HOME_AT_INSTALL__";

interface Loaded {
  digest: string | null;
  handlers: Map<string, OmpHandler[]>;
  tools: Map<string, OmpTool>;
  commands: Map<string, OmpCommand>;
  hooks: AdapterHooks;
}

function tamaHome(): string {
  const fromEnv = process.env.TAMA_HOME;
  if (fromEnv) return path.resolve(fromEnv);
  if (!TAMA_HOME_AT_INSTALL.startsWith("__")) {
    // The adapter, the engine and the hooks read TAMA_HOME: they follow the install too.
    process.env.TAMA_HOME = TAMA_HOME_AT_INSTALL;
    return TAMA_HOME_AT_INSTALL;
  }
  return path.join(os.homedir(), ".tama");
}

const text = (message: string, isError = false): OmpToolResult => ({ content: [{ type: "text", text: message }], isError });

class Shell {
  private loaded: Loaded | undefined;
  private loadError = "the adapter has not been loaded yet";
  private adopting: Promise<AdoptionReceipt> | undefined;
  private context: OmpContext | undefined;
  /** Handed from each adapter generation to the next (see AdapterHost.carry). */
  private readonly carry = new Map<string, unknown>();
  private readonly forwardedEvents = new Set<string>();
  private readonly forwardedTools = new Set<string>();
  private readonly forwardedCommands = new Set<string>();
  private readonly adapterFile = path.join(tamaHome(), "shared-hooks", "omp", "adapter.js");

  constructor(private readonly pi: OmpApi) {}

  async start(): Promise<void> {
    // A tool call is never let through unchecked because no adapter loaded.
    this.forwardEvent("tool_call");
    this.registerReload();
    try {
      const { digest, module } = await this.importInstalled();
      this.loaded = this.register(module, digest);
    } catch (error) {
      this.loadError = (error as Error).message;
      process.stderr.write(`Tama's OMP adapter did not load: ${this.loadError}\n`);
    }
  }

  /** Read the installed adapter, keep a copy named by its digest, and import that copy. */
  private async importInstalled(): Promise<{ digest: string; module: AdapterModule }> {
    const bytes = readFileSync(this.adapterFile);
    const digest = createHash("sha256").update(bytes).digest("hex");
    const dir = path.join(path.dirname(this.adapterFile), "loaded");
    const copy = path.join(dir, `${digest}.js`);
    if (!existsSync(copy)) {
      mkdirSync(dir, { recursive: true });
      // Written from the very bytes that were hashed, so what runs is what was named.
      const temp = `${copy}.${process.pid}.tmp`;
      writeFileSync(temp, bytes);
      renameSync(temp, copy);
    }
    // A raw absolute path: Bun ignores a query on a file:// URL and serves the old module.
    const module = (await import(copy)) as Partial<AdapterModule> & { default?: Partial<AdapterModule> };
    const register = module.register ?? module.default?.register;
    if (typeof register !== "function") throw new Error(`${this.adapterFile} exports no register function`);
    return { digest, module: { register } };
  }

  /** Let an adapter register into a fresh table; forward whatever it names. */
  private register(module: AdapterModule, digest: string | null): Loaded {
    const table: Loaded = { digest, handlers: new Map(), tools: new Map(), commands: new Map(), hooks: {} };
    const api: AdapterApi = {
      on: (event, handler) => {
        table.handlers.set(event, [...(table.handlers.get(event) ?? []), handler]);
        this.forwardEvent(event);
      },
      registerTool: (tool) => {
        table.tools.set(tool.name, tool);
        this.forwardTool(tool);
      },
      registerCommand: (name, command) => {
        table.commands.set(name, command);
        this.forwardCommand(name, command);
      },
      host: {
        contractVersion: ADAPTER_CONTRACT_VERSION,
        shellVersion: SHELL_VERSION,
        digest,
        adopt: (ctx, origin) => this.adopt(ctx, origin),
        lastContext: () => this.context,
        carry: this.carry,
      },
      pi: this.pi,
    };
    table.hooks = module.register(api) ?? {};
    return table;
  }

  private forwardEvent(event: string): void {
    if (this.forwardedEvents.has(event)) return;
    this.forwardedEvents.add(event);
    this.pi.on(event, (payload, ctx) => this.emit(event, payload, ctx));
  }

  private async emit(event: string, payload: unknown, ctx: OmpContext): Promise<unknown> {
    this.context = ctx;
    const table = this.loaded;
    if (!table) {
      if (event !== "tool_call") return undefined;
      if (process.env.TAMA_FAIL_MODE === "open") {
        ctx.ui.notify(`Tama is not gating: ${this.loadError}`, "warning");
        return undefined;
      }
      return { block: true, reason: `Tama could not check this call: its OMP adapter is not loaded (${this.loadError})` };
    }
    for (const handler of table.handlers.get(event) ?? []) {
      const result = await handler(payload, ctx);
      if (result !== undefined) return result;
    }
    return undefined;
  }

  private forwardTool(tool: OmpTool): void {
    if (this.forwardedTools.has(tool.name)) return;
    this.forwardedTools.add(tool.name);
    this.pi.registerTool({
      ...tool,
      loadMode: tool.loadMode ?? "essential",
      execute: (id, params, signal, onUpdate, ctx) => {
        this.context = ctx;
        const current = this.loaded?.tools.get(tool.name);
        if (!current) return Promise.resolve(text(`The loaded Tama adapter no longer provides the tool ${tool.name}.`, true));
        return current.execute(id, params, signal, onUpdate, ctx);
      },
    });
  }

  private forwardCommand(name: string, command: OmpCommand): void {
    if (this.forwardedCommands.has(name)) return;
    this.forwardedCommands.add(name);
    this.pi.registerCommand(name, {
      ...(command.description !== undefined ? { description: command.description } : {}),
      handler: async (args, ctx) => {
        this.context = ctx;
        const current = this.loaded?.commands.get(name);
        if (!current) {
          ctx.ui.notify(`The loaded Tama adapter no longer provides /${name}.`, "error");
          return;
        }
        await current.handler(args, ctx);
      },
    });
  }

  /** Adopt the installed adapter in place; concurrent requests share one operation. */
  adopt(ctx: OmpContext | undefined, origin: string): Promise<AdoptionReceipt> {
    this.adopting ??= this.adoptOnce(ctx ?? this.context, origin).finally(() => {
      this.adopting = undefined;
    });
    return this.adopting;
  }

  private async adoptOnce(ctx: OmpContext | undefined, _origin: string): Promise<AdoptionReceipt> {
    const old = this.loaded;
    const previousDigest = old?.digest ?? null;
    const refuse = (reason: string): AdoptionReceipt => ({
      ok: false,
      digest: previousDigest,
      previousDigest,
      error: reason,
      message: refusedMessage(reason),
    });
    let next: { digest: string; module: AdapterModule };
    try {
      next = await this.importInstalled();
    } catch (error) {
      return refuse((error as Error).message);
    }
    if (old && next.digest === old.digest) {
      return { ok: true, changed: false, digest: old.digest, previousDigest, message: `The installed OMP adapter ${old.digest} is already loaded` };
    }
    // The new module is imported; now the old adapter shuts down, the new one registers and starts.
    if (old && ctx) await this.runHandlers(old, "session_shutdown", ctx);
    let table: Loaded;
    // What the old adapter handed over (its engine) goes back to it if the new one fails to register.
    const carried = new Map(this.carry);
    try {
      table = this.register(next.module, next.digest);
    } catch (error) {
      for (const [key, value] of carried) this.carry.set(key, value);
      await this.restore(old, ctx);
      return refuse(`registering ${next.digest}: ${(error as Error).message}`);
    }
    this.loaded = table;
    if (ctx) {
      try {
        await this.runHandlers(table, "session_start", ctx, true);
      } catch (error) {
        await this.runHandlers(table, "session_shutdown", ctx);
        this.loaded = old;
        await this.restore(old, ctx);
        return refuse(`starting ${next.digest}: ${(error as Error).message}`);
      }
    }
    return { ok: true, changed: true, digest: next.digest, previousDigest, message: loadedMessage(next.digest, previousDigest) };
  }

  private async restore(old: Loaded | undefined, ctx: OmpContext | undefined): Promise<void> {
    this.loaded = old;
    if (old && ctx) await this.runHandlers(old, "session_start", ctx);
  }

  private async runHandlers(table: Loaded, event: string, ctx: OmpContext, rethrow = false): Promise<void> {
    for (const handler of table.handlers.get(event) ?? []) {
      try {
        // Marked, so an adapter tells a shutdown for an adoption (it may hand over what it serves) from OMP's own.
        await handler({ type: event, adoption: true }, ctx); // see isAdoption in the contract
      } catch (error) {
        if (rethrow) throw error;
        process.stderr.write(`Tama adapter ${table.digest ?? "(no digest)"} ${event} failed: ${(error as Error).message}\n`);
      }
    }
  }

  /** The reload's whole answer: the adoption first, then the engine's own reload. */
  private async reloadAnswer(ctx: OmpContext | undefined): Promise<{ text: string; ok: boolean }> {
    const receipt = await this.adopt(ctx, "reload");
    const lines = [receipt.message];
    if (receipt.ok && receipt.changed === false) lines[0] = receipt.message;
    const hooks = this.loaded?.hooks;
    if (hooks?.reloadEngine) {
      try {
        lines.push(await hooks.reloadEngine());
      } catch (error) {
        lines.push(`The engine did not reload: ${(error as Error).message}`);
      }
    }
    return { text: lines.join("\n"), ok: receipt.ok };
  }

  private registerReload(): void {
    const z = this.pi.zod as { object(shape: Record<string, never>): unknown } | undefined;
    this.pi.registerTool({
      name: RELOAD_TOOL,
      label: "Reload Tama",
      description: "Adopt the installed Tama OMP adapter in place and reload the hook registry, without restarting OMP.",
      parameters: z ? z.object({}) : { type: "object", properties: {} },
      loadMode: "essential",
      execute: async (_id, _params, _signal, _onUpdate, ctx) => {
        this.context = ctx;
        const answer = await this.reloadAnswer(ctx);
        return text(answer.text, !answer.ok);
      },
    });
    this.pi.registerCommand(RELOAD_TOOL, {
      description: "Adopt the installed Tama adapter in place and reload the hook registry",
      handler: async (_args, ctx) => {
        this.context = ctx;
        const answer = await this.reloadAnswer(ctx);
        if (ctx.hasUI || ctx.mode === "rpc") ctx.ui.notify(answer.text, answer.ok ? "info" : "error");
        else process.stdout.write(`${answer.text}\n`);
      },
    });
  }
}

export default async function tamaShell(pi: OmpApi): Promise<void> {
  await new Shell(pi).start();
}
