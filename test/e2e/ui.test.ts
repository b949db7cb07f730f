// `tama ui` in a real headless Chromium (Debian's, driven by playwright-core), fed by
// a real OMP session: a refusal and a pass show up live with the right counts; the
// server answers 403 without its token and listens on 127.0.0.1 only.
import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import net from "node:net";
import { chromium, type Browser, type BrowserContext } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { useOmpFixture } from "../omp/fixture.ts";
import { EngineClient, makeTestHome, ROOT, settleProcesses, TAMA_BIN, type TestHome } from "../support/engine-client.ts";
import { trackSteps } from "../support/steps.ts";
import { installTama } from "./tama-omp.ts";

const CHROMIUM = "/usr/bin/chromium";
const haveChromium = existsSync(CHROMIUM);
// Playwright already turns off Chromium's background networking; no GPU process either,
// which a headless page of tables and small charts does not need.
const LAUNCH = { executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu"] };
if (!haveChromium) process.stderr.write(`test/e2e/ui.test.ts: skipped: no ${CHROMIUM} (apt-get install -y chromium; .ci/run installs it)\n`);

const omp = useOmpFixture();
let ui: ChildProcess | undefined;
let browser: Browser | undefined;
let context: BrowserContext | undefined;
let engine: EngineClient | undefined;
let home: TestHome | undefined;
afterEach(async () => {
  await context?.close();
  context = undefined;
  await engine?.close();
  engine = undefined;
  if (ui && ui.exitCode === null) {
    const exited = new Promise((resolve) => ui!.once("exit", resolve));
    ui.kill("SIGTERM");
    await exited;
  }
  ui = undefined;
  if (home) expect(await settleProcesses(home.home)).toEqual([]);
  home?.cleanup();
  home = undefined;
});

/** Start `tama ui` and read the URL it prints. */
async function startUi(env: NodeJS.ProcessEnv, args: string[] = []): Promise<{ url: string; port: number; token: string }> {
  const child = spawn(process.execPath, [TAMA_BIN, "ui", "--no-open", ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  ui = child;
  let out = "";
  let err = "";
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  return await new Promise((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const match = /^tama ui: (http:\/\/127\.0\.0\.1:(\d+)\/\?token=([0-9a-f]+))$/m.exec(out);
      if (match) resolve({ url: match[1]!, port: Number(match[2]), token: match[3]! });
    });
    child.once("exit", (code) => reject(new Error(`tama ui exited ${code}: ${err}`)));
  });
}

/** Every listening TCP socket on a port, by local address, from the kernel's tables. */
function listeners(port: number): string[] {
  const found: string[] = [];
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    if (!existsSync(table)) continue;
    for (const line of readFileSync(table, "utf8").split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 4 || fields[3] !== "0A") continue;
      const [address, hexPort] = fields[1]!.split(":");
      if (parseInt(hexPort!, 16) === port) found.push(address!);
    }
  }
  return found;
}

function connects(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });
}

function statusWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers: { host } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on("error", reject);
  });
}

function wsStatus(url: string): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url);
    ws.on("open", () => {
      ws.close();
      resolve(101);
    });
    ws.on("unexpected-response", (_request, response) => resolve(response.statusCode ?? 0));
    ws.on("error", () => resolve(0));
  });
}

/** A fresh context (its own storage) on the one browser of this file. */
async function newPage(viewport?: { width: number; height: number }) {
  context = await browser!.newContext(viewport ? { viewport } : {});
  return await context.newPage();
}

