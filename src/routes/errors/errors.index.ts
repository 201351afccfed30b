/**
 * Results that did not succeed (docs/spec/credit.md#errors): a client error resets the host's
 * consecutive_valid, a timeout also adds its delay bound as a turnaround sample, an abort by
 * the project changes nothing; errors and timeouts also raise the fair policy's error rate (for
 * an app on "fair", creating a missing host_app_version as BOINC's scheduler would have).
 * Each result id counts once, as in a pass: a stored outcome is replayed, and one whose `now`
 * lies before the retention horizon (its row may have been purged) is refused (410).
 */
import { access } from "../access";
import { OpenAPIHono, createRoute, z } from "@hono/zod-openapi";
import { and, eq, sql } from "drizzle-orm";
import { ERROR_OUTCOMES, errorEffect } from "../../credit/error-outcome";
import { fairErrorEffect } from "../../credit/fair-state";
import { fairErrorWrites } from "../../db/fair-rows";
import { havKey, isAnonymousPlatform } from "../../credit/host-app-version-key";
import { type OutcomeRow, hostAppVersionWrites, outcomeInserts } from "../../db/pass-writes";
import type { HostAppVersionKey } from "../../credit/host-app-version-key";
import type { HostAppVersionChange } from "../../credit/pass";
import { runBatch } from "../../db/batch";
import { retryOnConflict } from "../../http/conflict-retry";
import { appVersions, apps, hostAppVersions, projects, results } from "../../db/schema";
import { int64Text, jsonList } from "../../db/sql-helpers";
import type { Db } from "../../db/client";
import type { AppEnv } from "../../env";
import { ApiError, type Issue, errorResponses } from "../../http/errors";
import { fingerprint64 } from "../../http/fingerprint";
import { AppVersionRefSchema } from "../passes/passes.schemas";
import { DurationSchema, IdSchema, NowSchema, SlugParams, resolveNow } from "../common";

export const MAX_ERRORS_PER_REQUEST = 1000;

const ErrorResultSchema = z
  .strictObject({
    id: IdSchema,
    host_id: IdSchema,
    app_version_id: AppVersionRefSchema,
    app: z.string().min(1).optional().openapi({ description: "Required for an anonymous-platform result (app_version_id < 0)" }),
    outcome: z.enum(ERROR_OUTCOMES),
    delay_bound: DurationSchema.optional().openapi({ description: "For a timeout: the job's delay bound in seconds" }),
  })
  .superRefine((r, ctx) => {
    if (r.app_version_id < 0 && r.app === undefined) {
      ctx.addIssue({ code: "custom", path: ["app"], message: "required when app_version_id < 0 (anonymous platform)" });
    }
  })
  .openapi("ErrorResult");

const ErrorsRequestSchema = z
  .strictObject({ now: NowSchema, results: z.array(ErrorResultSchema).min(1).max(MAX_ERRORS_PER_REQUEST) })
  .superRefine((b, ctx) => {
    const seen = new Set<number>();
    b.results.forEach((r, i) => {
      if (seen.has(r.id)) ctx.addIssue({ code: "custom", path: ["results", i, "id"], message: `result ${r.id} appears twice` });
      seen.add(r.id);
    });
  })
  .openapi("ErrorsRequest");

const ErrorsResponseSchema = z
  .object({
    results: z.array(
      z.object({
        id: z.number().int(),
        outcome: z.enum(ERROR_OUTCOMES),
        replayed: z.boolean(),
        consecutive_valid_reset: z.boolean(),
      }),
    ),
  })
  .openapi("ErrorsResponse");

const route = createRoute({
  method: "post",
  path: "/v1/projects/{slug}/errors",
  tags: ["Validation"],
  summary: "Report results that errored, timed out or were aborted",
  ...access("projectToken"),
  request: {
    params: SlugParams,
    body: { required: true, content: { "application/json": { schema: ErrorsRequestSchema } } },
  },
  responses: {
    200: { description: "What each outcome changed", content: { "application/json": { schema: ErrorsResponseSchema } } },
    ...errorResponses(400, 401, 403, 404, 409, 410, 413, 415, 422),
  },
});

export function mountErrors(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const now = resolveNow(body.now);
    // An identical request racing this one may insert the same results first; read again and
    // answer them as replays (409 only if their content differs), as a sequential retry would.
    const recorded = await retryOnConflict(() => recordErrors(c.var.db, c.var.project.id, body, now), "outcomes of these results");
    return c.json({ results: recorded }, 200);
  });
}

