/**
 * --write-back: Cobblestone's grants written into the BOINC database as BOINC's validator
 * writes its own when it grants (docs/spec/write-back.md): result.granted_credit,
 * workunit.canonical_credit, host/user/team totals and recent averages, and credit_user /
 * credit_team with <credit_by_app/>. One transaction per request the service answered, on a
 * connection of its own; the bridge's table `cobblestone_writeback` (one row per result
 * written back, inserted in the same transaction) makes each result's write happen once.
 */
import type mysql from "mysql2/promise";
import { updateRecentAverage, type RecentAverage } from "../../src/credit/recent-average";
import { openConnection, redactDsn } from "../database/boinc-db";
import { BridgeError, isTransient } from "../shared/errors";
import { type CreditByAppRow, type GrantPlan, type HolderRow, planGrants } from "./write-back-plan";
import { VALIDATE_STATE, OUTCOME } from "../database/boinc-codes";
import { refuseReadOnly } from "./write-back-refusals";
import { grantedBeforeSwitch } from "./switch-decision";
import { CREATE_SWITCH_TABLE, CREATE_TABLE, SWITCH_TABLE, WRITEBACK_TABLE } from "../database/write-back-tables";
import { CanonicalRepair } from "./canonical-repair";
import { pruneStep } from "./write-back-prune";

/** What the service granted one validated result, with what the write needs from its row. */
export interface Grant {
  result_id: number;
  workunit_id: number;
  app_id: number;
  /** result.userid and result.teamid: where BOINC's per-app credit goes. */
  user_id: number;
  team_id: number;
  sent_time: number;
  credit: number;
  /** When the service granted it (the pass's now): the time of every average it moves. */
  time: number;
}

/** MariaDB's answers that a retry of the whole transaction cures. */
const RETRIED = new Set(["ER_LOCK_DEADLOCK", "ER_LOCK_WAIT_TIMEOUT"]);
const MAX_ATTEMPTS = 8;
/** The connection is gone: whatever the transaction did is rolled back by the server. */
const GONE = new Set([
  "PROTOCOL_CONNECTION_LOST",
  "ER_CONNECTION_KILLED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "ECONNREFUSED",
  "ER_SERVER_SHUTDOWN",
]);

export interface WriteBackReport {
  /** Results whose credit this run wrote. */
  written: number;
  /** Results found already written (a request answered twice, a run killed after its commit). */
  already: number;
  /** Results left out, each with a warning: gone from the database or no longer valid. */
  skipped: number;
  /** Results validated before the switch point that BOINC had granted: its credit stands. */
  boinc_granted: number;
  /** Grants whose host, user or team row is missing: the result is written, the holder is not. */
  missing_holders: number;
  retries: number;
  /** Rows of the bridge's table deleted because their result is gone (write-back-prune.ts). */
  pruned: number;
  /** Workunits whose canonical_credit a validator had written over and the bridge put back (canonical-repair.ts). */
  repaired: number;
}

export interface WriteBackOptions {
  creditByApp: boolean;
  /** `kind`: a retried transaction, a result (or holder) left out, or canonical_credit put back. */
  log: (line: string, kind?: "retry" | "warning" | "repair") => void;
  project: string;
  /** --switch-time: required when the database has no switch point for the project yet. */
  switchTime: number | null;
  /** The most a result of this app (BOINC's app id) may be granted (credit-bounds.ts): the repair never writes more. */
  ceilingOfApp?: (appId: number) => number;
  /** Awaited before each COMMIT (the bridge's one-run guard, run-guard.ts): a throw rolls the request's write back. */
  beforeCommit?: () => Promise<void>;
}

const code = (e: unknown) => (e as { code?: string }).code ?? "";

export class WriteBack {
  /** Set by open(): the project's switch point (Unix seconds). */
  switchTime = 0;

  readonly report: WriteBackReport;

