/**
 * Trickle credit through the bridge (docs/bridge.md, "Trickle credit"): the messages of the
 * project's trickle_credit variety, read from msg_from_host in id order, posted to the
 * service's trickles endpoint (up to 1,000 a request) with the hosts they name registered first
 * (owner and p_fpops), and with --write-back written into BOINC's tables (trickle-write-back.ts).
 *
 * Read-only, the project's own handler still runs and marks the messages handled: the bridge
 * reads every message after its cursor (msg_from_host.id, in the state file). With --write-back
 * the handler is stopped and the bridge is it: it reads the messages not handled yet and marks
 * them in the transaction that writes their credit.
 */
import type mysql from "mysql2/promise";
import type { CobblestoneApi } from "../service/api-client";
import { hostCpid } from "../database/cpid";
import { BridgeError } from "../shared/errors";
import { eachLimited, emptyHolderIds, type HolderRegistrar } from "../service/holders";
import { type TrickleSettings, trickleApp } from "../database/trickle-config";
import {
  type TrickleHost,
  type TrickleRow,
  largestFpops,
  messagesAfter,
  runtimeOf,
  trickleHosts,
  unhandledMessages,
} from "../database/trickle-messages";
import { type PostedTrickle, refuseUnreconciledTrickles } from "../write-back/trickle-answer";
import type { TrickleWrite, TrickleWritten } from "../write-back/trickle-write-back";

/** The API's most messages per request. */
export const TRICKLES_PER_REQUEST = 1000;

/**
 * Read-only: messages this recent by the database's clock wait for the next round, so that one
 * whose insert committed after a later id's is not passed by the cursor (as results: SETTLE_SECONDS).
 */
export const TRICKLE_SETTLE_SECONDS = 10;

export interface TrickleReport {
  /** Requests to the trickles endpoint, the messages they posted, and of those the ones the service had paid before. */
  requests: number;
  posted: number;
  replayed: number;
  credit: number;
  /** Messages the handler does not pay (no positive runtime, or an unknown host): told, and with --write-back marked handled. */
  unpaid: number;
  /** With --write-back: messages whose credit was written. */
  written: number;
}

export interface TrickleParts {
  pool: mysql.Pool;
  /** Null in a dry run: the messages are counted, nothing is posted. */
  api: CobblestoneApi | null;
  registrar: HolderRegistrar;
  settings: TrickleSettings;
  /** --write-back: writes one answered batch; null read-only. */
  write: ((batch: TrickleWrite) => Promise<TrickleWritten>) | null;
  /** The cursor (msg_from_host.id) as saved, and saving a new one. */
  cursor: () => number;
  saveCursor: (id: number) => Promise<void>;
  serverTime: () => Promise<number>;
  /** `warn`: a message not paid, or a holder missing from the write. */
  log: (line: string, warn?: boolean) => void;
  signal?: AbortSignal;
}

type ServiceApp = { name: string; credit_mode: string; trickle_max_runtime: number | null };

export class TrickleFeed {
  readonly report: TrickleReport = { requests: 0, posted: 0, replayed: 0, credit: 0, unpaid: 0, written: 0 };
  private app = "";
  /** Per host, the owner and p_fpops this run registered (a host is sent again when they change). */
  private readonly sent = new Map<number, string>();

  constructor(private readonly parts: TrickleParts) {}

  /**
   * Picks the app and sets it on the service to credit_mode "trickle" with the handler's
   * --max_runtime, unless it has both already (one PUT, with a manage token; an ingest token is
   * refused, and the fix named).
   */
  async prepare(databaseApps: readonly { name: string }[], serviceApps: readonly ServiceApp[]): Promise<void> {
    const { settings, api, log } = this.parts;
    this.app = trickleApp(settings, databaseApps);
    log(
      `trickle credit: messages of variety '${settings.variety}' paid under app '${this.app}', runtime cut at ${settings.maxRuntime} s${this.parts.write ? ", written back" : ""}`,
    );
    const there = serviceApps.find((a) => a.name === this.app);
    if (!api || (there?.credit_mode === "trickle" && there.trickle_max_runtime === settings.maxRuntime)) return;
    try {
      await api.putApp(this.app, { credit_mode: "trickle", trickle_max_runtime: settings.maxRuntime });
    } catch (e) {
      if (!(e instanceof BridgeError) || !e.message.includes("insufficient_scope")) throw e;
      throw new BridgeError(
        `trickle credit: app '${this.app}' must be set to credit_mode "trickle" with trickle_max_runtime ${settings.maxRuntime} on the service, and the bridge's token may not (${e.message}). Set it once with the project's manage token: PUT /v1/projects/{slug}/apps/${this.app} {"credit_mode": "trickle", "trickle_max_runtime": ${settings.maxRuntime}} (docs/bridge.md, "Trickle credit")`,
      );
    }
  }

  /** Posts (and writes back) every message there is now, batch by batch; stops early when the signal aborts. */
  async round(): Promise<void> {
    for (;;) {
      if (this.parts.signal?.aborted) return;
      const rows = await this.next();
      if (rows.length === 0) return;
      if (!this.parts.api) {
        this.parts.log(`dry run: would post ${rows.length} trickle messages from id ${rows[0]!.id}`);
        return;
      }
      await this.batch(rows);
      if (rows.length < TRICKLES_PER_REQUEST) return;
    }
  }

