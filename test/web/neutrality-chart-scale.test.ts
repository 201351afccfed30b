import { describe, expect, it } from "vitest";
import { axisPowers, layoutIndexChart } from "../../src/web/neutrality-chart-scale";

// Plot from x = 100 to 500 (width 520, padding 100 and 20): 400 px.
const BOX = { width: 520, padLeft: 100, padRight: 20, padTop: 10, rowHeight: 30, padBottom: 20 };

describe("neutrality chart geometry (log₂ axis centred on 1)", () => {
  it("the axis reaches the widest interval, at least ½ … 2", () => {
    expect(axisPowers([{ slug: "a", index: 1.1, low: 0.9, high: 1.2 }])).toBe(1);
    expect(axisPowers([{ slug: "a", index: 2, low: 1.5, high: 2.5 }])).toBe(2); // log₂ 2.5 = 1.32 → 2
    expect(axisPowers([{ slug: "a", index: 0.3, low: 0.2, high: 0.4 }])).toBe(3); // log₂ 0.2 = −2.32 → 3
  });

  it("bars run from 1 to the index; twice and half lie equally far from 1", () => {
    const l = layoutIndexChart(
      [
        { slug: "b", index: 2, low: 1.5, high: 2 },
        { slug: "h", index: 0.5, low: 0.5, high: 1 },
      ],
      BOX,
    );
    // k = 1: ½ at 100, 1 at 300, 2 at 500; log₂ 1.5 = 0.585 → 300 + 200 × 0.585 = 417.0.
    expect(l.centre).toBe(300);
    expect(l.ticks).toEqual([
      { value: 0.5, x: 100 },
      { value: 1, x: 300 },
      { value: 2, x: 500 },
    ]);
    expect(l.rows[0]).toMatchObject({ y: 10, barX: 300, barWidth: 200, lowX: 417, highX: 500 });
    expect(l.rows[1]).toMatchObject({ y: 40, barX: 100, barWidth: 200, lowX: 100, highX: 300 });
    expect(l.height).toBe(10 + 2 * 30 + 20);
  });
});
