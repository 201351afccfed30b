/**
 * The rows a batch inserts once and never updates: each result's final outcome (a pass's, or a
 * reported error's: error-writes.ts) and each credited workunit. The insert fails on a result
 * another request already decided, or a workunit it already credited, and the whole batch
 * with it (nothing written): the exactly-once check of docs/spec/api-contract.md#concurrency.
 */
import { type SQL, sql } from "drizzle-orm";
import { results, workunits } from "./schema";
import { chunks, insertFromJson, jsonInt64, wholeSeconds } from "./sql-helpers";
import { FAIR_RULE_CODES, PFC_MODES, RESULT_OUTCOMES, type ResultOutcomeName, encode, encodeNullable } from "./codes";
import type { PfcMode } from "../credit/pfc";
import type { FairRule } from "../credit/fair-claim";
import type { PassEffects } from "../credit/pass";
import type { PhasedWrites } from "./write-phases";

/** A result's final outcome as stored; absent fields are NULL. */
export interface OutcomeRow {
  readonly id: number;
  readonly appId: number;
  readonly hostId: number;
  /** The verdict of a validated result, or the error outcome ("valid_unclaimed" is told by the missing policy credits). */
  readonly outcome: Exclude<ResultOutcomeName, "valid_unclaimed">;
  readonly grantedCredit: number;
  readonly claimedCredit?: number | null;
  readonly pfcMode?: PfcMode | null;
  readonly boincCredit?: number | null;
  readonly fairCredit?: number | null;
  readonly fairRule?: FairRule | null;
  /** http/fingerprint.ts's decimal text. */
  readonly fingerprint: string;
  /** When it was decided, if not at the `now` given for all (a pass batch's rows). */
  readonly decidedAt?: number;
}

/** Inserts final outcomes; a result id already decided makes the whole batch fail. */
export function outcomeInserts(projectId: number, now: number, rows: readonly OutcomeRow[]): SQL[] {
  const stored = rows.map((r) => ({
    id: r.id,
    appId: r.appId,
    hostId: r.hostId,
    outcome: encode(RESULT_OUTCOMES, r.outcome === "valid" && (r.boincCredit ?? null) === null ? "valid_unclaimed" : r.outcome),
    grantedCredit: r.grantedCredit,
    claimedCredit: r.claimedCredit ?? null,
    pfcMode: encodeNullable(PFC_MODES, r.pfcMode),
    // Each policy's credit is stored only where it differs from the one before it: the
    // granted credit is BOINC's under the boinc policy, and most apps' two policies pay alike.
    boincCredit: r.boincCredit === r.grantedCredit ? null : (r.boincCredit ?? null),
    fairCredit: r.fairCredit === r.boincCredit ? null : (r.fairCredit ?? null),
    fairRule: encodeNullable(FAIR_RULE_CODES, r.fairRule),
    fingerprint: r.fingerprint,
    decidedAt: wholeSeconds(r.decidedAt ?? now),
  }));
  return chunks(stored).map((chunk) =>
    insertFromJson(
      sql`${results}`,
      [
        [results.projectId, sql`${projectId}`],
        [results.id, "id"],
        [results.appId, "appId"],
        [results.hostId, "hostId"],
        [results.outcome, "outcome"],
        [results.grantedCredit, "grantedCredit"],
        [results.claimedCredit, "claimedCredit"],
        [results.pfcMode, "pfcMode"],
        [results.boincCredit, "boincCredit"],
        [results.fairCredit, "fairCredit"],
        [results.fairRule, "fairRule"],
        [results.fingerprint, jsonInt64("fingerprint")],
        [results.decidedAt, "decidedAt"],
      ],
      chunk,
    ),
  );
}

/** The credited workunits, each with the time it was credited at (whole seconds). */
export function workunitInserts(projectId: number, rows: readonly { id: number; appId: number; credit: number; at: number }[]): SQL[] {
  return chunks(rows).map((chunk) =>
    insertFromJson(
      sql`${workunits}`,
      [
        [workunits.projectId, sql`${projectId}`],
        [workunits.id, "id"],
        [workunits.appId, "appId"],
        [workunits.credit, "credit"],
        [workunits.creditedAt, "at"],
      ],
      chunk,
    ),
  );
}

/** A pass batch's results and credited workunits, each row at the `now` of the pass that decided it. */
export function passOutcomePhases(
  projectId: number,
  passes: readonly { now: number; effects: Pick<PassEffects, "results" | "workunits"> }[],
): Pick<PhasedWrites, "outcomes" | "workunits"> {
  return {
    outcomes: outcomeInserts(
      projectId,
      0,
      passes.flatMap(({ now, effects }) => effects.results.map((r) => ({ ...r, outcome: r.validateState, decidedAt: now }))),
    ),
    workunits: workunitInserts(
      projectId,
      passes.flatMap(({ now, effects }) =>
        effects.workunits.map((w) => ({ id: w.id, appId: w.appId, credit: w.credit, at: wholeSeconds(now) })),
      ),
    ),
  };
}
