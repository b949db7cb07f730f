// LF-terminated lines out of a byte stream, with a bound: what the engine reads on
// its input and what the engine client reads on the engine's output.

/**
 * Splits a byte stream into LF-terminated lines with a bound: a line longer than
 * the bound is reported once and skipped up to its LF, never buffered whole
 * (node:readline has no bound, so a 1 GB line would be held in memory).
 */
export class BoundedLineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private skipping = false;

  constructor(
    private readonly limit: number,
    private readonly onLine: (line: string) => void,
    private readonly onOversize: (bytesSeen: number) => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const lf = chunk.indexOf(10, start);
      const end = lf === -1 ? chunk.length : lf;
      const piece = chunk.subarray(start, end);
      if (!this.skipping) {
        if (this.size + piece.length > this.limit) {
          this.skipping = true;
          this.onOversize(this.size + piece.length);
          this.parts = [];
          this.size = 0;
        } else if (piece.length > 0) {
          this.parts.push(piece);
          this.size += piece.length;
        }
      }
      if (lf === -1) return;
      if (this.skipping) {
        this.skipping = false;
      } else {
        const line = Buffer.concat(this.parts, this.size).toString("utf8");
        this.parts = [];
        this.size = 0;
        this.onLine(line);
      }
      start = lf + 1;
    }
  }

  /** Input ended: a last line without LF is not a frame (frames must end with LF). */
  end(): string | undefined {
    if (this.size === 0 || this.skipping) return undefined;
    const rest = Buffer.concat(this.parts, this.size).toString("utf8");
    this.parts = [];
    this.size = 0;
    return rest;
  }
}
