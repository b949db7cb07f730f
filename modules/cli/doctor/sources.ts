// The other hook sources: the user's Claude Code file (when Claude sources are on) and
// the project of the directory doctor runs in — broken sources, a project not trusted
// or changed since, and scripts its hooks name that do not exist.
import os from "node:os";
import path from "node:path";
import type { RegistryFile } from "../../registry/registry.ts";
import { findProject } from "../../sources/project.ts";
import { trustCommand } from "../../sources/sources.ts";
import { userClaudeHooks } from "../claude-sources.ts";
import { viewProject } from "../trust.ts";
import { error, ok, warning, type Check } from "./check.ts";

export function checkSources(registry: RegistryFile | undefined, cwd: string): Check[] {
  const checks: Check[] = [];
  const claude = registry?.readClaudeSettings === true;
  if (claude) {
    const user = userClaudeHooks();
    if (user?.error !== undefined) checks.push(error("source:claude-user", user.error, `fix ${user.file}: until it loads none of its hooks run (the others do)`));
  }
  const found = findProject(cwd, os.homedir());
  if (found === undefined) return checks.length > 0 ? checks : [ok("sources", `${claude ? "Claude sources on" : "Claude sources off"}; ${cwd} is in no project`)];
  const view = viewProject(found.root, claude);
  const live = view.sources.filter((s) => s.present && s.read);
  if (live.length === 0) return [...checks, ok("sources", `project ${found.root} has no hook sources Tama reads`)];
  for (const source of live) {
    if (source.error !== undefined) {
      checks.push(error(`source:${source.label}`, source.error, `fix ${source.file}, then \`${trustCommand(found.root)}\`: until it loads none of its hooks run (the others do)`));
    }
  }
  for (const script of view.scripts) {
    if (script.digest === null) {
      checks.push(warning(`script:${path.relative(found.root, script.file)}`, `a hook of ${found.root} runs ${script.file}, which does not exist`, "add the script or remove the hook that names it"));
    }
  }
  if (view.trust === "changed") {
    checks.push(error("project-trust", `project ${found.root} changed since it was trusted (${view.changes.join(", ")}): its hooks are held and its tool calls refused`, `review the change, then \`${trustCommand(found.root)}\` (or \`tama trust --revoke ${found.root}\`)`));
  } else if (view.trust === "untrusted") {
    const count = live.reduce((n, s) => n + s.hooks.length, 0);
    checks.push(warning("project-trust", `project ${found.root} is not trusted${view.recordError !== undefined ? ` (${view.recordError})` : ""}: its ${count} hooks are held`, `\`${trustCommand(found.root)}\` shows them and lets them run`));
  } else checks.push(ok("project-trust", `project ${found.root}: trusted at its content (${live.length} sources, ${view.scripts.length} scripts)`));
  return checks;
}
