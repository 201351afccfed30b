import { defineConfig } from "vitest/config";

// The bridge's tests: plain Node (the bridge is a Node CLI; they start MariaDB and `wrangler
// dev`), so they cannot run in the workerd pool of vitest.config.ts.
export default defineConfig({
  test: {
    include: ["test/bridge/**/*.test.ts"],
    environment: "node",
    testTimeout: 300_000,
    hookTimeout: 300_000,
    fileParallelism: false,
  },
});
