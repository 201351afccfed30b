/**
 * Monthly history buckets, by hand: month numbers, the roll-up boundary, one month from a run
 * of days, and the history series across the boundary.
 */
import { describe, expect, it } from "vitest";
import { dailyHistory, dateOfDay, dayOfDate } from "../../src/credit/history";
import { firstDayOfMonth, foldMonths, monthOfDay, rollUp, rollUpBoundary } from "../../src/credit/history-months";

const DAY = 86400;
const HALF_LIFE = 7 * DAY;
const halfLives = (seconds: number) => 0.5 ** (seconds / HALF_LIFE);

describe("month arithmetic", () => {
  it("numbers months from 1970-01 and finds their first days", () => {
    // 1970-01 has 31 days, 1970-02 28: 1970-02-01 is day 31, 1970-03-01 day 59.
    expect(monthOfDay(0)).toBe(0);
    expect(monthOfDay(30)).toBe(0);
    expect(monthOfDay(31)).toBe(1);
    expect(monthOfDay(58)).toBe(1);
    expect(monthOfDay(59)).toBe(2);
    expect(firstDayOfMonth(0)).toBe(0);
    expect(firstDayOfMonth(1)).toBe(31);
    expect(firstDayOfMonth(2)).toBe(59);
    // 2025-11-21 is day 20413: (2025 − 1970) × 12 + 11 − 1 = 670; its month starts 20 days earlier.
    expect(monthOfDay(20413)).toBe(670);
    expect(firstDayOfMonth(670)).toBe(20393);
    expect(dateOfDay(firstDayOfMonth(670))).toBe("2025-11-01");
    // December → January of the next year.
    expect(dateOfDay(firstDayOfMonth(671))).toBe("2025-12-01");
    expect(dateOfDay(firstDayOfMonth(672))).toBe("2026-01-01");
  });

  it("rolls up only whole months older than the span", () => {
    // 730 days before 2025-11-21 is 2023-11-22 (2023-11-21 → 2025-11-21 is 731 days: it holds
    // 2024-02-29). November 2023 still has days inside the span: months before it roll up.
    expect(rollUpBoundary(dayOfDate("2025-11-21"), 730)).toBe(dayOfDate("2023-11-01"));
    // 62 days before 2025-05-02 is 2025-03-01 exactly: February is all older, March is not.
    expect(rollUpBoundary(dayOfDate("2025-05-02"), 62)).toBe(dayOfDate("2025-03-01"));
    // A day later the cut is 2025-03-02: still March.
    expect(rollUpBoundary(dayOfDate("2025-05-03"), 62)).toBe(dayOfDate("2025-03-01"));
  });
});

describe("rollUp", () => {
  it("sums the credit and keeps the RAC pair of the latest time, whatever the order of the days", () => {
    const run = [
      { day: 1, credit: 3, expavgCredit: 5, expavgTime: 100 },
      { day: 2, credit: 4, expavgCredit: 7, expavgTime: 300 },
      { day: 3, credit: 2.5, expavgCredit: 6, expavgTime: 200 },
    ];
    // 3 + 4 + 2.5 = 9.5; the pair at t = 300 (day 2's) is the latest.
    expect(rollUp(run, 0)).toEqual({ day: 0, credit: 9.5, expavgCredit: 7, expavgTime: 300 });
    expect(rollUp([], 0)).toEqual({ day: 0, credit: 0, expavgCredit: 0, expavgTime: 0 });
  });

  it("folds everything before the boundary into months, day rows and monthly rows alike", () => {
    const buckets = [
      { day: 0, credit: 10, expavgCredit: 4, expavgTime: 20 * DAY }, // January's monthly row
      { day: 31, credit: 7, expavgCredit: 5, expavgTime: 45 * DAY }, // February's monthly row
      { day: 40, credit: 5, expavgCredit: 6, expavgTime: 40 * DAY }, // a late day row in February
      { day: 60, credit: 2, expavgCredit: 3, expavgTime: 60 * DAY }, // a day after the boundary
    ];
    expect(foldMonths(buckets, 59)).toEqual([
      { day: 0, credit: 10, expavgCredit: 4, expavgTime: 20 * DAY },
      // 7 + 5 = 12; the monthly row's pair (t = 45 d) is later than the day row's (40 d).
      { day: 31, credit: 12, expavgCredit: 5, expavgTime: 45 * DAY },
      { day: 60, credit: 2, expavgCredit: 3, expavgTime: 60 * DAY },
    ]);
  });
});

describe("dailyHistory across the monthly boundary", () => {
  // Boundary 1970-03-01 (day 59). January 10 and February 7 + 5 are kept by month; day 60 has 2.
  // The total is 30: 6 was granted before any bucket kept.
  const buckets = [
    { day: 0, credit: 10, expavgCredit: 4, expavgTime: 20 * DAY },
    { day: 31, credit: 7, expavgCredit: 5, expavgTime: 45 * DAY },
    { day: 40, credit: 5, expavgCredit: 6, expavgTime: 40 * DAY + 3600 },
    { day: 60, credit: 2, expavgCredit: 3, expavgTime: 60 * DAY + 7200 },
  ];
  const now = 100 * DAY;

  it("answers whole months before it and days from it, the totals counting back from the total", () => {
    // The window starts 1970-02-05: all of February comes as one month.
    const h = dailyHistory(buckets, 30, { firstDay: 35, lastDay: 61, now }, 59);
    expect(h.map((e) => [e.date, e.period, e.credit, e.total_credit])).toEqual([
      ["1970-02-01", "month", 12, 28],
      ["1970-03-01", "day", 0, 28],
      ["1970-03-02", "day", 2, 30],
      ["1970-03-03", "day", 0, 30],
    ]);
    // February ends at day 59, 14 days (two half-lives) after its latest pair (5 at 45 d).
    expect(h[0]!.expavg_credit).toBeCloseTo(5 * 0.25, 12);
    // 1970-03-01 ends at day 60: 15 days after that pair.
    expect(h[1]!.expavg_credit).toBeCloseTo(5 * halfLives(15 * DAY), 12);
    // Day 60's pair (3 at 60 d + 2 h) to the end of day 60 (22 h) and of day 61 (46 h).
    expect(h[2]!.expavg_credit).toBeCloseTo(3 * halfLives(22 * 3600), 12);
    expect(h[3]!.expavg_credit).toBeCloseTo(3 * halfLives(46 * 3600), 12);
  });

  it("the whole history's credit plus the opening total is the total; a window inside the months is months", () => {
    const all = dailyHistory(buckets, 30, { firstDay: 0, lastDay: 61, now }, 59);
    expect(all.filter((e) => e.period === "month").map((e) => e.date)).toEqual(["1970-01-01", "1970-02-01"]);
    const sum = all.reduce((s, e) => s + e.credit, 0);
    expect(sum).toBe(10 + 12 + 2);
    expect(all[0]!.total_credit - all[0]!.credit + sum).toBe(30);
    // 1970-01-06 … 1970-01-21: January whole; its total is 30 − 2 − 12 = 16.
    // Its RAC: January's pair (4 at 20 d) at the end of January (day 31), 11 days later.
    const january = dailyHistory(buckets, 30, { firstDay: 5, lastDay: 20, now }, 59);
    expect(january).toHaveLength(1);
    expect(january[0]).toMatchObject({ date: "1970-01-01", period: "month", credit: 10, total_credit: 16 });
    expect(january[0]!.expavg_credit).toBeCloseTo(4 * halfLives(11 * DAY), 12);
  });
});
