import { defineConfig } from "vitest/config";

// Plain Node, since the workerd pool of vitest.config.ts cannot read the filesystem or start
// processes: checks of the repository's own files (docs, layering), and the bridge's tests
// (a Node CLI; they start MariaDB and `wrangler dev`, one file at a time).
export default defineConfig({
  test: {
    include: ["test/docs/**/*.test.ts", "test/bridge/**/*.test.ts"],
    environment: "node",
    // Generous: on a shared 2-core machine under load, `wrangler dev` alone took almost 4 minutes to start.
    testTimeout: 600_000,
    hookTimeout: 900_000,
    fileParallelism: false,
  },
});