describe.skipIf(!haveChromium)("tama ui in a real browser", () => {
  // One browser for the file, started before any test's clock: a first Chromium start on
  // a fresh machine has taken 19 s here, unloaded.
  beforeAll(async () => {
    browser = await chromium.launch(LAUNCH);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    browser = undefined;
  });

  it("shows a real OMP session's refusal and pass live, with the right counts; 403 without the token; 127.0.0.1 only", async () => {
    const step = trackSteps("test/e2e/ui.test.ts");
    step("OMP fixture setup");
    const { env } = await omp.setup();
    const tama = installTama(env);
    step("tama ui start");
    const { url, port, token } = await startUi(env.env);
    step("token, host and listener checks");
    const base = `http://127.0.0.1:${port}`;

    // Without the token (or with another), nothing is served: not the page, not the data, not the socket.
    for (const target of [`${base}/`, `${base}/snapshot.json`, `${base}/?token=${"0".repeat(token.length)}`, `${base}/snapshot.json?token=x`]) {
      expect((await fetch(target)).status, target).toBe(403);
    }
    expect(await wsStatus(`ws://127.0.0.1:${port}/live`)).toBe(403);
    expect(await wsStatus(`ws://127.0.0.1:${port}/live?token=${token}`)).toBe(101);
    // A page of another site that resolved its own name to 127.0.0.1 sends its own Host: refused even with the token.
    expect(await statusWithHost(url, `evil.example:${port}`)).toBe(403);
    expect(await statusWithHost(url, `127.0.0.1:${port}`)).toBe(200);
    // Read-only: nothing but GET is taken.
    expect((await fetch(url, { method: "POST", body: "{}" })).status).toBe(405);
    // Bound to 127.0.0.1 alone: the kernel lists one listener on the port, on 127.0.0.1.
    expect(listeners(port)).toEqual(["0100007F"]);
    const others = Object.values(os.networkInterfaces())
      .flat()
      .filter((i) => i !== undefined && i.family === "IPv4" && !i.internal)
      .map((i) => i!.address);
    for (const address of others) expect(await connects(address, port), address).toBe(false);

    step("browser page");
    const page = await newPage({ width: 1400, height: 900 });
    const pageErrors: string[] = [];
    page.on("pageerror", (error) => pageErrors.push(error.message));
    step("page load and live socket");
    await page.goto(url);
    await page.locator("#live.on").waitFor();

    // The session's cwd is a repository whose own hooks are not trusted: the page says they are held.
    mkdirSync(path.join(env.cwd, ".git"), { recursive: true });
    mkdirSync(path.join(env.cwd, ".tama"), { recursive: true });
    writeFileSync(path.join(env.cwd, ".tama", "hooks.json"), JSON.stringify({ schema: 1, hooks: [{ id: "lint", events: ["post_tool_use"], command: ["true"] }] }));
    step("OMP start");
    const session = omp.rpc();
    await session.ready();
    step("session row");
    // The live session appears without a reload, with its cwd and the gates its engine loaded.
    const sessionRow = page.locator("[data-testid=session-row]");
    await expect.poll(() => sessionRow.count(), { timeout: 60_000 }).toBe(1);
    const enabled = tama.readRegistry().hooks.filter((h) => h.enabled !== false).map((h) => String(h.id));
    expect(enabled).toContain("block-git-hook-bypass");
    await expect.poll(() => sessionRow.textContent(), { timeout: 60_000 }).toContain(`${enabled.length}: ${enabled.join(", ")}`);
    expect(await sessionRow.textContent()).toContain(env.cwd);
    expect(await sessionRow.locator("[data-testid=project-hooks]").textContent()).toBe(`1 held: not trusted · tama trust ${env.cwd}`);

    step("refused call");
    await session.prompt('CALL bash {"command":"git commit --no-verify -m x"}');
    step("refusal row");
    const blockRow = page.locator('[data-testid=activity-row][data-outcome=block][data-event="pre_tool_use:bash"]');
    await blockRow.first().waitFor({ timeout: 60_000 });
    expect(await blockRow.first().textContent()).toContain("git commit --no-verify skips");
    await page.selectOption("#f-event", "pre_tool_use:bash");
    await expect.poll(() => page.textContent("#n-dispatches")).toBe("1");
    expect(await page.textContent("#n-blocked")).toBe("1");
    expect(await page.textContent("#deny-rate")).toBe("100%");

    step("harmless call");
    await session.prompt('CALL bash {"command":"echo harmless-ran"}');
    step("pass counts");
    // The filter holds across live updates; the pass joins the refusal.
    await expect.poll(() => page.textContent("#n-dispatches"), { timeout: 60_000 }).toBe("2");
    expect(await page.textContent("#n-blocked")).toBe("1");
    expect(await page.textContent("#deny-rate")).toBe("50%");
    // The git gate's own rows: its refusal and its pass.
    await page.selectOption("#f-hook", "block-git-hook-bypass");
    const rows = page.locator("[data-testid=activity-row]");
    await expect.poll(() => rows.count()).toBe(2);
    expect(await page.locator("[data-testid=activity-row][data-outcome=pass]").count()).toBe(1);
    expect(await page.locator("[data-testid=activity-row][data-outcome=block]").count()).toBe(1);
    expect(await page.textContent("#deny-rate")).toBe("50%");
    // Per-hook latency and the slowest dispatch's stages are drawn.
    const gate = page.locator('[data-testid=latency-row][data-hook="block-git-hook-bypass"]');
    await gate.waitFor();
    expect(await gate.locator("svg polyline").count()).toBe(1);
    expect(await page.locator("[data-testid=stages-chart] rect").count()).toBeGreaterThan(0);
    expect(pageErrors).toEqual([]);

    step("snapshot");
    // The view never carries a session's control key.
    const record = readdirSync(path.join(tama.home, "sessions")).find((n) => /^session\..+\.json$/.test(n))!;
    const key = (JSON.parse(readFileSync(path.join(tama.home, "sessions", record), "utf8")) as { key: string }).key;
    const snapshot = await (await fetch(`${base}/snapshot.json?token=${token}`)).text();
    expect(snapshot).not.toContain(key);
    expect(JSON.parse(snapshot)).toMatchObject({ sessions: [{ cwd: env.cwd }] });

    step("screenshot");
    // The screenshot (the test's artifact, under .tmp/): the git gate's refusal and pass, every event.
    await page.selectOption("#f-event", "");
    await page.selectOption("#f-hook", "block-git-hook-bypass");
    await expect.poll(() => page.textContent("#n-dispatches")).toBe("2");
    const shots = path.join(ROOT, ".tmp");
    mkdirSync(shots, { recursive: true });
    await page.screenshot({ path: path.join(shots, "tama-ui.png"), fullPage: true });
    expect(readFileSync(path.join(shots, "tama-ui.png")).subarray(1, 4).toString()).toBe("PNG");
    // A real OMP, a real browser and several live waits: more time than the suite's default.
  }, 240_000);

  it("shows a hook while it runs, then the session's abandonment and the cancelled outcome when the harness stops waiting", async () => {
    home = makeTestHome();
    const fifo = path.join(home.dir, "nobody-writes.fifo");
    execFileSync("mkfifo", [fifo]);
    home.writeRegistry({ schema: 1, release: { id: "r1" }, hooks: [{ id: "guard", events: ["pre_tool_use"], command: [path.join(ROOT, "test/fixtures/hooks/wait-fifo.sh")] }] });
    engine = new EngineClient(home, { HOLD_FIFO: fifo });
    await engine.ready();
    const { url } = await startUi({ TAMA_HOME: home.home });
    const page = await newPage();
    await page.goto(url);
    await page.locator("#live.on").waitFor();

    const edit = { session_id: "s-held", cwd: home.dir, tool_name: "write", tool_input: { path: "a.txt", content: "x" } };
    const pre = engine.dispatch("pre_tool_use:write", edit);
    const running = page.locator("[data-testid=running-row]");
    await expect.poll(() => running.textContent(), { timeout: 60_000 }).toContain("guard");
    expect(await running.textContent()).toContain("pre_tool_use:write");

    // The call's result arrives: nobody waits for the check any more, so the engine ends it.
    await engine.dispatch("post_tool_use:write", { ...edit, tool_response: { ok: true } });
    expect((await pre).ok).toBe(false);
    await expect.poll(() => page.locator("[data-testid=abandoned-row]").textContent(), { timeout: 60_000 }).toContain("guard");
    await expect.poll(() => running.count(), { timeout: 60_000 }).toBe(0);
    await expect.poll(() => page.locator("[data-testid=activity-row][data-outcome=cancelled]").count(), { timeout: 60_000 }).toBe(1);
  });
});

