/**
 * The published plan-class scale table as JSON (the API's shape) and as XML (the shape of
 * BOINC's gpu_ratios.php `<scale_factors>`, with a `<plan_class>` element per plan class).
 * The aggregation job stores the JSON in KV; the route serves both.
 */
import { z } from "@hono/zod-openapi";
import { DEFAULT_GPU_SCALE, MIN_VERSION_SAMPLES, SECONDS_PER_DAY } from "../credit/constants";
import { CENTRAL_STALE_AFTER } from "../credit/parameters";
import type { PublishedTable } from "../db/plan-class-registry";
import { XML_DECLARATION, element } from "../http/xml";

const RowFields = {
  scale: z.number().openapi({ description: "Average pfc_scale, weighted by each version's RAC decayed to computed_time" }),
  recent_credit: z.number().openapi({ description: "The weight behind it: summed decayed RAC (credits/day)" }),
  nprojects: z.number().int(),
  nversions: z.number().int(),
  computed_time: z.number().openapi({ description: "When this row was computed (Unix seconds) = the table's version" }),
};

export const ScaleTableSchema = z
  .object({
    version: z.number().nullable().openapi({ description: "Pin it with ?version=; null: nothing published yet" }),
    nsources: z.number().int().openapi({ description: "Projects with fresh reports read by the run" }),
    stale_after_days: z.number(),
    min_pfc_n: z.number().int(),
    default_gpu_scale: z.number().openapi({ description: "BOINC's factor, the last fallback" }),
    plan_classes: z.array(z.object({ plan_class: z.string(), proc_type: z.string(), ...RowFields })),
    proc_types: z.array(z.object({ proc_type: z.string(), ...RowFields })),
  })
  .openapi("PlanClassScales");

export type ScaleTableBody = z.infer<typeof ScaleTableSchema>;

export function scaleTableBody(table: PublishedTable | null): ScaleTableBody {
  const rows = table?.rows ?? [];
  const fields = (r: PublishedTable["rows"][number]) => ({
    scale: r.scale,
    recent_credit: r.recentCredit,
    nprojects: r.nprojects,
    nversions: r.nversions,
    computed_time: r.version,
  });
  return {
    version: table?.version ?? null,
    nsources: table?.nsources ?? 0,
    stale_after_days: CENTRAL_STALE_AFTER / SECONDS_PER_DAY,
    min_pfc_n: MIN_VERSION_SAMPLES,
    default_gpu_scale: DEFAULT_GPU_SCALE,
    plan_classes: rows.filter((r) => r.kind === "plan_class").map((r) => ({ plan_class: r.name, proc_type: r.procType, ...fields(r) })),
    proc_types: rows.filter((r) => r.kind === "proc_type").map((r) => ({ proc_type: r.name, ...fields(r) })),
  };
}

/** gpu_ratios.php's element per processor type, in its order (AMD is "ati" there). */
const GPU_RATIOS_TAGS = [
  ["cpu", "cpu"],
  ["amd", "ati"],
  ["nvidia", "nvidia"],
  ["intel_gpu", "intel_gpu"],
  ["apple_gpu", "apple_gpu"],
] as const;

export function scaleTableXml(body: ScaleTableBody): string {
  const lines = [XML_DECLARATION, "<scale_factors>"];
  if (body.version !== null) lines.push(`   ${element("version", body.version)}`);
  const total = body.proc_types.reduce((s, r) => s + r.recent_credit, 0);
  lines.push(`   ${element("total_credit", total)}`);
  for (const [procType, tag] of GPU_RATIOS_TAGS) {
    const row = body.proc_types.find((r) => r.proc_type === procType);
    if (row) lines.push(`   ${element(tag, row.scale)}`);
  }
  for (const r of body.plan_classes) {
    lines.push(
      "   <plan_class>",
      `      ${element("name", r.plan_class)}`,
      `      ${element("proc_type", r.proc_type)}`,
      `      ${element("scale", r.scale)}`,
      `      ${element("recent_credit", r.recent_credit)}`,
      `      ${element("nprojects", r.nprojects)}`,
      `      ${element("nversions", r.nversions)}`,
      `      ${element("computed_time", r.computed_time)}`,
      "   </plan_class>",
    );
  }
  lines.push("</scale_factors>", "");
  return lines.join("\n");
}
