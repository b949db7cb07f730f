// The shell OMP imports once. It imports the installed adapter under the SHA-256 of
// its bytes, forwards every event, tool and command the adapter registers, and
// adopts a newer adapter in place. It stays small: everything that changes lives
// in the adapter.
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
import { addressedCopy, installedAdapterPath, shellTamaHome } from "../modules/omp/installed-adapter.ts";
import type { OmpApi, OmpCommand, OmpContext, OmpHandler, OmpTool, OmpToolResult } from "../modules/omp/api.ts";

const SHELL_VERSION = "1";

interface Loaded {
  digest: string | null;
  handlers: Map<string, OmpHandler[]>;
  tools: Map<string, OmpTool>;
  commands: Map<string, OmpCommand>;
  hooks: AdapterHooks;
}

const text = (message: string, isError = false): OmpToolResult => ({ content: [{ type: "text", text: message }], isError });

class Shell {
  private loaded: Loaded | undefined;
  private loadError = "the adapter has not been loaded yet";
  private adopting: Promise<AdoptionReceipt> | undefined;
  private context: OmpContext | undefined;
  /** Handed from each adapter generation to the next (see AdapterHost.carry). */
  private readonly carry = new Map<string, unknown>();
  /** What is registered with OMP already (`event:…`, `tool:…`, `command:…`). */
  private readonly forwarded = new Set<string>();
  private readonly adapterFile = installedAdapterPath(shellTamaHome());

  constructor(private readonly pi: OmpApi) {}

  async start(): Promise<void> {
    // A tool call is never let through unchecked because no adapter loaded.
    this.forwardEvent("tool_call");
    this.registerReload();
    try {
      const { digest, module } = await this.importInstalled("start");
      this.loaded = this.register(module, digest);
    } catch (error) {
      this.loadError = (error as Error).message;
      process.stderr.write(`Tama's OMP adapter did not load: ${this.loadError}\n`);
    }
  }

  /** Import the installed adapter from the copy named by its digest. */
  private async importInstalled(origin: string): Promise<{ digest: string; module: AdapterModule }> {
    // Only the adapter the installed release records is imported (modules/omp/adoption-check.ts).
    const { digest, copy } = addressedCopy(this.adapterFile, origin);
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
        // OMP hands each event's handler that event's shape (AdapterApi.on is typed per event).
        table.handlers.set(event, [...(table.handlers.get(event) ?? []), handler as OmpHandler]);
        this.forwardEvent(event);
      },
      registerTool: (tool) => {
        table.tools.set(tool.name, tool);
        this.forwardOnce(`tool:${tool.name}`, () =>
          this.pi.registerTool({
            ...tool,
            loadMode: tool.loadMode ?? "essential",
            execute: (id, params, signal, onUpdate, ctx) => {
              this.context = ctx;
              const current = this.loaded?.tools.get(tool.name);
              if (!current) return Promise.resolve(text(`The loaded Tama adapter no longer provides the tool ${tool.name}.`, true));
              return current.execute(id, params, signal, onUpdate, ctx);
            },
          }),
        );
      },
      registerCommand: (name, command) => {
        table.commands.set(name, command);
        this.forwardOnce(`command:${name}`, () =>
          this.pi.registerCommand(name, {
            ...(command.description !== undefined ? { description: command.description } : {}),
            handler: async (args, ctx) => {
              this.context = ctx;
              const current = this.loaded?.commands.get(name);
              if (current) await current.handler(args, ctx);
              else ctx.ui.notify(`The loaded Tama adapter no longer provides /${name}.`, "error");
            },
          }),
        );
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

  /** OMP keeps what was registered with it for the process: register each name once, forward to the newest. */
  private forwardOnce(key: string, registerWithOmp: () => void): void {
    if (this.forwarded.has(key)) return;
    this.forwarded.add(key);
    registerWithOmp();
  }

  private forwardEvent(event: string): void {
    this.forwardOnce(`event:${event}`, () => this.pi.on(event, (payload, ctx) => this.emit(event, payload, ctx)));
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

  /** Adopt the installed adapter in place; concurrent requests share one operation. */
  adopt(ctx: OmpContext | undefined, origin: string): Promise<AdoptionReceipt> {
    this.adopting ??= this.adoptOnce(ctx ?? this.context, origin).finally(() => {
      this.adopting = undefined;
    });
    return this.adopting;
  }

  private async adoptOnce(ctx: OmpContext | undefined, origin: string): Promise<AdoptionReceipt> {
    const old = this.loaded;
    const previousDigest = old?.digest ?? null;
    const refuse = (reason: string): AdoptionReceipt => ({ ok: false, digest: previousDigest, previousDigest, error: reason, message: refusedMessage(reason) });
    let next: { digest: string; module: AdapterModule };
    try {
      next = await this.importInstalled(origin);
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
  private async reload(ctx: OmpContext, origin: string): Promise<{ text: string; ok: boolean }> {
    this.context = ctx;
    const receipt = await this.adopt(ctx, origin);
    const lines = [receipt.message];
    const reloadEngine = this.loaded?.hooks.reloadEngine;
    if (reloadEngine) lines.push(await reloadEngine().catch((error: Error) => `The engine did not reload: ${error.message}`));
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
        const answer = await this.reload(ctx, "tool");
        return text(answer.text, !answer.ok);
      },
    });
    this.pi.registerCommand(RELOAD_TOOL, {
      description: "Adopt the installed Tama adapter in place and reload the hook registry",
      handler: async (_args, ctx) => {
        const answer = await this.reload(ctx, "command");
        if (ctx.hasUI || ctx.mode === "rpc") ctx.ui.notify(answer.text, answer.ok ? "info" : "error");
        else process.stdout.write(`${answer.text}\n`);
      },
    });
  }
}

export default async function tamaShell(pi: OmpApi): Promise<void> {
  await new Shell(pi).start();
}
