/** What bench/cost.ts measures (bench/results/cost.json); no Node imports, so the capacity model and its test can use it anywhere. */
export interface CostRow {
  readonly size: number;
  readonly passes: number;
  readonly validResults: number;
  readonly rowsReadPerResult: number;
  readonly rowsWrittenPerResult: number;
  /** Growth of the database per validated result in this phase (bytes). */
  readonly bytesPerResult: number;
  /** Rows written per validated result by statement target ("UPDATE hosts", …), largest first. */
  readonly writtenByTarget: Record<string, number>;
  /** Growth of each table (its indexes included) per validated result in this phase (bytes), largest first. */
  readonly bytesByTable: Record<string, number>;
}

export interface CostSummary {
  readonly rows: CostRow[];
  /**
   * A second day of passes of 100 for the same hosts: every subject it credits gets a new
   * daily history row, so its growth beyond its results' bytes is the history's.
   */
  readonly nextDay: CostRow & { readonly historyRows: number };
  readonly sizeBytes: number;
  readonly accounts: { hosts: number; users: number; teams: number };
  readonly retainedRows: { results: number; workunits: number; creditHistory: number };
  /** Each table's bytes (its indexes included) at the end of the run. */
  readonly tableBytes: Record<string, number>;
}
