import { z } from "@hono/zod-openapi";
import { MAX_WORKUNITS_PER_PASS, PassRequestSchema, PassResponseSchema, resultsOverLimit } from "./passes.schemas";

/**
 * Passes per batch. A batch is one snapshot read (6 statements) and one write batch of about
 * 20 statements whatever the number of passes (docs/storage.md#pass-batches), plus one per app
 * version and per 500 rows of a kind, far inside the 1,000 D1 queries a Worker invocation may
 * make. What bounds it is that the write is one transaction holding the database while it
 * runs: 50 passes of sparse history (a pass per second, a workunit each) write in 10-25 ms
 * locally, and the 1000 workunits in all keep the body far below the 5 MiB bound.
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
    const over = resultsOverLimit(
      batch.passes.reduce((n, p) => n + p.workunits.reduce((m, w) => m + w.results.length, 0), 0),
      "this batch's passes",
    );
    if (over) ctx.addIssue({ ...over, input: batch.passes, path: ["passes"] });
  })
  .openapi("PassBatchRequest");

export type PassBatchRequest = z.infer<typeof PassBatchRequestSchema>;

export const PassBatchResponseSchema = z
  .object({
    passes: z.array(PassResponseSchema).openapi({ description: "Each pass's answer, in the order posted" }),
  })
  .openapi("PassBatchResponse");
