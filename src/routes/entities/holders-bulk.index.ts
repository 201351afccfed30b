/**
 * Registers many hosts, users and teams in one request (a bridge backfilling a BOINC database
 * meets thousands): the same write as one PUT each, all in one batch, all or nothing.
 */
import { createRouter } from "../../http/router";
import { HOLDER_KINDS } from "../../snapshots/keys";
import { serverNow } from "../common";
import { runBatch } from "../../db/batch";
import { markHostsOfUser } from "../../db/kv-marks";
import { checkCreateTime, holderCounts } from "./entities.upsert";
import { bulkHolderWrites } from "./holders-bulk.upsert";
import { route } from "./holders-bulk.routes";
import type { AppRouteHandler } from "../route-handler";

const routeHandler: AppRouteHandler<typeof route> = async (c) => {
  const body = c.req.valid("json");
  const now = serverNow();
  for (const kind of HOLDER_KINDS) body[kind]?.forEach((h, i) => checkCreateTime(h.create_time, now, `${kind}[${i}].create_time`));
  const db = c.var.db;
  const projectId = c.var.project.id;
  const counts = holderCounts(db, projectId, Object.fromEntries(HOLDER_KINDS.map((kind) => [kind, (body[kind] ?? []).map((h) => h.id)])));
  const upserts = HOLDER_KINDS.flatMap((kind) => (body[kind]?.length ? bulkHolderWrites(projectId, kind, body[kind], now) : []));
  // An opted-out user's hosts stop showing their host_cpid at the next refresh (as its PUT does).
  const optedOut = (body.users ?? []).filter((u) => u.stats_export === false).map((u) => markHostsOfUser(db, projectId, u.id).getSQL());
  // The count goes first: it counts the holders not stored yet.
  if (upserts.length > 0) await runBatch(db, [...counts.map((q) => q.getSQL()), ...upserts, ...optedOut]);
  return c.json({ hosts: body.hosts?.length ?? 0, users: body.users?.length ?? 0, teams: body.teams?.length ?? 0 }, 200);
};

export const bulkHoldersRouter = createRouter().openapi(route, routeHandler);
