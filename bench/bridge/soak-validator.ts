/**
 * The soak's work flow up to validation, as BOINC's daemons and clients leave the rows: new
 * workunits with their results reported (a work generator, the scheduler and the clients at
 * once), late results reported some time after their workunit was validated, and a validator
 * run with `--no_credit` (docs/spec/write-back.md, "What --no_credit leaves"):
 *
 * - it enumerates the workunits that need validation, reading each workunit row then, and
 *   handles them one after another over the next second, statement by statement (no
 *   transaction), as BOINC's validator handles a batch;
 * - a workunit without a canonical result: its results become valid (or invalid, a bad
 *   replica) with granted_credit 0, then the workunit row gets its canonical result and
 *   canonical_credit 0;
 * - a workunit with one (a late result): the result is checked against it (valid, or invalid),
 *   then the workunit row is written with every column as it was read at the enumeration,
 *   canonical_credit included: a value the bridge wrote in between is overwritten.
 */
import { OUTCOME, VALIDATE_STATE } from "../../bridge/database/boinc-codes";
import type { DaemonDb } from "./soak-daemon-db";
import { SOAK_APPS, SOAK_HOSTS, hostFlops, ownerOf, teamOf } from "./soak-project";
import type { Random } from "./soak-random";
import type { DaemonCounts, SoakRecord } from "./soak-records";

export interface ValidatorOptions {
  /** Results validated per second (quorum, bad replicas and late results together). */
  rate: number;
  /** Share of workunits that get a late result, and of those the share validated invalid. */
  lateShare: number;
  lateInvalidShare: number;
  /** Share of workunits with a bad third replica (validated invalid with the quorum). */
  badShare: number;
}

const SERVER_STATE = { inProgress: 4, over: 5 } as const;
/** Work not created while the database was away is caught up at most this far. */
const MAX_OWED_SECONDS = 30;
/** The validator spreads a batch's workunits over this share of its second. */
const HANDLING_SHARE = 0.8;

export class Validator {
  private nextWu = 1;
  private nextResult = 1;
  private owed = 0;
  private lastTick = Date.now();
  /** Whether each result not decided yet will be valid. */
  private readonly intents = new Map<number, boolean>();
  /** Late results not reported yet, by the time they will be. */
  private lateDue: { result: number; wu: number; host: number; fpopsEst: number; at: number }[] = [];

  constructor(
    private readonly db: DaemonDb,
    private readonly options: ValidatorOptions,
    private readonly random: Random,
    private readonly record: (r: SoakRecord) => void,
    private readonly counts: DaemonCounts,
    /** Told of each decided result (the transitioner's queue). */
    private readonly decided: (resultId: number, at: number) => void,
  ) {}

  /** One second of the flow: new work, late reports, then a validator pass. */
  async tick(tickMs: number): Promise<void> {
    const now = Date.now();
    const perWorkunit = 2 + this.options.badShare + this.options.lateShare;
    this.owed = Math.min(
      this.owed + ((now - this.lastTick) / 1000) * (this.options.rate / perWorkunit),
      MAX_OWED_SECONDS * this.options.rate,
    );
    this.lastTick = now;
    const n = Math.floor(this.owed);
    this.owed -= n;
    if (n > 0) await this.create(n);
    await this.reportLate();
    await this.validate(tickMs);
  }

  private pickHosts(k: number): number[] {
    const hosts = new Set<number>();
    while (hosts.size < k) hosts.add(1 + Math.floor(this.random() * SOAK_HOSTS));
    return [...hosts];
  }

  /** New workunits of a replication of 2, their two results reported; some with a bad third, some with a late one still out. */
  private async create(n: number): Promise<void> {
    const wus: unknown[][] = [];
    const results: unknown[][] = [];
    const nowS = Math.floor(Date.now() / 1000);
    for (let i = 0; i < n; i++) {
      const wu = this.nextWu++;
      const app = SOAK_APPS[Math.floor(this.random() * SOAK_APPS.length)]!;
      wus.push([wu, nowS - 7200, app.id, `soak_${app.name}_${wu}`, app.fpopsEst, app.fpopsEst * 10, 2, 2, 86_400, 1]);
      const bad = this.random() < this.options.badShare;
      const late = this.random() < this.options.lateShare;
      const hosts = this.pickHosts(2 + (bad ? 1 : 0) + (late ? 1 : 0));
      for (const [k, host] of hosts.entries()) {
        const id = this.nextResult++;
        const isLate = late && k === hosts.length - 1;
        const valid = isLate ? this.random() >= this.options.lateInvalidShare : !(bad && k === 2);
        this.intents.set(id, valid);
        const version = app.versions[host % app.versions.length]!;
        const elapsed = (app.fpopsEst / hostFlops(host)) * (0.8 + 0.4 * this.random());
        const user = ownerOf(host);
        const reported = !isLate;
        results.push([
          id,
          wu,
          app.id,
          `soak_${app.name}_${wu}_${k}`,
          reported ? SERVER_STATE.over : SERVER_STATE.inProgress,
          reported ? OUTCOME.success : OUTCOME.init,
          host,
          user,
          teamOf(user),
          nowS - Math.round(elapsed) - 600 - Math.floor(this.random() * 3600),
          reported ? nowS - Math.floor(this.random() * 30) : 0,
          reported ? elapsed : 0,
          reported ? elapsed * 0.95 : 0,
          hostFlops(host),
          version,
        ]);
        if (isLate) {
          // A third of them come back within seconds (often before the bridge's first write), the rest within minutes.
          const delayS = this.random() < 1 / 3 ? 0.5 + 3.5 * this.random() : 5 + 145 * this.random();
          this.lateDue.push({ result: id, wu, host, fpopsEst: app.fpopsEst, at: Date.now() + delayS * 1000 });
        }
      }
    }
    await this.db.query(
      `INSERT IGNORE INTO workunit (id, create_time, appid, name, rsc_fpops_est, rsc_fpops_bound, target_nresults, min_quorum, delay_bound, need_validate) VALUES ?`,
      [wus],
    );
    await this.db.query(
      `INSERT IGNORE INTO result (id, workunitid, appid, name, server_state, outcome, hostid, userid, teamid, sent_time, received_time,
        elapsed_time, cpu_time, flops_estimate, app_version_id, validate_state, granted_credit) VALUES ?`,
      [results.map((r) => [...r, VALIDATE_STATE.init, 0])],
    );
    this.counts.workunits += wus.length;
    this.counts.results += results.length;
  }

