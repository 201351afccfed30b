/**
 * The capacity and price model of `npm run capacity` (bench/capacity.ts), pure: what one
 * project needs in D1 databases and dollars over the years, from the figures `npm run bench`
 * measured (bench/results/cost.json). A project running for years is in steady state, so the
 * figures are the bench's second day (`nextDay`: the same hosts again, no account created):
 * rows written and read per validated result, and bytes by table per validated result.
 *
 * The databases: the ledger holds what is bounded by the result window (results and
 * workunits of the window) and by the number of accounts (hosts, users, teams, host app
 * versions, per-app credit…); the daily history and its monthly roll-up go to history
 * databases, a new one added when the current one would pass HISTORY_DATABASE_FILL_GB.
 */
import { SNAPSHOT_LIMITS } from "../src/snapshots/limits";
import type { CostSummary } from "./cost-summary";

/**
 * Cloudflare's Workers Paid prices: https://developers.cloudflare.com/d1/platform/pricing/ and
 * https://developers.cloudflare.com/kv/platform/pricing/, read 2026-11-23 (BENCHMARKS.md).
 */
export const PRICES = {
  d1RowsReadPerMillion: 0.001,
  d1RowsReadIncludedPerMonth: 25e9,
  d1RowsWrittenPerMillion: 1.0,
  d1RowsWrittenIncludedPerMonth: 50e6,
  d1StoragePerGbMonth: 0.75,
  d1StorageIncludedGb: 5,
  kvWritesPerMillion: 5.0,
  kvWritesIncludedPerMonth: 1e6,
  /** D1's cap on one database. */
  d1MaxDatabaseGb: 10,
};

/** A history database is closed (a new one added) before it would pass this: a margin under D1's 10 GB. */
export const HISTORY_DATABASE_FILL_GB = 9;

/** Tables whose rows are the result window's (bytes per validated result). */
export const RESULT_TABLES = ["results", "workunits"] as const;
/** Tables of the daily history and its monthly roll-up (bytes per history row). */
export const HISTORY_TABLES = ["credit_history", "credit_history_monthly"] as const;
/**
 * Tables that are no account's: SQLite's and D1's own, trickles (none in the bench), and the
 * KV mark queue (the minute cron drains it; the bench runs no cron, so it only fills there).
 */
const NOT_ACCOUNT_TABLE = /^(sqlite_|_cf_|d1_migrations$|trickles$|kv_marks$)/;

/** Where public holder reads come from (PUT /v1/projects/{slug}/holder-reads); auto: what the volume needs. */
export type HolderReads = "snapshots" | "live";

export interface Profile {
  resultsPerDay: number;
  hosts: number;
  retentionDays: number;
  hostReportsPerDay: number;
  dailyHistoryDays: number;
  /** Default auto: live when more holders change a minute than the minute cron may write to KV. */
  holderReads?: HolderReads | "auto";
  /** Public reads of single holders a day that reach D1 when read live (default: one per host). */
  lookupsPerDay?: number;
}

/**
 * D1 rows one live holder read reads at most: the holder, its per-app rows, the project row
 * and the history days a snapshot keeps (SNAPSHOT_LIMITS.historyDays) with the day and month
 * before them; 20 covers all but the history.
 */
export const LIVE_LOOKUP_ROWS = SNAPSHOT_LIMITS.historyDays + 20;

export const GB = 1e9;
export const MONTH_DAYS = 30;
/** The mean Gregorian month, for the number of monthly buckets behind the daily span. */
const MEAN_MONTH_DAYS = 365.2425 / 12;

/** The steady-state figures the model runs on, from the bench's second day. */
export interface Measured {
  readonly rowsWrittenPerResult: number;
  readonly rowsReadPerResult: number;
  /** Results and workunits stored per validated result. */
  readonly resultBytesPerResult: number;
  /** Bytes per daily (or monthly) history row. */
  readonly historyBytesPerRow: number;
  /** Everything else (hosts, users, teams and their per-app and per-version rows) over the accounts. */
  readonly bytesPerAccount: number;
  /** Hosts, users and teams per host, in the bench's proportion. */
  readonly accountsPerHost: number;
}

const sum = (bytes: Record<string, number>, tables: readonly string[]) => tables.reduce((s, t) => s + (bytes[t] ?? 0), 0);

