/**
 * A project taken through the farm trace fair-farm-04-f2-full-1 on version 2, migrated to
 * version 3 right before a rescale; and the same trace on version 3 with a re-base in the middle.
 * Both against the reference model run the same way (test/fixtures/fair-v3/README.md), to 1e-9,
 * through the API.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import trace from "../fixtures/traces/fair-farm-04-f2-full-1.jsonl?raw";
import version3 from "../fixtures/traces/fair-farm-04-f2-full-1.expected.json";
import migrated from "../fixtures/fair-v3/migrated-from-v2.expected.json";
import rebased from "../fixtures/fair-v3/rebased.expected.json";
import { replay } from "../support/replay";
import { mismatchCheck } from "../support/trace-mismatches";
import { relativeError } from "../support/trace";
import { projectIdOf } from "../support/project-id";

type Expected = typeof migrated;

function mismatches(granted: ReadonlyMap<number, number>, credit: ReadonlyMap<number, number>, expected: Expected): string[] {
  const out: string[] = [];
  const check = mismatchCheck(out);
  for (const r of expected.results) check(`result ${r.id} granted_credit`, granted.get(r.id), r.granted_credit);
  for (const w of expected.workunits) check(`workunit ${w.id} credit`, credit.get(w.id), w.credit);
  return out;
}

/** The expected numbers really differ from version 3's own, so matching them is no accident. */
function differsFromVersion3(expected: Expected): number {
  const v3 = new Map(version3.results.map((r) => [r.id, r.granted_credit]));
  return expected.results.filter((r) => relativeError(r.granted_credit, v3.get(r.id)!) > 1e-6).length;
}

describe("fair policy version 3 on fair-farm-04-f2-full-1", () => {
  it("a project on version 2 migrated before a rescale continues as the reference model does", { timeout: 600_000 }, async () => {
    expect(migrated.trace).toBe("fair-farm-04-f2-full-1");
    expect(differsFromVersion3(migrated)).toBeGreaterThan(1000);
    // Version 2's rescale is version 3's without its anchor, seal and own scale: before the
    // migration each rescale's version 3 steps are undone, which leaves exactly the columns
    // migration 0025 gives a version 2 project (test/db/fair-v3-migration.test.ts).
    const { granted, credit, api } = await replay(trace, undefined, 1, {
      after: async (index, op, _api, slug) => {
        if (op.op !== "rescale" || index >= migrated.op_index) return;
        const id = await projectIdOf(slug);
        await env.DB.batch([
          env.DB.prepare("UPDATE apps SET fair_s_ref = NULL, fair_s_raw = NULL, fair_anchored_at = NULL WHERE project_id = ?").bind(id),
          env.DB.prepare("UPDATE app_versions SET fair_own_scale = 0, fair_sealed = 0 WHERE project_id = ?").bind(id),
        ]);
      },
    });
    expect(mismatches(granted, credit, migrated).slice(0, 20)).toEqual([]);
    expect(granted.size).toBe(migrated.results.length);
    // The farm's rows were made before the migration: founders, so they drag the level and the clamp holds S.
    const app = (await api.ok("GET", "/apps")).apps[0]!;
    const model = migrated.apps[0]!;
    for (const [got, want] of [
      [app.fair_level, model.S],
      [app.fair_s_raw, model.S_raw],
      [app.fair_s_ref, model.S_ref],
    ] as const) {
      expect(relativeError(got!, want)).toBeLessThanOrEqual(1e-9);
    }
    expect(app.fair_held_at_anchor_limit).toBe(true);
  });

  it("a re-base in the middle makes every row a founder and anchors again, as the reference model does", { timeout: 600_000 }, async () => {
    expect(differsFromVersion3(rebased)).toBeGreaterThan(1000);
    let answer: { versions_unsealed: number; rows_made_founders: number } | undefined;
    const { granted, credit, api } = await replay(trace, undefined, 1, {
      before: async (index, _op, client) => {
        if (index === rebased.op_index) answer = await client.ok("POST", "/apps/sci/fair-rebase", { reason: "trace test" });
      },
    });
    // By then the app was anchored with its three versions sealed, and the farm (joining a third of the way in) had rows of its own.
    expect(answer?.versions_unsealed).toBe(3);
    expect(answer?.rows_made_founders).toBeGreaterThan(0);
    expect(mismatches(granted, credit, rebased).slice(0, 20)).toEqual([]);
    const app = (await api.ok("GET", "/apps")).apps[0]!;
    expect(relativeError(app.fair_s_ref!, rebased.apps[0]!.S_ref)).toBeLessThanOrEqual(1e-9);
    expect(relativeError(app.fair_s_raw!, rebased.apps[0]!.S_raw)).toBeLessThanOrEqual(1e-9);
  });
});
