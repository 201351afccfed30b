/** Numbers as the pages show them. */
import { describe, expect, it } from "vitest";
import { formatCompact, formatCount, formatCredit, formatRate, formatStatistic, formatTime } from "../../src/web/format";

describe("formatCount", () => {
  it("groups thousands with commas", () => {
    expect(formatCount(0)).toBe("0");
    expect(formatCount(999)).toBe("999");
    expect(formatCount(12345)).toBe("12,345");
    expect(formatCount(1234567)).toBe("1,234,567");
  });
});

describe("formatCredit", () => {
  it("shows whole credits with separators from 100 on", () => {
    expect(formatCredit(12345.4)).toBe("12,345");
    expect(formatCredit(12345.6)).toBe("12,346");
    expect(formatCredit(100)).toBe("100");
    expect(formatCredit(73_000_000)).toBe("73,000,000");
  });
  it("shows two decimals below 100", () => {
    expect(formatCredit(6.944444444444444)).toBe("6.94");
    expect(formatCredit(99.994)).toBe("99.99");
    expect(formatCredit(0.5)).toBe("0.50");
  });
  it("reads zero, round-off dust and tiny amounts sensibly", () => {
    expect(formatCredit(0)).toBe("0");
    expect(formatCredit(-0)).toBe("0");
    // A day's total counted back from the sum can be -1e-13: that is zero.
    expect(formatCredit(-1e-13)).toBe("0");
    expect(formatCredit(0.001)).toBe("< 0.01");
    expect(formatCredit(Number.NaN)).toBe("–");
  });
});

describe("formatCompact and formatRate", () => {
  it("keeps three significant digits below 1,000", () => {
    expect(formatCompact(0)).toBe("0");
    expect(formatCompact(6.944)).toBe("6.94");
    expect(formatCompact(0.68764)).toBe("0.688");
    expect(formatCompact(850.4)).toBe("850");
    expect(formatCompact(999.4)).toBe("999");
    expect(formatCompact(0.004)).toBe("< 0.01");
  });
  it("uses k, M, G with one decimal under 10 and none above", () => {
    expect(formatCompact(3200)).toBe("3.2 k");
    expect(formatCompact(3249)).toBe("3.2 k");
    expect(formatCompact(12_345)).toBe("12 k");
    expect(formatCompact(345_678)).toBe("346 k");
    expect(formatCompact(1_500_000)).toBe("1.5 M");
    expect(formatCompact(2.5e9)).toBe("2.5 G");
    expect(formatCompact(4e18)).toBe("4000 P");
  });
  it("moves to the next unit where rounding would reach it", () => {
    expect(formatCompact(999.6)).toBe("1.0 k");
    expect(formatCompact(9_960)).toBe("10 k");
    expect(formatCompact(9_940)).toBe("9.9 k");
    expect(formatCompact(999_600)).toBe("1.0 M");
  });
  it("says per day", () => {
    expect(formatRate(3200)).toBe("3.2 k/day");
    expect(formatRate(6.944)).toBe("6.94/day");
  });
});

describe("formatStatistic", () => {
  it("shows four significant digits, and an exponent when tiny or huge", () => {
    expect(formatStatistic(0)).toBe("0");
    expect(formatStatistic(1)).toBe("1");
    expect(formatStatistic(0.987654)).toBe("0.9877");
    expect(formatStatistic(1234.5678)).toBe("1,235");
    expect(formatStatistic(3.333333e-10)).toBe("3.333e-10");
    expect(formatStatistic(3e12)).toBe("3.000e+12");
  });
});

describe("formatTime", () => {
  it("is the UTC date and minute", () => {
    expect(formatTime(1795242961.296)).toBe(new Date(1795242961296).toISOString().slice(0, 16).replace("T", " ") + " UTC");
    expect(formatTime(0)).toBe("1970-01-01 00:00 UTC");
  });
});
