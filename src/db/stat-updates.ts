/**
 * Every persisted statistic exists twice: the TypeScript form (in src/credit/, used for the
 * in-pass copy) and the SQL form here, which applies the same update to the row's CURRENT
 * values when the pass is written, so concurrent passes never lose an update
 * (docs/spec/api-contract.md#concurrency). Each pair sits in one object below and
 * test/db/stat-updates.test.ts checks, on random sample sequences against real D1, that the
 * two agree.
 *
 * A sample is an SQL expression (usually a column of the one-row sample table a statement
 * joins with `UPDATE … FROM (SELECT ? AS …) AS s`), so each bound value appears once.
 */
import { type SQL, sql } from "drizzle-orm";
import { col } from "./sql-helpers";
import { updateAverage, updateAverageVar } from "../credit/average";
import type { AverageParams } from "../credit/constants";
import { CREDIT_HALF_LIFE, RAC_TAYLOR_THRESHOLD, SECONDS_PER_DAY } from "../credit/constants";
import { NEUTRALITY } from "../credit/parameters";
import { TAYLOR_RATE, type RecentAverage, decayedRecentAverage, updateRecentAverage } from "../credit/recent-average";
import { addNeutralSample, neutralWindowAt } from "../credit/neutrality-window";

/** A column assignment of an UPDATE: [column name, new value]. */
export type Assignment = readonly [column: string, value: SQL];

/** A constant written into the SQL text (never user input): keeps bound parameters few. */
const lit = (x: number): SQL => sql.raw(Number.isInteger(x) ? `${x}.0` : String(x));

export function setClause(assignments: readonly Assignment[]): SQL {
  return sql.join(
    assignments.map(([c, v]) => sql`${col(c)} = ${v}`),
    sql`, `,
  );
}

/** Current values of an AVERAGE: column references, or the fields of a recursive walk. */
export interface AverageRefs {
  readonly n: SQL;
  readonly avg: SQL;
}

export interface AverageVarRefs extends AverageRefs {
  readonly var: SQL;
  readonly q: SQL;
}

/** AVERAGE's truncation: a sample above avg·limit counts as avg·limit once avg ≠ 0. */
function truncatedSql(c: AverageRefs, x: SQL, p: AverageParams): SQL {
  return sql`(CASE WHEN ${c.n} <> 0 AND ${c.avg} <> 0 AND ${x} > ${c.avg} * ${lit(p.limit)} THEN ${c.avg} * ${lit(p.limit)} ELSE ${x} END)`;
}

/** AVERAGE.update (lib/average.h). The caller never passes a negative sample (it is a no-op). */
export const averageUpdate = {
  ts: updateAverage,
  sql(c: AverageRefs, x: SQL, p: AverageParams): AverageRefs {
    const delta = sql`(${truncatedSql(c, x, p)} - ${c.avg})`;
    return {
      n: sql`${c.n} + 1`,
      avg: sql`CASE WHEN ${c.n} + 1 < ${lit(p.thresh)} THEN ${c.avg} + ${delta} / (${c.n} + 1) ELSE ${c.avg} + ${lit(p.weight)} * ${delta} END`,
    };
  },
};

/** AVERAGE_VAR.update (lib/average.h): Welford below the threshold, exponential above it. */
export const averageVarUpdate = {
  ts: updateAverageVar,
  sql(c: AverageVarRefs, x: SQL, p: AverageParams): AverageVarRefs {
    const t = truncatedSql(c, x, p);
    const delta = sql`(${t} - ${c.avg})`;
    const running = sql`${c.n} + 1 < ${lit(p.thresh)}`;
    const runningAvg = sql`(${c.avg} + ${delta} / (${c.n} + 1))`;
    const runningQ = sql`(${c.q} + ${delta} * (${t} - ${runningAvg}))`;
    return {
      n: sql`${c.n} + 1`,
      avg: sql`CASE WHEN ${running} THEN ${runningAvg} ELSE ${c.avg} + ${lit(p.weight)} * ${delta} END`,
      q: sql`CASE WHEN ${running} THEN ${runningQ} ELSE ${c.q} END`,
      var: sql`CASE WHEN ${running} THEN ${runningQ} / (${c.n} + 1) ELSE ${c.var} + ${lit(p.weight)} * (${delta} * ${delta} - ${c.var}) END`,
    };
  },
};

/**
 * A run of credit grants to one row in one pass, all at the pass's `now`. Only the first can
 * decay the average or start it (Case B); every later one has a zero gap and adds credit·ln2/7
 * (docs/spec/edge-cases.md#e13), so the run collapses to: first grant, then the rest summed.
 */
export interface GrantRun {
  readonly now: number;
  readonly first: { readonly credit: number; readonly start: number };
  readonly restCredit: number;
}

export function grantRun(now: number, grants: readonly { credit: number; start: number }[]): GrantRun {
  const [first, ...rest] = grants;
  if (!first) throw new Error("a grant run needs at least one grant");
  return { now, first, restCredit: rest.reduce((sum, g) => sum + g.credit, 0) };
}

/** The grant run's values for one row, as the statement that applies it names them. */
export interface GrantRunSample {
  readonly now: SQL;
  readonly credit: SQL;
  readonly start: SQL;
  readonly rest: SQL;
}

