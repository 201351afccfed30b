/**
 * Hosts, users and teams: the credit holders. A project may register them (PUT, with
 * create_time, which starts their RAC clock as in BOINC); a pass creates any it names first.
 * Anyone reads them (GET): from their KV snapshot, RAC decayed to the time of the answer.
 */
import { access } from "../access";
import { OpenAPIHono, createRoute } from "@hono/zod-openapi";
import type { AppEnv } from "../../env";
import { ApiError, errorResponses } from "../../http/errors";
import { checkCreateTime, holderCounts, holderUpserts } from "./holder-upsert";
import { amHostLinkWrite } from "../am/host-links";
import { opener, sameDatabase } from "../../db/project-db";
import type { hosts } from "../../db/schema";
import { holderFromRow, loadHolderSnapshots, type HolderRow } from "../../snapshots/holders";
import { type HolderKind, HOLDER_KINDS } from "../../snapshots/keys";
import { presentHolder } from "../../snapshots/present";
import { historyFromDay } from "../../snapshots/public-project";
import { readHolder as readSnapshot } from "../../snapshots/reads";
import { NOT_MODIFIED, readThrough, snapshotResponse } from "../../snapshots/store";
import { IdParam, SlugParams, serverNow } from "../common";
import { HistoryQuery, HistorySchema, covers, historyBody, historyWindow } from "../history/history.schemas";
import { type PutHolder, publicSchemas, putSchemas, storedSchemas } from "./entities.schemas";

function mountKind(app: OpenAPIHono<AppEnv>, kind: HolderKind): void {
  const params = SlugParams.extend({ id: IdParam });
  const one = kind.slice(0, -1);
  const putRoute = createRoute({
    method: "put",
    path: `/v1/projects/{slug}/${kind}/{id}`,
    tags: ["Configuration"],
    summary: `Register a ${one} or change its details`,
    description:
      "A new one starts its RAC clock (expavg_time) at create_time, as in BOINC; while it has no credit, " +
      "a later create_time moves the clock too.",
    ...access("projectToken"),
    request: { params, body: { required: true, content: { "application/json": { schema: putSchemas[kind] } } } },
    responses: {
      200: { description: `The ${one} as stored`, content: { "application/json": { schema: storedSchemas[kind] } } },
      ...errorResponses(400, 401, 403, 422),
    },
  });
  const getRoute = createRoute({
    method: "get",
    path: `/v1/projects/{slug}/${kind}/{id}`,
    tags: ["Credit"],
    summary: `A ${one}'s credit: total, BOINC's stored RAC pair, the RAC decayed to now${kind === "hosts" ? "" : ", credit per app"}`,
    description:
      "Served from a KV snapshot that the minute cron refreshes after each pass; with the project's token, from the ledger.",
    ...access("publicProject"),
    request: { params },
    responses: {
      200: { description: `The ${one}`, content: { "application/json": { schema: publicSchemas[kind] } } },
      ...NOT_MODIFIED,
      ...errorResponses(401, 403, 404),
    },
  });
  const historyRoute = createRoute({
    method: "get",
    path: `/v1/projects/{slug}/${kind}/{id}/history`,
    tags: ["Credit"],
    summary: `A ${one}'s daily credit (UTC days): granted that day, total and RAC at its end`,
    ...access("publicProject"),
    request: { params, query: HistoryQuery },
    responses: {
      200: { description: "One entry per day, oldest first", content: { "application/json": { schema: HistorySchema } } },
      ...NOT_MODIFIED,
      ...errorResponses(400, 401, 403, 404),
    },
  });

  app.openapi(putRoute, async (c) => {
    const { id } = c.req.valid("param");
    const b = c.req.valid("json") as PutHolder;
    const now = serverNow();
    checkCreateTime(b.create_time, now, "create_time");
    const projectId = c.var.project.id;
    const db = c.var.db;
    const link = kind === "hosts" ? await amHostLinkWrite(c.var.registry, projectId, id, b) : null;
    // The link is in the registry: written with the host in one batch when the project lives
    // there too, else just after it (a retried PUT writes both again; both are idempotent).
    const together = link !== null && sameDatabase(db, c.var.registry);
    const [upsert, mark] = holderUpserts(db, projectId, kind, id, b, now);
    const counts = holderCounts(db, projectId, { [kind]: [id] });
    // The count goes first: it counts the holder only while it is not stored.
    const done = await db.batch([...counts, upsert, mark, ...(together ? [link.write] : [])] as unknown as [typeof upsert]);
    const [row] = done[counts.length] as Awaited<typeof upsert>;
    if (link !== null && !together) await link.write;
    const stored = presentHolder(holderFromRow(kind, row as HolderRow), now);
    const benchmark = kind === "hosts" ? { p_fpops: (row as typeof hosts.$inferSelect).pFpops } : {};
    return c.json({ ...stored, ...benchmark } as never, 200);
  });

  /** The holder's snapshot: KV, or D1 (`fromDay` on) when the key is missing or asked fresh. */
  const readHolder = (c: Parameters<typeof readThrough>[0], id: number, fromDay: number) =>
    readSnapshot(c, c.var.project, kind, id, fromDay);
  const notFound = (c: { var: AppEnv["Variables"] }, id: number) =>
    new ApiError(404, "not_found", `no ${one} ${id} in project '${c.var.project.slug}'`);

  app.openapi(getRoute, async (c) => {
    const { id } = c.req.valid("param");
    const asOf = serverNow();
    const read = await readHolder(c, id, historyFromDay(asOf));
    if (!read) throw notFound(c, id);
    const { history: _history, ...holder } = read.data;
    return snapshotResponse(c, [read.version], { ...presentHolder(holder, asOf), snapshot_time: read.takenAt }) as never;
  });

  app.openapi(historyRoute, async (c) => {
    const { id } = c.req.valid("param");
    const window = historyWindow(c.req.valid("query"), serverNow());
    let read = await readHolder(c, id, historyFromDay(window.now));
    if (!read) throw notFound(c, id);
    if (!covers(read.data.history, window)) {
      // Older than the snapshot keeps: straight from the ledger, not cached.
      const loaded = await loadHolderSnapshots(c.var.db, c.var.project.id, kind, [id], window.firstDay, opener(c.env));
      read = { data: loaded.get(id) ?? read.data, takenAt: window.now, version: `${read.version}.${Math.floor(window.now)}` };
    }
    const body = historyBody(read.data.history, read.data.total_credit, window, read.takenAt);
    return snapshotResponse(c, [read.version, `${window.firstDay}`, `${window.lastDay}`], body) as never;
  });
}

export function mountEntities(app: OpenAPIHono<AppEnv>): void {
  for (const kind of HOLDER_KINDS) mountKind(app, kind);
}
