import { z } from "@hono/zod-openapi";

export const ProjectSchema = z
  .object({
    slug: z.string(),
    name: z.string(),
    url: z.string().nullable(),
    create_time: z.number().openapi({ description: "When the project was created in Cobblestone" }),
    first_credit_time: z.number().nullable().openapi({
      description:
        "When the project's first credit was granted (a backfill's oldest history); a pass posted later with an older `now` is granted at the project's clock, so this never moves back. Null before any grant",
    }),
    total_credit: z.number().openapi({ description: "All credit granted in the project" }),
    expavg_credit: z.number(),
    expavg_time: z.number(),
    recent_average_credit: z.number().openapi({ description: "The project's RAC decayed to as_of" }),
    users: z.number().int(),
    hosts: z.number().int(),
    teams: z.number().int(),
  })
  .openapi("Project");
