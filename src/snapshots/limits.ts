/** Sizes and lifetimes of the KV read model (the reasons are Cloudflare's limits). */
export const SNAPSHOT_LIMITS = {
  /** Entries per stored leaderboard page; also the most a request may ask for. */
  leaderboardPageSize: 1000,
  /** Leaderboard pages the cron keeps fresh; deeper pages are filled on demand. */
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
   * A snapshot filled by a read (a missing key) expires after this: a fill can race with the
   * cron and write an older snapshot over a newer one; it then lives five minutes at most.
   */
  fillTtlSeconds: 300,
  /** An unknown id is remembered this long (KV's minimum TTL), so floods of them spare D1. */
  missingTtlSeconds: 60,
  /** Cache-Control max-age of public answers: the cron refreshes every minute. */
  maxAgeSeconds: 60,
} as const;
