/**
 * Migration 0025 (fair policy version 3, docs/spec/fair-policy.md#migration-from-version-2) on
 * rows stored the way version 2 wrote them: every host × version row a founder, no app
 * anchored, no version sealed or scaled by version 3, and the version 2 state untouched. The
 * migrations run on a copy of the schema under other table names (test/support/renamed-migrations.ts).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { migrateRenamedTo } from "../support/renamed-migrations";

const PREFIX = "m25_";
const all = async (sql: string) => (await env.DB.prepare(sql).all()).results;

describe("migration 0025 (fair policy version 3)", () => {
  it("makes every stored host × version row a founder and anchors and seals nothing", async () => {
    await migrateRenamedTo(PREFIX, "0025", async () => {
      await env.DB.batch([
        env.DB.prepare(`INSERT INTO ${PREFIX}projects (id, slug, name, created_at) VALUES (1, 'old', 'Old', 1700000000)`),
        env.DB.prepare(`INSERT INTO ${PREFIX}apps (project_id, id, name, credit_policy, fair_level) VALUES (1, 1, 'sci', 'fair', 1.9)`),
        // A mature version a version 2 rescale scaled (S / L = 1.9 / 2), and a young one.
        env.DB.prepare(
          `INSERT INTO ${PREFIX}app_versions (project_id, id, app_id, platform, version_num, fair_n, fair_level, fair_scale)
           VALUES (1, 1, 1, 'linux', 1, 1400, 2, 0.95), (1, 2, 1, 'linux', 2, 30, 1.8, 1)`,
        ),
        env.DB.prepare(
          `INSERT INTO ${PREFIX}host_app_versions (project_id, host_id, app_id, app_version_id, fair_n, fair_q, fair_err)
           VALUES (1, 7, 1, 1, 10, 0.7, 0.01), (1, 8, 1, 2, 3, NULL, 0)`,
        ),
        env.DB.prepare(
          `INSERT INTO ${PREFIX}audit_log (project_id, at, actor, method, route, target, status, request_id)
           VALUES (1, 1700000000, 'token:1', 'PUT', '/v1/projects/:slug/apps/:app', '/v1/projects/old/apps/sci', 200, 'r1')`,
        ),
      ]);
    });
    expect(await all(`SELECT id, fair_level, fair_s_ref, fair_s_raw, fair_anchored_at, fair_rebased_at FROM ${PREFIX}apps`)).toEqual([
      { id: 1, fair_level: 1.9, fair_s_ref: null, fair_s_raw: null, fair_anchored_at: null, fair_rebased_at: null },
    ]);
    expect(
      await all(`SELECT id, fair_n, fair_level, fair_scale, fair_own_scale, fair_sealed FROM ${PREFIX}app_versions ORDER BY id`),
    ).toEqual([
      // Own scale 0: the version is paid est × L × 0.95 (version 2's E) until the next rescale gives it S / L.
      { id: 1, fair_n: 1400, fair_level: 2, fair_scale: 0.95, fair_own_scale: 0, fair_sealed: 0 },
      { id: 2, fair_n: 30, fair_level: 1.8, fair_scale: 1, fair_own_scale: 0, fair_sealed: 0 },
    ]);
    expect(await all(`SELECT host_id, fair_n, fair_q, fair_err, fair_founder FROM ${PREFIX}host_app_versions ORDER BY host_id`)).toEqual([
      { host_id: 7, fair_n: 10, fair_q: 0.7, fair_err: 0.01, fair_founder: 1 },
      { host_id: 8, fair_n: 3, fair_q: null, fair_err: 0, fair_founder: 1 },
    ]);
    expect(await all(`SELECT request_id, reason FROM ${PREFIX}audit_log`)).toEqual([{ request_id: "r1", reason: null }]);
  });
});
