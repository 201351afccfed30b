import { describe, expect, it } from "vitest";
import { sumRecentAverages } from "../../src/credit/cross-project-totals";
import { expectRel } from "./close";

describe("a volunteer's credit across projects", () => {
  it("adds totals as they are and RACs each decayed to the same moment", () => {
    const at = 1_800_000_000;
    const week = 7 * 86400;
    const sum = sumRecentAverages(
      [
        // RAC 100 as of now, and RAC 80 as of one half-life (a week) ago: 100 + 40.
        { totalCredit: 1000, expavgCredit: 100, expavgTime: at },
        { totalCredit: 250.5, expavgCredit: 80, expavgTime: at - week },
      ],
      at,
    );
    expect(sum.totalCredit).toBe(1250.5);
    expectRel(sum.recentAverageCredit, 140);
  });
});