/** update_average applied grant by grant (TS) and as one expression over the row (SQL). */
export const recentAverageRun = {
  ts(ra: RecentAverage, now: number, grants: readonly { credit: number; start: number }[]): RecentAverage {
    return grants.reduce((acc, g) => updateRecentAverage(acc, now, g.start, g.credit), ra);
  },
  sql(c: { avg: SQL; time: SQL }, g: GrantRunSample): { avg: SQL; time: SQL } {
    const diff = sql`max(${g.now} - ${c.time}, 0.0)`;
    const weight = sql`exp(-${diff} * ${lit(Math.LN2)} / ${lit(CREDIT_HALF_LIFE)})`;
    const caseA = sql`${c.avg} * ${weight} + CASE WHEN 1.0 - ${weight} > ${lit(RAC_TAYLOR_THRESHOLD)}
      THEN (1.0 - ${weight}) * (${g.credit} / (${diff} / ${lit(SECONDS_PER_DAY)}))
      ELSE ${g.credit} * ${lit(TAYLOR_RATE)} END`;
    // Case B with work started at now is the Taylor limit, not BOINC's infinity (docs/spec/credit.md#finite-numbers).
    const caseB = sql`CASE WHEN ${g.credit} = 0 THEN ${c.avg}
      WHEN ${g.now} - ${g.start} > 0 THEN ${g.credit} / ((${g.now} - ${g.start}) / ${lit(SECONDS_PER_DAY)})
      ELSE ${g.credit} * ${lit(TAYLOR_RATE)} END`;
    return {
      avg: sql`(CASE WHEN ${c.time} <> 0 THEN ${caseA} ELSE ${caseB} END) + ${g.rest} * ${lit(TAYLOR_RATE)}`,
      time: sql`CASE WHEN ${c.avg} = 0 THEN ${g.now} ELSE max(${g.now}, ${c.time}) END`,
    };
  },
};

/**
 * A row's RAC clock once it counts credit (0 before: a clock set only by a creation time may
 * still start earlier, as a backfill's first grant does). updateRecentAverage never moves it back.
 */
export function startedClock(c: { avg: SQL; time: SQL }): SQL<number> {
  return sql<number>`CASE WHEN ${c.avg} = 0 THEN 0 ELSE ${c.time} END`;
}

/** The stored pair decayed to `at`: what a leaderboard ranks by (decayedRecentAverage). */
export const decayedRecentAverageTwin = {
  ts: decayedRecentAverage,
  sql(c: { avg: SQL; time: SQL }, at: SQL): SQL {
    return sql`(CASE WHEN ${c.time} = 0 THEN ${c.avg}
      ELSE ${c.avg} * exp(-max(${at} - ${c.time}, 0.0) * ${lit(Math.LN2)} / ${lit(CREDIT_HALF_LIFE)}) END)`;
  },
};

/** A neutrality window's columns (or any SQL for them): the period and each bucket's three amounts. */
export interface NeutralWindowRefs {
  readonly period: SQL;
  readonly credit: SQL;
  readonly deviceSeconds: SQL;
  readonly results: SQL;
  readonly prevCredit: SQL;
  readonly prevDeviceSeconds: SQL;
  readonly prevResults: SQL;
}

const NEUTRAL_AMOUNTS = [
  ["credit", "prevCredit"],
  ["deviceSeconds", "prevDeviceSeconds"],
  ["results", "prevResults"],
] as const;

/** addNeutralSample: a sample's period against the stored one decides which bucket it joins. */
export const neutralWindowAdd = {
  ts: addNeutralSample,
  sql(c: NeutralWindowRefs, s: Omit<NeutralWindowRefs, "prevCredit" | "prevDeviceSeconds" | "prevResults">): NeutralWindowRefs {
    // A row without a sample (period NULL) fails every WHEN and keeps its values: no wrapper needed.
    const out: Record<string, SQL> = { period: sql`CASE WHEN ${s.period} > ${c.period} THEN ${s.period} ELSE ${c.period} END` };
    for (const [cur, prev] of NEUTRAL_AMOUNTS) {
      out[cur] =
        sql`CASE WHEN ${s.period} > ${c.period} THEN ${s[cur]} WHEN ${s.period} = ${c.period} THEN ${c[cur]} + ${s[cur]} ELSE ${c[cur]} END`;
      out[prev] = sql`CASE WHEN ${s.period} = ${c.period} + 1 THEN ${c[cur]} WHEN ${s.period} > ${c.period} + 1 THEN 0
        WHEN ${s.period} = ${c.period} - 1 THEN ${c[prev]} + ${s[cur]} ELSE ${c[prev]} END`;
    }
    return out as unknown as NeutralWindowRefs;
  },
};

/** neutralWindowAt: the window ending at `t`, over the row's columns (`t` a constant of the reading job). */
export const neutralWindowRead = {
  ts: neutralWindowAt,
  sql(c: NeutralWindowRefs, t: number): { credit: SQL; deviceSeconds: SQL; results: SQL } {
    const period = Math.floor(t / NEUTRALITY.periodSeconds);
    const remaining = lit(1 - (t / NEUTRALITY.periodSeconds - period));
    const current = sql`(CASE WHEN ${c.period} >= ${lit(period)} THEN 1.0 WHEN ${c.period} = ${lit(period - 1)} THEN ${remaining} ELSE 0.0 END)`;
    const previous = sql`(CASE WHEN ${c.period} >= ${lit(period)} THEN ${remaining} ELSE 0.0 END)`;
    const part = (cur: SQL, prev: SQL) => sql`(${cur} * ${current} + ${prev} * ${previous})`;
    return {
      credit: part(c.credit, c.prevCredit),
      deviceSeconds: part(c.deviceSeconds, c.prevDeviceSeconds),
      results: part(c.results, c.prevResults),
    };
  },
};
