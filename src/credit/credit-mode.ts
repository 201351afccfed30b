import { lowAverage } from "./averaging";
import { AVG_CPU_FPOPS, BENCHMARK_FAILED_FPOPS } from "./constants";
import type { WorkunitEstimate } from "./pfc";
import { pfcToCreditExpanded } from "./pfc";

/**
 * Where a workunit's credit comes from (BOINC's validator options):
 * adaptive = CreditNew (default); runtime = --credit_from_runtime; fixed = --credit_from_wu
 * (the workunit's canonical_credit); post_assigned = the canonical result's claimed_credit;
 * none = --no_credit; trickle = the app is paid by trickle messages (POST …/trickles), so
 * validation grants nothing, as a BOINC project's validator does for such an app.
 */
export const CREDIT_MODES = ["adaptive", "runtime", "fixed", "post_assigned", "none", "trickle"] as const;
export type CreditMode = (typeof CREDIT_MODES)[number];

/** Whether validating a result grants credit (statistics are kept either way). */
export function grantsOnValidation(mode: CreditMode): boolean {
  return mode !== "none" && mode !== "trickle";
}

export interface RuntimeClaim {
  readonly elapsedTime: number;
  readonly flopsEstimate: number;
}

/**
 * --credit_from_runtime: elapsed × flops per result (1e9 → 4.3e9, no cpu_time fallback), a
 * claim over twice the bound reset to the bound, claims ≤ 0 or over max_granted_credit
 * dropped, then low_average; 0 when nothing remains (docs/spec/edge-cases.md#e22).
 */
export function creditFromRuntime(results: readonly RuntimeClaim[], wu: WorkunitEstimate, maxGrantedCredit: number): number {
  const credits: number[] = [];
  for (const r of results) {
    const flops = r.flopsEstimate === BENCHMARK_FAILED_FPOPS ? AVG_CPU_FPOPS : r.flopsEstimate;
    let pfc = flops * r.elapsedTime;
    if (pfc > 2 * wu.rscFpopsBound) pfc = wu.rscFpopsBound;
    const c = pfcToCreditExpanded(pfc);
    if (c <= 0 || c > maxGrantedCredit) continue;
    credits.push(c);
  }
  return credits.length > 0 ? lowAverage(credits) : 0;
}

/** The validator's final cap (quorum path only); 0 disables it. */
export function capGrantedCredit(credit: number, maxGrantedCredit: number): number {
  return maxGrantedCredit !== 0 ? Math.min(credit, maxGrantedCredit) : credit;
}
