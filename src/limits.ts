/**
 * Every request limit of the service, in one place (docs/limits.md explains them to operators).
 *
 * A Workers rate-limit binding has one fixed limit and period (10 or 60 s) set in wrangler.jsonc,
 * so a per-project limit is a choice among bindings: each tier below is one binding, and a
 * project's `rate_limit_tier` column (set by the operator) picks which one counts its requests.
 * The numbers here must equal the bindings' in wrangler.jsonc; the in-memory fallback (no
 * binding) and Retry-After use them.
 */

export interface RateLimitTier {
  /** The binding in wrangler.jsonc `ratelimits` that counts this tier. */
  readonly binding: "RATE_LIMITER" | "RATE_LIMITER_LOW" | "RATE_LIMITER_HIGH";
  /** Requests per period, shared by every token of one project (or account manager, contributor). */
  readonly limit: number;
  readonly periodSeconds: 10 | 60;
}

/**
 * `standard` admits a project's validator at full speed: 200 requests a second, about twice the
 * most passes a second one `wrangler dev` took in the benchmark (BENCHMARKS.md). `low` is for a project whose client
 * misbehaves; `high` for a deployment whose D1 can take more.
 */
export const RATE_LIMIT_TIERS = {
  low: { binding: "RATE_LIMITER_LOW", limit: 100, periodSeconds: 10 },
  standard: { binding: "RATE_LIMITER", limit: 2000, periodSeconds: 10 },
  high: { binding: "RATE_LIMITER_HIGH", limit: 10000, periodSeconds: 10 },
} as const satisfies Record<string, RateLimitTier>;

export const RATE_LIMIT_TIER_NAMES = ["low", "standard", "high"] as const;
export type RateLimitTierName = (typeof RATE_LIMIT_TIER_NAMES)[number];
export const DEFAULT_RATE_LIMIT_TIER: RateLimitTierName = "standard";

/**
 * Issuing a token costs a D1 write and grants a credential while earning nothing, so it has its
 * own, lower limit per project (or account manager): 10 a minute, binding RATE_LIMITER_TOKENS.
 */
export const TOKEN_ISSUE_LIMIT = { binding: "RATE_LIMITER_TOKENS", limit: 10, periodSeconds: 60 } as const;

/** At most this many live (unexpired, unrevoked) tokens per project: a rotation beyond is 409. */
export const MAX_LIVE_TOKENS = 20;

/** How long the other tokens keep working after a rotation (project and account-manager tokens). */
export const ROTATION_GRACE_SECONDS = 24 * 3600;

/**
 * The longest string the API stores in each kind of field, in UTF-16 code units (docs/limits.md#strings).
 * Where BOINC stores the field, its column size (BOINC's db/schema.sql: varchar(254) for user,
 * team, app and platform names and app_version.plan_class), so whatever a BOINC database holds
 * fits; a cpid is the 32 hex digits of an md5, as BOINC exports it.
 */
export const TEXT_LIMITS = {
  /** A user's, team's or host's name; an app's, platform's or plan class's; a central push's project. */
  boincName: 254,
  /** A project's, account manager's or central contributor's display name (Cobblestone's own). */
  displayName: 200,
  /** A project's or contributor's URL, a project master URL in an account-manager RPC. */
  url: 512,
  /** A user's cpid and a host's host_cpid: md5 in hex. */
  cpid: 32,
} as const;
