import { z } from "@hono/zod-openapi";
import { TOTALS_FIELDS } from "../../credit/am-deltas";
import { projectUrlKey } from "../../credit/project-url";
import { CreditSchema, DurationSchema, IdParam, IdSchema, NowSchema, SlugSchema, TEXT_LIMITS, storedText } from "../common";

/** More projects than any client is attached to; keeps one RPC's stored outcome small. */
export const MAX_PROJECTS_PER_RPC = 100;
/** Lifetime job counts beyond this are not a real client's. */
const MAX_LIFETIME_JOBS = 1e12;

const JobsSchema = z.number().int().nonnegative().max(MAX_LIFETIME_JOBS);

export const MasterUrlSchema = storedText(TEXT_LIMITS.url)
  .refine((url) => projectUrlKey(url) !== null, "a project master URL: http(s)://host/path/, without query or fragment")
  .openapi({ example: "https://einsteinathome.org/" });

const ProjectTotalsSchema = z
  .strictObject({
    url: MasterUrlSchema,
    cpu_ec: CreditSchema.openapi({ description: "Lifetime estimated credit of CPU work (Cobblestones)" }),
    cpu_time: DurationSchema.openapi({ description: "Lifetime CPU device time (seconds × instances)" }),
    gpu_ec: CreditSchema,
    gpu_time: DurationSchema,
    njobs_success: JobsSchema,
    njobs_error: JobsSchema,
  })
  .openapi("AmProjectTotals");

export const RpcRequestSchema = z
  .strictObject({
    now: NowSchema,
    user_id: IdSchema.openapi({ description: "The account manager's id of the host's owner" }),
    host: z.strictObject({
      p_ncpus: z.number().int().nonnegative().max(1e6),
      p_fpops: z.number().nonnegative().max(1e15).openapi({ description: "The client's CPU benchmark (FLOPS per core); recorded" }),
      n_gpus: z.number().int().nonnegative().max(1e4),
    }),
    projects: z
      .array(ProjectTotalsSchema)
      .max(MAX_PROJECTS_PER_RPC)
      .openapi({ description: "Lifetime totals per attached project, as the BOINC client (7.14+) reports them" }),
  })
  .superRefine((body, ctx) => {
    const seen = new Set<string>();
    body.projects.forEach((p, i) => {
      const key = projectUrlKey(p.url);
      if (key === null) return;
      if (seen.has(key)) ctx.addIssue({ code: "custom", path: ["projects", i, "url"], message: "the same project twice" });
      seen.add(key);
    });
  })
  .openapi("AmRpc");

export type RpcRequest = z.infer<typeof RpcRequestSchema>;

const TotalsSchema = z.object(
  Object.fromEntries(TOTALS_FIELDS.map((f) => [f, z.number()])) as Record<(typeof TOTALS_FIELDS)[number], z.ZodNumber>,
);

const ClipSchema = z
  .object({
    field: z.enum(TOTALS_FIELDS),
    claimed: z.number().openapi({ description: "The delta the totals imply (negative after a reset)" }),
    booked: z.number(),
    rule: z.enum(["client_reset", "device_time_over_interval", "credit_over_peak", "jobs_over_limit"]),
    limit: z.number().openapi({ description: "The bound that applied (0 for a reset)" }),
  })
  .openapi("AmClip");

export const RpcResponseSchema = z
  .object({
    now: z.number(),
    host_id: z.number().int(),
    user_id: z.number().int(),
    day: z.string().openapi({ description: "The UTC date the deltas were booked on" }),
    replayed: z.boolean().openapi({ description: "This RPC was already booked; nothing was booked again" }),
    projects: z.array(
      z.object({
        url: z.string(),
        url_key: z.string().openapi({ description: "The master URL as a key: no scheme, lower-case host, one trailing /" }),
        baseline: z.boolean().openapi({ description: "First RPC of this host for this project: totals recorded, nothing booked" }),
        interval: z.number().openapi({ description: "Seconds since the previous RPC of this host for this project" }),
        claimed: TotalsSchema,
        booked: TotalsSchema,
        clips: z.array(ClipSchema),
      }),
    ),
  })
  .openapi("AmRpcOutcome");

export type RpcResponse = z.infer<typeof RpcResponseSchema>;

export const AmParams = z.object({ am: SlugSchema.openapi({ param: { name: "am", in: "path" }, example: "su" }) });
export const HostParams = AmParams.extend({ host_id: IdParam.openapi({ param: { name: "host_id", in: "path" } }) });
