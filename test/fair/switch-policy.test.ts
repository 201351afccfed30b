/**
 * Switching an app's credit_policy mid-trace (fair-a-1: one host claims 10× its FLOPS):
 * grants before the switch are BOINC's, after it fair's, with warm statistics (the fair
 * reference model's numbers, which had the policy from the first job:
 * test/fixtures/traces/README.md#fair-policy-traces), and nothing is recomputed. The
 * explanations and the fairness report show both credits.
 */
import { describe, expect, it } from "vitest";
import fairA from "../fixtures/traces/fair-a-1.jsonl?raw";
import fairAExpected from "../fixtures/traces/fair-a-1.expected.json";
import { replay } from "../support/replay";
import { parseTrace, relativeError } from "../support/trace";

const APP = { op: "app", name: "sci", host_scale_check: false };

/** fair-a-1 with the app on "boinc" until the pass at index `switchAt`, then "fair". */
function switchedTrace(switchAt: number) {
  const ops = parseTrace(fairA);
  const passes = ops.flatMap((op, i) => (op.op === "pass" ? [i] : []));
  const at = passes[switchAt]!;
  const lines = ops.map((op) => JSON.stringify(op.op === "app" ? { ...APP, credit_policy: "boinc" } : op));
  lines.splice(at, 0, JSON.stringify({ ...APP, credit_policy: "fair" }));
  const before = new Set(
    ops.slice(0, at).flatMap((op) => (op.op === "pass" ? op.workunits.flatMap((w) => w.results.map((r) => r.id)) : [])),
  );
  const last = ops[passes[passes.length - 1]!] as { now: number };
  return { text: lines.join("\n"), before, lastNow: last.now };
}

describe("switching credit_policy from boinc to fair mid-trace", () => {
  it("pays BOINC's credit before, the warm fair credit after, and reports both", { timeout: 300_000 }, async () => {
    const { text, before, lastNow } = switchedTrace(76);
    const { api, granted, explained } = await replay(text);
    const fairExpected = new Map(fairAExpected.results.map((r) => [r.id, r.granted_credit]));

    let differ = 0;
    const mismatches: string[] = [];
    for (const [id, credit] of granted) {
      const byPolicy = explained.get(id)!.credit_by_policy;
      if (before.has(id)) {
        if (credit !== byPolicy!.boinc) mismatches.push(`result ${id} before: ${credit} ≠ boinc ${byPolicy!.boinc}`);
        if (relativeError(byPolicy!.boinc, byPolicy!.fair) > 1e-9) differ++;
      } else {
        if (credit !== byPolicy!.fair) mismatches.push(`result ${id} after: ${credit} ≠ fair ${byPolicy!.fair}`);
        // The fair statistics were kept all along: the same numbers as fair from the first job.
        if (!(relativeError(credit, fairExpected.get(id)!) <= 1e-9))
          mismatches.push(`result ${id} after: ${credit} ≠ model ${fairExpected.get(id)}`);
      }
      expect(explained.get(id)!.fair!.rule).toMatch(
        /^(normalized|young_host|outlier_high|outlier_low|insane|bad_standing|host_scale_check)$/,
      );
    }
    expect(mismatches.slice(0, 10)).toEqual([]);
    expect(before.size).toBeGreaterThan(100);
    expect(granted.size - before.size).toBeGreaterThan(100);
    // The policies really disagree on some of the early results (the cheater's among them).
    expect(differ).toBeGreaterThan(0);

    // Nothing recomputed: each host's total is the sum of what each result was granted then.
    const totals = new Map<number, number>();
    for (const op of parseTrace(text)) {
      if (op.op !== "pass") continue;
      for (const w of op.workunits) for (const r of w.results) totals.set(r.host_id, (totals.get(r.host_id) ?? 0) + granted.get(r.id)!);
    }
    for (const [hostId, total] of [...totals].slice(0, 5)) {
      const host = await api.ok("GET", `/hosts/${hostId}`);
      expect(relativeError(host.total_credit, total)).toBeLessThanOrEqual(1e-9);
    }

    // The report: both credits per host, summed from the same explanations.
    const report = await api.ok("GET", `/apps/sci/fairness?now=${lastNow}&limit=1000`);
    expect(report.credit_policy).toBe("fair");
    const sums = new Map<number, { boinc: number; fair: number; n: number }>();
    for (const op of parseTrace(text)) {
      if (op.op !== "pass") continue;
      for (const w of op.workunits) {
        for (const r of w.results) {
          const s = sums.get(r.host_id) ?? { boinc: 0, fair: 0, n: 0 };
          const byPolicy = explained.get(r.id)!.credit_by_policy;
          sums.set(r.host_id, { boinc: s.boinc + byPolicy!.boinc, fair: s.fair + byPolicy!.fair, n: s.n + 1 });
        }
      }
    }
    expect(report.hosts.length).toBe(sums.size);
    for (const h of report.hosts) {
      const s = sums.get(h.host_id)!;
      expect(h.results).toBe(s.n);
      expect(relativeError(h.boinc_credit, s.boinc)).toBeLessThanOrEqual(1e-9);
      expect(relativeError(h.fair_credit, s.fair)).toBeLessThanOrEqual(1e-9);
      expect(relativeError(h.ratio!, s.boinc / s.fair)).toBeLessThanOrEqual(1e-9);
    }
    const ratios = report.hosts.map((h) => h.ratio);
    expect(ratios).toEqual([...ratios].sort((a, b) => b! - a!));
    // The host claiming 10× its FLOPS is the one BOINC overpays most.
    expect(report.hosts[0]!.ratio).toBeGreaterThan(2);
    expect(report.hosts[report.hosts.length - 1]!.ratio).toBeLessThan(report.hosts[0]!.ratio! / 2);
  });
});

describe("the fairness report's input", () => {
  it("needs the project token and a known app", async () => {
    const { api } = await replay(
      parseTrace(fairA)
        .slice(0, 4)
        .map((op) => JSON.stringify(op))
        .join("\n"),
    );
    expect((await api.raw("GET", "/apps/nope/fairness")).status).toBe(404);
    expect((await api.raw("GET", "/apps/sci/fairness", undefined, "wrong-token")).status).toBe(401);
    expect((await api.raw("GET", "/apps/sci/fairness?limit=0")).status).toBe(400);
    const empty = await api.ok("GET", "/apps/sci/fairness");
    expect(empty.hosts).toEqual([]);
  });
});