  /** The scheduler takes in late results whose time has come, and flags their workunits for the validator. */
  private async reportLate(): Promise<void> {
    const now = Date.now();
    const due = this.lateDue.filter((l) => l.at <= now);
    if (due.length === 0) return;
    this.lateDue = this.lateDue.filter((l) => l.at > now);
    const nowS = Math.floor(now / 1000);
    for (const l of due) {
      const elapsed = (l.fpopsEst / hostFlops(l.host)) * (0.8 + 0.4 * this.random());
      await this.db.query(
        "UPDATE result SET server_state = ?, outcome = ?, received_time = ?, elapsed_time = ?, cpu_time = ? WHERE id = ? AND server_state = ?",
        [SERVER_STATE.over, OUTCOME.success, nowS, elapsed, elapsed * 0.95, l.result, SERVER_STATE.inProgress],
      );
      await this.db.query("UPDATE workunit SET need_validate = 1 WHERE id = ?", [l.wu]);
    }
  }

  private async validate(tickMs: number): Promise<void> {
    const wus = await this.db.query<{ id: number; canonical_resultid: number; canonical_credit: number }[]>(
      "SELECT id, canonical_resultid, canonical_credit FROM workunit WHERE need_validate = 1 ORDER BY id LIMIT 2000",
    );
    if (wus.length === 0) return;
    const readAt = Date.now();
    const rows = await this.db.query<{ id: number; workunitid: number; hostid: number }[]>(
      "SELECT id, workunitid, hostid FROM result WHERE workunitid IN (?) AND server_state = ? AND outcome = ? AND validate_state = ? ORDER BY id",
      [wus.map((w) => w.id), SERVER_STATE.over, OUTCOME.success, VALIDATE_STATE.init],
    );
    const byWu = new Map<number, { id: number; host: number }[]>();
    for (const r of rows) {
      const wu = Number(r.workunitid);
      if (!byWu.has(wu)) byWu.set(wu, []);
      byWu.get(wu)!.push({ id: Number(r.id), host: Number(r.hostid) });
    }
    const gapMs = (tickMs * HANDLING_SHARE) / wus.length;
    for (const w of wus) {
      const results = byWu.get(Number(w.id)) ?? [];
      const canonical = Number(w.canonical_resultid);
      const late = canonical > 0;
      let firstValid = 0;
      for (const { id, host } of results) {
        const valid = this.intents.get(id) ?? true;
        const at = Date.now();
        await this.db.query("UPDATE result SET validate_state = ?, granted_credit = 0 WHERE id = ? AND validate_state = ?", [
          valid ? VALIDATE_STATE.valid : VALIDATE_STATE.invalid,
          id,
          VALIDATE_STATE.init,
        ]);
        this.intents.delete(id);
        if (valid && !firstValid) firstValid = id;
        this.record({ kind: "validated", id, wu: Number(w.id), host, valid, late, at });
        if (valid) this.counts[late ? "lateValid" : "valid"]++;
        else this.counts[late ? "lateInvalid" : "invalid"]++;
        this.decided(id, at);
      }
      if (late) {
        // The row as read at the enumeration: canonical_credit included (BOINC's update of the workunit writes them all).
        const read = Number(w.canonical_credit);
        await this.db.query("UPDATE workunit SET need_validate = 0, canonical_resultid = ?, canonical_credit = ? WHERE id = ?", [
          canonical,
          read,
          w.id,
        ]);
        if (results.length > 0) {
          if (read === 0) this.counts.lateStaleZero++;
          this.record({
            kind: "late",
            wu: Number(w.id),
            results: results.map((r) => r.id),
            canonicalRead: read,
            readAt,
            writtenAt: Date.now(),
          });
        }
      } else {
        // Results decided by a pass that stopped before its workunit's row (the process stopped between statements).
        if (!firstValid) {
          const [first] = await this.db.query<{ id: number | null }[]>(
            "SELECT MIN(id) AS id FROM result WHERE workunitid = ? AND validate_state = ?",
            [w.id, VALIDATE_STATE.valid],
          );
          firstValid = Number(first?.id ?? 0);
        }
        // --no_credit with CreditNew: no credit computed, canonical_credit 0.
        await this.db.query("UPDATE workunit SET need_validate = 0, canonical_resultid = ?, canonical_credit = 0 WHERE id = ?", [
          firstValid,
          w.id,
        ]);
      }
      await new Promise((r) => setTimeout(r, gapMs));
    }
  }
}
