import { projectSettingRoutes } from "./project-setting.routes";
import { AddHistoryDatabaseSchema, HistoryDatabasesSchema } from "./project-history-databases.schemas";

export const { getRoute, changeRoute: postRoute } = projectSettingRoutes({
  path: "/v1/projects/{slug}/history-databases",
  answer: { schema: HistoryDatabasesSchema, description: "The project's history databases" },
  read: { tag: "Admin", summary: "Where the project's daily history is kept" },
  change: {
    method: "post",
    body: AddHistoryDatabaseSchema,
    summary: "Operator: add a history database (from the project's next day on)",
    description:
      "History buckets of the project's next day (on its own clock) and later go to this database; those before stay where they are. The binding must be a D1 database of this deployment with the migrations applied, other than the project's ledger and its current history databases.",
    refusals: [409, 422],
  },
});
