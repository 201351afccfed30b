import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";

// Setup files run before each test file; applyD1Migrations only applies migrations that
// have not been applied yet, so this is idempotent.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
// The second database (wrangler.jsonc DB_LARGE): a large project's own, same schema.
await applyD1Migrations(env.DB_LARGE, env.TEST_MIGRATIONS);
// Two history databases (vitest.config.ts binds them for tests only): a project's daily history apart from its ledger.
await applyD1Migrations(env.DB_HISTORY_1, env.TEST_MIGRATIONS);
await applyD1Migrations(env.DB_HISTORY_2, env.TEST_MIGRATIONS);
