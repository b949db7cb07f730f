// What the client holds of the engine's `hookedEvents` (the event kinds hooks run for
// and the plan OMP's process may decide by, a few KB): each answer names it by a key,
// a digest of its JSON, and carries it whole only when the request's known key for its
// cwd is another one. Content-addressed, so any engine's key means the same content,
// across engine restarts too.

/** The keys kept: a session has one per cwd, and a registry change makes a new one. */
const KEYS_KEPT = 16;
const CWDS_KEPT = 64;

export class HookedEventsCache {
  private readonly byKey = new Map<string, unknown>();
  private readonly keyByCwd = new Map<string, string>();

  /** The key to send with a dispatch in `cwd`, when one is held. */
  knownFor(cwd: string | undefined): string | undefined {
    const key = cwd === undefined ? undefined : this.keyByCwd.get(cwd);
    // A key whose content was let go would be answered by key alone, and not be filled in.
    return key !== undefined && this.byKey.has(key) ? key : undefined;
  }

  /**
   * A dispatch result with its `hookedEvents`: a whole one is kept under its key, a
   * key alone is filled in from what is kept (the same object every time, so a reader
   * can tell an unchanged one by identity). A key that is not held leaves the result
   * without it: its reader then knows nothing of the cwd's hooks, and waits as before.
   */
  complete(cwd: string | undefined, result: unknown): unknown {
    if (result === null || typeof result !== "object") return result;
    const { hookedEvents, hookedEventsKey } = result as { hookedEvents?: unknown; hookedEventsKey?: unknown };
    if (typeof hookedEventsKey !== "string") return result;
    if (hookedEvents !== undefined) {
      // The same content arrives again after a change and back: the kept object is reused.
      const kept = this.byKey.get(hookedEventsKey);
      this.keep(cwd, hookedEventsKey, kept ?? hookedEvents);
      return kept === undefined ? result : { ...result, hookedEvents: kept };
    }
    const kept = this.byKey.get(hookedEventsKey);
    if (kept === undefined) return result;
    if (cwd !== undefined) this.keyByCwd.set(cwd, hookedEventsKey);
    return { ...result, hookedEvents: kept };
  }

  private keep(cwd: string | undefined, key: string, hooked: unknown): void {
    this.byKey.delete(key);
    this.byKey.set(key, hooked);
    if (this.byKey.size > KEYS_KEPT) this.byKey.delete(this.byKey.keys().next().value as string);
    if (cwd === undefined) return;
    this.keyByCwd.delete(cwd);
    this.keyByCwd.set(cwd, key);
    if (this.keyByCwd.size > CWDS_KEPT) this.keyByCwd.delete(this.keyByCwd.keys().next().value as string);
  }
}
