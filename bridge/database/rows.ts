/** One result row as the bridge reads it from BOINC's `result` joined with its `workunit` and `app`. */
export interface ResultRow {
  id: number;
  /** result.mod_time in Unix seconds: when the validator (or transitioner) last wrote the row. */
  mod_time: number;
  workunit_id: number;
  /** workunit.appid (BOINC's result.appid holds the same). */
  app_id?: number | null;
  app: string | null;
  rsc_fpops_est: number | null;
  rsc_fpops_bound: number | null;
  target_nresults: number | null;
  delay_bound: number | null;
  host_id: number | null;
  user_id: number | null;
  team_id: number | null;
  app_version_id: number | null;
  elapsed_time: number | null;
  cpu_time: number | null;
  flops_estimate: number | null;
  sent_time: number | null;
  received_time: number | null;
  validate_state: number | null;
  outcome: number | null;
  exit_status: number | null;
  runtime_outlier: number | null;
  granted_credit: number | null;
  /** workunit.canonical_credit and canonical_resultid: a fixed or post-assigned app's credit (mode-credit.ts). */
  canonical_credit?: number | null;
  canonical_resultid?: number | null;
}

/** Where the bridge has got to: the last result row whose second Cobblestone has fully answered. */
export interface Cursor {
  mod_time: number;
  id: number;
}

export function after(row: Pick<ResultRow, "mod_time" | "id">, cursor: Cursor): boolean {
  return row.mod_time > cursor.mod_time || (row.mod_time === cursor.mod_time && row.id > cursor.id);
}
