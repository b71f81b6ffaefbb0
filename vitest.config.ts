import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // Each test file gets its own database; files run in parallel workers.
    pool: "forks",
    reporters: ["default", "./test/support/summary-reporter.ts"],
  },
});
