/**
 * The fold-cadence projection of `npm run capacity -- --fold-hours` (bench/fold-cadence.ts) on
 * a small made-up measurement, every expected figure calculated by hand below.
 */
import { describe, expect, it } from "vitest";
import type { CostSummary } from "../../bench/cost-summary";
import { TODAY_APP_FOLDS, effectiveHolders, foldedRowsPerDay, projectFold } from "../../bench/fold-cadence";
import { JOBS } from "../../src/jobs/schedule";

const row = {
  size: 100,
  passes: 10,
  validResults: 1000,
  rowsWrittenPerResult: 3,
  rowsReadPerResult: 50,
  bytesPerResult: 0,
  bytesByTable: {},
  // The folded classes: 0.5 + 0.3 + 0.2 + 0.4 + 0.1 = 1.5 of the 3 rows; the other 1.5 stay.
  writtenByTarget: {
    "INSERT INTO results": 1.2,
    "UPDATE hosts": 0.45,
    "INSERT INTO hosts": 0.05,
    "UPDATE users": 0.3,
    "UPDATE teams": 0.2,
    "INSERT INTO credit_users": 0.4,
    "INSERT INTO credit_teams": 0.1,
  },
};
const cost: CostSummary = {
  rows: [row],
  nextDay: { ...row, historyRows: 0 },
  sizeBytes: 0,
  accounts: { hosts: 100, users: 50, teams: 10 },
  retainedRows: { results: 0, workunits: 0, creditHistory: 0 },
  tableBytes: {},
};
const e = Math.exp;

describe("fold cadence projection", () => {
  it("a fold writes each holder credited since the last once: n·F·(1 − e^(−R/(n·F))) a day", () => {
    // 100 holders, 100 results, one fold: 100 · (1 − 1/e) = 63.21 rows.
    expect(foldedRowsPerDay(100, 100, 1)).toBeCloseTo(100 * (1 - e(-1)), 12);
    // Folded after nearly every result, every result writes a row; never more than the holders.
    expect(foldedRowsPerDay(100, 100, 1e9)).toBeCloseTo(100, 3);
    expect(foldedRowsPerDay(3, 1e6, 1)).toBeCloseTo(3, 9);
    expect(foldedRowsPerDay(0, 100, 1)).toBe(0);
    // effectiveHolders inverts it.
    expect(effectiveHolders(foldedRowsPerDay(1234, 5000, 3), 5000, 3)).toBeCloseTo(1234, 6);
    expect(effectiveHolders(5000, 5000, 3)).toBe(Infinity);
  });

  it("scales the bench's holders to the project and charges each class at the cadence", () => {
    // The project: 10 × the bench's hosts, 10,000 results a day, 100 results a pass (1000 / 10)
    // so 100 passes a day; folded twice a day; 1,000 holder reads a day.
    const p = projectFold(cost, { resultsPerDay: 10_000, hosts: 1000, foldsPerDay: 2, lookupsPerDay: 1000 });
    expect(p.resultsPerPass).toBe(100);
    // Hosts: the bench walked its 100 hosts once per pass (10 a day for 1000 results): the model
    // gives 100 · 10 · (1 − e^(−1)) / 1000 = 0.632 rows per result where 0.5 were measured: k = 0.5 / 0.632.
    const kHosts = 0.5 / (1 - e(-1));
    // Today, the project's 1000 hosts walked by its 100 passes a day: 1000 · 100 · (1 − e^(−0.1)) / 10,000.
    expect(p.classes.hosts.today).toBeCloseTo(kHosts * 10 * (1 - e(-0.1)), 12);
    // Folded twice a day: 1000 · 2 · (1 − e^(−5)) / 10,000.
    expect(p.classes.hosts.folded).toBeCloseTo(kHosts * 0.2 * (1 - e(-5)), 12);
    // Teams: 10 in the bench, 0.2 measured against 10 · 10 · (1 − e^(−10)) / 1000; 100 in the project.
    const kTeams = 0.2 / (0.1 * (1 - e(-10)));
    expect(p.classes.teams.folded).toBeCloseTo(kTeams * ((100 * 2 * (1 - e(-50))) / 10_000), 12);
    // Per-app users: 400 rows by the bench's one per-app fold (10 passes, a batch of 200 queue
    // rows), so n rows where n · (1 − e^(−1000/n)) = 400; the project has 10 n, folded hourly today.
    const n = effectiveHolders(400, 1000, 1);
    expect(n * (1 - e(-1000 / n))).toBeCloseTo(400, 6);
    expect(p.classes.userApps.today).toBeCloseTo((10 * n * 24 * (1 - e(-10_000 / (10 * n * 24)))) / 10_000, 12);
    expect(p.classes.userApps.folded).toBeCloseTo((10 * n * 2 * (1 - e(-10_000 / (10 * n * 2)))) / 10_000, 12);
    // All rows: the 1.5 not folded, plus each class.
    const classes = Object.values(p.classes);
    expect(p.rowsWrittenFolded).toBeCloseTo(1.5 + classes.reduce((s, c) => s + c.folded, 0), 12);
    expect(p.rowsWrittenToday).toBeCloseTo(1.5 + classes.reduce((s, c) => s + c.today, 0), 12);
    // Pending: the queue rows of half a fold's interval, 100 passes / 2 folds / 2 = 25. A host's
    // read: 2 rows each (the row, the id looked for), and the rows naming it taken apart: its
    // 10 results a day / 2 folds / 2 = 2.5 rows of 5 runs × 100 results = 500 each: 1,300.
    expect(p.pendingQueueRows).toBe(25);
    expect(p.tailRowsPerLookup).toBe(2 * 25 + 2.5 * 500);
    // The minute ranking takes every pending row apart: 25 × (1 + 500); a day, 1000 reads and 1440 rankings.
    expect(p.rankingRowsPerMinute).toBe(25 * 501);
    expect(p.tailRowsReadPerDay).toBe(1300 * 1000 + 12_525 * 1440);
  });

  it("counts today's per-app folds from the job's cron: once an hour", () => {
    expect(JOBS.find((j) => j.name === "app-credit-fold")?.cron).toBe("50 * * * *");
    expect(TODAY_APP_FOLDS).toBe(24);
  });
});
