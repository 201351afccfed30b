/**
 * The fairness report: which hosts BOINC's rules pay most above the fair policy's, over the
 * last 30 days, whatever the app's policy (both credits are kept with every valid result),
 * and which hosts the quantile gate (docs/spec/fair-policy.md#r17) holds out of their versions' z quantiles now.
 */
import { access } from "../access";
import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import { and, eq, sql } from "drizzle-orm";
import { FAIRNESS_WINDOW_DAYS, SECONDS_PER_DAY } from "../../credit/constants";
import { OUTLIER_RULES } from "../../credit/fair-claim";
import { gateValue, heldOutByGate } from "../../db/fair-rows";
import { appVersions, apps, hostAppVersions, results } from "../../db/schema";
import { jsonList, ref } from "../../db/sql-helpers";
import { FAIR_RULE_CODES, RESULT_OUTCOMES, encode } from "../../db/codes";
import type { AppEnv } from "../../env";
import { ApiError, errorResponses } from "../../http/errors";
import { resolveNow } from "../common";
import { AppNameParams } from "./apps.schemas";

const FairnessHostSchema = z.object({
  host_id: z.number().int(),
  results: z.number().int().openapi({ description: "Valid results credited in the window" }),
  boinc_credit: z.number().openapi({ description: "What BOINC's rules pay these results" }),
  fair_credit: z.number().openapi({ description: "What the fair policy pays them" }),
  ratio: z.number().nullable().openapi({ description: "boinc_credit / fair_credit; null when fair_credit is 0" }),
  outliers: z.number().int().openapi({ description: "Claims the fair policy judged outlying or insane" }),
  error_rate: z.number().openapi({ description: "The host's fair error rate (highest over the app's versions); above 0.1 is bad standing" }),
  held_out_by_gate: z.boolean().openapi({ description: "The gate holds this host's z out of the quantiles of one of the app's versions now" }),
});

const HeldOutSchema = z.object({
  host_id: z.number().int(),
  app_version_id: z.number().int(),
  high_z_share: z.number().openapi({ description: "The host's share of results with z above the version's 98% quantile (EMA, weight 0.02)" }),
  gate: z.number().openapi({ description: "The most that share may be and still feed the version's z quantiles: max(3 × the version's share, the version's share + 0.10)" }),
});

const FairnessReportSchema = z
  .object({
    app: z.string(),
    credit_policy: z.enum(["boinc", "fair"]),
    since: z.number().openapi({ description: "Start of the window (now − 30 days)" }),
    hosts: z.array(FairnessHostSchema),
    held_out_by_gate: z
      .array(HeldOutSchema)
      .openapi({ description: "Host × versions whose z the gate leaves out of the version's quantiles now, furthest above the gate first (at most `limit`)" }),
  })
  .openapi("FairnessReport");

const route = createRoute({
  method: "get",
  path: "/v1/projects/{slug}/apps/{app}/fairness",
  tags: ["Statistics"],
  summary: "Hosts whose BOINC credit most exceeds their fair credit over the last 30 days",
  description:
    "Ordered by boinc_credit / fair_credit, highest first (a host the fair policy pays nothing comes first). " +
    "Shows who games CreditNew, before and after a switch of credit_policy.",
  ...access("projectToken"),
  request: {
    params: AppNameParams,
    query: z.object({
      limit: z.coerce.number().int().min(1).max(1000).default(50),
      now: z.coerce.number().positive().optional().openapi({ description: "End of the window (default: the server clock)" }),
    }),
  },
  responses: {
    200: { description: "The report", content: { "application/json": { schema: FairnessReportSchema } } },
    ...errorResponses(400, 401, 403, 404, 422),
  },
});

