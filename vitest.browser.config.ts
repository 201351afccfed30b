import { defineConfig } from "vitest/config";

// The real-browser test: plain Node (it starts `wrangler dev` and drives Debian's chromium
// with playwright-core), so it cannot run in the workerd pool of vitest.config.ts.
export default defineConfig({
  test: {
    include: ["test/browser/**/*.test.ts"],
    environment: "node",
    testTimeout: 120_000,
    hookTimeout: 180_000,
  },
});
