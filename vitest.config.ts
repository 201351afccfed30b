import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

// Node side: runs in Node before the workerd pool starts. Files read here are handed to the
// tests (which run inside workerd and cannot touch the filesystem) as bindings.
const root = new URL(".", import.meta.url).pathname;

export default defineConfig({
  plugins: [
    cloudflareTest(async () => ({
      wrangler: { configPath: "./wrangler.jsonc" },
      miniflare: {
        bindings: {
          ADMIN_TOKEN: "test-admin-token",
          // Same discovery as `wrangler d1 migrations apply` (top-level *.sql; meta/ ignored).
          TEST_MIGRATIONS: await readD1Migrations({ projectPath: root, migrationsDir: "migrations" }),
        },
      },
    })),
  ],
  test: {
    include: ["test/**/*.test.ts"],
    // test/browser runs in Node: vitest.browser.config.ts.
    exclude: ["bench/**", "node_modules/**", "test/browser/**"],
    setupFiles: ["./test/apply-migrations.ts"],
  },
});
