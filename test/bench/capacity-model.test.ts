/**
 * The capacity model of `npm run capacity` (bench/capacity-model.ts) on a small made-up
 * measurement, every expected figure calculated by hand below.
 */
import { describe, expect, it } from "vitest";
import type { CostSummary } from "../../bench/cost-summary";
import { capacity, measured } from "../../bench/capacity-model";

const row = {
  size: 100,
  passes: 10,
  validResults: 1000,
  rowsWrittenPerResult: 5,
  rowsReadPerResult: 50,
  bytesPerResult: 0,
  writtenByTarget: {},
};
const cost: CostSummary = {
  rows: [{ ...row, bytesByTable: {} }],
  // Per validated result on the second day: 40 + 10 bytes of results and workunits, 30 of history.
  nextDay: { ...row, historyRows: 500, bytesByTable: { results: 40, workunits: 10, credit_history: 30 } },
  sizeBytes: 0,
  accounts: { hosts: 100, users: 80, teams: 20 },
  retainedRows: { results: 0, workunits: 0, creditHistory: 0 },
  // Accounts' tables 30000 + 20000 + 5000 + 25000 = 80000 bytes; the rest is no account's.
  tableBytes: {
    hosts: 30000,
    users: 20000,
    teams: 5000,
    host_app_versions: 25000,
    results: 9999,
    workunits: 999,
    credit_history: 99999,
    sqlite_schema: 4096,
    _cf_KV: 4096,
  },
};
const profile = { resultsPerDay: 1_000_000, hosts: 1_000_000, retentionDays: 10, hostReportsPerDay: 24, dailyHistoryDays: 365 };
const MONTH = 365.2425 / 12;

