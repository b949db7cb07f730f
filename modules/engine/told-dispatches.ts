// Dispatches of events OMP's process already went on with (decided there, or let go on
// with no hook to run): nobody waits for them, so they are not written one by one. Each
// waits here until the next frame to the same engine, or FLUSH_MS, and goes out with it
// in one write; the engine answers only when it has something to tell (another verdict,
// news of the hooks, a failure: engine/agreement.ts). Each wake-up of OMP's thread for a
// frame cost more than the frame's own work.

/** How long a told dispatch may wait for company: the engine's records and rules see it this late at most. */
export const FLUSH_MS = 20;
/** Told dispatches whose answer is still possible: the engine answers a disagreement within its dispatch, so a few turns' worth. */
const KEPT = 1024;

export interface Told<A> {
  /** Gets the engine's answer when it has one to give; never called when it only agrees. */
  onAnswer(answer: A): void;
  /** The dispatch's cwd, whose `hookedEvents` the answer names. */
  cwd: string | undefined;
}

export class ToldDispatches<A> {
  private queued = "";
  private timer: NodeJS.Timeout | undefined;
  private readonly told = new Map<string, Told<A>>();

  /** `flush` writes what is queued: called once FLUSH_MS passed with nothing else sent. */
  constructor(private readonly flush: () => void) {}

  add(id: string, line: string, told: Told<A>): void {
    this.told.set(id, told);
    if (this.told.size > KEPT) this.told.delete(this.told.keys().next().value as string);
    this.queued += line;
    if (this.timer === undefined) {
      this.timer = setTimeout(() => this.flush(), FLUSH_MS);
      // A pending flush must not keep OMP alive: closing the client flushes.
      this.timer.unref?.();
    }
  }

  /** What is queued, to go out ahead of (or as) the next write; the queue is then empty. */
  take(): string {
    clearTimeout(this.timer);
    this.timer = undefined;
    const text = this.queued;
    this.queued = "";
    return text;
  }

  /** The told dispatch an answer is for, once. */
  claim(id: string): Told<A> | undefined {
    const told = this.told.get(id);
    if (told !== undefined) this.told.delete(id);
    return told;
  }

  /**
   * The engine is gone. Nothing queued is written, and no told dispatch is asked again
   * or failed: OMP's process already went on with each, the engine's records of them
   * went with it, and one that agreed said nothing, so those still kept cannot be told
   * from those it never read.
   */
  drop(): void {
    this.take();
    this.told.clear();
  }
}
