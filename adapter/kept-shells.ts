// Per session, what the bash calls Tama let run left in OMP's shell (one shell process
// per session: its functions, aliases and variables stay for the next call). Each bash
// call is checked with it (payload `shell_kept`, read by the walker), so what one call
// defines is read where a later one uses it. Kept in the shell's carry store: an
// adoption in place (the reload tool) keeps the same OMP shell, so it keeps this too.
import { ShellKept } from "../modules/protocol/engine.ts";
import { keptAfter, NOTHING_KEPT, SOURCES, type KeptAfter } from "../modules/gates/shell-kept.ts";
import { shellCommandOf, shellEnvOf } from "../modules/tools/declaration.ts";
import { resolveTargetPath } from "../modules/tools/tool-paths.ts";

const CARRY_KEY = "tama.shellKept.v1";
/** Sessions whose shells are kept (subagents have their own); the oldest is let go past it. */
const MAX_SESSIONS = 1024;

export class KeptShells {
  private readonly sessions: Map<string, ShellKept>;

  /** `carry`: the shell's store handed from one adapter generation to the next (AdapterHost.carry). */
  constructor(carry: Map<string, unknown> | undefined) {
    const carried = carry?.get(CARRY_KEY);
    // Another adapter generation's store: taken only if every entry still reads as one.
    if (carried instanceof Map && [...carried.values()].every((kept) => ShellKept.safeParse(kept).success)) {
      this.sessions = carried as Map<string, ShellKept>;
    } else {
      this.sessions = new Map();
      carry?.set(CARRY_KEY, this.sessions);
    }
  }

  /** What the session's shell holds before its next call; undefined while it holds nothing Tama read. */
  before(session: string | undefined): ShellKept | undefined {
    return session === undefined ? undefined : this.sessions.get(session);
  }

  /**
   * What the session's shell would hold once this bash call ran (not yet kept). A call
   * that would leave more than Tama reads later calls with is an error to refuse it by.
   */
  after(session: string | undefined, input: Record<string, unknown>, sessionCwd: string): KeptAfter | undefined {
    const command = shellCommandOf(input);
    if (session === undefined || command === undefined) return undefined;
    // Where OMP runs the call, read as the gates read it (`~`, a drive path under WSL).
    const cwd = typeof input.cwd === "string" && input.cwd.trim().length > 0 ? resolveTargetPath(input.cwd, sessionCwd, { brackets: false }) : sessionCwd;
    const env = shellEnvOf(input);
    const before = this.sessions.get(session) ?? NOTHING_KEPT;
    return keptAfter(before, command, { cwd, ...(env !== undefined ? { env } : {}) });
  }

  /** Whether the call sources a file: read again once it ran (the file may be one it wrote). */
  sources(input: Record<string, unknown>): boolean {
    return SOURCES.test(shellCommandOf(input) ?? "");
  }

  /** The call was let run: its shell now holds `kept`. */
  ran(session: string, kept: ShellKept): void {
    if (this.sessions.get(session) === kept) return;
    // A shell that holds nothing Tama read is not sent with every call.
    if (!this.sessions.has(session) && Object.keys(kept.functions).length + Object.keys(kept.aliases).length + Object.keys(kept.vars).length === 0) return;
    this.sessions.delete(session);
    this.sessions.set(session, kept);
    if (this.sessions.size > MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value ?? "");
  }
}