  private constructor(
    private readonly conn: mysql.Connection,
    private readonly dsn: string,
    private readonly options: WriteBackOptions,
    report?: WriteBackReport,
  ) {
    this.report = report ?? {
      written: 0,
      already: 0,
      skipped: 0,
      boinc_granted: 0,
      missing_holders: 0,
      retries: 0,
      pruned: 0,
      repaired: 0,
    };
  }

  /** Workunits written lately, checked again for a validator's older canonical_credit. */
  private repair = new CanonicalRepair();
  /** Where the prune's sweep of the bridge's table goes on (a result id). */
  sweepAfter = 0;

  /** Opens the write connection, refuses where writing is unsafe (refusals.ts), creates the bridge's table if missing. */
  /** `previous`: a reopened write-back (--follow, after the database came back) goes on with its counts, checks and sweep. */
  static async open(dsn: string, options: WriteBackOptions, previous?: WriteBack): Promise<WriteBack> {
    const conn = await openConnection(dsn, { multipleStatements: true });
    const wb = new WriteBack(conn, dsn, options, previous?.report);
    try {
      await refuseReadOnly(conn, options.creditByApp);
      await wb.ensureTable(WRITEBACK_TABLE, CREATE_TABLE);
      await wb.ensureTable(SWITCH_TABLE, CREATE_SWITCH_TABLE);
      wb.switchTime = await wb.switchPoint();
      if (previous) {
        wb.repair = previous.repair;
        wb.sweepAfter = previous.sweepAfter;
      } else await wb.repair.seed(conn);
    } catch (e) {
      await conn.end().catch(() => undefined);
      if (e instanceof BridgeError) throw e;
      // The database gone meanwhile is an outage (--follow backs off; exit 75), not a refusal.
      throw new BridgeError(`--write-back: cannot prepare the bridge's tables in the BOINC database: ${(e as Error).message}`, {
        transient: isTransient(e),
      });
    }
    return wb;
  }

  get connection(): mysql.Connection {
    return this.conn;
  }

  async close(): Promise<void> {
    await this.conn.end().catch(() => undefined);
  }

  private async ensureTable(table: string, create: string): Promise<void> {
    const [rows] = await this.conn.query(
      "SELECT COUNT(*) AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?",
      [table],
    );
    if (Number((rows as { n: number }[])[0]!.n) > 0) return;
    try {
      await this.conn.query(create);
    } catch (e) {
      if (code(e) === "ER_TABLE_EXISTS_ERROR") return;
      throw new BridgeError(
        `--write-back needs its table ${table} in the BOINC database, and this account may not create it (${(e as Error).message}); create it once as the project's database owner:\n${create};`,
      );
    }
  }

  /** The stored switch point, or --switch-time stored now (the first write-back run of the project). */
  private async switchPoint(): Promise<number> {
    const { project, switchTime } = this.options;
    const [rows] = await this.conn.query(`SELECT switch_time FROM ${SWITCH_TABLE} WHERE project = ?`, [project]);
    const stored = (rows as { switch_time: number }[])[0];
    if (stored) {
      const at = Number(stored.switch_time);
      if (switchTime !== null && switchTime !== at) {
        throw new BridgeError(
          `--switch-time ${switchTime} differs from the switch point this database holds for '${project}' (${at}, ${new Date(at * 1000).toISOString()}); leave --switch-time out (or delete the row of ${SWITCH_TABLE} if the switch really moved)`,
        );
      }
      return at;
    }
    if (switchTime === null) {
      throw new BridgeError(
        `the first --write-back run of '${project}' needs --switch-time TIME: when the validators were restarted with --no_credit (docs/bridge.md, "Make Cobblestone the credit of record"); results validated before it keep BOINC's credit`,
      );
    }
    // T is a moment that has happened (the validators' restart): one in the future would turn off
    // the "a validator still grants" refusal until then.
    const [clock] = await this.conn.query("SELECT UNIX_TIMESTAMP() AS now");
    const now = Math.floor(Number((clock as { now: unknown }[])[0]!.now));
    if (switchTime > now) {
      throw new BridgeError(
        `--switch-time ${switchTime} (${new Date(switchTime * 1000).toISOString()}) is later than the database's clock (${now}, ${new Date(now * 1000).toISOString()}): T is when the validators were restarted with --no_credit, by the database's clock (SELECT UNIX_TIMESTAMP();); nothing was stored or written`,
      );
    }
    await this.conn.query(`INSERT INTO ${SWITCH_TABLE} (project, switch_time) VALUES (?, ?)`, [project, switchTime]);
    return switchTime;
  }

