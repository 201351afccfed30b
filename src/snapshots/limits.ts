/** Sizes and lifetimes of the KV read model (the reasons are Cloudflare's limits). */
export const SNAPSHOT_LIMITS = {
  /** Entries per stored leaderboard page; also the most a request may ask for. */
  leaderboardPageSize: 1000,
  /** Leaderboard pages the cron keeps in KV; deeper pages are read from D1 by keyset. */
  leaderboardPagesKept: 10,
  /** Days of history inside a holder's snapshot; longer windows are read from D1. */
  historyDays: 366,
  /** The most days one history request may ask for (ten years). */
  maxHistoryDays: 3660,
  /**
   * KV writes per cron run: a Worker invocation may do 1,000 KV operations; the rest of the
   * marks wait for the next minute.
   */
  kvWritesPerRun: 900,
  /** KV writes in flight at once. */
  kvWriteConcurrency: 32,
  /**
   * A snapshot a read had to load from D1 (no KV key yet, or an unknown id) stays this long in
   * the colo's Cache API, so a flood of the same missing key costs D1 once a minute per colo.
   */
  missCacheSeconds: 60,
  /** Cache-Control max-age of public answers: the cron refreshes every minute. */
  maxAgeSeconds: 60,
} as const;
