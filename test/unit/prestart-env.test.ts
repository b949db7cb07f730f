// Whether a pre-started process's environment is the one its event would give it.
import { describe, expect, it } from "vitest";
import { sameEnv } from "../../modules/engine/prestart.ts";
import { CAPABILITY_KEY_ENV, CAPABILITY_SOCKET_ENV } from "../../modules/session-control/grants.ts";
import { HOOK_RUN_VARIABLE } from "../../modules/system/process-groups.ts";

const base = { PATH: "/usr/bin", HOME: "/home/me", TAMA_EVENT: "pre_tool_use:bash", TAMA_HOOK_ID: "h1" };

describe("a pre-started process's environment", () => {
  it("is the same when only this run's mark and the session-control capability differ", () => {
    expect(sameEnv({ ...base, [HOOK_RUN_VARIABLE]: "r1", [CAPABILITY_SOCKET_ENV]: "/a", [CAPABILITY_KEY_ENV]: "k1" }, { ...base, [HOOK_RUN_VARIABLE]: "r2" })).toBe(true);
    // In any order, and a variable left undefined is no variable.
    expect(sameEnv({ HOME: "/home/me", PATH: "/usr/bin", TAMA_HOOK_ID: "h1", TAMA_EVENT: "pre_tool_use:bash", EXTRA: undefined }, base)).toBe(true);
  });

  it("differs by a value, or by a variable either one sets alone", () => {
    expect(sameEnv(base, { ...base, TAMA_EVENT: "pre_tool_use:write" })).toBe(false);
    expect(sameEnv(base, { ...base, PATH: "" })).toBe(false);
    expect(sameEnv({ ...base, LD_PRELOAD: "/tmp/x.so" }, base)).toBe(false);
    expect(sameEnv(base, { ...base, LD_PRELOAD: "/tmp/x.so" })).toBe(false);
    expect(sameEnv(base, { ...base, TAMA_HOOK_ID: undefined, OTHER: "h1" })).toBe(false);
  });
});
