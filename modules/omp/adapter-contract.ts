// The contract between the shell (imported by OMP once, never replaced) and the
// adapter (replaced in place). The shell bundles this file too, so it changes only
// with a new contract version, never casually.
import type { OmpApi, OmpCommand, OmpContext, OmpEventHandler, OmpEventName, OmpTool } from "./api.ts";

export const ADAPTER_CONTRACT_VERSION = 1;

export type AdoptionReceipt =
  | { ok: true; changed: boolean; digest: string | null; previousDigest: string | null; message: string }
  | { ok: false; digest: string | null; previousDigest: string | null; error: string; message: string };

/** What the shell offers the adapter it loaded. */
export interface AdapterHost {
  contractVersion: number;
  shellVersion: string;
  /** The digest the shell imported this adapter under; null when imported without one. */
  digest: string | null;
  /** Adopt the installed adapter in place. Concurrent calls share one operation. */
  adopt(ctx: OmpContext | undefined, origin: string): Promise<AdoptionReceipt>;
  /** The newest context OMP handed any handler, for work started outside a handler. */
  lastContext(): OmpContext | undefined;
  /**
   * What one adapter generation hands the next: a store that lives as long as the
   * shell (the OMP process), so an adoption keeps the engine and its state instead of
   * starting another. Absent in shells older than it.
   */
  carry?: Map<string, unknown>;
}

/** The registration surface the shell gives an adapter: OMP's, recorded and forwarded. */
export interface AdapterApi {
  /** Typed per event; the shell stores and forwards every handler as OMP's untyped one. */
  on<K extends OmpEventName>(event: K, handler: OmpEventHandler<K>): void;
  registerTool(tool: OmpTool): void;
  registerCommand(name: string, command: OmpCommand): void;
  host: AdapterHost;
  /** OMP's own api, for what the shell does not forward (zod, messages). */
  pi: OmpApi;
}

/** What an adapter's register() may return: the hooks the shell's own reload uses. */
export interface AdapterHooks {
  /** Ask the engine to reload its registry; the answer's text for the user. */
  reloadEngine?(): Promise<string>;
  /** The adapter's runtime status, for the reload answer and session control. */
  status?(): Promise<Record<string, unknown>>;
}

export interface AdapterModule {
  register(api: AdapterApi): AdapterHooks | void;
}

/** The digest in an adapter's module URL (`…/<sha256>.js` or `?sha256=<hex>`), or null. */
export function digestFromUrl(url: string): string | null {
  const query = /[?&]sha256=([0-9a-f]{64})(?:&|$)/.exec(url);
  if (query?.[1]) return query[1];
  const file = /\/([0-9a-f]{64})\.m?js(?:\?|$)/.exec(url);
  return file?.[1] ?? null;
}

export const RELOAD_TOOL = "tama_reload_hook_runtime";

/**
 * Whether a session_start/session_shutdown is the one the shell runs for an adoption
 * in place (marked `adoption: true`), not OMP's own.
 */
export function isAdoption(event: unknown): boolean {
  return typeof event === "object" && event !== null && (event as { adoption?: unknown }).adoption === true;
}

export function loadedMessage(digest: string | null, previous: string | null): string {
  return `Loaded the installed OMP adapter ${digest ?? "(no digest)"} in place of ${previous ?? "(no digest)"}`;
}

export function refusedMessage(reason: string): string {
  return `Tama could not reload its OMP adapter: ${reason}`;
}
