/**
 * docs/spec/fair-policy.md#r2: a workunit's credit from its valid results' fair claims. As BOINC's
 * assign_credit_set, a pegged average anchored at the expected PFC, then max_granted_credit;
 * but never NaN, infinite or negative (docs/spec/fair-policy.md#r19).
 */
import { PEGGED_PROXIMITY } from "./constants";
import { pfcToCredit } from "./pfc";

/** A fair claim as the workunit counts it: non-finite or negative → est × s, then within [0, bound]. */
export function boundFairClaim(pfc: number, est: number, bound: number, scale: number): number {
  const sane = Number.isFinite(pfc) && pfc >= 0 ? pfc : est * scale;
  return Number.isNaN(bound) ? sane : Math.max(0, Math.min(sane, bound));
}

/** pegged_average, falling back to the smallest claim where the weights break down. */
function guardedPeggedAverage(values: readonly number[], anchor: number): number {
  if (values.length === 1) return values[0]!;
  const smallest = Math.min(...values);
  if (!(Number.isFinite(anchor) && anchor > 0)) return smallest;
  let weights = 0;
  let weighted = 0;
  for (const x of values) {
    const d = PEGGED_PROXIMITY * anchor + Math.abs(anchor - x);
    if (!(Number.isFinite(d) && d > 0)) return smallest;
    const w = 1 / d;
    weights += w;
    weighted += w * x;
  }
  const out = weights > 0 ? weighted / weights : smallest;
  return Number.isFinite(out) ? out : smallest;
}

/**
 * `anchor`: the expected PFC of the first valid result whose version has a level (null: none
 * has, and the claims' mean anchors them). `maxGrantedCredit` 0 disables the cap.
 */
export function fairWorkunitCredit(claims: readonly number[], anchor: number | null, maxGrantedCredit: number): number {
  if (claims.length === 0) return 0;
  const a = anchor || claims.reduce((sum, c) => sum + c, 0) / claims.length;
  const credit = pfcToCredit(guardedPeggedAverage(claims, a));
  if (!(Number.isFinite(credit) && credit > 0)) return 0;
  return maxGrantedCredit > 0 ? Math.min(credit, maxGrantedCredit) : credit;
}
