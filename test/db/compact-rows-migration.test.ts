/**
 * Migration 0015 rebuilds results, workunits and trickles with compact rows and converts the
 * rows stored before it. The migrations run here on a copy of the schema under other table
 * names (as test/security/token-migration.test.ts does), with rows inserted the way the old
 * code wrote them, between 0014 and 0015.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { fingerprint64 } from "../../src/http/fingerprint";
import { sha256Hex } from "../../src/http/tokens";
import { migrateRenamedTo } from "../support/renamed-migrations";

const PREFIX = "m13_";

const all = async (sql: string) => (await env.DB.prepare(sql).all()).results;

describe("migration 0015 (compact rows)", () => {
  it("converts stored rows: fingerprints to the integer the code computes, enums to codes, times to whole seconds; tables WITHOUT ROWID", async () => {
    // What the old code hashed (sha256Hex of the JSON) for two results and one trickle.
    const contents = { valid: [1, "a", 7], error: [7, 3, 1, "timeout", null], trickle: ["a", 7, null, 90] };
    const hex = {
      valid: await sha256Hex(JSON.stringify(contents.valid)),
      error: await sha256Hex(JSON.stringify(contents.error)),
      trickle: await sha256Hex(JSON.stringify(contents.trickle)),
    };
    await migrateRenamedTo(PREFIX, "0015", async () => {
      await env.DB.prepare(`INSERT INTO ${PREFIX}projects (id, slug, name, created_at) VALUES (1, 'old', 'Old', 1700000000)`).run();
      await env.DB.batch([
        env.DB.prepare(
          `INSERT INTO ${PREFIX}results (project_id, id, workunit_id, app_id, host_id, app_version_id, outcome, validate_state, granted_credit, claimed_credit, pfc_mode, fingerprint, decided_at, boinc_credit, fair_credit, fair_rule)
           VALUES (1, 10, 5, 1, 7, 3, 'success', 'valid', 12.5, 11.25, 'approx', ?, 1700000100.75, 12.5, 9.5, 'outlier_low'),
                  (1, 11, 5, 1, 8, 3, 'success', 'invalid', 0, NULL, NULL, ?, 1700000100.25, NULL, NULL, NULL),
                  (1, 12, 6, 1, 8, 3, 'success', 'valid', 4, 4, 'normal', ?, 1700000200, 4, 4, 'normalized'),
                  (1, 13, NULL, 1, 7, 3, 'timeout', NULL, 0, NULL, NULL, ?, 1700000300.5, NULL, NULL, NULL),
                  (1, 14, 7, 1, 7, 3, 'success', 'valid', 6, NULL, NULL, ?, 1700000300, NULL, NULL, NULL),
                  (1, 15, 8, 1, 7, 3, 'success', 'valid', 9.5, 10, 'normal', ?, 1700000300, 12.5, 9.5, 'young_host')`,
        ).bind(hex.valid, hex.valid, hex.valid, hex.error, hex.valid, hex.valid),
        env.DB.prepare(
          `INSERT INTO ${PREFIX}workunits (project_id, id, app_id, credit, canonical_result_id, credited_at) VALUES (1, 5, 1, 12.5, 10, 1700000100.75)`,
        ),
        env.DB.prepare(
          `INSERT INTO ${PREFIX}trickles (project_id, id, app_id, host_id, result_id, fingerprint, credit, runtime, runtime_cut, flops, flops_source, granted_at)
           VALUES (1, 1, 1, 7, NULL, ?, 2.5, 90, 0, 1e9, 'host', 1700000400.5),
                  (1, 2, 1, 7, 10, ?, 3.5, 3600, 1, 2e9, 'p95', 1700000500)`,
        ).bind(hex.trickle, hex.trickle),
      ]);
    });

    expect(
      await all(
        `SELECT id, app_id, host_id, outcome, granted_credit, claimed_credit, pfc_mode, boinc_credit, fair_credit, fair_rule, CAST(fingerprint AS TEXT) AS fp, decided_at FROM ${PREFIX}results ORDER BY id`,
      ),
    ).toEqual([
      // outcome: 0 valid, 1 invalid, 3 timeout, 5 valid without a claim; pfc_mode approx = 1,
      // normal = 0; fair_rule outlier_low = 3, normalized = 0, young_host = 1. A boinc credit
      // equal to the granted one, and a fair credit equal to the boinc one, are stored as NULL.
      {
        id: 10,
        app_id: 1,
        host_id: 7,
        outcome: 0,
        granted_credit: 12.5,
        claimed_credit: 11.25,
        pfc_mode: 1,
        boinc_credit: null,
        fair_credit: 9.5,
        fair_rule: 3,
        fp: await fingerprint64(contents.valid),
        decided_at: 1700000100,
      },
      {
        id: 11,
        app_id: 1,
        host_id: 8,
        outcome: 1,
        granted_credit: 0,
        claimed_credit: null,
        pfc_mode: null,
        boinc_credit: null,
        fair_credit: null,
        fair_rule: null,
        fp: await fingerprint64(contents.valid),
        decided_at: 1700000100,
      },
      {
        id: 12,
        app_id: 1,
        host_id: 8,
        outcome: 0,
        granted_credit: 4,
        claimed_credit: 4,
        pfc_mode: 0,
        boinc_credit: null,
        fair_credit: null,
        fair_rule: 0,
        fp: await fingerprint64(contents.valid),
        decided_at: 1700000200,
      },
      {
        id: 13,
        app_id: 1,
        host_id: 7,
        outcome: 3,
        granted_credit: 0,
        claimed_credit: null,
        pfc_mode: null,
        boinc_credit: null,
        fair_credit: null,
        fair_rule: null,
        fp: await fingerprint64(contents.error),
        decided_at: 1700000300,
      },
      {
        id: 14,
        app_id: 1,
        host_id: 7,
        outcome: 5,
        granted_credit: 6,
        claimed_credit: null,
        pfc_mode: null,
        boinc_credit: null,
        fair_credit: null,
        fair_rule: null,
        fp: await fingerprint64(contents.valid),
        decided_at: 1700000300,
      },
      // Paid by the fair policy: boinc differs from the granted credit, fair equals it.
      {
        id: 15,
        app_id: 1,
        host_id: 7,
        outcome: 0,
        granted_credit: 9.5,
        claimed_credit: 10,
        pfc_mode: 0,
        boinc_credit: 12.5,
        fair_credit: 9.5,
        fair_rule: 1,
        fp: await fingerprint64(contents.valid),
        decided_at: 1700000300,
      },
    ]);
    expect(await all(`SELECT * FROM ${PREFIX}workunits`)).toEqual([
      { project_id: 1, id: 5, app_id: 1, credit: 12.5, credited_at: 1700000100 },
    ]);
    expect(
      await all(
        `SELECT id, CAST(fingerprint AS TEXT) AS fp, credit, cut_runtime, flops, flops_source, granted_at FROM ${PREFIX}trickles ORDER BY id`,
      ),
    ).toEqual([
      {
        id: 1,
        fp: await fingerprint64(contents.trickle),
        credit: 2.5,
        cut_runtime: null,
        flops: 1e9,
        flops_source: 0,
        granted_at: 1700000400,
      },
      // Cut: the runtime paid is kept; p95 = 2.
      {
        id: 2,
        fp: await fingerprint64(contents.trickle),
        credit: 3.5,
        cut_runtime: 3600,
        flops: 2e9,
        flops_source: 2,
        granted_at: 1700000500,
      },
    ]);
    for (const table of ["results", "workunits", "trickles"]) {
      const { sql } = (await env.DB.prepare(`SELECT sql FROM sqlite_master WHERE name = '${PREFIX}${table}'`).first<{ sql: string }>())!;
      expect(sql).toMatch(/WITHOUT ROWID$/);
    }
    // Fourteen migrations, one statement at a time: seconds on a loaded machine.
  }, 120_000);

  it("the integer is the first 64 bits of the hash, big-endian and signed", async () => {
    const content = ["x"];
    const hex = await sha256Hex(JSON.stringify(content));
    expect(BigInt(await fingerprint64(content))).toBe(BigInt.asIntN(64, BigInt(`0x${hex.slice(0, 16)}`)));
  });
});
