import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { copySwaggerUi } from "./scripts/copy-swagger-ui.mjs";

// Node side: runs in Node before the workerd pool starts. Files read here are handed to the
// tests (which run inside workerd and cannot touch the filesystem) as bindings.
const root = new URL(".", import.meta.url).pathname;
// The static assets of wrangler.jsonc must exist before the pool reads its config (wrangler's
// build step, which copies them for dev and deploy, does not run here).
copySwaggerUi();

/**
 * The parity replays first, longest first: together they are about half the suite's CPU, in
 * three short files, and vitest's own order on a clean checkout (no timings kept yet) is
 * largest file first, which left them to the end, on one worker after the other had finished.
 */
const LONGEST_FIRST = ["test/parity/fair-d1-traces.test.ts", "test/parity/boinc-traces.test.ts", "test/parity/fair-traces.test.ts"];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const at = LONGEST_FIRST.findIndex((name) => file.moduleId.endsWith(`/${name}`));
      return at === -1 ? LONGEST_FIRST.length : at;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  plugins: [
    cloudflareTest(async () => ({
      wrangler: { configPath: "./wrangler.jsonc" },
      miniflare: {
        bindings: {
          ADMIN_TOKEN: "test-admin-token",
          // Same discovery as `wrangler d1 migrations apply` (top-level *.sql; meta/ ignored).
          TEST_MIGRATIONS: await readD1Migrations({ projectPath: root, migrationsDir: "migrations" }),
          // test/fuzz: `npm run fuzz` multiplies the case counts (and may pick another seed).
          FUZZ_SCALE: process.env.FUZZ_SCALE ?? "1",
          FUZZ_SEED: process.env.FUZZ_SEED ?? "",
        },
        // A bound database never migrated (test/hardening/unusable-database.test.ts): jobs and
        // cross-database reads must skip it, and /health must name it. Two history databases of
        // a project's own (test/db/history-databases.test.ts). Both are bound for tests only.
        d1Databases: {
          DB_UNMIGRATED: "cobblestone-unmigrated",
          DB_HISTORY_1: "00000000-0000-0000-0000-000000000011",
          DB_HISTORY_2: "00000000-0000-0000-0000-000000000012",
        },
        // Test files share the limiters: the suite's own requests must never be limited (the
        // admin token is one key across files, project ids repeat across files).
        // test/security/rate-limit.test.ts swaps in the tight ones to see the real binding answer 429.
        ratelimits: {
          RATE_LIMITER: { namespace_id: "1001", simple: { limit: 1_000_000, period: 60 } },
          RATE_LIMITER_LOW: { namespace_id: "1003", simple: { limit: 1_000_000, period: 60 } },
          RATE_LIMITER_HIGH: { namespace_id: "1004", simple: { limit: 1_000_000, period: 60 } },
          RATE_LIMITER_TOKENS: { namespace_id: "1005", simple: { limit: 1_000_000, period: 60 } },
          RATE_LIMITER_TIGHT: { namespace_id: "1002", simple: { limit: 3, period: 10 } },
          RATE_LIMITER_TIGHT_ISSUE: { namespace_id: "1006", simple: { limit: 2, period: 60 } },
        },
      },
    })),
  ],
  test: {
    include: ["test/**/*.test.ts"],
    // test/browser, test/docs, test/boinc-client and test/bridge run in Node: vitest.browser.config.ts, vitest.node.config.ts.
    exclude: ["bench/**", "node_modules/**", "test/browser/**", "test/docs/**", "test/boinc-client/**", "test/bridge/**"],
    // check-responses.ts: every 2xx JSON answer the tests get is checked against its route's schema.
    setupFiles: ["./test/apply-migrations.ts", "./test/check-responses.ts"],
    // One Worker for the whole suite instead of a workerd and a Worker load per file (about 3 s
    // of CPU each, a third of the suite): test/apply-migrations.ts gives every file fresh
    // databases, KV and Cache API, and the real clock, as a new Worker would have them.
    isolate: false,
    // Three workers, each its own workerd running its share of the files one after another
    // (vitest's default on two cores is one). With two, a whole `npm test` kept 1.49 of the two
    // cores busy and took 524 s; with three, 1.62 and 491 s (docs/development.md). The parity
    // replays are three files (test/parity) so that the longest do not all land on one worker.
    maxWorkers: 3,
    sequence: { sequencer: LongestFirst },
    // npm test runs this suite beside the other lane (scripts/test-suites.ts), so a CPU-heavy
    // test (10,000 app versions in one push, a cron over many marks) gets about one core of two;
    // vitest's 5 s default failed two such tests under load. No test checks its own speed
    // (benchmarks do), so the limits only catch a hang: generous, since a test takes about twice
    // as long beside the other lane (this suite: about 500 s alone, 1,000 s in npm test, here and in CI).
    testTimeout: 120_000,
    hookTimeout: 300_000,
    // The Worker logs a JSON line per request and per cron run (docs/operations.md#logs), tens of
    // thousands in a run: the ordinary ones are dropped here so that what a failing test prints
    // stays readable (warnings and errors are kept). Tests that check the lines spy on console.
    onConsoleLog: (line) => !/^\{"event":"(request|cron)","level":"info"/.test(line),
    // Each of the maxWorkers workers loads the Worker once (isolate: false, above); pre-bundled,
    // its packages are a handful of modules instead of about 300 (zod, hono, drizzle-orm: one
    // fetch each from the module runner), which halves that load. Every package subpath that
    // src/ or test/ imports is listed: one left out is still loaded module by module.
    deps: {
      optimizer: {
        ssr: {
          enabled: true,
          include: [
            "hono",
            "hono/body-limit",
            "hono/factory",
            "hono/http-exception",
            "hono/jsx",
            "hono/jsx/jsx-runtime",
            "hono/route",
            "@hono/zod-openapi",
            "zod",
            "drizzle-orm",
            "drizzle-orm/d1",
            "drizzle-orm/sqlite-core",
            "fast-xml-parser",
            "fast-check",
          ],
        },
      },
    },
  },
});
