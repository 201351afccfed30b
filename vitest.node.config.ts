import { defineConfig } from "vitest/config";

// Checks of the repository's own files (docs, layering): plain Node, since the workerd pool of
// vitest.config.ts cannot read the filesystem.
export default defineConfig({
  test: {
    include: ["test/docs/**/*.test.ts"],
    environment: "node",
  },
});