export function mountFairness(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const { app: appName } = c.req.valid("param");
    const { limit, now: given } = c.req.valid("query");
    const now = resolveNow(given);
    const db = c.var.db;
    const projectId = c.var.project.id;
    const [appRow] = await db.select().from(apps).where(and(eq(apps.projectId, projectId), eq(apps.name, appName)));
    if (!appRow) throw new ApiError(404, "not_found", `unknown app '${appName}'`);
    const since = now - FAIRNESS_WINDOW_DAYS * SECONDS_PER_DAY;
    const r = results;
    const hav = hostAppVersions;
    const av = appVersions;
    const versionOfRow = and(eq(av.projectId, hav.projectId), eq(av.id, hav.appVersionId));
    /** The listed host's rows of this app, in a subquery aliased `alias`. */
    const hvKey = (alias: string) =>
      sql`${ref(alias, hav.projectId.name)} = ${projectId} AND ${ref(alias, hav.hostId.name)} = ${ref("results", r.hostId.name)}
        AND ${ref(alias, hav.appId.name)} = ${appRow.id}`;
    // A policy's credit equal to the one before it (granted, boinc, fair) is stored as NULL (db/pass-writes.ts).
    const boinc = sql<number>`sum(coalesce(${r.boincCredit}, ${r.grantedCredit}))`;
    const fair = sql<number>`sum(coalesce(${r.fairCredit}, ${r.boincCredit}, ${r.grantedCredit}))`;
    const [rows, heldOut] = await db.batch([
      db
        .select({
          hostId: r.hostId,
          results: sql<number>`count(*)`,
          boinc,
          fair,
          outliers: sql<number>`sum(${r.fairRule} IN ${jsonList(OUTLIER_RULES.map((rule) => encode(FAIR_RULE_CODES, rule)))})`,
          // Qualified by hand: drizzle names a column bare in a one-table select, and a bare
          // host_id inside the subquery would be the subquery's own.
          errorRate: sql<number>`coalesce((SELECT max(${ref("hv", hav.fairErr.name)}) FROM ${hav} AS hv
            WHERE ${hvKey("hv")}), 0)`,
          // The host's rows are a primary-key prefix: a seek per listed host.
          heldOut: sql<number>`EXISTS (SELECT 1 FROM ${hav} AS hv JOIN ${av} AS v
              ON ${ref("v", av.projectId.name)} = ${ref("hv", hav.projectId.name)} AND ${ref("v", av.id.name)} = ${ref("hv", hav.appVersionId.name)}
            WHERE ${hvKey("hv")} AND ${heldOutByGate(ref("hv", hav.fairF.name), ref("v", av.fairFv.name))})`,
        })
        .from(r)
        .where(
          and(
            eq(r.projectId, projectId),
            eq(r.appId, appRow.id),
            // A claimed valid result: it has each policy's credit.
            eq(r.outcome, encode(RESULT_OUTCOMES, "valid")),
            sql`${r.decidedAt} > ${since}`,
            sql`${r.decidedAt} <= ${now}`,
          ),
        )
        .groupBy(r.hostId)
        .orderBy(sql`CASE WHEN ${fair} > 0 THEN ${boinc} / ${fair} ELSE 1e308 END DESC`, sql`${boinc} - ${fair} DESC`, r.hostId)
        .limit(limit),
      // A read of the project's rows of the app (no index on fair_f: it changes with every
      // result, so an index would cost a row write each time); a report, read rarely.
      db
        .select({ hostId: hav.hostId, appVersionId: hav.appVersionId, share: sql<number>`${hav.fairF}`, gate: gateValue(av.fairFv) })
        .from(hav)
        .innerJoin(av, versionOfRow)
        .where(and(eq(hav.projectId, projectId), eq(hav.appId, appRow.id), heldOutByGate(hav.fairF, av.fairFv)))
        .orderBy(sql`${hav.fairF} - ${gateValue(av.fairFv)} DESC`, hav.hostId, hav.appVersionId)
        .limit(limit),
    ]);
    return c.json(
      {
        app: appName,
        credit_policy: appRow.creditPolicy,
        since,
        hosts: rows.map((h) => ({
          host_id: h.hostId,
          results: h.results,
          boinc_credit: h.boinc,
          fair_credit: h.fair,
          ratio: h.fair > 0 ? h.boinc / h.fair : null,
          outliers: h.outliers,
          error_rate: h.errorRate,
          held_out_by_gate: h.heldOut === 1,
        })),
        held_out_by_gate: heldOut.map((o) => ({ host_id: o.hostId, app_version_id: o.appVersionId, high_z_share: o.share, gate: o.gate })),
      },
      200,
    );
  });
}
