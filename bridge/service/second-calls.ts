/**
 * Pure: turns the result rows of one second into the API calls BOINC's validator would have made
 * (a pass of the valid/invalid results, in workunit-id order, and the errors), and decides when
 * a backfill runs the 10-minute rescale. No I/O here.
 */
import type { components } from "./generated/api-types";
import { EXIT_ABORTED_BY_PROJECT, OUTCOME, VALIDATE_STATE } from "../database/boinc-codes";
import type { CreditMode } from "../database/credit-modes";
import { type AppCredits, statedCredit } from "./mode-credit";
import type { ResultRow } from "../database/rows";

type Schemas = components["schemas"];
export type PassBody = Schemas["PassRequest"];
export type ErrorsBody = Schemas["ErrorsRequest"];
/** The service's answer to a request of passes, and one result of it (reconciled by write-back/answer-check.ts). */
export type PassBatchAnswer = Schemas["PassBatchResponse"];
export type AnsweredResult = Schemas["ResultOutcome"];
type WorkunitBody = Schemas["Workunit"];
type ResultBody = Schemas["Result"];
type ErrorResultBody = Schemas["ErrorResult"];

/** The API's bounds on one request (MAX_WORKUNITS_PER_PASS, MAX_RESULTS_PER_PASS, MAX_ERRORS_PER_REQUEST). */
export const MAX_WORKUNITS_PER_PASS = 1000;
export const MAX_RESULTS_PER_PASS = 5000;
export const MAX_ERRORS_PER_REQUEST = 1000;
/** Anonymous-platform results: BOINC stores -2 … -6 (CPU … Apple GPU) in result.app_version_id. */
const ANONYMOUS = { min: -6, max: -2 };
const MIN_FPOPS = 1;

export interface Skipped {
  id: number;
  reason: string;
}

export interface SecondCalls {
  time: number;
  passes: PassBody[];
  errors: ErrorsBody[];
  skipped: Skipped[];
  /** For --compare: BOINC's own granted credit of every result posted in a pass. */
  boincGranted: Map<number, { granted: number; app: string; workunit_id: number }>;
  /** Workunits of fixed or post-assigned apps posted with no credit (0 in canonical_credit): BOINC grants 0 there too, and logs it. */
  noCredit: { workunit_id: number; app: string; mode: CreditMode }[];
}

function missing(row: ResultRow, columns: (keyof ResultRow)[]): string | null {
  const nulls = columns.filter((c) => row[c] === null || row[c] === undefined);
  return nulls.length === 0 ? null : `NULL ${nulls.join(", ")}`;
}

/** App version id → the name of its app, as the database has them. */
export type KnownVersions = ReadonlyMap<number, string>;

function versionProblem(row: ResultRow, knownVersions: KnownVersions): string | null {
  const v = row.app_version_id!;
  if (v >= ANONYMOUS.min && v <= ANONYMOUS.max) return null;
  if (v <= 0) return `app_version_id ${v} is neither an app version nor an anonymous platform (-2 … -6)`;
  const app = knownVersions.get(v);
  if (app === undefined) return `unknown app version ${v}`;
  // The service refuses such a pass as a whole (422 app_mismatch).
  if (row.app !== null && app !== row.app)
    return `app version ${v} is of app '${app}', not of workunit ${row.workunit_id}'s app '${row.app}'`;
  return null;
}

const PASS_COLUMNS: (keyof ResultRow)[] = [
  "app",
  "rsc_fpops_est",
  "rsc_fpops_bound",
  "target_nresults",
  "host_id",
  "app_version_id",
  "elapsed_time",
  "cpu_time",
  "flops_estimate",
  "sent_time",
  "received_time",
];

/**
 * A decided result as the API's Result, or why it cannot be posted (the API would refuse the whole
 * pass). `stated`: its workunit's credit when its app is on fixed or post_assigned (mode-credit.ts).
 */
function passResult(row: ResultRow, knownVersions: KnownVersions, stated: ReturnType<typeof statedCredit>): ResultBody | string {
  const problem = missing(row, PASS_COLUMNS) ?? versionProblem(row, knownVersions) ?? (typeof stated === "string" ? stated : null);
  if (problem) return problem;
  if (row.host_id! <= 0) return `host id ${row.host_id}`;
  if (row.rsc_fpops_est! < MIN_FPOPS || row.rsc_fpops_bound! < row.rsc_fpops_est!) {
    return `workunit ${row.workunit_id}: rsc_fpops_est ${row.rsc_fpops_est}, rsc_fpops_bound ${row.rsc_fpops_bound}`;
  }
  if (row.target_nresults! < 1) return `workunit ${row.workunit_id}: target_nresults ${row.target_nresults}`;
  for (const c of ["elapsed_time", "cpu_time", "flops_estimate", "sent_time", "received_time"] as const) {
    if (!(row[c]! >= 0)) return `negative ${c} ${row[c]}`;
  }
  if (row.sent_time! > row.received_time!) return `sent_time ${row.sent_time} is after received_time ${row.received_time}`;
  return {
    id: row.id,
    host_id: row.host_id!,
    user_id: Math.max(0, row.user_id ?? 0),
    team_id: Math.max(0, row.team_id ?? 0),
    app_version_id: row.app_version_id!,
    elapsed_time: row.elapsed_time!,
    cpu_time: row.cpu_time!,
    flops_estimate: row.flops_estimate!,
    sent_time: row.sent_time!,
    received_time: row.received_time!,
    validate_state: row.validate_state === VALIDATE_STATE.valid ? "valid" : "invalid",
    runtime_outlier: (row.runtime_outlier ?? 0) !== 0,
    // Every valid result carries it, so whichever the service takes as canonical has it.
    ...(stated !== null && typeof stated !== "string" && stated.mode === "post_assigned" && row.validate_state === VALIDATE_STATE.valid
      ? { claimed_credit: stated.credit }
      : {}),
  };
}