export function measured(cost: CostSummary): Measured {
  const d = cost.nextDay;
  const { hosts, users, teams } = cost.accounts;
  const accountTables = Object.keys(cost.tableBytes).filter(
    (t) =>
      !NOT_ACCOUNT_TABLE.test(t) && !(RESULT_TABLES as readonly string[]).includes(t) && !(HISTORY_TABLES as readonly string[]).includes(t),
  );
  return {
    rowsWrittenPerResult: d.rowsWrittenPerResult,
    rowsReadPerResult: d.rowsReadPerResult,
    resultBytesPerResult: sum(d.bytesByTable, RESULT_TABLES),
    historyBytesPerRow: d.historyRows > 0 ? (sum(d.bytesByTable, HISTORY_TABLES) * d.validResults) / d.historyRows : 0,
    bytesPerAccount: sum(cost.tableBytes, accountTables) / (hosts + users + teams),
    accountsPerHost: (hosts + users + teams) / hosts,
  };
}

/** The ledger's and the whole history's bytes on day `day` of the project. */
export function project(m: Measured, p: Profile, day: number) {
  const accounts = p.hosts * m.accountsPerHost;
  const resultBytes = p.resultsPerDay * Math.min(day, p.retentionDays) * m.resultBytesPerResult;
  // History: a row per subject per day for the daily span (up to a month more: only whole
  // months roll up), then a row per subject and month. Every account is counted as credited
  // every day (a ceiling: an idle subject gets no row).
  const dailyDays = Math.min(day, p.dailyHistoryDays + MEAN_MONTH_DAYS);
  const historyRows = accounts * (dailyDays + (day - dailyDays) / MEAN_MONTH_DAYS);
  return { day, ledgerBytes: accounts * m.bytesPerAccount + resultBytes, resultBytes, historyBytes: historyRows * m.historyBytesPerRow };
}

export interface Database {
  readonly name: string;
  readonly role: string;
  /** Size in GB after each whole year reported ("1", "2", "5"). */
  readonly size_gb: Record<string, number>;
}

/** The years a database's size is reported at: 1, 2 and 5 and the last one projected. */
export function reportedYears(years: number): number[] {
  return [...new Set([1, 2, 5, years])].filter((y) => y <= years).sort((a, b) => a - b);
}

/** History database `k`'s bytes when the whole history holds `historyBytes`: they fill in order. */
function historyDatabaseBytes(historyBytes: number, k: number): number {
  const fill = HISTORY_DATABASE_FILL_GB * GB;
  return Math.min(fill, Math.max(0, historyBytes - k * fill));
}

/** Every D1 database the project needs within `years`, the largest size any reaches, and the total at the end. */
export function databases(m: Measured, p: Profile, years: number) {
  const lastDay = Math.round(years * 365);
  const end = project(m, p, lastDay);
  // History only grows (the roll-up replaces 30 daily rows by one monthly), so the end counts.
  const historyCount = Math.max(1, Math.ceil(end.historyBytes / (HISTORY_DATABASE_FILL_GB * GB)));
  const at = reportedYears(years).map((y) => [String(y), project(m, p, Math.round(y * 365))] as const);
  const list: Database[] = [
    {
      name: "ledger",
      role: `ledger: results and workunits of the ${p.retentionDays}-day window, hosts, users, teams, host app versions, per-app credit`,
      size_gb: Object.fromEntries(at.map(([y, s]) => [y, s.ledgerBytes / GB])),
    },
    ...Array.from({ length: historyCount }, (_, k) => ({
      name: `history-${k + 1}`,
      role:
        k === 0
          ? `history: daily rows (${p.dailyHistoryDays} days) and the monthly roll-up`
          : `history: daily rows and the monthly roll-up, added when history-${k} would pass ${HISTORY_DATABASE_FILL_GB} GB`,
      size_gb: Object.fromEntries(at.map(([y, s]) => [y, historyDatabaseBytes(s.historyBytes, k) / GB])),
    })),
  ];
  // Both parts only grow with time, so each database is largest at the end.
  const maxDatabaseGb = Math.max(end.ledgerBytes, ...list.slice(1).map((_, k) => historyDatabaseBytes(end.historyBytes, k))) / GB;
  return { databases: list, maxDatabaseGb, totalGbAtEnd: (end.ledgerBytes + end.historyBytes) / GB };
}

