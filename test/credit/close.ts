import { expect } from "vitest";

/** Asserts |actual − expected| ≤ tol·|expected| (tol = 1e-12 unless told). */
export function expectRel(actual: number, expected: number, tol = 1e-12): void {
  const err = Math.abs(actual - expected);
  const bound = tol * Math.abs(expected);
  if (!(err <= bound)) {
    expect.fail(`expected ${actual} to be within ${tol} relative of ${expected} (error ${err})`);
  }
}
