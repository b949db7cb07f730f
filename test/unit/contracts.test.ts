import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  CONTRACTS_END,
  CONTRACTS_START,
  contractsFilePath,
  extractContractBlock,
  InstalledContractsReader,
  readInstalledContracts,
  spliceContracts,
  unreadableContractsMessage,
} from "../../modules/model-requests/contracts.ts";

const OLD = `${CONTRACTS_START}\nC1: run the tests before saying done.\n${CONTRACTS_END}`;
const NEW = `${CONTRACTS_START}\nC1: run the tests before saying done.\nC2: never push to main.\n${CONTRACTS_END}`;
const SYSTEM = `You are OMP.\n</critical>\n\n${OLD}\n`;

describe("extractContractBlock", () => {
  it("returns the block with both markers, and only it", () => {
    expect(extractContractBlock(`intro\n${OLD}\noutro`)).toEqual({ ok: true, block: OLD });
  });

  it("returns null when there is no block", () => {
    expect(extractContractBlock("no markers here")).toEqual({ ok: true, block: null });
    expect(extractContractBlock("")).toEqual({ ok: true, block: null });
  });

  it.each([
    ["start without end", `${CONTRACTS_START}\nx`, "without an end marker"],
    ["end without start", `x\n${CONTRACTS_END}`, "without a start marker"],
    ["end before start", `${CONTRACTS_END}\nx\n${CONTRACTS_START}`, "the end marker comes before the start marker"],
    ["two starts", `${CONTRACTS_START}\n${CONTRACTS_START}\n${CONTRACTS_END}`, "2 start markers"],
    ["two ends", `${CONTRACTS_START}\n${CONTRACTS_END}\n${CONTRACTS_END}`, "2 end markers"],
    ["two blocks", `${OLD}\n${OLD}`, "2 start markers"],
  ])("refuses %s", (_name, text, error) => {
    const result = extractContractBlock(text);
    expect(result.ok).toBe(false);
    expect(result.ok ? "" : result.error).toContain(error);
  });
});

