/**
 * --follow reads a result again whenever its mod_time moves after validation (BOINC's
 * transitioner seconds later, the file deleter a minute or two later, the write-back itself):
 * the row comes back after the cursor. This remembers what was posted of each result this
 * process posted and got answered (and, with --write-back, written), so that a row read again
 * unchanged is not posted again, and a changed one (validate_state, outcome, a value) is.
 *
 * Only what is through is remembered (answers.ts: after the request's write; round.ts: after the
 * error report's answer), so a failure or pipeline.abandon() leaves nothing claimed that the
 * service never answered. A process starts with nothing remembered (a restart, a run from
 * cron): with --write-back, a valid result it does not know is looked up in the write-back's
 * table, whose row says the service answered it and the grant was written; the rest (invalid
 * results, error outcomes) are posted again, which is safe (the service answers `replayed`).
 *
 * Bound: the last MAX_REMEMBERED results remembered (the oldest forgotten first), each an id and
 * 48 bits of a SHA-1 of its fields, about 55 bytes of heap an entry: at most about 6 MB. That is
 * 80 minutes at the soak's 20 results/s, far past the file deleter's delay; a result forgotten
 * sooner at a higher rate is only posted again.
 */
import { createHash } from "node:crypto";
import { VALIDATE_STATE } from "../database/boinc-codes";
import { type PassBody, isDecided } from "../service/second-calls";
import type { ResultRow } from "../database/rows";

export const MAX_REMEMBERED = 100_000;

/**
 * Every column a Result, ErrorResult or Workunit body is built from (events.ts), so an unchanged
 * fingerprint means the same body: not mod_time, nor granted_credit (the write-back's, and only
 * --compare's), nor the pass's `now`.
 */
const FIELDS = [
  "validate_state",
  "outcome",
  "exit_status",
  "runtime_outlier",
  "host_id",
  "user_id",
  "team_id",
  "app_version_id",
  "elapsed_time",
  "cpu_time",
  "flops_estimate",
  "sent_time",
  "received_time",
  "workunit_id",
  "app",
  "rsc_fpops_est",
  "rsc_fpops_bound",
  "target_nresults",
  "delay_bound",
] as const satisfies readonly (keyof ResultRow)[];

/** 48 bits of the fields' SHA-1: a number V8 keeps in a Map without a string (a chance change is missed once in 2^48). */
export function fingerprint(row: ResultRow): number {
  const values = FIELDS.map((f) => row[f] ?? null);
  return createHash("sha1").update(JSON.stringify(values)).digest().readUIntBE(0, 6);
}

/** Of these results, the ones the write-back has written (BoincDb.writtenBack). */
export type WrittenBack = (ids: number[]) => Promise<Set<number>>;

export class PostedResults {
  private readonly posted = new Map<number, number>();

  constructor(
    private readonly writtenBack: WrittenBack | null = null,
    readonly max = MAX_REMEMBERED,
  ) {}

  /**
   * The rows of each second still to post: the others are remembered as they are, or (with
   * the write-back) valid results this process never posted that its table holds. A row
   * remembered with other content is posted again, even if written: the service must see the change.
   */
  async unposted(seconds: readonly (readonly ResultRow[])[]): Promise<ResultRow[][]> {
    const fresh = seconds.map((rows) => rows.filter((r) => !this.has(r)));
    const unknown = this.writtenBack
      ? fresh.flat().filter((r) => !this.posted.has(r.id) && isDecided(r) && r.validate_state === VALIDATE_STATE.valid)
      : [];
    if (unknown.length === 0) return fresh;
    const written = await this.writtenBack!(unknown.map((r) => r.id));
    if (written.size === 0) return fresh;
    for (const r of unknown) if (written.has(r.id)) this.remember(r);
    return fresh.map((rows) => rows.filter((r) => !written.has(r.id)));
  }

  /** The service has this row as it is now: posted by this process, answered (and written), and unchanged since. */
  has(row: ResultRow): boolean {
    const f = this.posted.get(row.id);
    return f !== undefined && f === fingerprint(row);
  }

  /** A row posted and answered (and written back). */
  remember(row: ResultRow): void {
    // Deleted first, so that the Map's order stays the order remembered (the oldest first).
    this.posted.delete(row.id);
    this.posted.set(row.id, fingerprint(row));
    if (this.posted.size > this.max) this.posted.delete(this.posted.keys().next().value!);
  }

  /** The results of answered passes, from their request's rows. */
  rememberPasses(passes: readonly PassBody[], rows: ReadonlyMap<number, ResultRow>): void {
    for (const p of passes) {
      for (const w of p.workunits) {
        for (const r of w.results) {
          const row = rows.get(r.id);
          if (row) this.remember(row);
        }
      }
    }
  }

  get size(): number {
    return this.posted.size;
  }
}
