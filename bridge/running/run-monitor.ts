/**
 * What a monitor reads of a run (--metrics-port, --metrics-file: telling/status.ts): the live
 * numbers lent to the status, whether it follows, and with --write-back the unpaid results
 * counted for the metric (unpaid-watch.ts). A backfill's progress line on a terminal too.
 */
import type { BoincDb } from "../database/boinc-db";
import type { Cursor } from "../database/rows";
import { Progress } from "../telling/progress";
import type { BridgeStatus } from "../telling/status";
import type { Teller } from "../telling/event-log";
import type { RequestPipeline } from "./request-pipeline";
import type { BridgeOptions } from "./run-options";
import type { BridgeState } from "./state";
import { UnpaidWatch } from "./unpaid-watch";
import type { WriteBackReport } from "../write-back/write-back";

export interface MonitoredRun {
  pipeline: Pick<RequestPipeline, "counts" | "pending">;
  state: BridgeState;
  /** The write-back's report (null until it opened, and without --write-back). */
  writeBackReport: () => WriteBackReport | null;
  /** The unpaid count; null without --write-back. */
  countUnpaid: (() => Promise<number | null>) | null;
  teller: Teller;
}

/** Attaches the run to its status; the unpaid watch it needs (the run settles it before the database closes), or null. */
export function monitorRun(options: BridgeOptions, status: BridgeStatus | null, run: MonitoredRun): UnpaidWatch | null {
  if (!status) return null;
  const { pipeline, state, writeBackReport, countUnpaid, teller } = run;
  status.attach({
    posted: () => pipeline.counts.answered,
    written: () => writeBackReport()?.written ?? 0,
    backlog: () => pipeline.pending,
    writeBackRetries: () => writeBackReport()?.retries ?? 0,
    cursor: () => state.cursor.mod_time,
  });
  status.following = (options.follow ?? null) !== null;
  if (!countUnpaid || !options.countUnpaid) return null;
  return new UnpaidWatch(countUnpaid, status, (msg, fields) => teller.tell("warn", "unpaid", msg, fields));
}

/**
 * A backfill's progress line: counting is a scan of BOINC's whole result table (no index on
 * mod_time), so only for the line, and beside the first reads rather than before them.
 */
export function progressLine(options: BridgeOptions, boinc: Pick<BoincDb, "countAfter">, cursor: Cursor, until: number): Progress {
  const shown = options.progress && !options.follow;
  const progress = new Progress(0, process.stderr, shown);
  if (shown) {
    boinc.countAfter(cursor, until).then(
      (n) => (progress.total = n),
      () => undefined,
    );
  }
  return progress;
}