  /** Writes one answered request's grants, in order, exactly once; retried on deadlock and lock wait timeout. */
  async write(grants: Grant[]): Promise<void> {
    if (grants.length === 0) return;
    await this.transact(`${grants.length} results`, () => this.transaction(grants));
  }

  /**
   * Runs one transaction of the write-back (`body` starts and commits it on this connection),
   * rolled back on any failure and retried whole on deadlock and lock wait timeout; `what` names
   * it in the failure (trickle-write-back.ts writes through it too).
   */
  async transact<T>(what: string, body: (conn: mysql.Connection) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await body(this.conn);
      } catch (e) {
        await this.conn.query("ROLLBACK").catch(() => undefined);
        if (e instanceof BridgeError) throw e;
        if (RETRIED.has(code(e)) && attempt < MAX_ATTEMPTS) {
          this.report.retries++;
          this.options.log(
            `write-back: ${code(e)} (another writer holds the same rows); retrying the transaction (attempt ${attempt + 1} of ${MAX_ATTEMPTS})`,
            "retry",
          );
          await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
          continue;
        }
        if (GONE.has(code(e)) || (e as { fatal?: boolean }).fatal) {
          throw new BridgeError(
            `the BOINC database ${redactDsn(this.dsn)} went away during a write-back (${code(e) || (e as Error).message}); the transaction was not committed, so nothing of this request is written; run the same command again when the database is back: it resumes at the first request not written`,
            { transient: true },
          );
        }
        // Still locked out after every attempt: the database is busy, not wrong (exit 75, restarted).
        throw new BridgeError(`write-back of ${what} failed: ${(e as Error).message}`, RETRIED.has(code(e)) ? { kind: "unavailable" } : {});
      }
    }
  }

  /** Awaited before each COMMIT: the run guard's check (a throw rolls the transaction back). */
  async beforeCommit(): Promise<void> {
    await this.options.beforeCommit?.();
  }

  /**
   * Between writes (never beside one: they share the connection): a bounded step of the prune of
   * the bridge's table and the check of recently written workunits. `batches` bounds the prune's
   * statements of each kind (1,000 rows each).
   */
  async upkeep(batches: number): Promise<void> {
    try {
      const step = await pruneStep(this.conn, this.sweepAfter, batches);
      this.sweepAfter = step.sweepAfter;
      this.report.pruned += step.deleted;
      const repaired = await this.repair.step(this.conn, this.options.ceilingOfApp);
      if (repaired > 0) {
        this.options.log(
          `write-back: put back the canonical_credit of ${repaired} workunit${repaired === 1 ? "" : "s"} that a validator's late-result pass had written over`,
          "repair",
        );
      }
      this.report.repaired += repaired;
    } catch (e) {
      if (GONE.has(code(e)) || (e as { fatal?: boolean }).fatal) {
        throw new BridgeError(`the BOINC database ${redactDsn(this.dsn)} went away (${code(e) || (e as Error).message})`, {
          transient: true,
        });
      }
      throw e;
    }
  }

  private async transaction(grants: Grant[]): Promise<void> {
    const conn = this.conn;
    await conn.query("START TRANSACTION");
    const ids = grants.map((g) => g.result_id);
    const [doneRows] = await conn.query(`SELECT result_id FROM ${WRITEBACK_TABLE} WHERE result_id IN (?) FOR UPDATE`, [ids]);
    const done = new Set((doneRows as { result_id: number }[]).map((r) => Number(r.result_id)));
    const fresh = grants.filter((g) => !done.has(g.result_id));
    const [resultRows] = fresh.length
      ? await conn.query(
          "SELECT id, hostid, validate_state, outcome, granted_credit, received_time FROM result WHERE id IN (?) FOR UPDATE",
          [fresh.map((g) => g.result_id)],
        )
      : [[]];
    const results = new Map(
      (
        resultRows as {
          id: number;
          hostid: number;
          validate_state: number;
          outcome: number;
          granted_credit: number;
          received_time: number;
        }[]
      ).map((r) => [Number(r.id), r]),
    );
    const writable: (Grant & { host_id: number })[] = [];
    let boincGranted = 0;
    const warnings: string[] = [];
    for (const g of fresh) {
      const r = results.get(g.result_id);
      if (!r) {
        warnings.push(`result ${g.result_id} is gone from the database (purged?): its credit is not written back`);
        continue;
      }
      if (Number(r.validate_state) !== VALIDATE_STATE.valid || Number(r.outcome) !== OUTCOME.success) {
        warnings.push(
          `result ${g.result_id} is no longer a valid success (validate_state ${r.validate_state}, outcome ${r.outcome}): not written back`,
        );
        continue;
      }
      if (Number(r.granted_credit) !== 0 && grantedBeforeSwitch({ received_time: Number(r.received_time) }, this.switchTime)) {
        boincGranted++;
        continue;
      }
      if (Number(r.granted_credit) !== 0) {
        throw new BridgeError(
          `result ${g.result_id}, reported (so validated) after the switch point, already has granted_credit ${r.granted_credit} that the bridge did not write: a validator still grants credit (restart it with --no_credit; docs/bridge.md, "Make Cobblestone the credit of record"). Nothing of this request was written.`,
        );
      }
      writable.push({ ...g, host_id: Number(r.hostid) });
    }
    const plan = writable.length > 0 ? await this.plan(writable) : null;
    if (plan) await conn.query(writeSql(conn, plan, writable));
    // As late as can be: a run that lost its guard since the check before the post commits nothing.
    await this.options.beforeCommit?.();
    await conn.query("COMMIT");
    // Counted and told once committed: a retried transaction would tell them again.
    for (const w of warnings) this.options.log(`write-back: ${w}`, "warning");
    for (const m of plan?.missing ?? []) this.options.log(`write-back: ${m}`, "warning");
    const wrote = new Set(writable.map((w) => w.result_id));
    for (const g of grants)
      if (g.credit > 0 && (done.has(g.result_id) || wrote.has(g.result_id))) this.repair.written(g.workunit_id, g.credit);
    this.report.written += writable.length;
    this.report.already += grants.length - fresh.length;
    this.report.skipped += fresh.length - writable.length - boincGranted;
    this.report.boinc_granted += boincGranted;
    this.report.missing_holders += plan?.missing.length ?? 0;
  }

  /** Reads (and locks) every row the grants move, then computes their new values in the grants' order. */
  private async plan(grants: (Grant & { host_id: number })[]): Promise<GrantPlan> {
    const { hosts, users, teams } = await lockHolders(
      this.conn,
      grants.map((g) => g.host_id),
    );
    let creditUser = new Map<string, CreditByAppRow>();
    let creditTeam = new Map<string, CreditByAppRow>();
    if (this.options.creditByApp) {
      creditUser = await this.creditRows(
        "credit_user",
        "userid",
        grants.map((g) => [g.user_id, g.app_id]),
      );
      creditTeam = await this.creditRows(
        "credit_team",
        "teamid",
        grants.map((g) => [g.team_id, g.app_id]),
      );
    }
    return planGrants(grants, { hosts, users, teams, creditUser, creditTeam, creditByApp: this.options.creditByApp }, average);
  }

  private async creditRows(table: string, holder: string, keys: [number, number][]): Promise<Map<string, CreditByAppRow>> {
    const distinct = [...new Map(keys.map(([h, a]) => [`${h}/${a}`, [h, a] as [number, number]])).values()];
    const [rows] = await this.conn.query(
      `SELECT ${holder} AS holder, appid, expavg, expavg_time FROM ${table} WHERE ${creditByAppKeys(holder)} FOR UPDATE`,
      creditByAppKeyValues(distinct),
    );
    return new Map(
      (rows as Record<string, unknown>[]).map((r) => [
        `${Number(r.holder)}/${Number(r.appid)}`,
        { expavg: Number(r.expavg), expavg_time: Number(r.expavg_time), exists: true },
      ]),
    );
  }
}

