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
}

const silent: Logger = { info() {}, warn() {}, error() {}, flush() {} };

/** A logger writing JSON lines to <logsDir>/<name>.log; silent when the directory cannot be made. */
export function fileLogger(logsDir: string, name: string): Logger {
  try {
    mkdirSync(logsDir, { recursive: true, mode: 0o700 });
    const destination = pino.destination({ dest: path.join(logsDir, `${name}.log`), sync: false, mkdir: true });
    const base = pino({ base: { pid: process.pid, component: name }, level: "info" }, destination);
    return {
      info: (fields, message) => base.info(fields, message),
      warn: (fields, message) => base.warn(fields, message),
      error: (fields, message) => base.error(fields, message),
      flush: () => {
        try {
          destination.flushSync();
        } catch {
          // not open yet: nothing buffered to lose
        }
      },
    };
  } catch {
    return silent;
  }
}

/** The program a shell command runs (its first word's base name), and nothing else of it. */
export function programName(command: string | undefined): string | undefined {
  if (!command) return undefined;
  const word = command.trim().split(/\s+/)[0] ?? "";
  return /^[A-Za-z0-9._+/-]{1,64}$/.test(word) ? word.split("/").pop() : undefined;
}
