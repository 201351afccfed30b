/**
 * Operational settings: how long rows are kept, how hard a purge works, the clock skew a
 * client's `now` may have. Not BOINC's numbers (those are src/credit/constants.ts); a leaf every
 * layer but credit/ may import.
 */

/** The fairness report compares the two policies' credit over this many days. */
export const FAIRNESS_WINDOW_DAYS = 30;

/** Clock skew we tolerate on a client-given `now`. */
export const MAX_CLOCK_SKEW_SECONDS = 300;

/**
 * Retention (src/jobs/retention.ts). Decided results and credited workunits: per project,
 * this default. Audit rows and account-manager RPC rows: deployment-wide (env overrides).
 */
export const DEFAULT_RESULT_RETENTION_DAYS = 30;
export const DEFAULT_AUDIT_RETENTION_DAYS = 365;
export const DEFAULT_AM_RPC_RETENTION_DAYS = 90;
/**
 * Daily history buckets are kept this many days (per project); whole months older than that
 * roll up into monthly buckets (docs/storage.md). The floor keeps the 30 days the account-manager
 * reconciliation reads (RECONCILE_WINDOW_DAYS) as days.
 */
export const DEFAULT_DAILY_HISTORY_DAYS = 730;
export const MIN_DAILY_HISTORY_DAYS = 31;
export const MAX_DAILY_HISTORY_DAYS = 36_600;
/** Rows one purge statement deletes, and statements one run may spend per table and project. */
export const PURGE_CHUNK_ROWS = 5000;
export const PURGE_MAX_CHUNKS = 40;
