import { z } from "@hono/zod-openapi";
import { BindingNameSchema } from "./projects.history-binding";

export const HistoryDatabasesSchema = z
  .object({
    slug: z.string(),
    ledger: z.string().openapi({ description: "The D1 binding of the project's ledger (results, workunits, accounts, per-app credit)" }),
    history_databases: z
      .array(
        z.object({
          database: z.string().openapi({ example: "DB_HISTORY_1" }),
          from_date: z
            .string()
            .openapi({ description: "The first day (UTC) whose history buckets go to this database", example: "2026-11-25" }),
        }),
      )
      .openapi({ description: "Oldest first; empty: the history is kept in the ledger" }),
  })
  .openapi("HistoryDatabases");

export const AddHistoryDatabaseSchema = z.strictObject({ database: BindingNameSchema }).openapi("AddHistoryDatabase");
