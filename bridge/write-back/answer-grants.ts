/**
 * What the service's answer to one request of passes means for the write-back: a grant per valid
 * result, once the answer is reconciled with the request (answer-check.ts): every result posted
 * comes back exactly once, as posted, and every valid one with a credit BOINC would grant. An
 * answer that fails is refused whole: nothing of its request is written, and the cursor stays.
 */
import { refuseUnreconciled } from "./answer-check";
import type { CreditCeilings } from "./credit-bounds";
import type { AnsweredResult, PassBatchAnswer, PassBody } from "../service/second-calls";
import type { ResultRow } from "../database/rows";
import type { Grant } from "./write-back";

export type { AnsweredResult, PassBatchAnswer };

/**
 * The grants of an answered request's valid results, in the answer's order. `seen` is shown
 * every result answered (the replayed count, --compare). `rows` are the rows the request was
 * built from: a result without its row (none today) is not written.
 */
export function grantsOfAnswer(
  passes: readonly PassBody[],
  answer: PassBatchAnswer,
  rows: ReadonlyMap<number, ResultRow>,
  ceilings: CreditCeilings,
  seen: (result: AnsweredResult, workunitId: number) => void = () => undefined,
): Grant[] {
  refuseUnreconciled(passes, answer, ceilings);
  const grants: Grant[] = [];
  for (const [i, p] of answer.passes.entries()) {
    // The grant's time is the pass's own now, as posted: a pass answered again after a crash
    // (replayed) may come back with the project's later clock, and must write the same numbers.
    const grantTime = passes[i]!.now ?? p.now;
    for (const w of p.workunits) {
      for (const r of w.results) {
        const row = rows.get(r.id);
        if (row && r.validate_state === "valid") grants.push(grantOf(row, r.granted_credit, grantTime));
        seen(r, w.id);
      }
    }
  }
  return grants;
}

export function grantOf(row: ResultRow, credit: number, time: number): Grant {
  return {
    result_id: row.id,
    workunit_id: row.workunit_id,
    app_id: row.app_id ?? 0,
    user_id: Math.max(0, row.user_id ?? 0),
    team_id: Math.max(0, row.team_id ?? 0),
    sent_time: row.sent_time ?? 0,
    credit,
    time,
  };
}
