// A long end-to-end test names the step it stood at when it fails: a test timeout
// alone says only that the whole test ran out of time, not which wait never ended.
import { onTestFailed } from "vitest";

export function trackSteps(label: string): (step: string) => void {
  const started = Date.now();
  let at = "start";
  let since = started;
  onTestFailed(() => {
    const now = Date.now();
    process.stderr.write(`${label}: failed at step "${at}" (${now - since} ms in it, ${now - started} ms into the test)\n`);
  });
  return (step) => {
    at = step;
    since = Date.now();
  };
}