describe("spliceContracts", () => {
  it("replaces the block in an OpenAI chat system message string", () => {
    const payload = { model: "m", messages: [{ role: "system", content: SYSTEM }, { role: "user", content: "hi" }] };
    const result = spliceContracts(payload, NEW);
    expect(result.changed).toBe(true);
    expect(result.error).toBeUndefined();
    const out = result.payload as typeof payload;
    expect(out.messages[0]?.content).toBe(`You are OMP.\n</critical>\n\n${NEW}\n`);
    // Copied along the changed path only; the input is untouched.
    expect(payload.messages[0]?.content).toBe(SYSTEM);
    expect(out).not.toBe(payload);
    expect(out.messages).not.toBe(payload.messages);
    expect(out.messages[1]).toBe(payload.messages[1]);
  });

  it("replaces the block in chat content parts", () => {
    const payload = { messages: [{ role: "system", content: [{ type: "text", text: "a" }, { type: "text", text: SYSTEM }] }] };
    const out = spliceContracts(payload, NEW).payload as typeof payload;
    expect(out.messages[0]?.content[1]?.text).toContain("C2: never push to main.");
    expect(out.messages[0]?.content[0]).toBe(payload.messages[0]?.content[0]);
  });

  it("replaces the block in an Anthropic system string and system array", () => {
    const asString = spliceContracts({ system: SYSTEM, messages: [] }, NEW);
    expect((asString.payload as { system: string }).system).toContain(NEW);
    const asArray = spliceContracts({ system: [{ type: "text", text: "x", cache_control: { type: "ephemeral" } }, { type: "text", text: SYSTEM }], messages: [] }, NEW);
    const system = (asArray.payload as { system: { text: string }[] }).system;
    expect(system[1]?.text).toContain(NEW);
    expect(system[0]).toEqual({ type: "text", text: "x", cache_control: { type: "ephemeral" } });
  });

  it("replaces the block in responses instructions and input items", () => {
    const instructions = spliceContracts({ instructions: SYSTEM, input: [] }, NEW);
    expect((instructions.payload as { instructions: string }).instructions).toContain(NEW);
    const input = spliceContracts({ input: [{ role: "developer", content: [{ type: "input_text", text: SYSTEM }] }] }, NEW);
    const item = (input.payload as { input: { content: { text: string }[] }[] }).input[0];
    expect(item?.content[0]?.text).toContain(NEW);
  });

  it("keeps text sharing a line with a marker", () => {
    const payload = { system: `before ${OLD} after` };
    expect((spliceContracts(payload, NEW).payload as { system: string }).system).toBe(`before ${NEW} after`);
  });

  it("does not interpret $ patterns in the block", () => {
    const block = `${CONTRACTS_START}\ncost: $& and $1 and $$\n${CONTRACTS_END}`;
    expect((spliceContracts({ system: SYSTEM }, block).payload as { system: string }).system).toContain("$& and $1 and $$");
  });

  it("returns the same payload when there is no block or it is already current", () => {
    const none = { messages: [{ role: "system", content: "plain" }] };
    expect(spliceContracts(none, NEW)).toEqual({ payload: none, changed: false });
    expect(spliceContracts(none, NEW).payload).toBe(none);
    const current = { system: `x\n${NEW}` };
    expect(spliceContracts(current, NEW).payload).toBe(current);
    expect(spliceContracts(current, NEW).changed).toBe(false);
  });

  it("finds an old block wherever it sits, even when the current one is found first", () => {
    // The current block first (the system prompt), an old one deep in the conversation.
    const payload = { system: `x\n${NEW}`, messages: [{ role: "user", content: [{ type: "text", text: "hi" }, { type: "tool_result", content: [[{ text: SYSTEM }]] }] }] };
    const result = spliceContracts(payload, NEW);
    expect(result.changed).toBe(true);
    const deep = (result.payload as typeof payload).messages[0]?.content[1] as { content: { text: string }[][] };
    expect(deep.content[0]?.[0]?.text).toBe(SYSTEM.replace(OLD, NEW));
    expect(result.payload).not.toBe(payload);
    expect((result.payload as typeof payload).system).toBe(payload.system);
  });

  it("leaves the payload unchanged and says why on malformed markers", () => {
    const payload = { messages: [{ role: "system", content: SYSTEM }, { role: "tool", content: `${CONTRACTS_START} truncated` }] };
    const result = spliceContracts(payload, NEW);
    expect(result.payload).toBe(payload);
    expect(result.changed).toBe(false);
    expect(result.error).toContain("without an end marker");
  });

  it("refuses a replacement that is not one marked block", () => {
    const payload = { system: SYSTEM };
    const result = spliceContracts(payload, "C1 without markers");
    expect(result).toMatchObject({ payload, changed: false });
    expect(result.error).toContain("not exactly one marked contract block");
  });

  it("leaves non-JSON values alone", () => {
    expect(spliceContracts(42, NEW)).toEqual({ payload: 42, changed: false });
    expect(spliceContracts(null, NEW)).toEqual({ payload: null, changed: false });
    const date = new Date(0);
    expect(spliceContracts({ when: date }, NEW).payload).toEqual({ when: date });
  });

  it("splices a 200 KB payload quickly, sharing every unchanged message", () => {
    const filler = "lorem ipsum dolor sit amet ".repeat(40); // ~1 KB per message
    const messages = [
      { role: "system", content: `${"S".repeat(18_000)}\n</critical>\n\n${OLD}` },
      ...Array.from({ length: 200 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: [{ type: "text", text: `${i} ${filler}` }] })),
    ];
    const payload = { model: "m", stream: true, tools: [{ type: "function", function: { name: "bash", parameters: {} } }], messages };
    expect(JSON.stringify(payload).length).toBeGreaterThan(200_000);
    const started = performance.now();
    const result = spliceContracts(payload, NEW);
    const elapsed = performance.now() - started;
    expect(result.changed).toBe(true);
    const out = result.payload as typeof payload;
    expect(out.messages[0]?.content).toMatch(new RegExp(`${NEW.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`));
    expect(out.messages.slice(1).every((message, i) => message === messages[i + 1])).toBe(true);
    expect(out.tools).toBe(payload.tools);
    expect(elapsed).toBeLessThan(50);
  });
});

