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
  const average = weighted / weights;
  return Number.isFinite(average) ? average : peggedAverageScaled(values, anchor);
}

/**
 * The same average when BOINC's arithmetic breaks down: a value at an anchor so small that
 * 0.1 × anchor underflows has weight 1/0, and huge weights overflow the sums (∞/∞ = NaN).
 * Weights divided by the largest one give the same ratio in finite numbers; values at zero
 * distance are then the only ones that count, as in the limit.
 */
function peggedAverageScaled(values: readonly number[], anchor: number): number {
  const distances = values.map((v) => PEGGED_PROXIMITY * anchor + Math.abs(anchor - v));
  const nearest = Math.min(...distances);
  let weighted = 0;
  let weights = 0;
  values.forEach((v, i) => {
    const w = nearest === 0 ? (distances[i] === 0 ? 1 : 0) : nearest / distances[i]!;
    weighted += v * w;
    weights += w;
  });
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
