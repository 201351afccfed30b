/** The geometry of the credit chart: axis, bars, RAC line, date labels. */
import { describe, expect, it } from "vitest";
import { type ChartBox, axisTicks, labelIndexes, layoutChart, niceStep } from "../../src/web/chart-scale";

const BOX: ChartBox = { width: 400, height: 220, padLeft: 40, padRight: 10, padTop: 10, padBottom: 30 };
// The plot inside: x from 40 to 390 (350 wide), y from 10 (top) to 190 (bottom, 180 high).

describe("axis", () => {
  it("rounds steps up to 1, 2, 2.5 or 5 times a power of ten", () => {
    expect(niceStep(0.7)).toBe(1);
    expect(niceStep(1)).toBe(1);
    expect(niceStep(1.2)).toBe(2);
    expect(niceStep(2.2)).toBe(2.5);
    expect(niceStep(3)).toBe(5);
    expect(niceStep(0.3 / 0.1)).toBe(5);
    expect(niceStep(6)).toBe(10);
    expect(niceStep(1234)).toBe(2000);
    expect(niceStep(0.031)).toBe(0.05);
  });
  it("ticks from 0 in round steps up to at least the largest value", () => {
    expect(axisTicks(1000)).toEqual([0, 250, 500, 750, 1000]);
    expect(axisTicks(1001)).toEqual([0, 500, 1000, 1500]);
    expect(axisTicks(7)).toEqual([0, 2, 4, 6, 8]);
    expect(axisTicks(0.3)).toEqual([0, 0.1, 0.2, 0.3]);
  });
  it("has a unit axis when there is nothing to show", () => {
    expect(axisTicks(0)).toEqual([0, 1]);
    expect(axisTicks(Number.NaN)).toEqual([0, 1]);
  });
});

describe("layoutChart", () => {
  const days = [
    { date: "2026-11-18", credit: 0, rac: 0 },
    { date: "2026-11-19", credit: 100, rac: 10 },
    { date: "2026-11-20", credit: 0, rac: 9 },
    { date: "2026-11-21", credit: 50, rac: 40 },
  ];

  it("scales bars and line to the top tick: a value at the top reaches the plot's top", () => {
    const l = layoutChart(days, BOX);
    expect(l.top).toBe(100); // ticks 0, 25, 50, 75, 100
    expect(l.yTicks.map((t) => [t.value, t.y])).toEqual([
      [0, 190],
      [25, 145],
      [50, 100],
      [75, 55],
      [100, 10],
    ]);
    // Four slots of 87.5; a bar is 80% of its slot (70), centred; coordinates to 0.1.
    const r1 = (x: number) => Math.round(x * 10) / 10;
    expect(l.bars).toHaveLength(2); // days without credit have no bar
    const [b1, b2] = l.bars;
    expect(b1).toMatchObject({ x: r1(40 + 87.5 * 1.5 - 35), y: 10, width: 70, height: 180 });
    expect(b2).toMatchObject({ x: r1(40 + 87.5 * 3.5 - 35), y: 100, width: 70, height: 90 });
    expect(b1!.day.date).toBe("2026-11-19");
  });

  it("draws the RAC through every day's centre", () => {
    const l = layoutChart(days, BOX);
    const points = l.racPath
      .split(/[ML]/)
      .filter(Boolean)
      .map((p) => p.trim().split(" ").map(Number));
    expect(points).toEqual([
      [83.8, 190], // 40 + 43.75, rounded to 0.1
      [171.3, 172],
      [258.8, 173.8],
      [346.3, 118],
    ]);
    expect(l.racPath.startsWith("M")).toBe(true);
  });

  it("labels the first and last day and a few between", () => {
    expect(labelIndexes(90)).toEqual([0, 22, 45, 67, 89]);
    expect(labelIndexes(3)).toEqual([0, 1, 2]);
    expect(labelIndexes(1)).toEqual([0]);
    expect(labelIndexes(0)).toEqual([]);
    const l = layoutChart(days, BOX);
    expect(l.xLabels.map((x) => x.date)).toEqual(days.map((d) => d.date));
  });

  it("leaves out a date between the ends that would touch its neighbour (a week's slots are narrower than a date)", () => {
    // A week in the pages' box (plot 564 wide from 64): slots of 564 / 7 = 80.6, centres at
    // 64 + (i + 0.5) · 80.6. labelIndexes(7) = 0, 2, 3, 5, 6. A date is about 70 wide: the first
    // drawn rightwards from its x, the last leftwards, the others centred, 4 apart at least.
    const week = Array.from({ length: 7 }, (_, i) => ({ date: `2026-11-${19 + i}`, credit: 1, rac: 1 }));
    const l = layoutChart(week, { width: 640, height: 260, padLeft: 64, padRight: 12, padTop: 12, padBottom: 32, labelWidth: 70 });
    expect(labelIndexes(7)).toEqual([0, 2, 3, 5, 6]);
    // x: 104.3, 265.4, 346, 507.1, 587.7. Day 2: 265.4 − 104.3 = 161.1 ≥ 70 + 39 and 587.7 − 265.4 = 322.3 ≥ 70 + 39: kept.
    // Day 3: 346 − 265.4 = 80.6 ≥ 35 + 39: kept. Day 5: 587.7 − 507.1 = 80.6 < 70 + 39: left out.
    expect(l.xLabels.map((x) => x.date)).toEqual(["2026-11-19", "2026-11-21", "2026-11-22", "2026-11-25"]);
  });

  it("lets narrow bars touch (365 days) and keeps an empty chart drawable", () => {
    const year = Array.from({ length: 365 }, (_, i) => ({ date: `d${i}`, credit: i % 2, rac: 0.5 }));
    const l = layoutChart(year, BOX);
    expect(l.bars[0]!.width).toBe(Math.round((350 / 365) * 10) / 10);
    const empty = layoutChart([], BOX);
    expect(empty.bars).toEqual([]);
    expect(empty.racPath).toBe("");
    expect(empty.top).toBe(1);
  });
});