describe("installed contracts file", () => {
  let dir: string;
  let cwd: string;
  let home: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "tama-contracts-"));
    cwd = join(dir, "project");
    home = join(dir, "home");
    mkdirSync(cwd, { recursive: true });
    mkdirSync(home, { recursive: true });
  });

  afterEach(() => {
    chmodSync(dir, 0o700);
    rmSync(dir, { recursive: true, force: true });
  });

  function place(path: string, text = OLD): string {
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, text);
    return path;
  }

  it("defaults to the user file when none exists", () => {
    expect(contractsFilePath(cwd, home)).toBe(join(home, ".omp", "agent", "APPEND_SYSTEM.md"));
  });

  it("honours PI_CONFIG_DIR and profiles for the user file", () => {
    expect(contractsFilePath(cwd, home, { configDirName: ".pi" })).toBe(join(home, ".pi", "agent", "APPEND_SYSTEM.md"));
    expect(contractsFilePath(cwd, home, { profile: "work" })).toBe(join(home, ".omp", "profiles", "work", "agent", "APPEND_SYSTEM.md"));
  });

  it("uses the project file before the user file, in OMP's order", () => {
    const user = place(join(home, ".omp", "agent", "APPEND_SYSTEM.md"));
    expect(contractsFilePath(cwd, home)).toBe(user);
    const gemini = place(join(cwd, ".gemini", "APPEND_SYSTEM.md"));
    expect(contractsFilePath(cwd, home)).toBe(gemini);
    const claude = place(join(cwd, ".claude", "APPEND_SYSTEM.md"));
    expect(contractsFilePath(cwd, home)).toBe(claude);
    const omp = place(join(cwd, ".omp", "APPEND_SYSTEM.md"));
    expect(contractsFilePath(cwd, home)).toBe(omp);
  });

  it("ignores foreign user dirs, which OMP reads only when opted in", () => {
    place(join(home, ".claude", "APPEND_SYSTEM.md"));
    expect(contractsFilePath(cwd, home)).toBe(join(home, ".omp", "agent", "APPEND_SYSTEM.md"));
  });

  it("reads the installed block", () => {
    const path = place(join(home, "APPEND_SYSTEM.md"), `# mine\n\n${NEW}\n`);
    expect(readInstalledContracts(path)).toEqual({ kind: "ok", block: NEW });
    expect(readInstalledContracts(place(join(home, "plain.md"), "no block"))).toEqual({ kind: "ok", block: null });
  });

  it("tells missing, malformed and unreadable apart", () => {
    expect(readInstalledContracts(join(home, "nope.md"))).toEqual({ kind: "missing" });
    expect(readInstalledContracts(join(place(join(home, "file")), "below-a-file.md"))).toEqual({ kind: "missing" });
    const malformed = readInstalledContracts(place(join(home, "bad.md"), `${CONTRACTS_START}\nno end`));
    expect(malformed).toMatchObject({ kind: "malformed" });
    const directory = join(home, "dir.md");
    mkdirSync(directory);
    expect(readInstalledContracts(directory)).toEqual({ kind: "unreadable", reason: "EISDIR: illegal operation on a directory" });
  });

  it("a reader finds the same file, and gives each change at the next request: a rewrite, a project file appearing, removal", () => {
    const reader = new InstalledContractsReader();
    const user = place(join(home, ".omp", "agent", "APPEND_SYSTEM.md"), `${OLD}\n`);
    expect(reader.read(cwd, home)).toEqual({ file: user, installed: { kind: "ok", block: OLD } });
    expect(reader.read(cwd, home)).toEqual({ file: user, installed: { kind: "ok", block: OLD } });
    place(user, `${NEW}\n`);
    expect(reader.read(cwd, home)).toEqual({ file: user, installed: { kind: "ok", block: NEW } });
    const project = place(join(cwd, ".omp", "APPEND_SYSTEM.md"), `${OLD}\n`);
    expect(reader.read(cwd, home)).toEqual({ file: project, installed: { kind: "ok", block: OLD } });
    rmSync(project);
    rmSync(user);
    expect(reader.read(cwd, home)).toEqual({ file: user, installed: { kind: "missing" } });
  });

  it("a reader reads a file once while its key stands, and an absent one once while it stays absent", () => {
    const reads: string[] = [];
    const reader = new InstalledContractsReader((path) => {
      reads.push(path);
      return readInstalledContracts(path);
    });
    const user = join(home, ".omp", "agent", "APPEND_SYSTEM.md");
    for (let i = 0; i < 3; i++) expect(reader.read(cwd, home)).toEqual({ file: user, installed: { kind: "missing" } });
    expect(reads).toEqual([user]);
    // Settled (still longer than the racy window): read once, then kept.
    place(user, `${OLD}\n`);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 10_000);
    try {
      for (let i = 0; i < 3; i++) expect(reader.read(cwd, home)).toEqual({ file: user, installed: { kind: "ok", block: OLD } });
    } finally {
      vi.useRealTimers();
    }
    expect(reads).toEqual([user, user]);
    rmSync(user);
    expect(reader.read(cwd, home)).toEqual({ file: user, installed: { kind: "missing" } });
    expect(reader.read(cwd, home)).toEqual({ file: user, installed: { kind: "missing" } });
    expect(reads).toEqual([user, user, user]);
  });

  it("words the unreadable-file sentence as the seed does", () => {
    expect(unreadableContractsMessage("/h/.omp/agent/APPEND_SYSTEM.md", "EACCES: permission denied")).toBe(
      "Tama cannot read the installed contracts /h/.omp/agent/APPEND_SYSTEM.md: EACCES: permission denied; this model request keeps the contracts its session started with",
    );
  });
});
