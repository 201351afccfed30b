/**
 * The index of one resource class, on tables small enough to work out by hand: each host's
 * credit per device-hour in a project is (host speed) × (the project's pay), so ln of it is
 * host effect + project effect and the fit must return each project's pay over the median
 * project's.
 */
import { describe, expect, it } from "vitest";
import { type NeutralCell, medianPolish, median, neutralityIndex, quantile } from "../../src/credit/neutrality-fit";
import { expectRel } from "./close";

/** A cell with exactly the floor of 10 results and 5 device-hours, paying `perHour` per device-hour. */
function cell(host: number, project: string, perHour: number, over: Partial<NeutralCell> = {}): NeutralCell {
  return { host: `h${host}`, project, credit: perHour * 5, deviceSeconds: 5 * 3600, results: 10, ...over };
}

/** Host h (1 … n) runs at speed h, so it earns speed × pay per device-hour. */
function hosts(from: number, to: number, pay: Record<string, number>): NeutralCell[] {
  const out: NeutralCell[] = [];
  for (let h = from; h <= to; h++) for (const [p, k] of Object.entries(pay)) out.push(cell(h, p, h * k));
  return out;
}

const byProject = (r: ReturnType<typeof neutralityIndex>) => Object.fromEntries(r.projects.map((p) => [p.project, p]));

describe("median and quantile", () => {
  it("by hand", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    // (4 − 1) × 0.05 = 0.15 → 1 + 0.15 × (2 − 1); (4 − 1) × 0.95 = 2.85 → 3 + 0.85 × (4 − 3).
    expectRel(quantile([4, 3, 2, 1], 0.05), 1.15);
    expectRel(quantile([4, 3, 2, 1], 0.95), 3.85);
  });
});

describe("median polish", () => {
  it("recovers the column effects of an additive table with a missing cell", () => {
    // Rows 0, 10, 20; columns 0, 1, 5; cell (2, 2) missing: the sweeps converge to the additive fit.
    const cells = [
      { row: 0, col: 0, y: 0 },
      { row: 0, col: 1, y: 1 },
      { row: 0, col: 2, y: 5 },
      { row: 1, col: 0, y: 10 },
      { row: 1, col: 1, y: 11 },
      { row: 1, col: 2, y: 15 },
      { row: 2, col: 0, y: 20 },
      { row: 2, col: 1, y: 21 },
    ];
    const e = medianPolish(cells, 3, 3);
    // Centred differences are what the index uses: 1 − 0 and 5 − 0.
    expectRel(e[1]! - e[0]!, 1);
    expectRel(e[2]! - e[0]!, 5);
  });
});

