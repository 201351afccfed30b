/**
 * What the run does with each answer of the request pipeline: the grants it means (checked
 * against the request and the apps' ceilings: answer-grants.ts), counted (replayed, --compare);
 * and once they are written, --follow's lag and memory of what it posted, and the request told.
 */
import { grantsOfAnswer, type PassBatchAnswer } from "../write-back/answer-grants";
import type { CreditComparison } from "../telling/compare";
import type { DatabaseClock } from "./database-clock";
import type { FollowMeter } from "./follow-meter";
import type { PassRequest } from "./request-pipeline";
import type { RoundSource } from "./round-source";
import type { AppCeilings } from "./service-apps";
import type { BridgeStatus } from "../telling/status";
import type { Teller } from "../telling/event-log";
import type { Grant } from "../write-back/write-back";

export interface AnswerParts {
  ceilings: AppCeilings;
  comparison: CreditComparison | null;
  /** --follow's window read again and rows posted (round-source.ts), the lag measured by the database's clock. */
  source: Pick<RoundSource, "rereads" | "posted">;
  meter: FollowMeter | null;
  clock: DatabaseClock;
  writeBack: boolean;
  status: BridgeStatus | null;
  teller: Teller;
}

export class Answers {
  /** Results the service already had (answered as replayed). */
  replayed = 0;

  constructor(private readonly parts: AnswerParts) {}

  /** The grants of one answered request, as soon as it is answered. */
  readonly grants = (request: PassRequest, answer: PassBatchAnswer): Grant[] => {
    const { comparison, ceilings } = this.parts;
    return grantsOfAnswer(request.passes, answer, request.rows, ceilings.now, (r, workunitId) => {
      if (r.replayed) this.replayed++;
      const theirs = request.boincGranted.get(r.id);
      if (theirs && comparison)
        comparison.add({
          result_id: r.id,
          workunit_id: workunitId,
          app: theirs.app,
          boinc: theirs.granted,
          cobblestone: r.granted_credit,
        });
    });
  };

  /** After the request's write (with or without --write-back), before its save. */
  readonly written = (request: PassRequest, written: number): void => {
    const { meter, clock, writeBack, status, teller } = this.parts;
    const { rereads, posted } = this.parts.source;
    let lagMax: number | null = null;
    if (meter && rereads) {
      // To the millisecond: the clocks' sum carries float noise (2.1000001430511475).
      lagMax = Math.round(meter.answered(request.rows.values(), clock.now(), written) * 1000) / 1000;
      for (const row of request.rows.values()) rereads.add(row);
      status?.lagged(lagMax);
    }
    // Answered and written: from now on, the same row read again is not posted again.
    posted?.rememberPasses(request.passes, request.rows);
    teller.note(
      "request",
      `request answered: ${request.passes.length} passes, ${request.results} results${writeBack ? `, ${written} written back` : ""}`,
      {
        passes: request.passes.length,
        results: request.results,
        written: writeBack ? written : null,
        lag_max_s: lagMax,
      },
    );
  };
}