/** A month of the project, priced: D1 rows written and read, D1 storage at `storageGb`, KV snapshot writes. */
export function monthly(m: Measured, p: Profile, storageGb: number) {
  const results = p.resultsPerDay * MONTH_DAYS;
  const rowsWritten = results * m.rowsWrittenPerResult;
  const accounts = p.hosts * m.accountsPerHost;
  // With holder snapshots, every subject whose results arrived in a minute gets one snapshot
  // write that minute, at most kvWritesPerRun a minute (the rest wait); the project's own keys
  // are written each minute either way.
  const dirtyPerMinute = Math.min(accounts, accounts * (p.hostReportsPerDay / 1440));
  const pages = (n: number) =>
    Math.min(SNAPSHOT_LIMITS.leaderboardPagesKept, Math.max(1, Math.ceil(n / SNAPSHOT_LIMITS.leaderboardPageSize)));
  const projectKeys = 4 + 2 * (pages(p.hosts) + pages(accounts - p.hosts) + 1);
  const keepsUp = dirtyPerMinute + projectKeys <= SNAPSHOT_LIMITS.kvWritesPerRun;
  const holderReads: HolderReads =
    p.holderReads === "snapshots" || p.holderReads === "live" ? p.holderReads : keepsUp ? "snapshots" : "live";
  const kvPerDay = (holderReads === "live" ? projectKeys : Math.min(SNAPSHOT_LIMITS.kvWritesPerRun, dirtyPerMinute + projectKeys)) * 1440;
  const kvWrites = kvPerDay * MONTH_DAYS;
  // Read live, a holder's public read that misses its colo's cache reads D1.
  const lookupRows = holderReads === "live" ? (p.lookupsPerDay ?? p.hosts) * MONTH_DAYS * LIVE_LOOKUP_ROWS : 0;
  const rowsRead = results * m.rowsReadPerResult + lookupRows;
  const why = keepsUp
    ? `${Math.round(dirtyPerMinute + projectKeys)} snapshot writes a minute fit the minute cron's ${SNAPSHOT_LIMITS.kvWritesPerRun}`
    : `${Math.round(dirtyPerMinute + projectKeys)} snapshot writes a minute would pass the minute cron's ${SNAPSHOT_LIMITS.kvWritesPerRun}: snapshots would fall behind`;
  const over = (used: number, included: number) => Math.max(0, used - included);
  const dollars = {
    d1Writes: (over(rowsWritten, PRICES.d1RowsWrittenIncludedPerMonth) / 1e6) * PRICES.d1RowsWrittenPerMillion,
    d1Reads: (over(rowsRead, PRICES.d1RowsReadIncludedPerMonth) / 1e6) * PRICES.d1RowsReadPerMillion,
    d1Storage: over(storageGb, PRICES.d1StorageIncludedGb) * PRICES.d1StoragePerGbMonth,
    kvWrites: (over(kvWrites, PRICES.kvWritesIncludedPerMonth) / 1e6) * PRICES.kvWritesPerMillion,
  };
  const total = dollars.d1Writes + dollars.d1Reads + dollars.d1Storage + dollars.kvWrites;
  return {
    results,
    rowsWritten,
    rowsRead,
    kvWrites,
    storageGb,
    dollars,
    total,
    perMillionResults: total / (results / 1e6),
    holderReads: { mode: holderReads, chosen: p.holderReads === holderReads ? "by --holder-reads" : "auto", why },
  };
}

/** The whole answer of `npm run capacity -- --json`. */
export function capacity(cost: CostSummary, p: Profile, years: number) {
  const m = measured(cost);
  const plan = databases(m, p, years);
  // Storage is priced at its largest: the end of the projection.
  const month = monthly(m, p, plan.totalGbAtEnd);
  return {
    profile: { ...p, years },
    measured: { source: "bench/results/cost.json nextDay: a second day of the same hosts (steady state)", ...m },
    databases: plan.databases,
    max_database_gb: plan.maxDatabaseGb,
    holder_reads: month.holderReads,
    month: { ...month, storagePricedAt: `all databases after ${years} years` },
    dollars_per_month: month.total,
    dollars_per_million_results: month.perMillionResults,
  };
}
