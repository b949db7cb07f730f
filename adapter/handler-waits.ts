// How long OMP waited on each of Tama's handlers: from the call to the settling of
// what it returned. This is Tama's share of a turn as OMP lives it, measured where it
// happens, so /tama_status and the benchmark can name it per event without the noise
// of whole-turn times.

/** Per OMP event: how many calls, and the median and longest wait of the newest ones. */
export type HandlerWaitsView = Record<string, { count: number; p50Ms: number; maxMs: number }>;

/** The newest waits kept per event: enough for a stable median, bounded in memory. */
const KEPT = 256;

export class HandlerWaits {
  private readonly byEvent = new Map<string, { count: number; recent: number[] }>();

  /** `handler`, timed under `event`; what it returns is passed on unchanged. */
  timed<A extends unknown[], R>(event: string, handler: (...args: A) => R): (...args: A) => R {
    return (...args: A): R => {
      const start = performance.now();
      const result = handler(...args);
      if (result instanceof Promise) {
        void result.then(
          () => this.note(event, performance.now() - start),
          () => this.note(event, performance.now() - start),
        );
      } else this.note(event, performance.now() - start);
      return result;
    };
  }

  private note(event: string, ms: number): void {
    let entry = this.byEvent.get(event);
    if (entry === undefined) {
      entry = { count: 0, recent: [] };
      this.byEvent.set(event, entry);
    }
    entry.count += 1;
    entry.recent.push(ms);
    if (entry.recent.length > KEPT) entry.recent.shift();
  }

  summary(): HandlerWaitsView {
    const view: HandlerWaitsView = {};
    for (const [event, { count, recent }] of this.byEvent) {
      const sorted = [...recent].sort((a, b) => a - b);
      view[event] = {
        count,
        p50Ms: round(sorted[Math.floor(sorted.length / 2)] ?? 0),
        maxMs: round(sorted.at(-1) ?? 0),
      };
    }
    return view;
  }
}

const round = (ms: number): number => Math.round(ms * 1000) / 1000;
