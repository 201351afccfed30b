/**
 * The body of GET /v1/central/neutrality (and of the pages that show it): the zod schema is
 * the one description of its shape, for the OpenAPI document and for the code that builds it.
 */
import { z } from "@hono/zod-openapi";
import type { ClassIndex } from "../credit/neutrality-fit";

const ProjectIndexSchema = z.object({
  slug: z.string(),
  status: z.enum(["fitted", "insufficient overlap"]).openapi({
    description:
      "insufficient overlap: fewer than 20 hosts connect the project to the other fitted projects (then index, low and high are null)",
  }),
  index: z.number().nullable().openapi({
    description: "Credit per device-hour relative to the median project, on the same hosts: 2.0 pays twice the median project",
    example: 1.04,
  }),
  low: z.number().nullable().openapi({ description: "Bootstrap 90% interval (5th percentile), resampling hosts" }),
  high: z.number().nullable().openapi({ description: "Bootstrap 90% interval (95th percentile)" }),
  hosts: z.number().int().openapi({ description: "Hosts (by host_cpid) connecting the project to the others" }),
  device_hours: z.number().openapi({ description: "The project's device-hours on those hosts in the 30-day window" }),
});

const PairSchema = z.object({
  a: z.string(),
  b: z.string(),
  ratio: z.number().nullable().openapi({
    description: "a's credit per device-hour over b's: the median over their shared hosts; null with fewer than 20 shared hosts",
  }),
  hosts: z.number().int().openapi({ description: "Hosts attached to both (each with enough results in both)" }),
});

const NeutralityClassSchema = z.object({
  class: z.string().openapi({ description: "cpu, or the GPU's processor type (nvidia, amd, intel_gpu, apple_gpu)", example: "cpu" }),
  projects: z.array(ProjectIndexSchema),
  pairs: z.array(PairSchema),
});

export const NeutralityBodySchema = z
  .object({
    as_of: z.number().nullable().openapi({ description: "When the daily job computed this (Unix seconds); null before its first run" }),
    window_days: z.number().int().openapi({ description: "The window each host's credit and device time come from", example: 30 }),
    classes: z.array(NeutralityClassSchema),
  })
  .openapi("Neutrality");

export type NeutralityBody = z.infer<typeof NeutralityBodySchema>;
export type NeutralityClass = z.infer<typeof NeutralityClassSchema>;

export function neutralityClassBody(resource: string, fit: ClassIndex): NeutralityClass {
  return {
    class: resource,
    projects: fit.projects.map((p) => ({
      slug: p.project,
      status: p.status,
      index: p.index,
      low: p.low,
      high: p.high,
      hosts: p.hosts,
      device_hours: p.deviceHours,
    })),
    pairs: fit.pairs.map((p) => ({ a: p.a, b: p.b, ratio: p.ratio, hosts: p.hosts })),
  };
}
