// In OMP's TUI, a project whose hooks are held is offered for trust in a dialog only
// the person at the keyboard can answer: the agent's tools cannot type into it, and it
// is never offered in RPC, JSON or print mode, where the other end of the pipe may be a
// program. What is trusted is exactly what the dialog showed: the content is read
// again on the answer and nothing is recorded when it changed in between.
import path from "node:path";
import type { HeldProject } from "../modules/protocol/engine.ts";
import type { OmpContext } from "../modules/omp/api.ts";
import { ProjectSources, trustProject } from "../modules/sources/sources.ts";
import { FileDigests, type Manifest } from "../modules/sources/trust.ts";
import { runsOf } from "../modules/cli/hooks/format.ts";

/** The dialog's choices; the first is the default, so a stray Enter trusts nothing. */
export const KEEP_HELD = "Keep them held";
export const TRUST = "Trust this content";

/** At most this many hooks and scripts are listed; the rest are counted. */
const LIST_MAX = 12;

interface Shown {
  title: string;
  manifest: Manifest;
}

/** What the dialog shows of a project: its hooks, the scripts they run (by digest), and why it is held. */
export function describeHeld(tamaHome: string, held: HeldProject): Shown {
  const read = new ProjectSources(held.project, tamaHome, new FileDigests()).read();
  const lines: string[] = [];
  const why = held.trust === "changed" ? `changed since you trusted it (${held.changes.join(", ")}); its tool calls are refused until you decide` : "not trusted yet, so none of its hooks run";
  lines.push(`Tama: project ${held.project} is ${why}.`);
  const hooks = read.sources.flatMap((source) => source.hooks.map((hook) => ({ source, hook })));
  lines.push(`Its hooks (${hooks.length}):`);
  for (const { source, hook } of hooks.slice(0, LIST_MAX)) {
    lines.push(`  ${path.relative(held.project, source.file)}: ${hook.events.join(",")} runs ${runsOf(hook)}`);
  }
  if (hooks.length > LIST_MAX) lines.push(`  … and ${hooks.length - LIST_MAX} more (\`tama trust --dry-run ${held.project}\` lists them)`);
  const scripts = Object.entries(read.manifest).filter(([file]) => !read.sources.some((s) => path.relative(held.project, s.file) === file));
  if (scripts.length > 0) {
    lines.push("Scripts they run:");
    for (const [file, digest] of scripts.slice(0, LIST_MAX)) lines.push(`  ${file}  ${digest === null ? "MISSING" : `sha256 ${digest.slice(0, 16)}`}`);
    if (scripts.length > LIST_MAX) lines.push(`  … and ${scripts.length - LIST_MAX} more`);
  }
  lines.push(`Trusting records these files' digests; any change holds the hooks again. \`tama trust --revoke ${held.project}\` undoes it.`);
  return { title: lines.join("\n"), manifest: read.manifest };
}

export class TrustDialog {
  private open = false;
  private readonly offered = new Set<string>();

  constructor(
    private readonly tamaHome: string,
    private readonly notify: (message: string, type: "info" | "warning") => void,
    private readonly log: (note: string, project: string) => void,
  ) {}

  /** Offer trust once per project and content; never awaited by an event handler. */
  offer(ctx: OmpContext | undefined, held: HeldProject, key: string): void {
    if (ctx === undefined || !ctx.hasUI || (ctx.mode !== undefined && ctx.mode !== "tui")) return;
    const select = ctx.ui.select?.bind(ctx.ui);
    if (select === undefined) return;
    if (this.open || this.offered.has(key)) return;
    this.offered.add(key);
    let shown: Shown;
    try {
      shown = describeHeld(this.tamaHome, held);
    } catch (error) {
      this.log(`trust dialog not offered: ${(error as Error).message}`, held.project);
      return;
    }
    this.open = true;
    let answer: Promise<string | undefined>;
    try {
      answer = select(shown.title, [KEEP_HELD, TRUST], { initialIndex: 0 });
    } catch (error) {
      this.open = false;
      this.log(`trust dialog not offered: ${(error as Error).message}`, held.project);
      return;
    }
    answer.then(
      (choice) => {
        this.open = false;
        if (choice === TRUST) this.trust(held.project, shown.manifest);
        else this.log("the person kept the project's hooks held", held.project);
      },
      (error: unknown) => {
        this.open = false;
        this.log(`trust dialog failed: ${(error as Error).message}`, held.project);
      },
    );
  }

  private trust(project: string, shown: Manifest): void {
    try {
      const done = trustProject(this.tamaHome, project, shown);
      if ("changedSinceShown" in done) {
        this.notify(`Tama trusted nothing: the hooks of ${project} changed while the dialog was open. \`tama trust ${project}\` shows what they run now.`, "warning");
        this.log("content changed while the trust dialog was open", project);
        return;
      }
      this.log(`trusted from the dialog (${done.file})`, project);
      this.notify(`Tama: the hooks of ${project} are trusted at this content and run from the next event.`, "info");
    } catch (error) {
      this.notify(`Tama could not record trust in ${project}: ${(error as Error).message}`, "warning");
    }
  }
}
