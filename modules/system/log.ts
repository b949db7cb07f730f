// Logs go to files under $TAMA_HOME/logs, never to a protocol's stdout. What may be
// logged is an allowlist (seed 003): event names, ids, hook ids, durations,
// decisions, tool names and a shell command's program name. Never a prompt, a
// tool's input or output, a model payload or a contract's text.
import { closeSync, fstatSync, mkdirSync, openSync, writeSync } from "node:fs";
import path from "node:path";
import pino from "pino";

export type LogFields = {
  event?: string;
  session?: string | null;
  dispatch?: string | number;
  hook?: string;
  hooks?: string[];
  tool?: string;
  program?: string;
  decision?: string;
  outcome?: string;
  ms?: number;
  generation?: number;
  release?: string | null;
  checksum?: string | null;
  pid?: number;
  processGroup?: number | null;
  digest?: string | null;
  count?: number;
  /** A project root Tama found from a cwd (its hooks' trust is logged when it changes). */
  project?: string;
  /** A Tama-made message (never text taken from a payload). */
  note?: string;
};

export interface Logger {
  info(fields: LogFields, message: string): void;
  warn(fields: LogFields, message: string): void;
  error(fields: LogFields, message: string): void;
  flush(): void;
  /** Flush and release the file (an adapter replaced in place must not keep it open). */
  close(): void;
}

/**
 * The log file pino writes to: lines gather into 4 KiB writes instead of one write per
 * line on the hot path, and a flush before exit or close loses none. Written by Tama, not sonic-boom, because sonic-boom's flushSync
 * sleeps and retries for ever on an error such as ENOSPC, which would hang OMP's exit;
 * here every error goes to `onError` once and the file is given up.
 */
class LogFile {
  private pending: string[] = [];
  private size = 0;
  private closed = false;

  constructor(
    private readonly fd: number,
    private readonly onError: (error: Error) => void,
  ) {}

  write(line: string): boolean {
    if (this.closed) return true;
    this.pending.push(line);
    this.size += line.length;
    if (this.size >= 4096) this.drain();
    return true;
  }

  private take(): Buffer {
    const data = Buffer.from(this.pending.join(""));
    this.pending = [];
    this.size = 0;
    return data;
  }

  /** A local file takes 4 KiB in microseconds: written synchronously, so nothing is in flight at close. */
  private drain(): void {
    this.flushSync();
  }

  flushSync(): void {
    if (this.closed || this.pending.length === 0) return;
    const data = this.take();
    try {
      for (let offset = 0; offset < data.length; ) offset += writeSync(this.fd, data, offset, data.length - offset);
    } catch (error) {
      this.fail(error as Error);
    }
  }

  end(): void {
    this.flushSync();
    this.release();
  }

  private fail(error: Error): void {
    this.release();
    this.onError(error);
  }

  release(): void {
    if (this.closed) return;
    this.closed = true;
    this.pending = [];
    try {
      closeSync(this.fd);
    } catch {
      // already closed
    }
  }
}

/**
 * A logger writing JSON lines to <logsDir>/<name>.log. Tama never dies of its own log
 * and never takes OMP down with it: a log that cannot be opened or written (EACCES,
 * EROFS, ENOSPC, ENOTDIR, a directory where the file should be, …) is given up, and
 * `onUnusable` hears why, once. close() releases the file; a later write opens it
 * again (an adapter restored after a failed adoption logs on).
 */
export function fileLogger(logsDir: string, name: string, onUnusable?: (message: string) => void): Logger {
  type Open = { base: pino.Logger; destination: LogFile };
  const file = path.join(logsDir, `${name}.log`);
  let open: Open | undefined;
  let unusable = false;
  const giveUp = (error: unknown): void => {
    const current = open;
    open = undefined;
    current?.destination.release();
    if (unusable) return;
    unusable = true;
    try {
      onUnusable?.(`Tama cannot write its log ${file}: ${(error as Error).message ?? String(error)}; it goes on without that log (tama doctor checks the logs)`);
    } catch {
      // a warning that cannot be shown must not break what was being logged
    }
  };
  const get = (): Open | undefined => {
    if (open || unusable) return open;
    let fd: number | undefined;
    try {
      mkdirSync(logsDir, { recursive: true, mode: 0o700 });
      // Opened here, synchronously, so a failure is this function's to handle.
      fd = openSync(file, "a", 0o600);
      const stats = fstatSync(fd);
      if (!stats.isFile() && !stats.isCharacterDevice()) throw new Error("not a regular file");
      const destination = new LogFile(fd, giveUp);
      open = { base: pino({ base: { pid: process.pid, component: name }, level: "info" }, destination), destination };
    } catch (error) {
      if (fd !== undefined && open === undefined) {
        try {
          closeSync(fd);
        } catch {
          // nothing to release
        }
      }
      giveUp(error);
    }
    return open;
  };
  const write = (level: "info" | "warn" | "error", fields: LogFields, message: string): void => {
    try {
      get()?.base[level](fields, message);
    } catch (error) {
      giveUp(error);
    }
  };
  return {
    info: (fields, message) => write("info", fields, message),
    warn: (fields, message) => write("warn", fields, message),
    error: (fields, message) => write("error", fields, message),
    flush: () => open?.destination.flushSync(),
    close: () => {
      open?.destination.end();
      open = undefined;
    },
  };
}
