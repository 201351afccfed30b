import { z } from "@hono/zod-openapi";
import { ERROR_OUTCOMES } from "../../credit/error-outcome";
import { AppVersionRefSchema } from "../passes/passes.schemas";
import { DurationSchema, IdSchema, NowSchema } from "../common";

const MAX_ERRORS_PER_REQUEST = 1000;

const ErrorResultSchema = z
  .strictObject({
    id: IdSchema,
    host_id: IdSchema,
    app_version_id: AppVersionRefSchema,
    app: z.string().min(1).optional().openapi({ description: "Required for an anonymous-platform result (app_version_id < 0)" }),
    outcome: z.enum(ERROR_OUTCOMES),
    delay_bound: DurationSchema.optional().openapi({ description: "For a timeout: the job's delay bound in seconds" }),
  })
  .superRefine((r, ctx) => {
    if (r.app_version_id < 0 && r.app === undefined) {
      ctx.addIssue({ code: "custom", path: ["app"], message: "required when app_version_id < 0 (anonymous platform)" });
    }
  })
  .openapi("ErrorResult");

export const ErrorsRequestSchema = z
  .strictObject({ now: NowSchema, results: z.array(ErrorResultSchema).min(1).max(MAX_ERRORS_PER_REQUEST) })
  .superRefine((b, ctx) => {
    const seen = new Set<number>();
    b.results.forEach((r, i) => {
      if (seen.has(r.id)) ctx.addIssue({ code: "custom", path: ["results", i, "id"], message: `result ${r.id} appears twice` });
      seen.add(r.id);
    });
  })
  .openapi("ErrorsRequest");

export const ErrorsResponseSchema = z
  .object({
    results: z.array(
      z.object({
        id: z.number().int(),
        outcome: z.enum(ERROR_OUTCOMES),
        replayed: z.boolean(),
        consecutive_valid_reset: z.boolean(),
      }),
    ),
  })
  .openapi("ErrorsResponse");
