/** The line a run ends with. */
import type { BridgeReport } from "./run";

/** The summary line: what happened, each kind counted once. */
export function summary(report: BridgeReport, dryRun: boolean): string {
  const would = dryRun ? "would post" : "posted";
  const replayed = report.replayed > 0 ? ` (${report.replayed} the service already had)` : "";
  const unchanged = report.unchanged > 0 ? `, ${report.unchanged} read again unchanged and not posted again` : "";
  return (
    `${would} ${report.results} validated results${replayed} in ${report.passes} passes (${report.requests} requests)${unchanged}, ` +
    `${report.error_outcomes} error outcomes in ${report.errors} reports, ${report.rescales} rescales; ` +
    `${report.skipped} results skipped; ${report.holders} host/user/team records ${dryRun ? "to send" : "sent"}; ` +
    `${report.rows} rows read in ${report.elapsed_s.toFixed(1)} s` +
    (report.write_back
      ? `; wrote back ${report.write_back.written} results (${report.write_back.already} written before, ${report.write_back.skipped} skipped, ${report.write_back.boinc_granted} validated before the switch with BOINC's credit, ${report.write_back.missing_holders} missing hosts/users/teams, ${report.write_back.retries} retried transactions; ${report.write_back.pruned} rows of purged results pruned from its table, ${report.write_back.repaired} workunits' canonical_credit put back)`
      : "") +
    (report.trickles
      ? `; trickle messages: ${report.trickles.posted} posted (${report.trickles.replayed} the service already had), ${report.trickles.credit.toFixed(2)} credit, ${report.trickles.unpaid} not paid${report.write_back ? `, ${report.trickles.written} written back` : ""}`
      : "") +
    (report.lag && report.lag.n > 0
      ? `; lag behind the validator ${report.lag.mean_s.toFixed(1)} s on average, ${report.lag.max_s.toFixed(1)} s at most`
      : "")
  );
}