  /** The next batch: the unhandled messages (--write-back), or the settled ones after the cursor. */
  private async next(): Promise<TrickleRow[]> {
    const { pool, settings } = this.parts;
    if (this.parts.write) return unhandledMessages(pool, settings.variety, this.parts.cursor(), TRICKLES_PER_REQUEST);
    const rows = await messagesAfter(pool, settings.variety, this.parts.cursor(), TRICKLES_PER_REQUEST);
    const settled = (await this.parts.serverTime()) - TRICKLE_SETTLE_SECONDS;
    const young = rows.findIndex((r) => Number(r.create_time) > settled);
    return young < 0 ? rows : rows.slice(0, young);
  }

  private async batch(rows: TrickleRow[]): Promise<void> {
    const { api, write, log } = this.parts;
    const hosts = await trickleHosts(this.parts.pool, [...new Set(rows.map((r) => Number(r.hostid)))]);
    const payable: { row: TrickleRow; runtime: number }[] = [];
    for (const row of rows) {
      const runtime = runtimeOf(row.xml);
      if (runtime === null || !(runtime > 0)) {
        log(`trickle message ${row.id}: no positive <runtime> (${runtime ?? "none"}): not paid, as BOINC's handler pays none`, true);
        this.report.unpaid++;
      } else if (!hosts.has(Number(row.hostid))) {
        log(`trickle message ${row.id}: host ${row.hostid} is not in the database: not paid, as BOINC's handler pays none`, true);
        this.report.unpaid++;
      } else payable.push({ row, runtime });
    }
    await this.register(payable.map((p) => hosts.get(Number(p.row.hostid))!));
    const ids = rows.map((r) => Number(r.id));
    let paid: TrickleWrite["paid"] = [];
    // Written back, the credit is written at the database's clock, as BOINC's handler writes at its
    // own: never at the answer's `now`, which is the service's word (the grant's time in RAC).
    let now = await this.parts.serverTime();
    if (payable.length > 0) {
      // Read-only, paid when the message came (the handler pays within seconds); written back, now.
      if (!write) now = Math.min(now, Math.max(...payable.map((p) => Number(p.row.create_time))));
      const answer = await api!.postTrickles({
        now,
        messages: payable.map((p) => ({ id: Number(p.row.id), app: this.app, host_id: Number(p.row.hostid), runtime: p.runtime })),
      });
      const posted: PostedTrickle[] = payable.map((p) => ({
        id: Number(p.row.id),
        runtime: p.runtime,
        hostFpops: hosts.get(Number(p.row.hostid))!.p_fpops,
      }));
      const largest = posted.some((m) => m.hostFpops < 0) ? await largestFpops(this.parts.pool) : 0;
      refuseUnreconciledTrickles(posted, answer, this.parts.settings.maxRuntime, largest);
      const byId = new Map(answer.messages.map((m) => [m.id, m]));
      paid = payable.map((p) => {
        const m = byId.get(Number(p.row.id))!;
        if (m.replayed) this.report.replayed++;
        this.report.credit += m.granted_credit;
        return { id: m.id, host_id: Number(p.row.hostid), credit: m.granted_credit };
      });
      this.report.requests++;
      this.report.posted += payable.length;
    }
    if (write) {
      // The messages BOINC's handler paid before it was stopped are posted only: its credit stands.
      const mine = new Set(rows.filter((r) => Number(r.handled) === 0).map((r) => Number(r.id)));
      const written = await write({ ids: [...mine], paid: paid.filter((p) => mine.has(p.id)), now });
      this.report.written += written.written;
      for (const m of written.missing) log(`trickle write-back: ${m}`, true);
    }
    await this.parts.saveCursor(Math.max(this.parts.cursor(), ...ids));
  }

  /** The hosts (their owners and teams first) with what the service pays by: owner and p_fpops, each sent once a run unless changed. */
  private async register(hosts: TrickleHost[]): Promise<void> {
    const fresh = [...new Map(hosts.map((h) => [h.id, h])).values()].filter((h) => this.sent.get(h.id) !== `${h.userid}/${h.p_fpops}`);
    if (fresh.length === 0 || !this.parts.api) return;
    const wanted = emptyHolderIds();
    for (const h of fresh) {
      if (h.userid > 0) wanted.users.add(h.userid);
      if (h.teamid !== null && h.teamid > 0) wanted.teams.add(h.teamid);
    }
    await this.parts.registrar.register(wanted);
    const api = this.parts.api;
    await eachLimited(fresh, 8, async (h) => {
      await api.putHost(h.id, {
        create_time: h.create_time,
        user_id: Math.max(0, h.userid),
        p_fpops: h.p_fpops,
        ...(h.host_cpid && h.owner_email ? { cpid: hostCpid(h.host_cpid, h.owner_email) } : {}),
      });
      this.sent.set(h.id, `${h.userid}/${h.p_fpops}`);
    });
  }
}