describe("the neutrality index of one class", () => {
  it("three projects on 20 shared hosts, B paying twice: B 2, A and C 1, intervals collapsed (no noise)", () => {
    const r = neutralityIndex(hosts(1, 20, { A: 10, B: 20, C: 10 }));
    const p = byProject(r);
    for (const [name, want] of [
      ["A", 1],
      ["B", 2],
      ["C", 1],
    ] as const) {
      expect(p[name]!.status).toBe("fitted");
      expectRel(p[name]!.index!, want, 1e-9);
      expectRel(p[name]!.low!, want, 1e-9);
      expectRel(p[name]!.high!, want, 1e-9);
      expect(p[name]!.hosts).toBe(20);
      expect(p[name]!.deviceHours).toBe(100); // 20 hosts × 5 device-hours
    }
    expect(r.pairs.map((x) => [x.a, x.b, x.hosts])).toEqual([
      ["A", "B", 20],
      ["A", "C", 20],
      ["B", "C", 20],
    ]);
    expectRel(r.pairs[0]!.ratio!, 0.5, 1e-12);
    expectRel(r.pairs[1]!.ratio!, 1, 1e-12);
    expectRel(r.pairs[2]!.ratio!, 2, 1e-12);
  });

  it("one wild cell does not move the index (a mean would)", () => {
    const cells = hosts(1, 20, { A: 10, B: 20, C: 10 }).map((c) =>
      c.host === "h1" && c.project === "C" ? { ...c, credit: c.credit * 100 } : c,
    );
    const p = byProject(neutralityIndex(cells));
    // By hand: host 1's row is (0, ln2, ln100) + its effect; the first row sweep leaves it
    // (−ln2, 0, ln50), column medians over 20 hosts are 0, ln2, 0; the second row sweep
    // leaves (0, 0, ln100) and nothing moves after. Effects (0, ln2, 0), centred on C's 0.
    expectRel(p.A!.index!, 1, 1e-9);
    expectRel(p.B!.index!, 2, 1e-9);
    expectRel(p.C!.index!, 1, 1e-9);
    // A mean of the 20 log ratios C/A would be ln100 / 20: C at 100^(1/20) ≈ 1.26.
  });

  it("a project sharing 5 hosts is 'insufficient overlap' and leaves the others as they were", () => {
    const cells = [...hosts(1, 20, { A: 10, B: 20, C: 10 }), ...hosts(1, 5, { D: 30 })];
    const r = neutralityIndex(cells);
    const p = byProject(r);
    expect(p.D).toEqual({ project: "D", status: "insufficient overlap", index: null, low: null, high: null, hosts: 5, deviceHours: 25 });
    expectRel(p.B!.index!, 2, 1e-9);
    expectRel(p.A!.index!, 1, 1e-9);
    // Pairs with D have their host count but no ratio below the floor of 20.
    expect(r.pairs.filter((x) => x.b === "D").map((x) => [x.a, x.ratio, x.hosts])).toEqual([
      ["A", null, 5],
      ["B", null, 5],
      ["C", null, 5],
    ]);
  });

  it("two projects: centred on their median (the geometric middle), A paying 4 × B gives 2 and 0.5", () => {
    const r = neutralityIndex(hosts(1, 20, { A: 40, B: 10 }));
    const p = byProject(r);
    expectRel(p.A!.index!, 2, 1e-9);
    expectRel(p.B!.index!, 0.5, 1e-9);
    expectRel(r.pairs[0]!.ratio!, 4, 1e-12);
  });

  it("cells under 10 results or 5 device-hours, or without credit, are left out", () => {
    const cells = [
      ...hosts(1, 20, { A: 10, B: 20 }),
      ...hosts(1, 20, { E: 10 }).map((c) => ({ ...c, results: 9 })),
      ...hosts(1, 20, { F: 10 }).map((c) => ({ ...c, deviceSeconds: 5 * 3600 - 1 })),
      ...hosts(1, 20, { G: 0 }),
    ];
    expect(neutralityIndex(cells).projects.map((p) => p.project)).toEqual(["A", "B"]);
  });

  it("two app versions of a host in one project are one cell: credit and device time summed", () => {
    // Host 1 in A: 5 results over 3 h paying 30, and 5 over 2 h paying 70: 100 credit / 5 h = 20 per hour = B's.
    const split = [
      { host: "h1", project: "A", credit: 30, deviceSeconds: 3 * 3600, results: 5 },
      { host: "h1", project: "A", credit: 70, deviceSeconds: 2 * 3600, results: 5 },
    ];
    const cells = [...hosts(2, 21, { A: 20, B: 20 }), ...split, cell(1, "B", 20)];
    const r = neutralityIndex(cells);
    expect(r.pairs[0]!.hosts).toBe(21);
    expectRel(r.pairs[0]!.ratio!, 1, 1e-12);
  });

  it("groups of projects that share no host are not compared: the larger group is fitted", () => {
    const cells = [...hosts(1, 25, { A: 10, B: 20 }), ...hosts(101, 120, { C: 10, D: 10 })];
    const p = byProject(neutralityIndex(cells));
    expect([p.A!.status, p.B!.status, p.C!.status, p.D!.status]).toEqual([
      "fitted",
      "fitted",
      "insufficient overlap",
      "insufficient overlap",
    ]);
    expect(p.C!.hosts).toBe(20);
  });

  it("with noise the bootstrap interval brackets the index and is not empty", () => {
    // Each host's B/A ratio is 2 × (1 ± 10%), alternating: the per-host noise the interval reflects.
    const cells = hosts(1, 40, { A: 10, C: 10 }).concat(
      Array.from({ length: 40 }, (_, i) => cell(i + 1, "B", (i + 1) * 20 * (i % 2 === 0 ? 1.1 : 0.9))),
    );
    const b = byProject(neutralityIndex(cells)).B!;
    expect(b.low!).toBeLessThan(b.high!);
    expect(b.low!).toBeLessThanOrEqual(b.index!);
    expect(b.high!).toBeGreaterThanOrEqual(b.index!);
    expect(b.low!).toBeGreaterThanOrEqual(2 * 0.9 - 1e-9);
    expect(b.high!).toBeLessThanOrEqual(2 * 1.1 + 1e-9);
  });
});
