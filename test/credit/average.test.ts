import { describe, expect, it } from "vitest";
import { type Average, EMPTY_AVERAGE, EMPTY_AVERAGE_VAR, truncatedSample, updateAverage, updateAverageVar } from "../../src/credit/average";
import { AV_AVERAGE, HAV_AVERAGE } from "../../src/credit/constants";
import { expectRel } from "./close";

const feed = (samples: readonly number[], p = HAV_AVERAGE, from: Average = EMPTY_AVERAGE) =>
  samples.reduce((acc, x) => updateAverage(acc, x, p), from);
const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);

describe("AVERAGE with HAV parameters (20, 0.01, 10) — docs/spec/credit.md#reference-values vectors", () => {
  it("samples 1, 2, 3 give the running mean 1, 1.5, 2", () => {
    expect(feed([1])).toEqual({ n: 1, avg: 1 });
    expect(feed([1, 2])).toEqual({ n: 2, avg: 1.5 });
    expect(feed([1, 2, 3])).toEqual({ n: 3, avg: 2 });
  });

  it("truncates a sample of 100 to 10 × avg = 20: n=4, avg=6.5", () => {
    // (1 + 2 + 3 + 20) / 4 = 6.5
    expect(feed([1, 2, 3, 100])).toEqual({ n: 4, avg: 6.5 });
  });

  it("ignores a negative sample", () => {
    const before = feed([1, 2, 3, 100]);
    expect(updateAverage(before, -1, HAV_AVERAGE)).toEqual({ n: 4, avg: 6.5 });
  });

  it("accepts a zero sample: n=5, avg=5.2", () => {
    // 6.5 + (0 − 6.5)/5 = 5.2
    const s = feed([1, 2, 3, 100, -1, 0]);
    expect(s.n).toBe(5);
    expectRel(s.avg, 5.2);
  });

  it("then sample 5: n=6, avg=5.1666666666666670", () => {
    // 5.2 + (5 − 5.2)/6
    const s = feed([1, 2, 3, 100, -1, 0, 5]);
    expect(s.n).toBe(6);
    expectRel(s.avg, 5.166666666666667);
  });

  it("samples 1..25 from scratch: n=25, avg=10.73321344609", () => {
    // 1..19: running mean 10; from the 20th on avg += 0.01·(x − avg):
    // 10.1, 10.209, 10.32691, 10.4536409, 10.589104491, 10.73321344609
    const s = feed(range(1, 25));
    expect(s.n).toBe(25);
    expectRel(s.avg, 10.73321344609);
  });
});

describe("AVERAGE edge rules (docs/spec/credit.md#average, docs/spec/edge-cases.md#e25)", () => {
  it("does not truncate while the average is 0", () => {
    // three zeros, then 1000: nothing to truncate against; (0+0+0+1000)/4 = 250
    expect(feed([0, 0, 0, 1000])).toEqual({ n: 4, avg: 250 });
  });

  it("truncates at exactly avg × limit, not below", () => {
    const s: Average = { n: 1, avg: 3 };
    expect(truncatedSample(s, 30, HAV_AVERAGE.limit)).toBe(30);
    expect(truncatedSample(s, 31, HAV_AVERAGE.limit)).toBe(30);
  });

  it("with HAV parameters the 19th sample is still a running mean", () => {
    // 18 zeros then 38: 38/19 = 2
    expect(feed([...Array(18).fill(0), 38])).toEqual({ n: 19, avg: 2 });
  });

  it("with HAV parameters the 20th sample switches to weight 0.01", () => {
    // 19 zeros then 100: avg stays 0 (no truncation), n=20 ≥ thresh → 0 + 0.01·100 = 1
    // (a running mean would give 100/20 = 5)
    expect(feed([...Array(19).fill(0), 100])).toEqual({ n: 20, avg: 1 });
  });

  it("with AV parameters the 99th sample is a running mean and the 100th has weight 0.001", () => {
    // 98 zeros then 99: 99/99 = 1
    const at99 = feed([...Array(98).fill(0), 99], AV_AVERAGE);
    expect(at99).toEqual({ n: 99, avg: 1 });
    // then 3: n=100 ≥ thresh → 1 + 0.001·(3 − 1) = 1.002
    const at100 = updateAverage(at99, 3, AV_AVERAGE);
    expect(at100.n).toBe(100);
    expectRel(at100.avg, 1.002);
  });
});

describe("AVERAGE_VAR with (20, 0.01, 10) — docs/spec/credit.md#reference-values vectors", () => {
  const feedVar = (samples: readonly number[]) => samples.reduce((acc, x) => updateAverageVar(acc, x, HAV_AVERAGE), EMPTY_AVERAGE_VAR);

  it("{2,4,4,4,5,5,7,9}: avg=5, var=4, q=32 (population variance)", () => {
    // mean 40/8 = 5; squared deviations 9+1+1+1+0+0+4+16 = 32; 32/8 = 4
    expect(feedVar([2, 4, 4, 4, 5, 5, 7, 9])).toEqual({ n: 8, avg: 5, var: 4, q: 32 });
  });

  it("1..22: avg=10.32691, var=32.65556581, q=570 (q frozen in the exponential phase)", () => {
    // 1..19: avg 10, q = 2·(1+4+…+81) = 570, var = 570/19 = 30.
    // 20: δ=10     → avg 10.1,     var 30 + 0.01·(100 − 30)               = 30.7
    // 21: δ=10.9   → avg 10.209,   var 30.7 + 0.01·(118.81 − 30.7)        = 31.5811
    // 22: δ=11.791 → avg 10.32691, var 31.5811 + 0.01·(139.027681 − 31.5811) = 32.65556581
    const s = feedVar(range(1, 22));
    expect(s.n).toBe(22);
    expect(s.q).toBe(570);
    expectRel(s.avg, 10.32691);
    expectRel(s.var, 32.655565809999999);
  });

  it("ignores a negative sample", () => {
    const s = feedVar([2, 4]);
    expect(updateAverageVar(s, -3, HAV_AVERAGE)).toEqual(s);
  });

  it("truncates like AVERAGE: 1 then 50 counts as 10", () => {
    // mean (1 + 10)/2 = 5.5; q = 0 + (10 − 1)·(10 − 5.5) = 40.5; var = 40.5/2 = 20.25
    expect(feedVar([1, 50])).toEqual({ n: 2, avg: 5.5, q: 40.5, var: 20.25 });
  });
});
