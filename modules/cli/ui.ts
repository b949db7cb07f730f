// `tama ui`: the live view, served on 127.0.0.1 behind a random token until stopped.
// It reads what Tama keeps under $TAMA_HOME and changes none of it.
import { spawn } from "node:child_process";
import { parseArgs } from "node:util";
import { resolveProgram } from "../system/command-path.ts";
import { tamaPaths } from "../system/paths.ts";
import { startUiServer } from "../ui/server.ts";
import { CliError } from "./io.ts";

const USAGE = "usage: tama ui [--port N] [--no-open]";

export async function uiCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { port: { type: "string" }, "no-open": { type: "boolean" } }, allowPositionals: false });
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`--port takes a port number (0-65535), not ${JSON.stringify(values.port)}\n${USAGE}`, 2);
  let server;
  try {
    server = await startUiServer({ paths: tamaPaths(), port });
  } catch (error) {
    throw new CliError(`cannot serve on 127.0.0.1:${port}: ${(error as Error).message}`);
  }
  process.stdout.write(`tama ui: ${server.url}\n(read-only, this machine only; Ctrl-C stops it)\n`);
  if (values["no-open"] !== true) openBrowser(server.url);
  await new Promise<void>((resolve) => {
    const stop = (): void => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await server.close();
  return 0;
}

/** Open the URL in the desktop's browser when there is one; the printed URL is enough otherwise. */
function openBrowser(url: string): void {
  if (!process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return;
  const opener = resolveProgram("xdg-open");
  if (!opener.ok) return;
  try {
    const child = spawn(opener.path, [url], { stdio: "ignore", detached: true });
    child.on("error", () => {});
    child.unref();
  } catch {
    // no browser: the URL is printed
  }
}
