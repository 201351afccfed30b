import { sql } from "drizzle-orm";
import { runBatch } from "../../db/batch";
import type { Db } from "../../db/client";
import { centralContributions } from "../../db/schema";
import { chunks, insertFromJson } from "../../db/sql-helpers";
import type { Push } from "./central.schemas";

/** Replaces the contributor's set for `project` with the push's live versions; answers how many were stored. */
export async function storePush(db: Db, contributorId: number, project: string, push: Push, now: number): Promise<number> {
  const rows = push.app_versions
    .filter((v) => !v.deprecated)
    .map((v) => ({
      id: v.id,
      app: v.app,
      platform: v.platform,
      planClass: v.plan_class,
      versionNum: v.version_num,
      pfcN: v.pfc_n,
      pfcAvg: v.pfc_avg,
      pfcScale: v.pfc_scale,
      expavgCredit: v.expavg_credit,
      expavgTime: v.expavg_time,
    }));
  const t = centralContributions;
  // One batch: the old set goes and the new one comes, or neither.
  await runBatch(db, [
    sql`DELETE FROM ${t} WHERE contributor_id = ${contributorId} AND project = ${project}`,
    ...chunks(rows).map((chunk) =>
      insertFromJson(
        sql`${t}`,
        [
          [t.contributorId, sql`${contributorId}`],
          [t.project, sql`${project}`],
          [t.appVersionId, "id"],
          [t.app, "app"],
          [t.platform, "platform"],
          [t.planClass, "planClass"],
          [t.versionNum, "versionNum"],
          [t.pfcN, "pfcN"],
          [t.pfcAvg, "pfcAvg"],
          [t.pfcScale, "pfcScale"],
          [t.expavgCredit, "expavgCredit"],
          [t.expavgTime, "expavgTime"],
          [t.reportedAt, sql`${now}`],
        ],
        chunk,
      ),
    ),
  ]);
  return rows.length;
}
