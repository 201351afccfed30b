/**
 * boinc → fair → boinc through the pure engine (fair-b-1: a host claiming 3× its elapsed
 * time). Both sets of statistics are kept whatever the policy, so each stretch grants exactly
 * what an app that never switched would have: BOINC's numbers, then the fair reference model's
 * (test/fixtures/traces/README.md#fair-policy-traces),
 * then BOINC's again.
 */
import { describe, expect, it } from "vitest";
import fairB from "../fixtures/traces/fair-b-1.jsonl?raw";
import fairBExpected from "../fixtures/traces/fair-b-1.expected.json";
import { replayEngine } from "../support/engine-replay";
import { type TraceOp, parseTrace, relativeError } from "../support/trace";

const withPolicy = (ops: TraceOp[], policy: "boinc" | "fair") => ops.map((op) => (op.op === "app" ? { ...op, credit_policy: policy } : op));

describe("switching credit_policy back and forth", () => {
  it("grants BOINC's, then fair's, then BOINC's numbers, each as if the app had never switched", () => {
    const ops = parseTrace(fairB);
    const app = ops.find((op) => op.op === "app")!;
    const passes = ops.flatMap((op, i) => (op.op === "pass" ? [i] : []));
    const [toFair, toBoinc] = [passes[50]!, passes[110]!];
    const switched = [
      ...withPolicy(ops.slice(0, toFair), "boinc"),
      { ...app, credit_policy: "fair" },
      ...ops.slice(toFair, toBoinc),
      { ...app, credit_policy: "boinc" },
      ...ops.slice(toBoinc),
    ] as TraceOp[];
    const stretch = (from: number, to: number) =>
      ops.slice(from, to).flatMap((op) => (op.op === "pass" ? op.workunits.flatMap((w) => w.results.map((r) => r.id)) : []));

    const boinc = replayEngine(
      withPolicy(ops, "boinc")
        .map((op) => JSON.stringify(op))
        .join("\n"),
    ).granted;
    const fair = new Map(fairBExpected.results.map((r) => [r.id, r.granted_credit]));
    const { granted } = replayEngine(switched.map((op) => JSON.stringify(op)).join("\n"));

    const mismatches: string[] = [];
    const expectStretch = (ids: number[], want: Map<number, number>, what: string) => {
      expect(ids.length).toBeGreaterThan(100);
      for (const id of ids) {
        if (!(relativeError(granted.get(id)!, want.get(id)!) <= 1e-9))
          mismatches.push(`${what} result ${id}: ${granted.get(id)} ≠ ${want.get(id)}`);
      }
    };
    expectStretch(stretch(0, toFair), boinc, "boinc");
    expectStretch(stretch(toFair, toBoinc), fair, "fair");
    expectStretch(stretch(toBoinc, ops.length), boinc, "boinc again");
    expect(mismatches.slice(0, 10)).toEqual([]);
    // The policies disagree in each stretch, so the checks above tell them apart.
    for (const [from, to] of [
      [0, toFair],
      [toFair, toBoinc],
      [toBoinc, ops.length],
    ] as const) {
      expect(stretch(from, to).some((id) => relativeError(boinc.get(id)!, fair.get(id)!) > 1e-6)).toBe(true);
    }
  });
});
