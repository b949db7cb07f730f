// Which of the registry's hooks run: the registry's own `enabled`, narrowed or
// widened by TAMA_ONLY_HOOK_ID, TAMA_DISABLED_HOOKS and TAMA_ENABLED_HOOKS.
import { readEnvText } from "../system/paths.ts";
import type { HookEntry } from "../registry/registry.ts";

function idList(value: string | undefined): Set<string> {
  return new Set((value ?? "").split(",").map((id) => id.trim()).filter((id) => id.length > 0));
}

export class HookSelection {
  constructor(
    private readonly only: string | undefined,
    private readonly disabled: ReadonlySet<string>,
    private readonly enabled: ReadonlySet<string>,
  ) {}

  /** Read from the environment; a value that is not text throws an EnvError naming it. */
  static fromEnv(env: NodeJS.ProcessEnv = process.env): HookSelection {
    const only = readEnvText("TAMA_ONLY_HOOK_ID", env)?.trim();
    return new HookSelection(
      only && only.length > 0 ? only : undefined,
      idList(readEnvText("TAMA_DISABLED_HOOKS", env)),
      idList(readEnvText("TAMA_ENABLED_HOOKS", env)),
    );
  }

  filter<T extends HookEntry>(hooks: readonly T[]): T[] {
    return hooks.filter((hook) => {
      if (this.only !== undefined) return hook.id === this.only;
      if (this.disabled.has(hook.id)) return false;
      return hook.enabled || this.enabled.has(hook.id);
    });
  }
}
