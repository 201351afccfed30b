import { z } from "@hono/zod-openapi";
import { MAX_WORKUNITS_PER_PASS, PassRequestSchema, PassResponseSchema } from "./passes.schemas";

/**
 * Passes per batch. A batch is one snapshot read (6 statements) and one write batch: about
 * 11 statements per pass that grants (each holder's RAC and history, the project row, the
 * queues: they update rows relative to their values and take the pass's `now`), and about 8
 * for the whole batch (results, workunits, new holders, host_app_version rounds, app version
 * walks, marks). 50 passes are about 570 statements, well inside the 1,000 D1 queries a
 * Worker invocation may make on the paid plan, with room for the rounds of hosts that return
 * several results of the batch; the 1000 workunits in all keep the body far below the 5 MiB
 * bound. It lets a backfill of sparse history (a pass per second, a workunit each) carry 50
 * seconds a request.
 */
export const MAX_PASSES_PER_BATCH = 50;

export const PassBatchRequestSchema = z
  .strictObject({
    passes: z.array(PassRequestSchema).min(1).max(MAX_PASSES_PER_BATCH),
  })
  .superRefine((batch, ctx) => {
    // A batch does at most one big pass's work.
    const workunits = batch.passes.reduce((n, p) => n + p.workunits.length, 0);
    if (workunits > MAX_WORKUNITS_PER_PASS) {
      ctx.addIssue({
        code: "custom",
        path: ["passes"],
        message: `${workunits} workunits in all; at most ${MAX_WORKUNITS_PER_PASS} per batch`,
      });
    }
  })
  .openapi("PassBatchRequest");

export type PassBatchRequest = z.infer<typeof PassBatchRequestSchema>;

export const PassBatchResponseSchema = z
  .object({
    passes: z.array(PassResponseSchema).openapi({ description: "Each pass's answer, in the order posted" }),
  })
  .openapi("PassBatchResponse");
