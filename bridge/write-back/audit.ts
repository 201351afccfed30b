/**
 * `cobblestone-bridge audit`: every valid result of a window (by received_time) that is
 * unpaid, paid outside BOINC's bounds, or paid differently from the service's grant, read from
 * BOINC's tables and the bridge's own, trusting no cursor (docs/bridge.md, "Unpaid results").
 *
 * The service has no per-result read, so "the service's grant" is the bridge's record of it:
 * `cobblestone_writeback.credit`, the service's answer, inserted in the same transaction that
 * wrote granted_credit. A result whose granted_credit differs from it was written over since.
 *
 * The result table is read by primary key, BATCH ids a statement (BOINC has no index on
 * received_time, mod_time or validate_state), so no statement scans the whole table or holds
 * anything for long; only the rows that are findings come back.
 */
import { relativeDifference } from "../telling/compare";
import { creditProblem } from "./credit-bounds";
import { type Queryable, UNPAID_AFTER_SECONDS, VALID } from "./unpaid";
import { WRITEBACK_TABLE } from "../database/write-back-tables";

/** Result ids per statement: a range of the primary key, a few ms. */
const BATCH = 10_000;
/** granted_credit and the bridge's record agree within this, relative (compare.ts' tolerance). */
const SAME = 1e-9;

export const FINDING_KINDS = ["unpaid", "out_of_bounds", "mismatch", "paid_by_other"] as const;
export type FindingKind = (typeof FINDING_KINDS)[number];

export interface Finding {
  kind: FindingKind;
  result_id: number;
  workunit_id: number;
  /** BOINC's app name; null when the workunit or app is gone. */
  app: string | null;
  granted_credit: number;
  /** What the bridge wrote (the service's grant), or null when it wrote nothing. */
  written: number | null;
  received_time: number;
  mod_time: number;
  /** What is wrong, with the values. */
  detail: string;
}

export interface AuditOptions {
  switchTime: number;
  /** The window, by received_time: [since, until). */
  since: number;
  until: number;
  /** The most a result of `app` may be granted (credit-bounds.ts' ceiling). */
  ceiling: (app: string | null) => number;
  /** The lowest ceiling of any app: rows above it come back to be checked against their own. */
  lowestCeiling: number;
  /** Each finding as it is found (memory stays flat however many there are). */
  found: (f: Finding) => void;
  batch?: number;
}

export interface AuditReport {
  counts: Record<FindingKind, number>;
  /** Unpaid so far but validated less than UNPAID_AFTER_SECONDS ago: the bridge has yet to write them, not findings. */
  pending: number;
  /** The result ids read, or null when the table is empty. */
  ids: { from: number; to: number } | null;
}

const iso = (t: number) => new Date(t * 1000).toISOString();

/** Candidate rows of one batch: whatever may be a finding; classify() decides. */
const CANDIDATES = `
  SELECT r.id, r.workunitid AS workunit_id, a.name AS app, r.received_time, UNIX_TIMESTAMP(r.mod_time) AS mod_time,
         r.granted_credit, w.credit AS written, w.result_id IS NOT NULL AS recorded,
         r.mod_time < NOW() - INTERVAL ? SECOND AS settled
  FROM result r
    LEFT JOIN ${WRITEBACK_TABLE} w ON w.result_id = r.id
    LEFT JOIN workunit wu ON wu.id = r.workunitid
    LEFT JOIN app a ON a.id = wu.appid
  WHERE r.id >= ? AND r.id < ? AND ${VALID} AND r.received_time >= ? AND r.received_time < ?
    AND ((w.result_id IS NULL AND r.received_time >= ?)
      OR (w.result_id IS NOT NULL AND r.granted_credit <> w.credit)
      OR r.granted_credit < 0 OR r.granted_credit > ?)
  ORDER BY r.id`;

interface Row {
  id: number;
  workunit_id: number;
  app: string | null;
  received_time: number;
  mod_time: number;
  granted_credit: number;
  written: number | null;
  recorded: boolean;
  settled: boolean;
}

function toRow(r: Record<string, unknown>): Row {
  return {
    id: Number(r.id),
    workunit_id: Number(r.workunit_id),
    app: r.app === null || r.app === undefined ? null : String(r.app),
    received_time: Number(r.received_time),
    mod_time: Number(r.mod_time),
    granted_credit: Number(r.granted_credit),
    written: r.written === null || r.written === undefined ? null : Number(r.written),
    recorded: Number(r.recorded) === 1,
    settled: Number(r.settled) === 1,
  };
}

/** The findings of one candidate row, and whether it is unpaid but too recent to be one. */
export function classify(row: Row, switchTime: number, ceiling: number): { findings: Finding[]; pending: boolean } {
  const findings: Finding[] = [];
  const add = (kind: FindingKind, detail: string) =>
    findings.push({
      kind,
      result_id: row.id,
      workunit_id: row.workunit_id,
      app: row.app,
      granted_credit: row.granted_credit,
      written: row.written,
      received_time: row.received_time,
      mod_time: row.mod_time,
      detail,
    });
  let pending = false;
  const afterSwitch = row.received_time >= switchTime;
  if (!row.recorded && afterSwitch && row.granted_credit === 0) {
    if (row.settled)
      add(
        "unpaid",
        `granted_credit 0, reported ${iso(row.received_time)} (after the switch point), validated by ${iso(row.mod_time)}; the bridge wrote no credit for it`,
      );
    else pending = true;
  } else if (!row.recorded && afterSwitch) {
    add(
      "paid_by_other",
      `granted_credit ${row.granted_credit}, reported ${iso(row.received_time)} (after the switch point), but the bridge wrote no credit for it: a validator still grants, or someone else wrote it`,
    );
  }
  if (row.recorded && row.written !== null && relativeDifference(row.granted_credit, row.written) > SAME) {
    add("mismatch", `granted_credit ${row.granted_credit}, but the bridge wrote ${row.written} (the service's grant)`);
  }
  const problem = creditProblem(row.granted_credit, ceiling);
  if (problem) add("out_of_bounds", `granted_credit ${problem}`);
  return { findings, pending };
}

export async function audit(db: Queryable, options: AuditOptions): Promise<AuditReport> {
  const counts = Object.fromEntries(FINDING_KINDS.map((k) => [k, 0])) as Record<FindingKind, number>;
  let pending = 0;
  const [ends] = await db.query("SELECT MIN(id) AS lo, MAX(id) AS hi FROM result");
  const { lo, hi } = (ends as { lo: unknown; hi: unknown }[])[0]!;
  if (lo === null || hi === null) return { counts, pending, ids: null };
  const [from, to] = [Number(lo), Number(hi)];
  const batch = options.batch ?? BATCH;
  // A finite bound for SQL: no ceiling (0, BOINC's "no cap") leaves only negative credits to find.
  const above = Number.isFinite(options.lowestCeiling) ? options.lowestCeiling : Number.MAX_VALUE;
  for (let start = from; start <= to; start += batch) {
    const [rows] = await db.query(CANDIDATES, [
      UNPAID_AFTER_SECONDS,
      start,
      start + batch,
      options.since,
      options.until,
      options.switchTime,
      above,
    ]);
    for (const raw of rows as Record<string, unknown>[]) {
      const row = toRow(raw);
      const { findings, pending: waiting } = classify(row, options.switchTime, options.ceiling(row.app));
      if (waiting) pending++;
      for (const f of findings) {
        counts[f.kind]++;
        options.found(f);
      }
    }
  }
  return { counts, pending, ids: { from, to } };
}
