import { z } from "@hono/zod-openapi";
import { and, eq, sql } from "drizzle-orm";
import { errorEffect } from "../../credit/error-outcome";
import { fairErrorEffect } from "../../credit/fair-state";
import { havKey, isAnonymousPlatform } from "../../credit/host-app-version-key";
import { errorWrites } from "../../db/error-writes";
import type { OutcomeRow } from "../../db/outcome-writes";
import type { HostAppVersionKey } from "../../credit/host-app-version-key";
import type { HostAppVersionChange } from "../../credit/pass";
import { runBatch } from "../../db/batch";
import { appVersions, apps, hostAppVersions, projects, results } from "../../db/schema";
import { int64Text, jsonList } from "../../db/sql-helpers";
import type { Db } from "../../db/client";
import { ApiError, type Issue } from "../../http/errors";
import { fingerprint64 } from "../../http/fingerprint";
import { ErrorsRequestSchema } from "./errors.schemas";

/** Records the outcomes in one batch; throws the batch's error (a primary-key conflict included). */
export async function recordErrors(db: Db, projectId: number, body: z.infer<typeof ErrorsRequestSchema>, now: number) {
  const [appRows, versionRows, havRows, storedRows, projectRows] = await db.batch([
    db.select().from(apps).where(eq(apps.projectId, projectId)),
    db.select({ id: appVersions.id, appId: appVersions.appId }).from(appVersions).where(eq(appVersions.projectId, projectId)),
    db
      .select({ hostId: hostAppVersions.hostId, appId: hostAppVersions.appId, appVersionId: hostAppVersions.appVersionId })
      .from(hostAppVersions)
      .where(
        and(eq(hostAppVersions.projectId, projectId), sql`${hostAppVersions.hostId} IN ${jsonList(body.results.map((r) => r.host_id))}`),
      ),
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
  const fresh: HostAppVersionKey[] = [];
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
      fresh.push(key);
    }
    if (effect) changes.push({ ...key, samples: effect.samples, consecutiveValid: "reset" as const });
    // The fair error rate (docs/spec/fair-policy.md#r0): where the fair policy pays, a missing row is created and counts.
    const fair = fairErrorEffect(r.outcome, existing.has(havKey(key)), fairApps.has(appId) && !anonymous);
    if (fair.createsRow) {
      existing.add(havKey(key));
      fresh.push(key);
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

  await runBatch(db, errorWrites(projectId, now, { outcomes: inserts, fresh, changes, fairErrors }));
  return outcomes;
}
