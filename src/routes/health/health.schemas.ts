import { z } from "@hono/zod-openapi";

const CheckSchema = z.object({
  name: z.string().openapi({ description: "A D1 binding (DB, DB_<NAME>) or KV", example: "DB" }),
  ok: z.boolean(),
  error: z.string().optional().openapi({ description: "Why it failed: no answer, or the tables it lacks (apply the migrations)" }),
});

export const HealthSchema = z.object({ ok: z.boolean(), checks: z.array(CheckSchema) }).openapi("Health");
