import type { Db } from "./db/client";
import type { accountManagers, centralContributors, projects } from "./db/schema";

export type Env = {
  DB: D1Database;
  KV: KVNamespace;
  /** Secret for the admin API (`wrangler secret put ADMIN_TOKEN`). */
  ADMIN_TOKEN?: string;
  /** Workers Rate Limiting bindings, one per limit (src/limits.ts); absent: an in-memory fallback. */
  RATE_LIMITER?: RateLimit;
  RATE_LIMITER_LOW?: RateLimit;
  RATE_LIMITER_HIGH?: RateLimit;
  RATE_LIMITER_TOKENS?: RateLimit;
  /** The fallback's limit per holder and period, replacing every limit's own (tests, a small deployment). */
  RATE_LIMIT_PER_PERIOD?: string;
  /** Days audit rows are kept (default 365; docs/storage.md). */
  AUDIT_RETENTION_DAYS?: string;
  /** Days account-manager RPC rows are kept, a host's latest always (default 90). */
  AM_RPC_RETENTION_DAYS?: string;
};

export type Project = typeof projects.$inferSelect;
export type AccountManager = typeof accountManagers.$inferSelect;
export type CentralContributor = typeof centralContributors.$inferSelect;

/** What a route needs to know of the project it serves. */
export type ProjectRef = Pick<Project, "id" | "slug">;

/** Hono generics for this Worker: `new OpenAPIHono<AppEnv>()`. */
export type AppEnv = {
  Bindings: Env;
  Variables: {
    /** The database of the request's project (src/db/project-db.ts); before one is known, the registry. */
    db: Db;
    /** The default database: the registry of projects, tokens, account managers, central. */
    registry: Db;
    project: ProjectRef;
    accountManager: AccountManager;
    /** A public read made with the project's own token: answered from D1, not from KV. */
    fresh?: boolean;
    /** A central route's pushing contributor. */
    contributor: CentralContributor;
    /** Who made the request, once a token was accepted: "token:<id>", "admin", "am:<id>", "contributor:<id>". */
    actor?: string;
    /** `cf-ray`, or a UUID; also the X-Request-Id of the response. */
    requestId: string;
  };
};
