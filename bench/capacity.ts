/**
 * `npm run capacity -- --results-per-day N --hosts H [...]`: projects one project's D1 size,
 * D1 rows and KV writes over time from the bytes and rows `npm run bench` measured
 * (bench/results/cost.json), and prices them at Cloudflare's published rates (BENCHMARKS.md
 * cites the pages). Options:
 *   --results-per-day N   validated results a day (required)
 *   --hosts H             hosts credited (required); users and teams in the bench's proportion
 *   --retention-days D    the project's result window (default 30)
 *   --daily-history-days S  days of daily history before the monthly roll-up (default 730)
 *   --host-reports-per-day R  how often a host's results arrive (default 24): KV snapshot writes
 *   --years Y             how far to project (default 5)
 *   --cost FILE           the measured figures (default bench/results/cost.json)
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { CostSummary } from "./cost";
import { SNAPSHOT_LIMITS } from "../src/snapshots/limits";
import { DEFAULT_DAILY_HISTORY_DAYS, DEFAULT_RESULT_RETENTION_DAYS } from "../src/credit/constants";

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

export interface Profile {
  resultsPerDay: number;
  hosts: number;
  retentionDays: number;
  hostReportsPerDay: number;
  dailyHistoryDays: number;
}

const GB = 1e9;
const MONTH_DAYS = 30;
/** The mean Gregorian month, for the number of monthly buckets behind the daily span. */
const MEAN_MONTH_DAYS = 365.2425 / 12;

/**
 * Bytes per stored row, from the bench's second day (accounts already exist, so the day's
 * growth is its results, workunits and new daily history rows): the day's growth over its
 * new rows. SQLite rows of these tables are of similar size (a few integers, three reals);
 * the results row, with its 64-character fingerprint, is the largest, so this under-counts
 * results and over-counts history a little.
 */
export function bytesPerRow(cost: Pick<CostSummary, "nextDay">): number {
  const d = cost.nextDay;
  const results = d.passes * d.size * 2;
  const workunits = d.passes * d.size;
  return (d.bytesPerResult * d.validResults) / (results + workunits + d.historyRows);
}

export function project(cost: CostSummary, p: Profile, day: number) {
  const row = bytesPerRow(cost);
  const benchAccounts = cost.accounts.hosts + cost.accounts.users + cost.accounts.teams;
  const r = cost.retainedRows;
  // What an account holds besides results and history (its row, per-app credit, host-app-version rows).
  const bytesPerAccount = (cost.sizeBytes - (r.results + r.workunits + r.creditHistory) * row) / benchAccounts;
  const accounts = p.hosts * (benchAccounts / cost.accounts.hosts);
  // Per validated result: its row, half a workunit (two results each), as in the bench.
  const bytesPerResult = 1.5 * row;
  const retainedResults = p.resultsPerDay * Math.min(day, p.retentionDays);
  // History: a row per credited subject per day for the daily span (up to a month more: only
  // whole months roll up), then a row per subject and month: it grows by 12 rows a year, not 365.
  const dailyDays = Math.min(day, p.dailyHistoryDays + MEAN_MONTH_DAYS);
  const historyRows = accounts * (dailyDays + (day - dailyDays) / MEAN_MONTH_DAYS);
  return {
    day,
    bytes: accounts * bytesPerAccount + retainedResults * bytesPerResult + historyRows * row,
    resultsBytes: retainedResults * bytesPerResult,
    historyBytes: historyRows * row,
    bytesPerAccount,
  };
}

export function monthly(cost: CostSummary, p: Profile, sizeGb: number) {
  const at100 = cost.rows.find((r) => r.size === 100)!;
  const results = p.resultsPerDay * MONTH_DAYS;
  const rowsWritten = results * at100.rowsWrittenPerResult;
  const rowsRead = results * at100.rowsReadPerResult;
  const benchAccounts = cost.accounts.hosts + cost.accounts.users + cost.accounts.teams;
  const accounts = p.hosts * (benchAccounts / cost.accounts.hosts);
  // Every subject whose results arrived in a minute gets one snapshot write that minute, at most
  // kvWritesPerRun a minute (the rest wait); plus the project's own keys each minute.
  const dirtyPerMinute = Math.min(accounts, accounts * (p.hostReportsPerDay / 1440));
  const pages = (n: number) => Math.min(SNAPSHOT_LIMITS.leaderboardPagesKept, Math.max(1, Math.ceil(n / SNAPSHOT_LIMITS.leaderboardPageSize)));
  const projectKeys = 4 + 2 * (pages(p.hosts) + pages(accounts - p.hosts) + 1);
  const kvPerDay = Math.min(SNAPSHOT_LIMITS.kvWritesPerRun, dirtyPerMinute + projectKeys) * 1440;
  const kvWrites = kvPerDay * MONTH_DAYS;
  const over = (used: number, included: number) => Math.max(0, used - included);
  const dollars = {
    d1Writes: (over(rowsWritten, PRICES.d1RowsWrittenIncludedPerMonth) / 1e6) * PRICES.d1RowsWrittenPerMillion,
    d1Reads: (over(rowsRead, PRICES.d1RowsReadIncludedPerMonth) / 1e6) * PRICES.d1RowsReadPerMillion,
    d1Storage: over(sizeGb, PRICES.d1StorageIncludedGb) * PRICES.d1StoragePerGbMonth,
    kvWrites: (over(kvWrites, PRICES.kvWritesIncludedPerMonth) / 1e6) * PRICES.kvWritesPerMillion,
  };
  return { results, rowsWritten, rowsRead, kvPerDay, dollars, perMillionResults: (1e6 / results) * (dollars.d1Writes + dollars.d1Reads + dollars.kvWrites) };
}