describe("tama ui's command line", () => {
  it("refuses a bad --port by name, says when the port is taken, serves a fixed --port and stops on SIGTERM", async () => {
    const tamaHome = makeTestHome();
    home = tamaHome;
    const env = { TAMA_HOME: tamaHome.home };
    const bad = spawnSync(process.execPath, [TAMA_BIN, "ui", "--port", "http"], { env: { ...process.env, ...env }, encoding: "utf8" });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('tama ui: --port takes a port number (0-65535), not "http"');
    // A port someone holds on 127.0.0.1.
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const taken = (holder.address() as net.AddressInfo).port;
    const busy = spawnSync(process.execPath, [TAMA_BIN, "ui", "--no-open", "--port", String(taken)], { env: { ...process.env, ...env }, encoding: "utf8" });
    await new Promise((resolve) => holder.close(resolve));
    expect(busy.status).toBe(1);
    expect(busy.stderr).toContain(`tama ui: cannot serve on 127.0.0.1:${taken}: `);
    // The port just freed, asked for by number.
    const served = await startUi(env, ["--port", String(taken)]);
    expect(served.port).toBe(taken);
    expect((await fetch(served.url)).status).toBe(200);
    const exited = new Promise<number | null>((resolve) => ui!.once("exit", (code) => resolve(code)));
    ui!.kill("SIGTERM");
    expect(await exited).toBe(0);
  });
});
