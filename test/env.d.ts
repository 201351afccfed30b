import type { D1Migration } from "cloudflare:test";
import type { Env as WorkerEnv } from "../src/env";

// Types `env` / `exports` from "cloudflare:workers" (and the deprecated `env` / `SELF` from
// "cloudflare:test") inside tests: the Worker's bindings plus the test-only ones that
// vitest.config.ts adds. The bindings of wrangler.jsonc and the Worker's default export (for
// `exports.default.fetch()`) come from worker-configuration.d.ts (`npm run types`).
declare global {
  namespace Cloudflare {
    interface Env extends WorkerEnv {
      ADMIN_TOKEN: string;
      TEST_MIGRATIONS: D1Migration[];
      /** Test-only bindings (vitest.config.ts): history databases of their own for a project. */
      DB_HISTORY_1: D1Database;
      DB_HISTORY_2: D1Database;
      /** A bound database that was never migrated (vitest.config.ts). */
      DB_UNMIGRATED: D1Database;
      /** A limit of 3 a minute: the rate-limit test swaps it in for RATE_LIMITER. */
      RATE_LIMITER_TIGHT: RateLimit;
      RATE_LIMITER_TIGHT_ISSUE: RateLimit;
    }
  }
}