/**
 * The credit_user or credit_team rows of these (holder, app) pairs. The pairs alone,
 * `(userid, appid) IN (…)`, are not read by the primary key: MariaDB read the table through
 * another index, about 50 ms for 250 users; the lists of holders and of apps pick the primary
 * key's ranges (a few ms), and the pairs then keep exactly the rows asked for.
 */
const creditByAppKeys = (holder: string) => `credit_type = 0 AND ${holder} IN (?) AND appid IN (?) AND (${holder}, appid) IN (?)`;
const creditByAppKeyValues = (pairs: [number, number][]) => [
  [...new Set(pairs.map(([h]) => h))],
  [...new Set(pairs.map(([, a]) => a))],
  pairs,
];

/** The hosts (and their owners, and the owners' teams) a write moves, read under row locks: what planGrants reads. */
export async function lockHolders(conn: mysql.Connection, hostIds: number[]) {
  const holderRows = async (table: string, ids: number[], extra: string) => {
    if (ids.length === 0) return new Map<number, HolderRow>();
    const [rows] = await conn.query(
      `SELECT id, ${extra} AS link, expavg_credit, expavg_time FROM \`${table}\` WHERE id IN (?) FOR UPDATE`,
      [ids],
    );
    return new Map((rows as Record<string, unknown>[]).map((r) => [Number(r.id), holderRow(r)]));
  };
  const hosts = await holderRows("host", unique(hostIds), "userid");
  const users = await holderRows("user", unique([...hosts.values()].map((h) => h.link)), "teamid");
  const teams = await holderRows("team", unique([...users.values()].map((u) => u.link)), "0");
  return { hosts, users, teams };
}

