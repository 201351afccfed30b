/**
 * A project's history databases (docs/storage.md, History in databases of its own): where its
 * daily history and monthly roll-up are kept, apart from its ledger. The operator adds one
 * when the current one fills (admin only); it takes the buckets from the project's next day
 * on, and the older ones keep theirs. The project may read the list.
 */
import { createRouter } from "../../http/router";
import type { HistoryDatabase } from "../../db/history-databases";
import { serverNow } from "../common";
import { checkHistoryBinding, checkMigrated } from "./projects.history-binding";
import { getRoute, postRoute } from "./project-history-databases.routes";
import { addHistoryDatabase, loadHistoryDatabases } from "./project-history-databases.service";
import type { AppRouteHandler } from "../route-handler";

const dateOf = (day: number) => new Date(day * 86_400_000).toISOString().slice(0, 10);

function answer(slug: string, ledger: string | null, list: readonly HistoryDatabase[]) {
  return {
    slug,
    ledger: ledger ?? "DB",
    history_databases: list.map((h) => ({ database: h.binding, from_date: dateOf(h.from_day) })),
  };
}

const postHandler: AppRouteHandler<typeof postRoute> = async (c) => {
  const { database } = c.req.valid("json");
  const held = await loadHistoryDatabases(c.var.registry, c.var.project.id);
  checkHistoryBinding(
    c.env,
    database,
    held.ledger,
    held.list.map((h) => h.binding),
  );
  await checkMigrated(c.env, database);
  const list = await addHistoryDatabase(c.var.registry, c.var.db, c.var.project.id, held.list, held.createdClock, database, serverNow());
  return c.json(answer(c.var.project.slug, held.ledger, list), 200);
};

const getHandler: AppRouteHandler<typeof getRoute> = async (c) => {
  const { ledger, list } = await loadHistoryDatabases(c.var.registry, c.var.project.id);
  return c.json(answer(c.var.project.slug, ledger, list), 200);
};

export const projectHistoryDatabasesRouter = createRouter().openapi(getRoute, getHandler).openapi(postRoute, postHandler);
