// One doctor check's answer: ok, warning or error, and when not ok the fix in words.
export type CheckStatus = "ok" | "warning" | "error";

export interface Check {
  /** What was checked, e.g. `release`, `engine`, `command:<hook id>`. */
  id: string;
  status: CheckStatus;
  summary: string;
  fix?: string;
}

export const ok = (id: string, summary: string): Check => ({ id, status: "ok", summary });
export const warning = (id: string, summary: string, fix: string): Check => ({ id, status: "warning", summary, fix });
export const error = (id: string, summary: string, fix: string): Check => ({ id, status: "error", summary, fix });

export const INSTALL_FIX = "run `tama install --omp` (npm i -g tama-hooks puts tama on PATH), or install the OMP plugin: omp plugin install tama-hooks";

/** The first 12 hex digits of a digest: enough to tell two apart in a line. */
export const short = (digest: string): string => digest.slice(0, 12);
