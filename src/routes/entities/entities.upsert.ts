/**
 * The write behind registering a host, user or team (one PUT, or many in one bulk request):
 * insert it, or change its details; a create_time given starts (or, before any credit, moves)
 * its RAC clock, as in BOINC.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { holderCountUpdate } from "../../db/holder-counts";
import { carriedCreditHomeUpdate, drizzleSet, oldOwnersCreditUpdate, ownerSeqAfterUpsert } from "../../db/owner-carriers";
import { markHostsOfUser, markOne } from "../../db/kv-marks";
import { hosts, projects, teams, users } from "../../db/schema";
import { ApiError } from "../../http/errors";
import { SUBJECT_OF_KIND } from "../../snapshots/holders";
import type { HolderKind } from "../../snapshots/keys";
import { MAX_CLOCK_SKEW_SECONDS } from "../common";
import type { PutHolder } from "./entities.schemas";

const HOLDER_TABLES = { hosts, users, teams } as const;

/** 422 unless create_time is at most `now` (with the clock skew we tolerate). */
export function checkCreateTime(createTime: number | undefined, now: number, path: string): void {
  if (createTime !== undefined && createTime > now + MAX_CLOCK_SKEW_SECONDS) {
    throw new ApiError(422, "create_time_in_future", "create_time is in the future", [{ path, message: "must not be in the future" }]);
  }
}

/**
 * What must run before holderUpserts' upsert: a host's old owner keeps the credit the host
 * carried for it; a user given a create_time has its credit as it stands in its row, which the
 * clock's move reads.
 */
export function beforeHolderUpsert(db: Db, projectId: number, kind: HolderKind, id: number, b: PutHolder) {
  const update =
    kind === "hosts" && b.user_id !== undefined
      ? oldOwnersCreditUpdate(projectId, [{ host: id, owner: b.user_id }])
      : kind === "users" && b.create_time !== undefined
        ? carriedCreditHomeUpdate(projectId, [id])
        : null;
  return update ? [db.update(users).set(drizzleSet(update.assignments)).where(update.where)] : [];
}

/**
 * The upsert (returning the stored row) and the snapshot's dirty mark, to run in one batch
 * after holderCounts of every holder the batch upserts, and after beforeHolderUpsert.
 */
export function holderUpserts(db: Db, projectId: number, kind: HolderKind, id: number, b: PutHolder, now: number) {
  const table = HOLDER_TABLES[kind];
  const createTime = b.create_time ?? now;
  const details = {
    ...(b.name === undefined ? {} : { name: b.name }),
    ...(kind === "hosts" && b.user_id !== undefined ? { userId: b.user_id } : {}),
    ...(kind === "hosts" && b.cpid !== undefined ? { hostCpid: b.cpid } : {}),
    ...(kind === "hosts" && b.p_fpops !== undefined ? { pFpops: b.p_fpops } : {}),
    ...(kind === "users" && b.team_id !== undefined ? { teamId: b.team_id } : {}),
    ...(kind === "users" && b.cpid !== undefined ? { cpid: b.cpid } : {}),
    ...(kind === "users" && b.stats_export !== undefined ? { statsExport: b.stats_export } : {}),
  };
  const clock =
    b.create_time === undefined
      ? {}
      : {
          createTime,
          // Before any credit, the RAC clock follows the registered creation time.
          expavgTime: sql`CASE WHEN ${table.totalCredit} = 0 AND ${table.expavgCredit} = 0 THEN ${createTime} ELSE ${table.expavgTime} END`,
        };
  // A host that changes owner stops carrying the old owner's credit (db/owner-carriers.ts).
  const ownerChange = kind === "hosts" && b.user_id !== undefined;
  const set = {
    ...details,
    ...clock,
    ...(ownerChange ? { ownerCreditSeq: ownerSeqAfterUpsert } : {}),
  };
  return [
    db
      .insert(table)
      .values({ projectId, id, createTime, expavgTime: createTime, ...details } as typeof hosts.$inferInsert)
      .onConflictDoUpdate({ target: [table.projectId, table.id], set: Object.keys(set).length > 0 ? set : { id } })
      .returning(),
    // The public snapshot shows names and owners too: the cron rewrites it.
    markOne(db, projectId, { subject: SUBJECT_OF_KIND[kind], id }),
    // An opted-out user's hosts stop showing their host_cpid at the next refresh (opting back in
    // shows it again at each host's next refresh: nothing is exposed meanwhile).
    ...(kind === "users" && b.stats_export === false ? [markHostsOfUser(db, projectId, id)] : []),
  ] as const;
}

/** The project's count update (db/holder-counts.ts) for the holders of a batch of holderUpserts: it goes first. */
export function holderCounts(db: Db, projectId: number, named: Partial<Record<HolderKind, readonly number[]>>) {
  const u = holderCountUpdate(projectId, named);
  return u ? [db.update(projects).set(u.set).where(u.where)] : [];
}
