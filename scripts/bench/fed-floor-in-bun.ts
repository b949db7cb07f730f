// The floor of a pre-started hook, in Bun, without Tama: a process of the hook already
// started and blocked on its stdin is fed its input and waited for until it exits,
// after the idle gap a model's thinking leaves. Prints JSON: the feed-to-exit times.
//   bun scripts/bench/fed-floor-in-bun.ts <hook> <count> <idle ms>
import { spawn } from "node:child_process";

const [hook, countArg, idleArg] = process.argv.slice(2);
if (!hook) throw new Error("usage: fed-floor-in-bun.ts <hook> <count> <idle ms>");
const input = JSON.stringify({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "true" }, padding: "x".repeat(400) });
const times: number[] = [];
for (let i = -3; i < Number(countArg ?? 25); i++) {
  const child = spawn(hook, [], { stdio: ["pipe", "pipe", "pipe"], detached: true });
  child.stdout.resume();
  child.stderr.resume();
  const exited = new Promise<number>((resolve) => child.on("exit", () => resolve(performance.now())));
  await new Promise((resolve) => setTimeout(resolve, Number(idleArg ?? 250)));
  const start = performance.now();
  child.stdin.end(input);
  const end = await exited;
  if (i >= 0) times.push(end - start);
}
process.stdout.write(`${JSON.stringify({ times })}\n`);
