/**
 * The app versions' rows a batch writes: per version, ONE statement that walks its PFC samples
 * of every pass in order (docs/spec/credit.md#end-of-the-pass), walks its RAC over the credit
 * runs of the passes that credited it, each at its pass's `now` (APP_VERSION_CREDIT_COLUMNS,
 * credit-walks.ts storedRowWalk), and sets the fair state the last pass left. The three touch
 * different columns, so the version's row is written once; the fair states of versions with
 * neither samples nor credit get one statement for all of them.
 */
import { type SQL, sql } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { AV_AVERAGE, type AverageParams } from "../credit/constants";
import type { FairVersionState } from "../credit/fair-state";
import type { PassEffects } from "../credit/pass";
import { APP_VERSION_CREDIT_COLUMNS } from "./credit-columns";
import { fairVersionAssignments, fairVersionStateWrites } from "./fair-rows";
import { type RunStep, runStep, storedRowWalk } from "./credit-walks";
import { appVersions } from "./schema";
import { col, name } from "./sql-helpers";
import { averageUpdate } from "./stat-updates";
import { numberSteps } from "./walks";

/**
 * AVERAGE over a whole run of samples in one statement: a recursive walk from the row's
 * current values through the samples in order, then the last step written back.
 */
export function averageWalk(
  table: SQLiteTable,
  stats: { n: string; avg: string },
  where: SQL,
  samples: readonly number[],
  params: AverageParams,
): SQL {
  const walk = averageWalkParts(table, stats, where, samples, params);
  return sql`WITH RECURSIVE ${walk.ctes} UPDATE ${table} SET ${walk.assignment} WHERE ${where}`;
}

/** averageWalk's CTEs (`sample`, `walk`) and its SET assignment, to join other assignments of the same row. */
function averageWalkParts(
  table: SQLiteTable,
  stats: { n: string; avg: string },
  where: SQL,
  samples: readonly number[],
  params: AverageParams,
): { ctes: SQL; assignment: SQL } {
  const step = averageUpdate.sql({ n: sql.raw("walk.n"), avg: sql.raw("walk.avg") }, sql.raw("sample.x"), params);
  return {
    // MATERIALIZED: SQLite then indexes the samples by i (an automatic index, built once), so each
    // step finds its sample by equality; over json_each itself every step would scan every sample.
    ctes: sql`sample(i, x) AS MATERIALIZED (SELECT CAST(j.key AS INTEGER), j.value FROM json_each(${JSON.stringify(samples)}) AS j),
      walk(i, n, avg) AS (
        SELECT 0, ${col(stats.n)}, ${col(stats.avg)} FROM ${table} WHERE ${where}
        UNION ALL
        SELECT walk.i + 1, ${step.n}, ${step.avg} FROM walk JOIN sample ON sample.i = walk.i
      )`,
    assignment: sql`(${col(stats.n)}, ${col(stats.avg)}) = (SELECT n, avg FROM walk ORDER BY i DESC LIMIT 1)`,
  };
}

const versionById = (projectId: number, id: number) =>
  sql`${name(appVersions.projectId)} = ${projectId} AND ${name(appVersions.id)} = ${id}`;

/** The app versions' writes of passes decided in order, each with the `now` it was decided at. */
export function versionWrites(projectId: number, passes: readonly { now: number; effects: PassEffects }[]): SQL[] {
  const pfcSamples = new Map<number, number[]>();
  const creditRuns = new Map<number, RunStep[]>();
  // A version's fair state is absolute: the last pass's is the one to write.
  const fairVersions = new Map<number, FairVersionState>();
  for (const { now, effects } of passes) {
    for (const [id, samples] of effects.versionPfcSamples) pfcSamples.set(id, [...(pfcSamples.get(id) ?? []), ...samples]);
    for (const [id, samples] of effects.versionCreditSamples) {
      if (samples.length === 0) continue;
      const run = runStep(
        id,
        now,
        samples.map((c) => ({ credit: c.credit, start: c.time })),
      );
      creditRuns.set(id, [...(creditRuns.get(id) ?? []), run]);
    }
    for (const [id, state] of effects.fairVersions) fairVersions.set(id, state);
  }
  const av = appVersions;
  const ids = [...new Set([...[...pfcSamples].filter(([, x]) => x.length > 0).map(([id]) => id), ...creditRuns.keys()])];
  const written = ids.map((id) => {
    const byId = versionById(projectId, id);
    const pfc = pfcSamples.get(id);
    const runs = creditRuns.get(id);
    const fair = fairVersions.get(id);
    const pfcWalk = pfc?.length ? averageWalkParts(av, { n: av.pfcN.name, avg: av.pfcAvg.name }, byId, pfc, AV_AVERAGE) : null;
    const racWalk = runs ? storedRowWalk(projectId, av, "v_", APP_VERSION_CREDIT_COLUMNS, numberSteps(runs)) : null;
    const ctes = [...(pfcWalk ? [pfcWalk.ctes] : []), ...(racWalk ? [racWalk.ctes] : [])];
    const set = [
      ...(pfcWalk ? [pfcWalk.assignment] : []),
      ...(fair ? [fairVersionAssignments(fair)] : []),
      ...(racWalk ? [racWalk.assignment] : []),
    ];
    return sql`${ctes.length > 0 ? sql`WITH RECURSIVE ${sql.join(ctes, sql`, `)} ` : sql``}UPDATE ${av} SET ${sql.join(set, sql`, `)} WHERE ${byId}`;
  });
  const alone = new Map([...fairVersions].filter(([id]) => !ids.includes(id)));
  return [...written, ...fairVersionStateWrites(projectId, alone)];
}
