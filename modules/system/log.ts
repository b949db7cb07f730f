// Logs go to files under $TAMA_HOME/logs, never to a protocol's stdout. What may be
// logged is an allowlist (seed 003): event names, ids, hook ids, durations,
// decisions, tool names and a shell command's program name. Never a prompt, a
// tool's input or output, a model payload or a contract's text.
import { mkdirSync } from "node:fs";
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
 * A logger writing JSON lines to <logsDir>/<name>.log; silent when the directory
 * cannot be made. close() releases the file; a later write opens it again (an
 * adapter restored after a failed adoption logs on).
 */
export function fileLogger(logsDir: string, name: string): Logger {
  type Open = { base: pino.Logger; destination: ReturnType<typeof pino.destination> };
  let open: Open | undefined;
  let unusable = false;
  const get = (): Open | undefined => {
    if (open || unusable) return open;
    try {
      mkdirSync(logsDir, { recursive: true, mode: 0o700 });
      // Lines gather into 4 KiB writes instead of one write per line on the hot path.
      const destination = pino.destination({ dest: path.join(logsDir, `${name}.log`), sync: false, mkdir: true, minLength: 4096 });
      open = { base: pino({ base: { pid: process.pid, component: name }, level: "info" }, destination), destination };
    } catch {
      unusable = true;
    }
    return open;
  };
  const flush = (): void => {
    try {
      open?.destination.flushSync();
    } catch {
      // not open yet: nothing buffered to lose
    }
  };
  return {
    info: (fields, message) => get()?.base.info(fields, message),
    warn: (fields, message) => get()?.base.warn(fields, message),
    error: (fields, message) => get()?.base.error(fields, message),
    flush,
    close: () => {
      flush();
      open?.destination.end();
      open = undefined;
    },
  };
}
