/**
 * Hosts, users and teams: the credit holders. A project may register them (PUT, with
 * create_time, which starts their RAC clock as in BOINC); a pass creates any it names first.
 * Anyone reads them (GET): from their KV snapshot, RAC decayed to the time of the answer.
 */
import type { AppEnv } from "../../env";
import { ApiError } from "../../http/errors";
import { createRouter } from "../../http/router";
import { opener } from "../../db/project-db";
import { loadHolderSnapshots } from "../../snapshots/holders";
import type { HolderKind } from "../../snapshots/keys";
import { historyFromDay } from "../../snapshots/public-project";
import { readHolder as readSnapshot } from "../../snapshots/reads";
import { readThrough, setCacheValidators } from "../../snapshots/store";
import type { AppRouteHandler } from "../route-handler";
import { serverNow } from "../common";
import { covers, historyBody, historyWindow } from "../history/history.schemas";
import { publicHolder } from "./entities.present";
import type { PutHolder } from "./entities.schemas";
import { holderRoutes } from "./entities.routes";
import { putHolder } from "./entities.service";

/** One kind's routes: register (PUT), read, daily history. */
function holderRouter<K extends HolderKind>(kind: K) {
  const one = kind.slice(0, -1);
  const { putRoute, getRoute, historyRoute } = holderRoutes(kind);

  /** The holder's snapshot: KV, or D1 (`fromDay` on) when the key is missing or asked fresh. */
  const readHolder = (c: Parameters<typeof readThrough>[0], id: number, fromDay: number) =>
    readSnapshot(c, c.var.project, kind, id, fromDay);
  const notFound = (c: { var: AppEnv["Variables"] }, id: number) =>
    new ApiError(404, "not_found", `no ${one} ${id} in project '${c.var.project.slug}'`);

  const get: AppRouteHandler<typeof getRoute> = async (c) => {
    const { id } = c.req.valid("param");
    const asOf = serverNow();
    const read = await readHolder(c, id, historyFromDay(asOf));
    if (!read) throw notFound(c, id);
    if (setCacheValidators(c, [read.version])) return c.body(null, 304);
    const { history: _history, ...holder } = read.data;
    return c.json(publicHolder(kind, holder, asOf, read.takenAt), 200);
  };

  const history: AppRouteHandler<typeof historyRoute> = async (c) => {
    const { id } = c.req.valid("param");
    const window = historyWindow(c.req.valid("query"), serverNow());
    let read = await readHolder(c, id, historyFromDay(window.now));
    if (!read) throw notFound(c, id);
    if (!covers(read.data.history, window)) {
      // Older than the snapshot keeps: straight from the ledger, not cached.
      const loaded = await loadHolderSnapshots(c.var.db, c.var.project.id, kind, [id], window.firstDay, opener(c.env));
      read = { data: loaded.get(id) ?? read.data, takenAt: window.now, version: `${read.version}.${Math.floor(window.now)}` };
    }
    if (setCacheValidators(c, [read.version, `${window.firstDay}`, `${window.lastDay}`])) return c.body(null, 304);
    return c.json(historyBody(read.data.history, read.data.total_credit, window, read.takenAt), 200);
  };

  const put: AppRouteHandler<typeof putRoute> = async (c) => {
    const { id } = c.req.valid("param");
    const stored = await putHolder(c.var.db, c.var.registry, c.var.project.id, kind, id, c.req.valid("json") as PutHolder, serverNow());
    return c.json(stored, 200);
  };

  return createRouter().openapi(putRoute, put).openapi(getRoute, get).openapi(historyRoute, history);
}

/** The kinds in HOLDER_KINDS' order, one by one so that the router's type keeps each kind's routes. */
export const entitiesRouter = createRouter()
  .route("/", holderRouter("hosts"))
  .route("/", holderRouter("users"))
  .route("/", holderRouter("teams"));