/** Records the outcomes in one batch; throws the batch's error (a primary-key conflict included). */
async function recordErrors(db: Db, projectId: number, body: z.infer<typeof ErrorsRequestSchema>, now: number) {
  const [appRows, versionRows, havRows, storedRows, projectRows] = await db.batch([
    db.select().from(apps).where(eq(apps.projectId, projectId)),
    db.select({ id: appVersions.id, appId: appVersions.appId }).from(appVersions).where(eq(appVersions.projectId, projectId)),
    db
      .select({ hostId: hostAppVersions.hostId, appId: hostAppVersions.appId, appVersionId: hostAppVersions.appVersionId })
      .from(hostAppVersions)
      .where(and(eq(hostAppVersions.projectId, projectId), sql`${hostAppVersions.hostId} IN ${jsonList(body.results.map((r) => r.host_id))}`)),
    db
      .select({ id: results.id, fingerprint: int64Text(results.fingerprint) })
      .from(results)
      .where(and(eq(results.projectId, projectId), sql`${results.id} IN ${jsonList(body.results.map((r) => r.id))}`)),
    db.select({ purgedBefore: projects.purgedBefore, days: projects.resultRetentionDays }).from(projects).where(eq(projects.id, projectId)),
  ]);
  const horizon = projectRows[0] ?? { purgedBefore: 0, days: 0 };
  const appIds = new Map(appRows.map((a) => [a.name, a.id]));
  const fairApps = new Set(appRows.filter((a) => a.creditPolicy === "fair").map((a) => a.id));
  const versionApps = new Map(versionRows.map((v) => [v.id, v.appId]));
  const existing = new Set(havRows.map(havKey));
  const stored = new Map(storedRows.map((r) => [r.id, r.fingerprint]));

  const missing: Issue[] = [];
  const conflicts: Issue[] = [];
  const purged: Issue[] = [];
  const inserts: OutcomeRow[] = [];
  const changes: HostAppVersionChange[] = [];
  const created: HostAppVersionKey[] = [];
  const fairErrors: HostAppVersionKey[] = [];
  const outcomes = [];
  for (const [i, r] of body.results.entries()) {
    const anonymous = isAnonymousPlatform(r.app_version_id);
    const appId = anonymous ? appIds.get(r.app!) : versionApps.get(r.app_version_id);
    if (appId === undefined) {
      missing.push(
        anonymous
          ? { path: `results[${i}].app`, message: `unknown app '${r.app}'` }
          : { path: `results[${i}].app_version_id`, message: `unknown app version ${r.app_version_id}` },
      );
      continue;
    }
    const fingerprint = await fingerprint64([r.host_id, r.app_version_id, appId, r.outcome, r.delay_bound ?? null]);
    const held = stored.get(r.id);
    if (held !== undefined) {
      if (held !== fingerprint) conflicts.push({ path: `results[${i}]`, message: `result ${r.id} already has another outcome` });
      outcomes.push({ id: r.id, outcome: r.outcome, replayed: true, consecutive_valid_reset: false });
      continue;
    }
    // Its row may have been decided at `now` and purged since: refused, never applied twice.
    if (now < horizon.purgedBefore) {
      purged.push({ path: `results[${i}]`, message: `decided at now (${now}), before the retention horizon (${horizon.purgedBefore})` });
      continue;
    }
    const key = { hostId: r.host_id, appId, appVersionId: r.app_version_id };
    const effect = errorEffect(r.outcome, existing.has(havKey(key)), r.delay_bound);
    // Only a row that is really missing: created rows are inserted without ON CONFLICT.
    if (effect?.createIfMissing && !existing.has(havKey(key))) {
      existing.add(havKey(key));
      created.push(key);
    }
    if (effect) changes.push({ ...key, samples: effect.samples, consecutiveValid: "reset" as const });
    // The fair error rate (docs/spec/fair-policy.md#r0): where the fair policy pays, a missing row is created and counts.
    const fair = fairErrorEffect(r.outcome, existing.has(havKey(key)), fairApps.has(appId) && !anonymous);
    if (fair.createsRow) {
      existing.add(havKey(key));
      created.push(key);
    }
    if (fair.counts) fairErrors.push(key);
    inserts.push({ id: r.id, appId, hostId: r.host_id, outcome: r.outcome, grantedCredit: 0, fingerprint });
    outcomes.push({ id: r.id, outcome: r.outcome, replayed: false, consecutive_valid_reset: effect !== null });
  }
  if (missing.length > 0) throw new ApiError(404, "not_found", missing.map((m) => m.message).join("; "), missing);
  if (conflicts.length > 0) throw new ApiError(409, "conflict", "results already have another outcome; nothing was written", conflicts);
  if (purged.length > 0) {
    throw new ApiError(
      410,
      "outside_retention_window",
      `outcomes decided before ${horizon.purgedBefore} are past the project's ${horizon.days}-day idempotency window; their records may be purged, so they cannot be applied; nothing was written`,
      purged,
    );
  }

  const statements = [
    ...outcomeInserts(projectId, now, inserts),
    ...hostAppVersionWrites(projectId, created, changes),
    ...fairErrorWrites(projectId, fairErrors),
  ];
  await runBatch(db, statements);
  return outcomes;
}
