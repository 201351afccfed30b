/**
 * The credit a pass carries for an app whose credit BOINC's validator does not compute from the
 * results' own columns: `fixed` (--credit_from_wu) and `post_assigned` (--post_assigned_credit).
 * Both are in the workunit's canonical_credit as BOINC leaves it (docs/spec/write-back.md,
 * "Fixed and post-assigned credit"): create_work's value, which the validator writes back capped;
 * the canonical result's claimed_credit, which the validator holds in memory only and writes into
 * canonical_credit, capped, with or without --no_credit. Pure.
 */
import type { CreditMode } from "../database/credit-modes";
import { BridgeError } from "../shared/errors";
import type { ResultRow } from "../database/rows";
import { VALIDATE_STATE } from "../database/boinc-codes";

/** Each app's mode (the service's, as registered) and the most its validator grants (credit-bounds.ts). */
export interface AppCredits {
  mode(app: string): CreditMode | undefined;
  cap(app: string): number;
}

/** The credit of `row`'s workunit when its app is on fixed or post_assigned (else null), or why it cannot be posted. */
export function statedCredit(row: ResultRow, credits: AppCredits): { mode: CreditMode; credit: number } | string | null {
  const mode = row.app === null ? undefined : credits.mode(row.app);
  if (mode !== "fixed" && mode !== "post_assigned") return null;
  const c = row.canonical_credit ?? 0;
  if (!Number.isFinite(c) || c < 0) return `workunit ${row.workunit_id}: canonical_credit ${c} is not a credit`;
  if (row.validate_state === VALIDATE_STATE.valid && !((row.canonical_resultid ?? 0) > 0)) {
    // The validator writes the results, then the workunit: it is between the two (or was stopped
    // there). A post-assigned credit is not there yet, a fixed one not capped yet (and an older
    // server's --credit_from_wu read it from the workunit's XML, writing it here only then).
    throw new BridgeError(
      `result ${row.id} is valid but its workunit ${row.workunit_id} has no canonical result yet, so the validator has not written the workunit's credit yet (it writes the workunit after its results); the next run reads it again`,
      { transient: true },
    );
  }
  return { mode, credit: Math.min(c, credits.cap(row.app!)) };
}
