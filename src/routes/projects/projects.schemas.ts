import { z } from "@hono/zod-openapi";
import { SlugSchema, StoredUrlSchema, TEXT_LIMITS, storedText } from "../common";
import { DEFAULT_DAILY_HISTORY_DAYS, DEFAULT_RESULT_RETENTION_DAYS, MAX_DAILY_HISTORY_DAYS, MIN_DAILY_HISTORY_DAYS } from "../../config";
import { BindingNameSchema } from "./projects.history-binding";
import { HolderReadsField } from "./project-holder-reads.schemas";

export const CreateProjectSchema = z
  .strictObject({
    slug: SlugSchema,
    name: storedText(TEXT_LIMITS.displayName).min(1),
    url: StoredUrlSchema.optional(),
    result_retention_days: z
      .number()
      .int()
      .min(1)
      .max(3650)
      .optional()
      .openapi({
        description: `Days decided results are kept (the idempotency window; default ${DEFAULT_RESULT_RETENTION_DAYS}). A pass naming a result sent before the purged range is refused with 410.`,
      }),
    daily_history_days: z
      .number()
      .int()
      .min(MIN_DAILY_HISTORY_DAYS)
      .max(MAX_DAILY_HISTORY_DAYS)
      .optional()
      .openapi({
        description: `Days daily credit history is kept as days (default ${DEFAULT_DAILY_HISTORY_DAYS}); older whole months roll up into monthly buckets.`,
      }),
    database: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, "a D1 binding name")
      .optional()
      .openapi({
        description:
          "The D1 binding (wrangler.jsonc d1_databases) that holds the project's rows: for a large project. Default: the default database.",
        example: "DB_LARGE",
      }),
    history_database: BindingNameSchema.optional().openapi({
      description:
        "A D1 binding to keep the project's daily history (and its monthly roll-up) in, apart from its ledger, so the ledger stays bounded by the result window; add more later with POST /v1/projects/{slug}/history-databases. Default: history stays with the ledger.",
      example: "DB_HISTORY_1",
    }),
    holder_reads: HolderReadsField.optional().openapi({
      description:
        "Where public reads of its hosts, users and teams come from (default snapshots); change it later with PUT /v1/projects/{slug}/holder-reads.",
    }),
  })
  .openapi("CreateProject");
export type CreateProject = z.infer<typeof CreateProjectSchema>;

export const CreatedProjectSchema = z
  .object({
    slug: z.string(),
    token: z.string().openapi({
      description:
        "The project's first bearer token, of scope 'manage' (docs/tokens-and-audit.md#scopes). Shown only this once; store it. " +
        'Its validators or bridge get an \'ingest\' one: POST /v1/projects/{slug}/tokens with {"scope": "ingest"}',
    }),
  })
  .openapi("CreatedProject");
