import { peggedAverage } from "./averaging";
import {
  type AppCreditSettings,
  type PfcMode,
  type PfcResult,
  type WorkunitEstimate,
  pfcToCredit,
  pfcToCreditExpanded,
  wuEstimatedPfc,
} from "./pfc";

/** One valid result's claim as assign_credit_set sees it after get_pfc. */
export interface Claim {
  readonly pfc: PfcResult;
  /** The PFC after the rsc_fpops_bound cap. */
  readonly cappedPfc: number;
  /** get_pfc's mode, or "invalid" when the claim exceeds max_granted_credit. */
  readonly mode: PfcMode;
  /** cappedPfc in credit (BOINC's expanded macro form). */
  readonly claimedCredit: number;
}

/** Steps 2–3 of assign_credit_set for one result: the bound cap and the max_granted test. */
export function claimFromPfc(pfc: PfcResult, wu: WorkunitEstimate, maxGrantedCredit: number): Claim {
  const cappedPfc = Math.min(pfc.pfc, wu.rscFpopsBound);
  const claimedCredit = pfcToCreditExpanded(cappedPfc);
  const overMax = maxGrantedCredit !== 0 && claimedCredit > maxGrantedCredit;
  return { pfc, cappedPfc, claimedCredit, mode: overMax ? "invalid" : pfc.mode };
}

/**
 * The averaging step of assign_credit_set: two or more NORMAL claims ignore the approximate
 * ones; a single NORMAL claim counts twice among the approximate ones; INVALID claims are
 * dropped; with nothing left the workunit estimate is the answer (docs/spec/edge-cases.md#e23).
 */
export function creditFromClaims(claims: readonly Claim[], wu: WorkunitEstimate, app: AppCreditSettings): number {
  const normal = claims.filter((c) => c.mode === "normal").map((c) => c.cappedPfc);
  const approx = claims.filter((c) => c.mode === "approx" || c.mode === "wu_est").map((c) => c.cappedPfc);
  const anchor = wuEstimatedPfc(wu, app);
  let x: number;
  if (normal.length >= 2) {
    x = peggedAverage(normal, anchor);
  } else {
    if (normal.length === 1) approx.push(normal[0]!, normal[0]!);
    x = approx.length > 0 ? peggedAverage(approx, anchor) : anchor;
  }
  return pfcToCredit(x);
}
