import { PEGGED_PROXIMITY } from "./constants";

/**
 * BOINC's pegged_average: values near the anchor (the workunit estimate) dominate; each value
 * weighs 1 / (0.1·anchor + |anchor − value|). A single value is returned unchanged.
 */
export function peggedAverage(values: readonly number[], anchor: number): number {
  if (values.length === 1) return values[0]!;
  let weighted = 0;
  let weights = 0;
  for (const v of values) {
    const w = 1 / (PEGGED_PROXIMITY * anchor + Math.abs(anchor - v));
    weighted += v * w;
    weights += w;
  }
  return weighted / weights;
}

/**
 * BOINC's low_average (credit from runtime): each value weighs the sum of the others, which
 * damps a large outlier. A single value is returned unchanged.
 */
export function lowAverage(values: readonly number[]): number {
  if (values.length === 1) return values[0]!;
  const sum = values.reduce((a, b) => a + b, 0);
  let weighted = 0;
  for (const v of values) weighted += v * (sum - v);
  return weighted / ((values.length - 1) * sum);
}
