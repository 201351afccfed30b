/**
 * A trickle batch's reads (one batch) and writes (one atomic batch). The grants go through
 * the passes' grant walks as one pass (holder-walks.ts grantWalkPhases): totals, RAC, per-app
 * rows, history buckets; then the KV marks.
 */
import { type SQL, and, eq, sql } from "drizzle-orm";
import type { Attribution, Grant } from "../credit/pass";
import type { FlopsSource } from "../credit/trickle";
import type { Db } from "./client";
import { attributionWrites } from "./attribution-writes";
import { grantGroups } from "./grant-groups";
import { NO_BATCH_HOLDERS, grantWalkPhases } from "./holder-walks";
import { attributionCounts } from "./holder-counts";
import { dirtySubjects, markSubjects } from "./kv-marks";
import { assembleWrites } from "./write-phases";
import { apps, hosts, projects, trickles, users } from "./schema";
import { chunks, insertFromJson, int64Text, jsonInt64, jsonList, wholeSeconds } from "./sql-helpers";
import { FLOPS_SOURCES, decode, encode } from "./codes";
import { startedClock } from "./stat-updates";

/** A paid message as stored: its answer again, for a re-post with the same fingerprint. */
export interface StoredTrickle {
  readonly fingerprint: string;
  readonly credit: number;
  /** The runtime paid where it was cut to the app's maximum; null: the reported runtime was paid. */
  readonly cutRuntime: number | null;
  readonly flops: number;
  readonly flopsSource: FlopsSource;
}

export interface TrickleKeys {
  readonly messageIds: readonly number[];
  readonly hostIds: readonly number[];
}

/**
 * Everything a batch needs: apps, the hosts it names with their owners' teams, stored
 * messages, percentiles, and the retention horizon (read in the same batch as the stored
 * messages, so a message is either stored or at or below the horizon once paid).
 */
export async function loadTrickleSnapshot(db: Db, projectId: number, keys: TrickleKeys) {
  const [appRows, hostRows, storedRows, [project]] = await db.batch([
    db.select().from(apps).where(eq(apps.projectId, projectId)),
    db
      .select({ id: hosts.id, userId: hosts.userId, pFpops: hosts.pFpops, teamId: users.teamId })
      .from(hosts)
      .leftJoin(users, and(eq(users.projectId, hosts.projectId), eq(users.id, hosts.userId)))
      .where(and(eq(hosts.projectId, projectId), sql`${hosts.id} IN ${jsonList(keys.hostIds)}`)),
    db
      .select({
        id: trickles.id,
        fingerprint: int64Text(trickles.fingerprint),
        credit: trickles.credit,
        cutRuntime: trickles.cutRuntime,
        flops: trickles.flops,
        flopsSource: trickles.flopsSource,
      })
      .from(trickles)
      .where(and(eq(trickles.projectId, projectId), sql`${trickles.id} IN ${jsonList(keys.messageIds)}`)),
    db
      .select({
        p50: projects.fpopsP50,
        p95: projects.fpopsP95,
        purgedThrough: projects.tricklesPurgedThrough,
        retentionDays: projects.resultRetentionDays,
        clock: startedClock({ avg: sql`${projects.expavgCredit}`, time: sql`${projects.expavgTime}` }),
      })
      .from(projects)
      .where(eq(projects.id, projectId)),
  ]);
  return {
    apps: new Map(appRows.map((r) => [r.name, r])),
    hosts: new Map(hostRows.map((r) => [r.id, { userId: r.userId, teamId: r.teamId ?? 0, pFpops: r.pFpops }])),
    stored: new Map(
      storedRows.map((r): [number, StoredTrickle] => [
        r.id,
        {
          fingerprint: r.fingerprint,
          credit: r.credit,
          cutRuntime: r.cutRuntime,
          flops: r.flops,
          flopsSource: decode(FLOPS_SOURCES, r.flopsSource),
        },
      ]),
    ),
    percentiles: project && project.p50 !== null && project.p95 !== null ? { p50: project.p50, p95: project.p95 } : null,
    retention: { purgedThrough: project?.purgedThrough ?? 0, days: project?.retentionDays ?? 0 },
    /** The project's clock: the time of its latest grant (expavg_time once its RAC counts credit; else 0). */
    clock: project?.clock ?? 0,
  };
}

export type TrickleSnapshot = Awaited<ReturnType<typeof loadTrickleSnapshot>>;

export interface PaidTrickle {
  readonly id: number;
  readonly appId: number;
  readonly hostId: number;
  /** http/fingerprint.ts's decimal text. */
  readonly fingerprint: string;
  readonly credit: number;
  readonly runtime: number;
  readonly runtimeCut: boolean;
  readonly flops: number;
  readonly flopsSource: FlopsSource;
}

/** The paid messages (their insert fails on an id already paid: the whole batch then rolls back) and their grants. */
export function trickleWrites(
  projectId: number,
  now: number,
  paid: readonly PaidTrickle[],
  grants: Grant[],
  attributions: Attribution[],
): SQL[] {
  const groups = grantGroups(grants);
  return assembleWrites({
    outcomes: chunks(
      paid.map((t) => ({
        id: t.id,
        appId: t.appId,
        hostId: t.hostId,
        fingerprint: t.fingerprint,
        credit: t.credit,
        cutRuntime: t.runtimeCut ? t.runtime : null,
        flops: t.flops,
        flopsSource: encode(FLOPS_SOURCES, t.flopsSource),
      })),
    ).map((rows) =>
      insertFromJson(
        sql`${trickles}`,
        [
          [trickles.projectId, sql`${projectId}`],
          [trickles.id, "id"],
          [trickles.appId, "appId"],
          [trickles.hostId, "hostId"],
          [trickles.fingerprint, jsonInt64("fingerprint")],
          [trickles.credit, "credit"],
          [trickles.cutRuntime, "cutRuntime"],
          [trickles.flops, "flops"],
          [trickles.flopsSource, "flopsSource"],
          [trickles.grantedAt, sql`${wholeSeconds(now)}`],
        ],
        rows,
      ),
    ),
    // Owners and teams as the hosts hold them: creates a user or team row a host names first.
    // The owners are the hosts' stored ones (read with the batch): none changes.
    holders: attributionWrites(projectId, [{ now, attributions }], undefined, false),
    // Every holder was created above (attributionWrites): none is fresh to the grant walks.
    // One pass: every row it grants is granted on one day, so none is walked for its finished days.
    ...grantWalkPhases(projectId, [{ now, groups, grants, fresh: { hosts: new Map(), users: new Map(), teams: new Map() } }], {
      ...NO_BATCH_HOLDERS,
      counts: attributionCounts(projectId, attributions),
    }),
    kvMarks: markSubjects(projectId, dirtySubjects(attributions)),
  });
}
