import { z } from "@hono/zod-openapi";
import { MAX_WORKUNITS_PER_PASS, PassRequestSchema, PassResponseSchema } from "./passes.schemas";

/**
 * Passes per batch. Each pass is its own snapshot read and atomic write batch (about 30 D1
 * statements for a pass of one workunit), so this keeps a batch far inside a Worker
 * invocation's 1,000 D1 queries; it is also what lets a backfill of sparse history (a pass
 * per second of history, a workunit each) go at hundreds of passes a request's round trip.
 */
export const MAX_PASSES_PER_BATCH = 25;

export const PassBatchRequestSchema = z
  .strictObject({
    passes: z.array(PassRequestSchema).min(1).max(MAX_PASSES_PER_BATCH),
  })
  .superRefine((batch, ctx) => {
    // A batch does at most one big pass's work.
    const workunits = batch.passes.reduce((n, p) => n + p.workunits.length, 0);
    if (workunits > MAX_WORKUNITS_PER_PASS) {
      ctx.addIssue({ code: "custom", path: ["passes"], message: `${workunits} workunits in all; at most ${MAX_WORKUNITS_PER_PASS} per batch` });
    }
  })
  .openapi("PassBatchRequest");

export type PassBatchRequest = z.infer<typeof PassBatchRequestSchema>;

export const PassBatchResponseSchema = z
  .object({
    passes: z.array(PassResponseSchema).openapi({ description: "Each pass's answer, in the order posted" }),
  })
  .openapi("PassBatchResponse");