describe("capacity model", () => {
  it("takes the second day's figures: bytes per result, per history row and per account", () => {
    expect(measured(cost)).toEqual({
      rowsWrittenPerResult: 5,
      rowsReadPerResult: 50,
      resultBytesPerResult: 40 + 10,
      // 30 bytes per result × 1000 results over 500 history rows.
      historyBytesPerRow: (30 * 1000) / 500,
      bytesPerAccount: 80000 / (100 + 80 + 20),
      accountsPerHost: 200 / 100,
    });
  });

  it("sizes the ledger and as many history databases as the history fills, and prices a month", () => {
    const c = capacity(cost, { ...profile, holderReads: "snapshots" }, 2);
    // 2,000,000 accounts × 400 bytes + 1,000,000 results a day × 10 days × 50 bytes.
    const ledgerGb = (2e6 * 400 + 1e6 * 10 * 50) / 1e9;
    expect(ledgerGb).toBeCloseTo(1.3, 12);
    // History: 2,000,000 accounts × 60 bytes per row; after one year 365 daily rows each, after two
    // years 365 days + a month of daily rows and one monthly row per month before them.
    const history1 = (2e6 * 365 * 60) / 1e9;
    const history2 = (2e6 * (365 + MONTH + (730 - 365 - MONTH) / MONTH) * 60) / 1e9;
    expect(history1).toBeCloseTo(43.8, 9);
    expect(history2).toBeCloseTo(48.7715, 3);
    // Filled in order, 9 GB each: 48.77 GB needs six databases.
    expect(c.databases.map((d) => d.name)).toEqual([
      "ledger",
      "history-1",
      "history-2",
      "history-3",
      "history-4",
      "history-5",
      "history-6",
    ]);
    const sizes = (y: string) => c.databases.map((d) => d.size_gb[y]!);
    expect(sizes("1")).toEqual([ledgerGb, 9, 9, 9, 9, history1 - 36, 0].map((x) => expect.closeTo(x, 9)));
    expect(sizes("2")).toEqual([ledgerGb, 9, 9, 9, 9, 9, history2 - 45].map((x) => expect.closeTo(x, 9)));
    expect(Object.keys(c.databases[0]!.size_gb)).toEqual(["1", "2"]);
    expect(c.max_database_gb).toBe(9);

    // A month: 30,000,000 results. Writes 150 M, 50 M included: $100. Reads 1.5 G, under the 25 G
    // included: $0. Storage after two years, 5 GB included, $0.75 a GB. KV: 2,000,000 accounts ×
    // 24/1440 reports a minute = 33,333 marks, capped at 900 writes a minute: 900 × 1440 × 30 =
    // 38.88 M, 1 M included, $5 a million.
    const storage = (ledgerGb + history2 - 5) * 0.75;
    const kv = ((900 * 1440 * 30 - 1e6) / 1e6) * 5;
    expect(c.month.dollars.d1Writes).toBeCloseTo(100, 9);
    expect(c.month.dollars.d1Reads).toBe(0);
    expect(c.month.dollars.d1Storage).toBeCloseTo(storage, 9);
    expect(c.month.dollars.kvWrites).toBeCloseTo(189.4, 9);
    expect(c.dollars_per_month).toBeCloseTo(100 + storage + kv, 9);
    expect(c.dollars_per_million_results).toBeCloseTo((100 + storage + kv) / 30, 9);
  });

  it("reads holders live when the minute cron could not keep their snapshots, and prices that", () => {
    const c = capacity(cost, profile, 2);
    // 33,333 changed holders a minute + the project's keys > 900 writes a minute: auto picks live.
    expect(c.holder_reads.mode).toBe("live");
    expect(c.holder_reads.chosen).toBe("auto");
    // KV: only the project's keys each minute: 4 + 2 × (10 host pages + 10 user-and-team pages
    // + 1) = 46 (pages of 1,000, at most 10 kept), × 1440 × 30 = 1,987,200; 1 M included.
    expect(c.month.kvWrites).toBe(46 * 1440 * 30);
    expect(c.month.dollars.kvWrites).toBeCloseTo(((1_987_200 - 1e6) / 1e6) * 5, 9);
    // Reads: 1.5 G of passes + 1,000,000 lookups a day (one per host) × 30 × (366 + 20) rows
    // = 11.58 G; 13.08 G is under the 25 G included.
    expect(c.month.rowsRead).toBe(1.5e9 + 1e6 * 30 * 386);
    expect(c.month.dollars.d1Reads).toBe(0);
    expect(c.dollars_per_month).toBeCloseTo(100 + c.month.dollars.d1Storage + 4.936, 9);

    // Chosen by hand, snapshots are priced as the cron's cap; a small project keeps snapshots by itself.
    expect(capacity(cost, { ...profile, holderReads: "snapshots" }, 2).holder_reads).toMatchObject({
      mode: "snapshots",
      chosen: "by --holder-reads",
    });
    const small = capacity(cost, { ...profile, hosts: 1000 }, 2);
    // 2,000 accounts × 24 / 1440 = 33.3 changed a minute + 4 + 2 × (1 + 1 + 1) = 43.3 ≤ 900.
    expect(small.holder_reads.mode).toBe("snapshots");
    expect(small.month.kvWrites).toBeCloseTo(((2000 * 24) / 1440 + 10) * 1440 * 30, 6);
  });

  it("a history that fits in one database needs one, and reports years 1, 2, 5 and the last", () => {
    const small = capacity(cost, { ...profile, hosts: 1000 }, 6);
    // 2,000 accounts × 60 bytes × (395.4 daily + (2190 - 395.4) / 30.4 monthly rows) ≈ 0.05 GB.
    expect(small.databases.map((d) => d.name)).toEqual(["ledger", "history-1"]);
    expect(Object.keys(small.databases[1]!.size_gb)).toEqual(["1", "2", "5", "6"]);
    const history6 = (2000 * (365 + MONTH + (2190 - 365 - MONTH) / MONTH) * 60) / 1e9;
    expect(small.databases[1]!.size_gb["6"]).toBeCloseTo(history6, 12);
    // The ledger: 2,000 accounts × 400 bytes + 10 days × 1,000,000 results × 50 bytes = 0.5008 GB.
    expect(small.max_database_gb).toBeCloseTo(0.5008, 12);
  });
});
