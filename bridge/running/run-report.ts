/**
 * What one run did (the report runBridge returns, the summary line words it), and the lines a
 * run ends with.
 */
import { type CompareSummary, type CreditComparison, summaryText } from "../telling/compare";
import type { Teller } from "../telling/event-log";
import type { TrickleReport } from "./trickles";
import type { WriteBackReport } from "../write-back/write-back";
import { type RoundCounts, type RoundParts, SKIPS_LOGGED } from "./round";

/** What one run did, counted as it happened. */
export interface BridgeReport {
  /** Result rows read from the database (every kind, skipped ones too). */
  rows: number;
  /** Validated results posted in passes, and of those the ones the service already had. */
  results: number;
  replayed: number;
  /** With --follow: rows read again (their mod_time moved) that this process had posted as they are, so not posted again. */
  unchanged: number;
  /** Client errors and timeouts posted in error reports. */
  error_outcomes: number;
  skipped: number;
  passes: number;
  /** Requests that carried the passes. */
  requests: number;
  /** Error reports (requests). */
  errors: number;
  rescales: number;
  /** Host, user and team records sent (new ones and refreshed ones). */
  holders: number;
  seconds: number;
  elapsed_s: number;
  /** Where the cursor is now (the last second fully answered). */
  cursor: { mod_time: number; id: number };
  interrupted: boolean;
  compare: CompareSummary | null;
  /** With --write-back: what was written into the BOINC database. */
  write_back: WriteBackReport | null;
  /** With --follow: seconds from the validator's mod_time to the answered (and written) request. */
  lag: { n: number; mean_s: number; max_s: number } | null;
  /** With trickle credit: the messages posted (and written back). */
  trickles: TrickleReport | null;
}

/** The counts the run's parts kept, and what reads them at its end. */
export interface RunTally {
  rounds: RoundCounts;
  pipeline: { results: number; passes: number; requests: number };
  replayed: number;
  holders: number;
  started: number;
  cursor: BridgeReport["cursor"];
  write_back: WriteBackReport | null;
  lag: BridgeReport["lag"];
  trickles: TrickleReport | null;
}

/** The run's report, after the lines it ends with: what more was skipped than named, and --compare's summary. */
export async function endReport(tally: RunTally, comparison: CreditComparison | null, teller: Teller): Promise<BridgeReport> {
  const counts = tally.rounds;
  if (counts.no_credit > SKIPS_LOGGED) {
    teller.tell("warn", "workunit_no_credit", `… ${counts.no_credit - SKIPS_LOGGED} more workunits with no credit`, {
      more: counts.no_credit - SKIPS_LOGGED,
    });
  }
  if (counts.skipped > SKIPS_LOGGED) {
    teller.tell("warn", "skipped", `… ${counts.skipped - SKIPS_LOGGED} more results skipped`, { more: counts.skipped - SKIPS_LOGGED });
  }
  const compare = comparison ? await comparison.close() : null;
  if (compare) teller.tell("info", "compare", summaryText(compare), { results: compare.results, agreeing: compare.agreeing });
  return {
    rows: counts.rows,
    results: tally.pipeline.results,
    replayed: tally.replayed,
    unchanged: counts.unchanged,
    error_outcomes: counts.error_outcomes,
    skipped: counts.skipped,
    passes: tally.pipeline.passes,
    requests: tally.pipeline.requests,
    errors: counts.errors,
    rescales: counts.rescales,
    holders: tally.holders,
    seconds: counts.seconds,
    elapsed_s: (Date.now() - tally.started) / 1000,
    cursor: tally.cursor,
    interrupted: counts.interrupted,
    compare,
    write_back: tally.write_back,
    lag: tally.lag,
    trickles: tally.trickles,
  };
}

/**
 * What the rounds tell as they go: a result skipped and a workunit of a fixed or post-assigned
 * app posted with credit 0 (the first SKIPS_LOGGED of each; endReport counts the rest), and the
 * rows done for the progress line.
 */
export function roundTelling(teller: Teller, progress: { add(rows: number): void }): Pick<RoundParts, "skipped" | "noCredit" | "progress"> {
  return {
    skipped: (s) => teller.tell("warn", "skipped", `result ${s.id} skipped: ${s.reason}`, { result_id: s.id, reason: s.reason }),
    noCredit: (w) =>
      teller.tell(
        "warn",
        "workunit_no_credit",
        `workunit ${w.workunit_id} (app '${w.app}', credit mode ${w.mode}) has no credit: its canonical_credit is 0 (${w.mode === "fixed" ? "create_work gave it no --credit" : "the validator's init_result() set no claimed_credit"}); its valid results are granted 0, as BOINC's validator grants them`,
        { workunit_id: w.workunit_id, app: w.app, mode: w.mode },
      ),
    progress: (rows) => progress.add(rows),
  };
}