function errorResult(row: ResultRow, knownVersions: KnownVersions): ErrorResultBody | string {
  const problem = missing(row, ["host_id", "app_version_id", "app"]) ?? versionProblem(row, knownVersions);
  if (problem) return problem;
  if (row.host_id! <= 0) return `host id ${row.host_id}`;
  const base = { id: row.id, host_id: row.host_id!, app_version_id: row.app_version_id!, app: row.app! };
  if (row.outcome === OUTCOME.noReply) {
    return row.delay_bound !== null && row.delay_bound >= 0
      ? { ...base, outcome: "timeout", delay_bound: row.delay_bound }
      : `timeout without the workunit's delay_bound`;
  }
  return { ...base, outcome: row.exit_status === EXIT_ABORTED_BY_PROJECT ? "aborted" : "error" };
}

export function isDecided(row: ResultRow): boolean {
  return row.outcome === OUTCOME.success && (row.validate_state === VALIDATE_STATE.valid || row.validate_state === VALIDATE_STATE.invalid);
}

export function isErrorOutcome(row: ResultRow): boolean {
  return row.outcome === OUTCOME.clientError || row.outcome === OUTCOME.noReply;
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Workunits in order, in passes of at most MAX_WORKUNITS_PER_PASS workunits and MAX_RESULTS_PER_PASS results. */
function passChunks(workunits: WorkunitBody[]): WorkunitBody[][] {
  const out: WorkunitBody[][] = [];
  let current: WorkunitBody[] = [];
  let results = 0;
  for (const wu of workunits) {
    if (current.length > 0 && (current.length === MAX_WORKUNITS_PER_PASS || results + wu.results.length > MAX_RESULTS_PER_PASS)) {
      out.push(current);
      current = [];
      results = 0;
    }
    current.push(wu);
    results += wu.results.length;
  }
  if (current.length > 0) out.push(current);
  return out;
}

/**
 * The calls for the rows of one second (all with the same mod_time): one pass with the
 * decided results grouped by workunit in workunit-id order (a database keeps no other order
 * within a second), split only past the API's 1000 workunits or 5000 results, then the errors.
 */
export function callsForSecond(time: number, rows: ResultRow[], knownVersions: KnownVersions, credits?: AppCredits): SecondCalls {
  const skipped: Skipped[] = [];
  const noCredit: SecondCalls["noCredit"] = [];
  const workunits = new Map<number, WorkunitBody>();
  const errors: ErrorResultBody[] = [];
  const boincGranted: SecondCalls["boincGranted"] = new Map();
  for (const row of rows) {
    if (isDecided(row)) {
      const stated = credits ? statedCredit(row, credits) : null;
      const result = passResult(row, knownVersions, stated);
      if (typeof result === "string") {
        skipped.push({ id: row.id, reason: result });
        continue;
      }
      // A string was a problem: the result is skipped above.
      const priced = typeof stated === "string" ? null : stated;
      let wu = workunits.get(row.workunit_id);
      if (!wu) {
        wu = {
          id: row.workunit_id,
          app: row.app!,
          rsc_fpops_est: row.rsc_fpops_est!,
          rsc_fpops_bound: row.rsc_fpops_bound!,
          target_nresults: row.target_nresults!,
          ...(priced?.mode === "fixed" ? { canonical_credit: priced.credit } : {}),
          results: [],
        };
        workunits.set(row.workunit_id, wu);
      }
      if (priced?.credit === 0 && row.validate_state === VALIDATE_STATE.valid && !noCredit.some((w) => w.workunit_id === row.workunit_id))
        noCredit.push({ workunit_id: row.workunit_id, app: row.app!, mode: priced.mode });
      wu.results.push(result);
      boincGranted.set(row.id, { granted: row.granted_credit ?? 0, app: row.app!, workunit_id: row.workunit_id });
    } else if (isErrorOutcome(row)) {
      const result = errorResult(row, knownVersions);
      if (typeof result === "string") skipped.push({ id: row.id, reason: result });
      else errors.push(result);
    }
  }
  const ordered = [...workunits.values()].sort((a, b) => a.id - b.id);
  for (const wu of ordered) wu.results.sort((a, b) => a.id - b.id);
  return {
    time,
    passes: passChunks(ordered).map((workunits) => ({ now: time, workunits })),
    errors: chunks(errors, MAX_ERRORS_PER_REQUEST).map((results) => ({ now: time, results })),
    skipped,
    boincGranted,
    noCredit,
  };
}

/**
 * BOINC rescaled every `every` seconds while history happened. Before an event at `time`, a
 * backfill runs one rescale, with `now` = the latest mark crossed since the previous event
 * (the schedule bridge-11 records: a quiet stretch over several marks gets one rescale).
 */
export function rescaleMarkBefore(previousTime: number | null, time: number, every: number): number | null {
  if (every <= 0 || previousTime === null) return null;
  const mark = Math.floor(time / every) * every;
  return mark > previousTime ? mark : null;
}
