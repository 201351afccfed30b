/** Sizes and lifetimes of the KV read model (the reasons are Cloudflare's limits). */
export const SNAPSHOT_LIMITS = {
  /** Entries per stored leaderboard page; also the most a request may ask for. */
  leaderboardPageSize: 1000,
  /**
   * Leaderboard pages the minute cron ranks and stores when a project is marked; the pages
   * below are ranked and stored by the leaderboard-pages job (src/jobs/leaderboard-pages.ts).
   */
  leaderboardPagesKept: 10,
  /** A board's pages below the top ones are ranked again this often (and when it grows a page). */
  leaderboardRepublishSeconds: 3600,
  /**
   * A board this small (one page) may be read from D1 by an anonymous request whose page is
   * not in KV yet: the scan reads at most twice this many rows.
   */
  leaderboardScanOnMiss: 1000,
  /** Rows per query of a board's scan (keyset on the primary key). */
  rankingScanChunk: 10_000,
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
