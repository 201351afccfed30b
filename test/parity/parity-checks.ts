/**
 * The checks of the parity files (boinc-traces, fair-traces, fair-d1-traces): a trace replayed
 * through the HTTP API must leave exactly the numbers of its .expected.json, to 1e-9 relative.
 * Three files so that the workerd suite's workers share the replays (a file is the unit
 * vitest hands a worker).
 */
import { describe, expect, it } from "vitest";
import { MAX_PASSES_PER_BATCH } from "../../src/routes/passes/pass-batches.schemas";
import { type PassesPerRequest, replay } from "../support/replay";
import type { BOINC_TRACE_ROWS, FAIR_TRACE_ROWS } from "../support/trace-fixtures";
import { mismatchCheck, readBackMismatches } from "../support/trace-mismatches";

type BoincRow = (typeof BOINC_TRACE_ROWS)[number];
type FairRow = (typeof FAIR_TRACE_ROWS)[number];

/**
 * Each BOINC trace twice: a pass per request, and consecutive passes together through
 * POST /pass-batches (one snapshot read and one write batch for all of them). Checked: granted
 * credits, app and app-version statistics, host_app_versions, and the totals and RAC of hosts,
 * users and teams.
 */
export function describeBoincReplays(rows: readonly BoincRow[]): void {
  const replays = rows.flatMap(([name, text, expected]) =>
    [1, MAX_PASSES_PER_BATCH].map((perRequest) => [name, perRequest, text, expected] as const),
  );
  describe.each(replays)("trace %s replayed through the API, %i passes a request", (_name, perRequest, text, expected) => {
    it("matches every expected number to 1e-9 relative", { timeout: 300_000 }, async () => {
      const { api, granted, credit, appNumbers } = await replay(text, undefined, perRequest);
      const mismatches: string[] = [];
      const check = mismatchCheck(mismatches);
      for (const r of expected.results) check(`result ${r.id} granted_credit`, granted.get(r.id), r.granted_credit);
      for (const w of expected.workunits) check(`workunit ${w.id} credit`, credit.get(w.id), w.credit);
      mismatches.push(...(await readBackMismatches((path) => api.ok("GET", path), expected, appNumbers)));

      expect(mismatches.slice(0, 20)).toEqual([]);
      // Guard against a vacuous pass: the trace really credited results.
      expect(granted.size).toBeGreaterThanOrEqual(expected.results.length);
    });
  });
}

/**
 * The fair traces against the fair policy's reference model, whose output they hold
 * (test/fixtures/traces/README.md#fair-policy-traces), each replayed once through both
 * endpoints in turn (replay's "both": a pass through POST /passes, the passes after it through
 * POST /pass-batches, one snapshot and one write batch for up to MAX_PASSES_PER_BATCH of them,
 * so version 3's founders and seal, docs/spec/fair-policy.md#founders, are checked on rows a
 * batch creates too). Both endpoints go through the one writer (src/db/pass-batch-writes.ts).
 */
export function describeFairReplays(rows: readonly FairRow[], perRequest: PassesPerRequest = "both"): void {
  const replays = rows.map(([name, text, expected]) => [name, String(perRequest), text, expected] as const);
  describe.each(replays)("fair trace %s replayed through the API, passes a request: %s", (_name, perRequest, text, expected) => {
    // fair-d1-* make 4,234 calls (2,920 passes, 1,199 rescales, 115 errors): over 10 minutes on a loaded machine.
    it("grants the reference model's numbers to 1e-9 relative", { timeout: 1_800_000 }, async () => {
      const { api, granted, credit } = await replay(text, undefined, perRequest === "both" ? "both" : Number(perRequest));
      const mismatches: string[] = [];
      const check = mismatchCheck(mismatches);
      for (const r of expected.results) check(`result ${r.id} granted_credit`, granted.get(r.id), r.granted_credit);
      for (const w of expected.workunits) check(`workunit ${w.id} credit`, credit.get(w.id), w.credit);
      expect(mismatches.slice(0, 20)).toEqual([]);
      expect(granted.size).toBe(expected.results.length);
      const { apps } = await api.ok("GET", "/apps");
      expect(apps.every((a) => a.credit_policy === "fair")).toBe(true);
    });
  });
}
