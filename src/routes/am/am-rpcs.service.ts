/**
 * An account-manager RPC end to end: read the host's state (one read batch), book the deltas
 * (pure, src/credit/am-deltas.ts), write (one atomic batch). The RPC row is written as the
 * host's RPC number last + 1: if a concurrent RPC of the same host was written since our read,
 * our batch fails on that key and rolls back, and we compute again from a fresh read, where
 * its totals are our baseline (or it was this very RPC: a replay).
 */
import { type SQL, and, desc, eq, sql } from "drizzle-orm";
import { type Booking, type Totals, bookDeltas, bookedCredit } from "../../credit/am-deltas";
import { projectUrlKey } from "../../credit/project-url";
import { dateOfDay, dayOf } from "../../credit/history";
import { type DailyDelta, baselineWrites, dailyBookingWrites, rpcInsert } from "../../db/am-writes";
import { runBatch } from "../../db/batch";
import { retryOnConflict } from "../../http/conflict-retry";
import type { Db } from "../../db/client";
import { amHostProjects, amRpcs } from "../../db/schema";
import { jsonList } from "../../db/sql-helpers";
import { ApiError } from "../../http/errors";
import { sha256Hex } from "../../http/tokens";
import type { RpcRequest, RpcResponse } from "./am-rpcs.schemas";

type ProjectTotals = RpcRequest["projects"][number];

const totalsOf = (p: ProjectTotals): Totals => ({
  cpu_ec: p.cpu_ec,
  cpu_time: p.cpu_time,
  gpu_ec: p.gpu_ec,
  gpu_time: p.gpu_time,
  njobs_success: p.njobs_success,
  njobs_error: p.njobs_error,
});

type HostState = Awaited<ReturnType<typeof loadHostState>>;

async function loadHostState(db: Db, amId: number, hostId: number, now: number, urlKeys: string[]) {
  const host = and(eq(amRpcs.amId, amId), eq(amRpcs.hostId, hostId));
  const [last, atNow, baselines] = await db.batch([
    db.select({ seq: amRpcs.seq, rpcTime: amRpcs.rpcTime }).from(amRpcs).where(host).orderBy(desc(amRpcs.seq)).limit(1),
    db
      .select({ fingerprint: amRpcs.fingerprint, outcome: amRpcs.outcome })
      .from(amRpcs)
      .where(and(host, eq(amRpcs.rpcTime, now))),
    db
      .select()
      .from(amHostProjects)
      .where(and(eq(amHostProjects.amId, amId), eq(amHostProjects.hostId, hostId), sql`${amHostProjects.url} IN ${jsonList(urlKeys)}`)),
  ]);
  return {
    last: last[0] ?? null,
    atNow: atNow[0] ?? null,
    baselines: new Map(
      baselines.map((b) => [
        b.url,
        {
          time: b.lastTime,
          totals: {
            cpu_ec: b.cpuEc,
            cpu_time: b.cpuTime,
            gpu_ec: b.gpuEc,
            gpu_time: b.gpuTime,
            njobs_success: b.njobsSuccess,
            njobs_error: b.njobsError,
          },
        },
      ]),
    ),
  };
}

/** The daily rows one project's booking feeds: totals, user, project, user × project, host, host × project. */
function dailyDeltas(hostId: number, userId: number, urlKey: string, b: Booking): DailyDelta[] {
  const { ec, claimedEc } = bookedCredit(b);
  const sums = {
    ec,
    claimedEc,
    cpuTime: b.booked.cpu_time,
    gpuTime: b.booked.gpu_time,
    njobsSuccess: b.booked.njobs_success,
    njobsError: b.booked.njobs_error,
  };
  if (Object.values(sums).every((x) => x === 0)) return [];
  return [
    { subject: "total", entityId: 0, url: "", userId: 0, ...sums },
    { subject: "user", entityId: userId, url: "", userId: 0, ...sums },
    { subject: "project", entityId: 0, url: urlKey, userId: 0, ...sums },
    { subject: "user_project", entityId: userId, url: urlKey, userId: 0, ...sums },
    { subject: "host", entityId: hostId, url: "", userId, ...sums },
    { subject: "host_project", entityId: hostId, url: urlKey, userId, ...sums },
  ];
}

