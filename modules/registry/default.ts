// The registry `tama install` lays down when none exists: the built-in gates.
import type { RegistryFile } from "./registry.ts";

export function defaultRegistry(releaseId: string | null): RegistryFile {
  return {
    schema: 1,
    release: releaseId === null ? null : { id: releaseId },
    hooks: [
      {
        id: "block-git-hook-bypass",
        description: "refuse git commands that skip the repository's git hooks (--no-verify, core.hooksPath, HUSKY=0, …)",
        events: ["pre_tool_use"],
        tools: "shell",
        builtin: "block-git-hook-bypass",
        timeoutMs: 5_000,
        failMode: "closed",
        enabled: true,
      },
      {
        id: "block-open-todos",
        description: "refuse to end the turn while the session's todo list has open tasks",
        events: ["stop"],
        tools: "any",
        builtin: "block-open-todos",
        timeoutMs: 5_000,
        failMode: "open",
        enabled: true,
      },
      {
        id: "block-text-outside-tool-calls",
        description: "require a tool call while the session's todo list has open tasks",
        events: ["before_provider_request"],
        tools: "any",
        builtin: "block-text-outside-tool-calls",
        timeoutMs: 5_000,
        failMode: "open",
        enabled: true,
      },
    ],
  };
}
