// The spawn-bound limit in Bun: N runs of a hook started at once, as a hook runner
// with no protocol in between would. Prints the wall time in ms.
//   bun scripts/bench/spawn-limit.ts <hook> <count>
import { spawn } from "node:child_process";

const [hook, countArg] = process.argv.slice(2);
if (!hook) throw new Error("usage: spawn-limit.ts <hook> <count>");
const run = (): Promise<void> =>
  new Promise((resolve) => {
    const child = spawn(hook, [], { stdio: ["pipe", "pipe", "pipe"] });
    child.stdout.resume();
    child.stderr.resume();
    child.stdin.on("error", () => {});
    child.stdin.end("{}");
    child.on("close", () => resolve());
  });
const t = performance.now();
await Promise.all(Array.from({ length: Number(countArg ?? 1000) }, run));
process.stdout.write(`${performance.now() - t}\n`);
