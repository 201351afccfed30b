import { z } from "@hono/zod-openapi";
import { HistoryQuery } from "../history/history.schemas";
import { MasterUrlSchema } from "./am-rpcs.schemas";

/** The days and end of every history read, plus the format. */
export const AmHistoryQuery = HistoryQuery.extend({ format: z.enum(["json", "csv"]).default("json") });

const PointSchema = z
  .object({
    date: z.string().openapi({ example: "2026-11-20" }),
    ec: z.number().openapi({ description: "Estimated credit booked that day (after clipping)" }),
    cpu_time: z.number(),
    gpu_time: z.number(),
    njobs_success: z.number(),
    njobs_error: z.number(),
    total_ec: z.number().openapi({ description: "Estimated credit booked up to the end of the day" }),
    claimed_ec: z.number().openapi({ description: "Estimated credit the clients claimed that day, before clipping" }),
    confirmed_ec: z
      .number()
      .nullable()
      .openapi({ description: "The day's estimated credit confirmed by granted credit; null until reconciled" }),
    factor: z
      .number()
      .nullable()
      .openapi({ description: "user × project and host × project series: min(1, window_granted / window_estimated)" }),
    window_granted: z.number().nullable().openapi({ description: "Credit granted over the 30 days ending this day" }),
    window_estimated: z.number().nullable().openapi({ description: "Estimated credit over the same 30 days" }),
  })
  .openapi("AmDay");

export const SeriesSchema = z.object({ days: z.array(PointSchema) }).openapi("AmSeries");

export const urlQuery = (required: boolean) => ({
  url: required ? MasterUrlSchema : MasterUrlSchema.optional().openapi({ description: "One project's series only" }),
});

export type Query = z.infer<typeof AmHistoryQuery> & { url?: string };