function main() {
  const { values } = parseArgs({
    options: {
      "results-per-day": { type: "string" },
      hosts: { type: "string" },
      "retention-days": { type: "string", default: String(DEFAULT_RESULT_RETENTION_DAYS) },
      "daily-history-days": { type: "string", default: String(DEFAULT_DAILY_HISTORY_DAYS) },
      "host-reports-per-day": { type: "string", default: "24" },
      years: { type: "string", default: "5" },
      cost: { type: "string", default: join(new URL("..", import.meta.url).pathname, "bench/results/cost.json") },
    },
  });
  if (!values["results-per-day"] || !values.hosts) {
    console.error("usage: npm run capacity -- --results-per-day N --hosts H [--retention-days D] [--daily-history-days S] [--host-reports-per-day R] [--years Y]");
    process.exit(2);
  }
  const cost = JSON.parse(readFileSync(values.cost!, "utf8")) as CostSummary;
  const p: Profile = {
    resultsPerDay: Number(values["results-per-day"]),
    hosts: Number(values.hosts),
    retentionDays: Number(values["retention-days"]),
    hostReportsPerDay: Number(values["host-reports-per-day"]),
    dailyHistoryDays: Number(values["daily-history-days"]),
  };
  const at100 = cost.rows.find((r) => r.size === 100)!;
  const at0 = project(cost, p, 0);
  console.log(`Measured (passes of 100): ${at100.rowsWrittenPerResult.toFixed(2)} D1 rows written and ${at100.rowsReadPerResult.toFixed(1)} read per validated result; ${bytesPerRow(cost).toFixed(0)} bytes per stored result, workunit or history row; ${at0.bytesPerAccount.toFixed(0)} bytes per account besides those.`);
  console.log(`Profile: ${p.resultsPerDay.toLocaleString("en-US")} results/day, ${p.hosts.toLocaleString("en-US")} hosts, ${p.retentionDays}-day result window, ${p.dailyHistoryDays} days of daily history, each host reporting ${p.hostReportsPerDay} times a day.`, "");
  console.log("| after | D1 size GB | of which results | of which daily history | within one database (10 GB)? |");
  console.log("| ---: | ---: | ---: | ---: | --- |");
  const days = [30, 90, 365, 730, 1095, 1825].filter((d) => d <= Number(values.years) * 365);
  for (const d of days) {
    const s = project(cost, p, d);
    const resultsGb = s.resultsBytes / GB;
    const historyGb = s.historyBytes / GB;
    console.log(`| ${d} days | ${(s.bytes / GB).toFixed(2)} | ${resultsGb.toFixed(2)} | ${historyGb.toFixed(2)} | ${s.bytes / GB <= PRICES.d1MaxDatabaseGb ? "yes" : "NO"} |`);
  }
  const size1y = project(cost, p, 365).bytes / GB;
  const m = monthly(cost, p, size1y);
  console.log("");
  console.log(`A month: ${(m.rowsWritten / 1e6).toFixed(0)} M D1 rows written, ${(m.rowsRead / 1e6).toFixed(0)} M read, ${(m.kvPerDay * MONTH_DAYS / 1e6).toFixed(1)} M KV writes (${Math.round(m.kvPerDay).toLocaleString("en-US")} a day).`);
  console.log(`Dollars a month (Workers Paid, beyond what it includes): D1 writes $${m.dollars.d1Writes.toFixed(2)}, D1 reads $${m.dollars.d1Reads.toFixed(2)}, D1 storage at one year $${m.dollars.d1Storage.toFixed(2)}, KV writes $${m.dollars.kvWrites.toFixed(2)}.`);
  console.log(`Per million validated results (writes, reads, KV): $${m.perMillionResults.toFixed(2)}.`);
}

if (process.argv[1]?.endsWith("capacity.ts")) main();
