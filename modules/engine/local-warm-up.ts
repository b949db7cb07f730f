// Code that runs a few times a turn stays in the runtime's slow tiers: the JIT compiles a
// function only after it has run many times, and a session's gates run a few times a
// minute. So the first events OMP's process decided are decided again, unseen, in short
// slices while OMP is idle, until the gates, the hook input and the aggregation have run
// often enough to be compiled (not the shell parser: it keeps what a script gave, so a
// command decided again is not parsed again). Each sample is a real payload of this
// session, so the code sees the shapes it will see; the gates that decide here are
// memoryless and only read, so deciding a payload again changes nothing. A sample's
// payload is let go once it is warm; only the event names sampled are kept.

/**
 * Times each sample is decided again, in all. In a real OMP (npm run bench, omp-fixed),
 * 200 took the waits for a tool call from 0.70-0.80 ms to 0.58-0.65 ms (five paired runs),
 * for about 0.1-0.2 s of CPU once per session.
 */
export const WARM_RUNS = 200;
/** After this long a slice starts no further decision and gives OMP's thread back. */
const SLICE_MS = 1;
/** The pause between slices: OMP's own work goes first. */
const GAP_MS = 15;
/** The wait after the first sample: a session's start is busy. */
const FIRST_DELAY_MS = 500;
/**
 * A sample whose real decision, or a decision again, took longer than this is not
 * decided again: the agent chooses the command, and a slow one replayed 200 times would
 * cost OMP more than warming saves. So a slice lasts SLICE_MS plus one decision at most.
 */
const SLOW_MS = 2;
/** Samples kept, one per event name; a large payload (in UTF-16 units) is not kept. */
const MAX_SAMPLES = 4;
const MAX_SAMPLE_CHARS = 8_192;

type Decide = () => Promise<unknown>;

export class LocalWarmUp {
  /** Event names sampled so far (each once); a sample's payload is let go when it is warm. */
  private readonly seen = new Set<string>();
  private readonly samples = new Map<string, { decide: Decide; runs: number }>();
  private timer: NodeJS.Timeout | undefined;
  private done = false;
  /** `slowMs`: a sample whose decision took longer is not decided again. */
  constructor(private readonly slowMs = SLOW_MS) {}

  /** Whether a sample is still to be warmed. */
  get warming(): boolean {
    return this.samples.size > 0;
  }

  /** `decide` decides `event`'s payload again, uncounted; `tookMs`: how long its real decision took. */
  saw(event: string, payloadChars: number, tookMs: number, decide: Decide): void {
    if (this.done || this.seen.has(event) || this.seen.size >= MAX_SAMPLES || payloadChars > MAX_SAMPLE_CHARS || tookMs > this.slowMs) return;
    this.seen.add(event);
    this.samples.set(event, { decide, runs: 0 });
    this.schedule(FIRST_DELAY_MS);
  }

  /** No more slices; what is kept is let go. */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.done = true;
    this.samples.clear();
  }

  private schedule(ms: number): void {
    if (this.timer !== undefined || this.done) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.slice();
    }, ms);
    // Never what keeps OMP alive.
    this.timer.unref?.();
  }

  private async slice(): Promise<void> {
    const end = performance.now() + SLICE_MS;
    for (const [event, sample] of this.samples) {
      while (sample.runs < WARM_RUNS && performance.now() < end) {
        sample.runs += 1;
        const began = performance.now();
        try {
          await sample.decide();
        } catch {
          // A sample that throws is not decided again; the real event's own path reports.
          sample.runs = WARM_RUNS;
        }
        // One that slow is not the sub-millisecond path this is for; deciding it again would cost OMP more than it saves.
        if (performance.now() - began > this.slowMs) sample.runs = WARM_RUNS;
      }
      if (sample.runs >= WARM_RUNS) this.samples.delete(event);
    }
    if (this.samples.size > 0) this.schedule(GAP_MS);
    else if (this.seen.size >= MAX_SAMPLES) this.stop();
  }
}