function holderRow(r: Record<string, unknown>): HolderRow {
  return { link: Number(r.link), expavg_credit: Number(r.expavg_credit), expavg_time: Number(r.expavg_time) };
}

const unique = (ids: number[]) => [...new Set(ids.filter((id) => id > 0))];

/** BOINC's update_average as the project states it once (src/credit/recent-average.ts). */
export function average(ra: RecentAverage, now: number, start: number, work: number): RecentAverage {
  return updateRecentAverage(ra, now, start, work);
}

/**
 * Rows of numbers as a table to join (`SELECT … UNION ALL SELECT …`): an UPDATE by primary key
 * that takes each row's values from it. MariaDB evaluates a CASE branch by branch: for a dense
 * request's 1,900 results the join takes about 40% less time (30 against 50 ms, quiet), and
 * credit_user's 250 rows took 63 ms with nested CASEs at load 4-5. Keys and counts are written
 * as integers, the rest as DOUBLE literals (`…e0`, the shortest text that reads back as the same
 * double).
 */
function literalTable(columns: [name: string, kind: "integer" | "double"][], rows: number[][]): string {
  const literal = (x: number, kind: "integer" | "double") => {
    if (kind === "integer") {
      if (!Number.isSafeInteger(x)) throw new BridgeError(`write-back: ${x} is not an integer`);
      return String(x);
    }
    if (!Number.isFinite(x)) throw new BridgeError(`write-back: a credit of ${x} cannot be written`);
    return /e/i.test(String(x)) ? String(x) : `${x}e0`;
  };
  return rows
    .map((row, i) => `SELECT ${columns.map(([name, kind], c) => literal(row[c]!, kind) + (i === 0 ? ` AS ${name}` : "")).join(", ")}`)
    .join(" UNION ALL ");
}