/** What the RPC books on the host's state as read: the answer, and the statements of its one batch. */
function planRpc(
  amId: number,
  hostId: number,
  now: number,
  body: RpcRequest,
  ctx: { urlKeys: string[]; fingerprint: string; state: HostState },
): { response: RpcResponse; statements: SQL[] } {
  const { urlKeys, fingerprint, state } = ctx;
  const host = { ncpus: body.host.p_ncpus, nGpus: body.host.n_gpus };
  const day = dayOf(now);
  const bookings = body.projects.map((p, i) => bookDeltas(state.baselines.get(urlKeys[i]!) ?? null, totalsOf(p), now, host));
  const response: RpcResponse = {
    now,
    host_id: hostId,
    user_id: body.user_id,
    day: dateOfDay(day),
    replayed: false,
    projects: bookings.map((b, i) => ({
      url: body.projects[i]!.url,
      url_key: urlKeys[i]!,
      baseline: b.baseline,
      interval: b.interval,
      claimed: b.claimed,
      booked: b.booked,
      clips: [...b.clips],
    })),
  };
  const statements = [
    rpcInsert(amId, hostId, {
      seq: (state.last?.seq ?? 0) + 1,
      rpcTime: now,
      userId: body.user_id,
      fingerprint,
      outcome: JSON.stringify(response),
    }),
    ...baselineWrites(
      amId,
      hostId,
      now,
      body.projects.map((p, i) => ({ url: urlKeys[i]!, masterUrl: p.url, ...totalsOf(p) })),
    ),
    ...dailyBookingWrites(
      amId,
      day,
      bookings.flatMap((b, i) => dailyDeltas(hostId, body.user_id, urlKeys[i]!, b)),
    ),
  ];
  return { response, statements };
}

export async function ingestRpc(db: Db, amId: number, hostId: number, now: number, body: RpcRequest): Promise<RpcResponse> {
  const urlKeys = body.projects.map((p) => projectUrlKey(p.url)!);
  const fingerprint = await sha256Hex(JSON.stringify([body.user_id, body.host, body.projects.map((p, i) => [urlKeys[i], totalsOf(p)])]));
  return retryOnConflict(async () => {
    const state = await loadHostState(db, amId, hostId, now, urlKeys);
    if (state.atNow) {
      if (state.atNow.fingerprint !== fingerprint) {
        throw new ApiError(409, "conflict", `host ${hostId} already reported other totals at now = ${now}; nothing was booked`);
      }
      return { ...(JSON.parse(state.atNow.outcome) as RpcResponse), replayed: true };
    }
    if (state.last && now < state.last.rpcTime) {
      throw new ApiError(
        409,
        "rpc_out_of_order",
        `host ${hostId} already reported at ${state.last.rpcTime}, after now = ${now}; nothing was booked`,
        [{ path: "now", message: "must not be earlier than the host's last RPC" }],
      );
    }
    const { response, statements } = planRpc(amId, hostId, now, body, { urlKeys, fingerprint, state });
    await runBatch(db, statements);
    return response;
  }, `RPCs of host ${hostId}`);
}

/** A host's latest RPCs, newest first, as each was answered (without `replayed`). */
export async function listRpcs(db: Db, amId: number, hostId: number, limit: number) {
  const rows = await db
    .select({ outcome: amRpcs.outcome })
    .from(amRpcs)
    .where(and(eq(amRpcs.amId, amId), eq(amRpcs.hostId, hostId)))
    .orderBy(desc(amRpcs.seq))
    .limit(limit);
  return rows.map((r) => {
    const { replayed: _, ...rest } = JSON.parse(r.outcome) as RpcResponse;
    return rest;
  });
}
