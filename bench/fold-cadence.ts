/**
 * A projection, pure, of a design that is NOT built (issue 51 item 2): hosts', users' and
 * teams' credit and per-app credit written by a fold every few hours instead of by every pass,
 * reads adding the grants the fold has not applied yet. It answers what the fold's cadence
 * must be for a project's volume, before the fold is built: the bench cannot say, since its
 * phases share one `now` (one fold per phase would fold all of a phase's passes together,
 * which no cadence does for a project whose hosts report all day).
 *
 * The model: a class of holders (hosts, users, teams, per-app rows) earns a project's results
 * at random, evenly over the day; a fold writes each holder that earned one since the last
 * fold, once. So n equally busy holders folded F times a day write n·F·(1 − e^(−R/(n·F))) rows
 * a day for R results, the most any spread of R results over n holders writes. Hosts, users
 * and teams are counted as the bench has them, scaled from the bench's hosts to the project's,
 * each class's rows times the share the bench measured against the model at the bench's own
 * cadence (a walk per pass); per-app rows, which the bench does not count, by the effective
 * number that gives the rows its per-app folds wrote.
 *
 * The pending grants are one queue row per pass (the per-app credit's queue row,
 * src/db/app-credit-queue.ts, which would carry the holders' runs too): half a fold's interval
 * of passes on average. D1 counts every element json_each yields as a row read, so a read of
 * one holder reads 2 rows per pending queue row (the row, the id looked for: the rows naming it
 * are picked by their text, pendingAppCreditQuery) and takes apart the rows that name it (a
 * host's results of half an interval, each in its own pass) at RUNS_PER_RESULT runs per result
 * of the pass; the minute cron, ranking the boards with every pending run applied, takes apart
 * every pending row once a minute.
 * Left out: the fold's own reads (each row it writes and each queue row, once; a row read
 * costs a thousandth of a row written) and any CPU the tails cost.
 */
import { type Profile, databases, measured, monthly } from "./capacity-model";
import { QUEUE_CHUNK_ROWS } from "../src/jobs/history-move";
import type { CostSummary } from "./cost-summary";

/** The statements of the second day that the fold would take over, by class. */
export const FOLDED_TARGETS = {
  hosts: ["UPDATE hosts", "INSERT INTO hosts"],
  users: ["UPDATE users", "INSERT INTO users"],
  teams: ["UPDATE teams", "INSERT INTO teams"],
  userApps: ["INSERT INTO credit_users"],
  teamApps: ["INSERT INTO credit_teams"],
} as const;
export type FoldedClass = keyof typeof FOLDED_TARGETS;

/** The accounts each holder class is counted in (per-app rows: none). */
const HOLDER_ACCOUNTS: Record<FoldedClass, "hosts" | "users" | "teams" | undefined> = {
  hosts: "hosts",
  users: "users",
  teams: "teams",
  userApps: undefined,
  teamApps: undefined,
};

/** Rows a day that n equally busy holders folded `folds` times a day write for `results` a day. */
export function foldedRowsPerDay(n: number, results: number, folds: number): number {
  if (n <= 0 || results <= 0) return 0;
  return n * folds * -Math.expm1(-results / (n * folds));
}

