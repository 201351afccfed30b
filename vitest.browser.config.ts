import { defineConfig } from "vitest/config";

// Tests that run in plain Node (they start `wrangler dev` and drive Debian's chromium with
// playwright-core, or the real BOINC client), so they cannot run in the workerd pool of
// vitest.config.ts.
export default defineConfig({
  test: {
    include: ["test/browser/**/*.test.ts", "test/boinc-client/**/*.test.ts"],
    environment: "node",
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // Each file starts its own `wrangler dev` (and chromium or the BOINC client) and mostly
    // waits on them: all three at once.
    maxWorkers: 3,
  },
});
