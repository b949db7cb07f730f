import { defineConfig } from "vitest/config";

// Tests start real engines, hooks and OMP processes: generous timeouts, and few
// files at once on a 2-core machine.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 90_000,
    hookTimeout: 90_000,
    pool: "forks",
    maxWorkers: 2,
    fileParallelism: true,
  },
});
