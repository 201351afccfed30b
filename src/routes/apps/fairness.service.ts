import { and, eq, sql } from "drizzle-orm";
import { SECONDS_PER_DAY } from "../../credit/constants";
import { FAIRNESS_WINDOW_DAYS } from "../../config";
import { OUTLIER_RULES } from "../../credit/fair-claim";
import { gateValue, heldOutByGate } from "../../db/fair-rows";
import { appVersions, apps, hostAppVersions, results } from "../../db/schema";
import { jsonList, ref } from "../../db/sql-helpers";
import { FAIR_RULE_CODES, RESULT_OUTCOMES, encode } from "../../db/codes";
import type { Db } from "../../db/client";
import { ApiError } from "../../http/errors";

/**
 * The app's hosts BOINC's rules pay most above the fair policy's over the last
 * FAIRNESS_WINDOW_DAYS, and the hosts the quantile gate holds out now (404 for an unknown app).
 */
export async function fairnessReport(db: Db, projectId: number, appName: string, now: number, limit: number) {
  const [appRow] = await db
    .select()
    .from(apps)
    .where(and(eq(apps.projectId, projectId), eq(apps.name, appName)));
  if (!appRow) throw new ApiError(404, "not_found", `unknown app '${appName}'`);
  const since = now - FAIRNESS_WINDOW_DAYS * SECONDS_PER_DAY;
  const r = results;
  const hav = hostAppVersions;
  const av = appVersions;
  const versionOfRow = and(eq(av.projectId, hav.projectId), eq(av.id, hav.appVersionId));
  /** The listed host's rows of this app, in a subquery aliased `alias`. */
  const hvKey = (alias: string) =>
    sql`${ref(alias, hav.projectId.name)} = ${projectId} AND ${ref(alias, hav.hostId.name)} = ${ref("results", r.hostId.name)}
      AND ${ref(alias, hav.appId.name)} = ${appRow.id}`;
  // A policy's credit equal to the one before it (granted, boinc, fair) is stored as NULL (db/pass-writes.ts).
  const boinc = sql<number>`sum(coalesce(${r.boincCredit}, ${r.grantedCredit}))`;
  const fair = sql<number>`sum(coalesce(${r.fairCredit}, ${r.boincCredit}, ${r.grantedCredit}))`;
  const [rows, heldOut] = await db.batch([
    db
      .select({
        hostId: r.hostId,
        results: sql<number>`count(*)`,
        boinc,
        fair,
        outliers: sql<number>`sum(${r.fairRule} IN ${jsonList(OUTLIER_RULES.map((rule) => encode(FAIR_RULE_CODES, rule)))})`,
        // Qualified by hand: drizzle names a column bare in a one-table select, and a bare
        // host_id inside the subquery would be the subquery's own.
        errorRate: sql<number>`coalesce((SELECT max(${ref("hv", hav.fairErr.name)}) FROM ${hav} AS hv
          WHERE ${hvKey("hv")}), 0)`,
        // The host's rows are a primary-key prefix: a seek per listed host.
        heldOut: sql<number>`EXISTS (SELECT 1 FROM ${hav} AS hv JOIN ${av} AS v
            ON ${ref("v", av.projectId.name)} = ${ref("hv", hav.projectId.name)} AND ${ref("v", av.id.name)} = ${ref("hv", hav.appVersionId.name)}
          WHERE ${hvKey("hv")} AND ${heldOutByGate(ref("hv", hav.fairF.name), ref("v", av.fairFv.name))})`,
      })
      .from(r)
      .where(
        and(
          eq(r.projectId, projectId),
          eq(r.appId, appRow.id),
          // A claimed valid result: it has each policy's credit.
          eq(r.outcome, encode(RESULT_OUTCOMES, "valid")),
          sql`${r.decidedAt} > ${since}`,
          sql`${r.decidedAt} <= ${now}`,
        ),
      )
      .groupBy(r.hostId)
      .orderBy(sql`CASE WHEN ${fair} > 0 THEN ${boinc} / ${fair} ELSE 1e308 END DESC`, sql`${boinc} - ${fair} DESC`, r.hostId)
      .limit(limit),
    // A read of the project's rows of the app (no index on fair_f: it changes with every
    // result, so an index would cost a row write each time); a report, read rarely.
    db
      .select({ hostId: hav.hostId, appVersionId: hav.appVersionId, share: sql<number>`${hav.fairF}`, gate: gateValue(av.fairFv) })
      .from(hav)
      .innerJoin(av, versionOfRow)
      .where(and(eq(hav.projectId, projectId), eq(hav.appId, appRow.id), heldOutByGate(hav.fairF, av.fairFv)))
      .orderBy(sql`${hav.fairF} - ${gateValue(av.fairFv)} DESC`, hav.hostId, hav.appVersionId)
      .limit(limit),
  ]);
  return { appRow, since, rows, heldOut };
}
