/**
 * The fairness report: which hosts BOINC's rules pay most above the fair policy's, over the
 * last 30 days, whatever the app's policy (both credits are kept with every valid result).
 */
import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import { and, eq, sql } from "drizzle-orm";
import { FAIRNESS_WINDOW_DAYS, SECONDS_PER_DAY } from "../../credit/constants";
import { OUTLIER_RULES } from "../../credit/fair-claim";
import { apps, hostAppVersions, results } from "../../db/schema";
import { jsonList } from "../../db/sql-helpers";
import { FAIR_RULE_CODES, RESULT_OUTCOMES, encode } from "../../db/codes";
import type { AppEnv } from "../../env";
import { requireProjectToken } from "../../http/auth";
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
});

const FairnessReportSchema = z
  .object({
    app: z.string(),
    credit_policy: z.enum(["boinc", "fair"]),
    since: z.number().openapi({ description: "Start of the window (now − 30 days)" }),
    hosts: z.array(FairnessHostSchema),
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
  security: [{ projectToken: [] }],
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
  app.use("/v1/projects/:slug/apps/:app/fairness", requireProjectToken);
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
    // A policy's credit equal to the one before it (granted, boinc, fair) is stored as NULL (db/pass-writes.ts).
    const boinc = sql<number>`sum(coalesce(${r.boincCredit}, ${r.grantedCredit}))`;
    const fair = sql<number>`sum(coalesce(${r.fairCredit}, ${r.boincCredit}, ${r.grantedCredit}))`;
    const rows = await db
      .select({
        hostId: r.hostId,
        results: sql<number>`count(*)`,
        boinc,
        fair,
        outliers: sql<number>`sum(${r.fairRule} IN ${jsonList(OUTLIER_RULES.map((rule) => encode(FAIR_RULE_CODES, rule)))})`,
        errorRate: sql<number>`coalesce((SELECT max(${hostAppVersions.fairErr}) FROM ${hostAppVersions}
          WHERE ${hostAppVersions.projectId} = ${projectId} AND ${hostAppVersions.appId} = ${appRow.id}
            AND ${hostAppVersions.hostId} = ${r.hostId}), 0)`,
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
      .limit(limit);
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
        })),
      },
      200,
    );
  });
}
