/**
 * What the soak's daemons (boinc-daemons.ts) record as they go, one JSON object a line, for the
 * end checks (soak-checks.ts): each result they decided, each late result's handling (the
 * canonical_credit it read and wrote back), and each row db_purge deleted, with the bridge's
 * row of it as it was at the delete (read under the result's row lock: see purgeOnce).
 */
import { appendFileSync, existsSync, readFileSync } from "node:fs";

export interface ValidatedRecord {
  kind: "validated";
  id: number;
  wu: number;
  host: number;
  valid: boolean;
  /** A late result (its workunit had a canonical result already). */
  late: boolean;
  /** When its validating UPDATE was sent (Unix ms). */
  at: number;
}

/** The validator's pass over a workunit with a late result: the workunit row written back with what it read. */
export interface LateRecord {
  kind: "late";
  wu: number;
  results: number[];
  canonicalRead: number;
  readAt: number;
  writtenAt: number;
}

/** The bridge's row for a result (cobblestone_writeback). */
export interface WritebackRow {
  credit: number;
  grantTime: number;
  /** Unix seconds (the column's whole seconds). */
  writtenAt: number;
}

/** A result row's columns the end checks read, as the purge and the end both read them. */
export interface ResultFields {
  id: number;
  wu: number;
  host: number;
  sentTime: number;
  validateState: number;
  grantedCredit: number;
}

/** The columns of RESULT_FIELDS_SQL, as ResultFields. */
export const RESULT_FIELDS_SQL = "id, workunitid, hostid, sent_time, validate_state, granted_credit";
export function resultFields(r: Record<string, unknown>): ResultFields {
  return {
    id: Number(r.id),
    wu: Number(r.workunitid),
    host: Number(r.hostid),
    sentTime: Number(r.sent_time),
    validateState: Number(r.validate_state),
    grantedCredit: Number(r.granted_credit),
  };
}

export interface PurgedRecord extends ResultFields {
  kind: "purged";
  canonicalCredit: number;
  writeback: WritebackRow | null;
  at: number;
}

/**
 * update_stats wrote a row that had changed since it read it (a grant committed in between, or a
 * grant it read uncommitted and that was rolled back): `lost` is the recent average its write
 * took away (positive) or added (negative), as of `at` (its decay time, Unix seconds).
 */
export interface StatsOverwriteRecord {
  kind: "stats-overwrite";
  table: "host" | "user" | "team";
  id: number;
  lost: number;
  at: number;
}

export type SoakRecord = ValidatedRecord | LateRecord | PurgedRecord | StatsOverwriteRecord;

/** The daemons' counts, written when they stop. */
export interface DaemonCounts {
  workunits: number;
  results: number;
  valid: number;
  invalid: number;
  lateValid: number;
  lateInvalid: number;
  lateStaleZero: number;
  transitioned: number;
  fileDeleted: number;
  purgedResults: number;
  purgedWorkunits: number;
  statsRuns: number;
  statsRows: number;
  statsOverwrites: number;
  reconnects: number;
  lockRetries: number;
  errors: string[];
}

export const emptyCounts = (): DaemonCounts => ({
  workunits: 0,
  results: 0,
  valid: 0,
  invalid: 0,
  lateValid: 0,
  lateInvalid: 0,
  lateStaleZero: 0,
  transitioned: 0,
  fileDeleted: 0,
  purgedResults: 0,
  purgedWorkunits: 0,
  statsRuns: 0,
  statsRows: 0,
  statsOverwrites: 0,
  reconnects: 0,
  lockRetries: 0,
  errors: [],
});

/** Appends records as they happen (synchronously: the soak reads the file after the daemons' process has ended). */
export function recorder(path: string): (r: SoakRecord) => void {
  return (r) => appendFileSync(path, JSON.stringify(r) + "\n");
}

export interface Records {
  validated: Map<number, ValidatedRecord>;
  late: LateRecord[];
  purged: Map<number, PurgedRecord>;
  statsOverwrites: StatsOverwriteRecord[];
}

export function readRecords(path: string): Records {
  const out: Records = { validated: new Map(), late: [], purged: new Map(), statsOverwrites: [] };
  if (!existsSync(path)) return out;
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (!line) continue;
    const r = JSON.parse(line) as SoakRecord;
    if (r.kind === "validated") out.validated.set(r.id, r);
    else if (r.kind === "late") out.late.push(r);
    else if (r.kind === "purged") out.purged.set(r.id, r);
    else out.statsOverwrites.push(r);
  }
  return out;
}