const creditTable = (rows: [number, number][]) =>
  literalTable(
    [
      ["id", "integer"],
      ["credit", "double"],
    ],
    rows,
  );

/** The UPDATEs of a plan's hosts, users and teams. */
export function holderStatements(plan: Pick<GrantPlan, "hosts" | "users" | "teams">): string[] {
  const out: string[] = [];
  // One statement per table, each row's values joined by its key: a request's hundreds of rows were a statement each.
  for (const [table, rows] of [
    ["host", plan.hosts],
    ["user", plan.users],
    ["team", plan.teams],
  ] as const) {
    if (rows.size === 0) continue;
    const values = literalTable(
      [
        ["id", "integer"],
        ["add_total", "double"],
        ["expavg", "double"],
        ["expavg_time", "double"],
      ],
      [...rows].map(([id, u]) => [id, u.add, u.expavg, u.expavg_time]),
    );
    // total relative (a concurrent writer's addition survives), the average absolute under the row lock (as BOINC writes it).
    out.push(
      `UPDATE \`${table}\` t JOIN (${values}) g ON g.id = t.id ` +
        "SET t.total_credit = t.total_credit + g.add_total, t.expavg_credit = g.expavg, t.expavg_time = g.expavg_time",
    );
  }
  return out;
}

/** Every write of a plan as one multi-statement text (one round trip), inside the open transaction. */
function writeSql(conn: mysql.Connection, plan: GrantPlan, grants: Grant[]): string {
  const f = (sql: string, values: unknown[]) => conn.format(sql, values);
  const out: string[] = [];
  // mod_time = mod_time: the row keeps the time it was validated (BOINC grants in the same statement that validates).
  out.push(
    `UPDATE result r JOIN (${creditTable(grants.map((g) => [g.result_id, g.credit]))}) g ON g.id = r.id ` +
      "SET r.granted_credit = g.credit, r.mod_time = r.mod_time",
  );
  const workunits = [...new Map(grants.map((g) => [g.workunit_id, g.credit])).entries()];
  out.push(`UPDATE workunit w JOIN (${creditTable(workunits)}) g ON g.id = w.id SET w.canonical_credit = g.credit`);
  out.push(...holderStatements(plan));
  for (const [table, holder, rows] of [
    ["credit_user", "userid", plan.creditUser],
    ["credit_team", "teamid", plan.creditTeam],
  ] as const) {
    const stored = [...rows].filter(([, u]) => u.exists);
    const created = [...rows].filter(([, u]) => !u.exists);
    if (stored.length > 0) {
      const values = literalTable(
        [
          ["holder", "integer"],
          ["appid", "integer"],
          ["add_total", "double"],
          ["expavg", "double"],
          ["expavg_time", "double"],
          ["jobs", "integer"],
        ],
        stored.map(([k, u]) => [...k.split("/").map(Number), u.add, u.expavg, u.expavg_time, u.jobs]),
      );
      out.push(
        `UPDATE ${table} c JOIN (${values}) g ON c.${holder} = g.holder AND c.appid = g.appid AND c.credit_type = 0 ` +
          "SET c.total = c.total + g.add_total, c.expavg = g.expavg, c.expavg_time = g.expavg_time, c.njobs = c.njobs + g.jobs",
      );
    }
    if (created.length > 0) {
      out.push(
        f(`INSERT INTO ${table} (${holder}, appid, njobs, total, expavg, expavg_time, credit_type) VALUES ?`, [
          created.map(([k, u]) => [...k.split("/").map(Number), u.jobs, u.add, u.expavg, u.expavg_time, 0]),
        ]),
      );
    }
  }
  out.push(
    f(`INSERT INTO ${WRITEBACK_TABLE} (result_id, workunit_id, credit, grant_time) VALUES ?`, [
      grants.map((g) => [g.result_id, g.workunit_id, g.credit, g.time]),
    ]),
  );
  return out.join(";\n");
}
