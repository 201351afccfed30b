import { z } from "@hono/zod-openapi";
import { IdSchema, LIMITS, NowSchema, GrantedAtSchema } from "../common";

const MAX_TRICKLES_PER_BATCH = 1000;

const TrickleMessageSchema = z
  .strictObject({
    id: IdSchema.openapi({ description: "The message's id (BOINC's msg_from_host.id): each is paid once" }),
    app: z.string().min(1).openapi({ description: "The app whose trickle handler takes it (its trickle_max_runtime applies)" }),
    host_id: IdSchema,
    result_id: IdSchema.optional().openapi({ description: "The result that sent it: its credit then shows in per-app credit too" }),
    runtime: z
      .number()
      .positive("runtime must be > 0 (BOINC's trickle handler refuses a non-positive runtime)")
      .max(LIMITS.maxDuration)
      .openapi({ description: "Seconds of work since the host's previous message (the message's <runtime>)" }),
  })
  .openapi("TrickleMessage");

export const TrickleRequestSchema = z
  .strictObject({
    now: NowSchema,
    messages: z.array(TrickleMessageSchema).min(1).max(MAX_TRICKLES_PER_BATCH),
  })
  .superRefine((body, ctx) => {
    const seen = new Set<number>();
    body.messages.forEach((m, i) => {
      if (seen.has(m.id))
        ctx.addIssue({ code: "custom", path: ["messages", i, "id"], message: `message ${m.id} appears twice in this batch` });
      seen.add(m.id);
    });
  })
  .openapi("TrickleRequest");

export type TrickleRequest = z.infer<typeof TrickleRequestSchema>;
export type TrickleMessage = TrickleRequest["messages"][number];

const TrickleOutcomeSchema = z
  .object({
    id: z.number().int(),
    granted_credit: z.number().openapi({ description: "runtime × flops × 200/86400e9 (BOINC's cpu_time_to_credit)" }),
    replayed: z.boolean().openapi({ description: "Paid by an earlier post of the same message; nothing was granted now" }),
    explain: z.object({
      reported_runtime: z.number().openapi({ description: "The runtime the message reported" }),
      runtime: z.number().openapi({ description: "The runtime paid" }),
      runtime_cut: z.boolean().openapi({ description: "The reported runtime was above the app's trickle_max_runtime and was cut to it" }),
      flops: z.number().openapi({ description: "The FLOPS paid" }),
      flops_source: z.enum(["host", "p50", "p95"]).openapi({
        description:
          "host: the host's p_fpops; p50: it was unknown or negative, the project's 50th percentile was used; " +
          "p95: it was above the project's 95th percentile, which was used",
      }),
    }),
  })
  .openapi("TrickleOutcome");

export const TrickleResponseSchema = z.object({ now: GrantedAtSchema, messages: z.array(TrickleOutcomeSchema) }).openapi("TrickleResponse");

export type TrickleResponse = z.infer<typeof TrickleResponseSchema>;
export type TrickleOutcome = z.infer<typeof TrickleOutcomeSchema>;
