// Newer and broken adapters, made from the built one, to install into a running session.
import { readFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "../support/engine-client.ts";

export const BUILT_ADAPTER = path.join(ROOT, "dist/shared-hooks/omp/adapter.js");

const EXPORT = /export\s*\{\s*register\s*\};?\s*$/;

/**
 * The built adapter plus one extra tool (`tama_probe_<tag>`, answering `<tag>-ran`)
 * and one extra event handler (turn_end, appending to `eventLog`): a newer adapter
 * that registers what the loaded one does not.
 */
export function newerAdapter(tag: string, eventLog: string): string {
  const source = readFileSync(BUILT_ADAPTER, "utf8");
  if (!EXPORT.test(source)) throw new Error("the built adapter does not end with `export { register }`");
  return source.replace(
    EXPORT,
    `
import { appendFileSync as __appendFileSync } from "node:fs";
function __registerNewer(api) {
  const hooks = register(api);
  const z = api.pi.zod;
  api.registerTool({
    name: ${JSON.stringify(`tama_probe_${tag}`)},
    label: "probe",
    description: "probe tool of a newer adapter",
    parameters: z.object({}),
    loadMode: "essential",
    async execute() { return { content: [{ type: "text", text: ${JSON.stringify(`${tag}-ran`)} }] }; },
  });
  api.on("turn_end", () => { __appendFileSync(${JSON.stringify(eventLog)}, ${JSON.stringify(`${tag} turn_end\n`)}); });
  return hooks;
}
export { __registerNewer as register };
`,
  );
}

/** An adapter that throws while it is imported. */
export function throwingAdapter(): string {
  return `throw new Error("this adapter is broken on purpose");\nexport function register() {}\n`;
}

/** An adapter whose register() throws. */
export function failingRegisterAdapter(): string {
  return `export function register() { throw new Error("register failed on purpose"); }\n`;
}