/** The n for which foldedRowsPerDay(n, results, folds) = rows, by bisection: it grows with n, below `results`. */
export function effectiveHolders(rows: number, results: number, folds: number): number {
  if (rows <= 0) return 0;
  if (rows >= results) return Infinity;
  let lo = 0;
  let hi = 1;
  while (foldedRowsPerDay(hi, results, folds) < rows) hi *= 2;
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2;
    if (foldedRowsPerDay(mid, results, folds) < rows) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

export interface FoldProfile {
  readonly resultsPerDay: number;
  readonly hosts: number;
  /** Folds a day (24: hourly; 1: daily). */
  readonly foldsPerDay: number;
  /** Public reads of single holders a day that reach D1 (each adds its pending grants). */
  readonly lookupsPerDay: number;
}

export interface FoldProjection {
  /** Validated results per pass, as the bench's second day has them. */
  readonly resultsPerPass: number;
  /** Rows written per result by each class: today (walked per pass; per-app folded hourly) and folded. */
  readonly classes: Record<FoldedClass, { today: number; folded: number }>;
  /** The second day's rows written per result with the classes as today, and folded. */
  readonly rowsWrittenToday: number;
  readonly rowsWrittenFolded: number;
  /** Queue rows since the last fold, on average. */
  readonly pendingQueueRows: number;
  /** Rows a read of one host reads for its pending grants, on average. */
  readonly tailRowsPerLookup: number;
  /** Rows the minute cron reads to rank the boards with every pending run, each minute. */
  readonly rankingRowsPerMinute: number;
  /** Rows read a day by the lookups' tails and the minute cron's ranking. */
  readonly tailRowsReadPerDay: number;
}

/** A queued result names at most a host, a user, a team and its (user, app) and (team, app) rows. */
export const RUNS_PER_RESULT = 5;

/** Per-app credit is folded hourly today (src/jobs/schedule.ts, the app-credit-fold job: "50 * * * *"). */
export const TODAY_APP_FOLDS = 24;

export function projectFold(cost: CostSummary, p: FoldProfile): FoldProjection {
  const d = cost.nextDay;
  const scale = p.hosts / cost.accounts.hosts;
  const resultsPerPass = d.validResults / d.passes;
  const passesPerDay = p.resultsPerDay / resultsPerPass;
  // The bench's cadence on its second day: holders walked by each of its passes, per-app
  // credit folded at the phase's end (its passes share one `now`: bench/cost.ts), a batch per
  // QUEUE_CHUNK_ROWS queue rows.
  const appFolds = Math.ceil(d.passes / QUEUE_CHUNK_ROWS);
  const benchFolds: Record<FoldedClass, number> = {
    hosts: d.passes,
    users: d.passes,
    teams: d.passes,
    userApps: appFolds,
    teamApps: appFolds,
  };
  const todayFolds: Record<FoldedClass, number> = {
    hosts: passesPerDay,
    users: passesPerDay,
    teams: passesPerDay,
    userApps: TODAY_APP_FOLDS,
    teamApps: TODAY_APP_FOLDS,
  };
  const perResult = (n: number, results: number, folds: number) => foldedRowsPerDay(n, results, folds) / results;
  const classes = Object.fromEntries(
    (Object.keys(FOLDED_TARGETS) as FoldedClass[]).map((c) => {
      const measuredPerResult = FOLDED_TARGETS[c].reduce((s, t) => s + (d.writtenByTarget[t] ?? 0), 0);
      const holders = HOLDER_ACCOUNTS[c];
      // Hosts, users, teams: their own number, evenly busy (the most rows a fold can write for
      // them), times the share of results that credit one (k: a user with no team credits none).
      // Per-app rows: the bench does not count them, so their effective number (each of its
      // per-app folds writes each row credited since the last once).
      const benchN = holders ? cost.accounts[holders] : effectiveHolders(measuredPerResult * d.validResults, d.validResults, benchFolds[c]);
      const k = holders ? measuredPerResult / perResult(benchN, d.validResults, benchFolds[c]) : 1;
      const n = benchN * scale;
      return [c, { today: k * perResult(n, p.resultsPerDay, todayFolds[c]), folded: k * perResult(n, p.resultsPerDay, p.foldsPerDay) }];
    }),
  ) as Record<FoldedClass, { today: number; folded: number }>;
  const measuredAll = (Object.values(FOLDED_TARGETS) as readonly (readonly string[])[])
    .flat()
    .reduce((s, t) => s + (d.writtenByTarget[t] ?? 0), 0);
  // Besides the folded classes, as measured: the pass's one queue row and its delete by the
  // fold among them (the holders' runs would ride in the row the per-app credit writes).
  const rest = d.rowsWrittenPerResult - measuredAll;
  const sum = (k: "today" | "folded") => Object.values(classes).reduce((s, c) => s + c[k], 0);
  // A pass's queue row names many holders, so a read of one scans every row since the fold;
  // splitting the row by holder would not help: each part is still a row per pass.
  const pendingQueueRows = passesPerDay / p.foldsPerDay / 2;
  const runsPerRow = RUNS_PER_RESULT * resultsPerPass;
  const namingRows = Math.min(pendingQueueRows, p.resultsPerDay / p.hosts / p.foldsPerDay / 2);
  const tailRowsPerLookup = 2 * pendingQueueRows + namingRows * runsPerRow;
  const rankingRowsPerMinute = pendingQueueRows * (1 + runsPerRow);
  return {
    resultsPerPass,
    classes,
    rowsWrittenToday: rest + sum("today"),
    rowsWrittenFolded: rest + sum("folded"),
    pendingQueueRows,
    tailRowsPerLookup,
    rankingRowsPerMinute,
    tailRowsReadPerDay: tailRowsPerLookup * p.lookupsPerDay + rankingRowsPerMinute * 1440,
  };
}

/**
 * The month of capacity-model.ts with the classes folded `foldsPerDay` times a day: rows
 * written as projected, rows read plus the tails'; storage as measured (the fold writes the
 * same rows, fewer times).
 */
export function foldedMonth(cost: CostSummary, p: Profile, years: number, foldsPerDay: number) {
  const m = measured(cost);
  const lookupsPerDay = p.lookupsPerDay ?? p.hosts;
  const projection = projectFold(cost, { resultsPerDay: p.resultsPerDay, hosts: p.hosts, foldsPerDay, lookupsPerDay });
  const storageGb = databases(m, p, years).totalGbAtEnd;
  const at = (rowsWrittenPerResult: number, tailPerDay: number) =>
    monthly({ ...m, rowsWrittenPerResult, rowsReadPerResult: m.rowsReadPerResult + tailPerDay / p.resultsPerDay }, p, storageGb);
  return { projection, today: at(projection.rowsWrittenToday, 0), folded: at(projection.rowsWrittenFolded, projection.tailRowsReadPerDay) };
}
