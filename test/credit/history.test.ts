/**
 * The dense daily series from stored day buckets. Numbers derived by hand:
 * a subject credited 10 on day 100 (its RAC pair then 5 at t = day 100 + 12 h) and 4 on day
 * 102 (pair 6 at day 102 + 6 h), total 14.
 */
import { describe, expect, it } from "vitest";
import { dailyHistory, dateOfDay, dayOf, dayOfDate } from "../../src/credit/history";

const DAY = 86400;
const HALF_LIFE = 7 * DAY;
const buckets = [
  { day: 100, credit: 10, expavgCredit: 5, expavgTime: 100 * DAY + 12 * 3600 },
  { day: 102, credit: 4, expavgCredit: 6, expavgTime: 102 * DAY + 6 * 3600 },
];
const halfLives = (seconds: number) => 0.5 ** (seconds / HALF_LIFE);

describe("days", () => {
  it("are UTC days since 1970 and print as ISO dates", () => {
    expect(dayOf(0)).toBe(0);
    expect(dayOf(DAY - 0.001)).toBe(0);
    expect(dayOf(DAY)).toBe(1);
    expect(dateOfDay(0)).toBe("1970-01-01");
    expect(dateOfDay(20413)).toBe("2025-11-21"); // 20413 · 86400 = 1763683200 = 2025-11-21T00:00Z
    expect(dayOfDate("2025-11-21")).toBe(20413);
    expect(dayOfDate("2025-02-30")).toBeNaN();
  });
});

describe("dailyHistory", () => {
  it("fills days without grants, keeps totals cumulative and decays the RAC to each day's end", () => {
    const days = dailyHistory(buckets, 14, { firstDay: 99, lastDay: 103, now: 200 * DAY });
    expect(days.map((d) => d.date)).toEqual([99, 100, 101, 102, 103].map(dateOfDay));
    expect(days.map((d) => d.credit)).toEqual([0, 10, 0, 4, 0]);
    expect(days.map((d) => d.total_credit)).toEqual([0, 10, 10, 14, 14]);
    expect(days[0]!.expavg_credit).toBe(0);
    // End of day 100 is 12 h after the pair; of day 101, 36 h; of 102, 18 h after the second pair.
    expect(days[1]!.expavg_credit).toBeCloseTo(5 * halfLives(12 * 3600), 12);
    expect(days[2]!.expavg_credit).toBeCloseTo(5 * halfLives(36 * 3600), 12);
    expect(days[3]!.expavg_credit).toBeCloseTo(6 * halfLives(18 * 3600), 12);
    expect(days[4]!.expavg_credit).toBeCloseTo(6 * halfLives(42 * 3600), 12);
  });

  it("carries the RAC and the total into a window that starts after the first bucket", () => {
    const [d101, d102] = dailyHistory(buckets, 14, { firstDay: 101, lastDay: 102, now: 200 * DAY });
    expect(d101).toMatchObject({ credit: 0, total_credit: 10 });
    expect(d101!.expavg_credit).toBeCloseTo(5 * halfLives(36 * 3600), 12);
    expect(d102).toMatchObject({ credit: 4, total_credit: 14 });
  });

  it("ends today's RAC at now, not at midnight, and a window before every grant is all zero", () => {
    const now = 102 * DAY + 9 * 3600;
    const [today] = dailyHistory(buckets, 14, { firstDay: 102, lastDay: 102, now });
    expect(today!.expavg_credit).toBeCloseTo(6 * halfLives(3 * 3600), 12);
    const early = dailyHistory(buckets, 14, { firstDay: 90, lastDay: 91, now });
    expect(early).toEqual([
      { date: dateOfDay(90), period: "day", credit: 0, total_credit: 0, expavg_credit: 0 },
      { date: dateOfDay(91), period: "day", credit: 0, total_credit: 0, expavg_credit: 0 },
    ]);
  });

  it("a total beyond the buckets (credit older than the history) shows as the opening total", () => {
    const days = dailyHistory(buckets, 20, { firstDay: 100, lastDay: 100, now: 200 * DAY });
    expect(days[0]!.total_credit).toBe(16);
  });
});
