import { defineConfig } from "vitest/config";

// Plain Node, since the workerd pool of vitest.config.ts cannot read the filesystem or start
// processes: checks of the repository's own files (docs, layering), and the bridge's tests
// (a Node CLI; each file starts its own MariaDB and `wrangler dev`, on ports of their own).
export default defineConfig({
  test: {
    include: ["test/docs/**/*.test.ts", "test/bridge/**/*.test.ts"],
    environment: "node",
    // Generous: on a shared 2-core machine under load, `wrangler dev` alone took almost 4 minutes to start.
    testTimeout: 600_000,
    hookTimeout: 900_000,
    // Three files at a time: a bridge file mostly waits (on MariaDB, on the server, on its
    // follow loop's polls), so side by side they take about a third of the wall time for the
    // same CPU.
    maxWorkers: 3,
  },
});
