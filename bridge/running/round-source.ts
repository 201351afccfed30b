/**
 * Where each round's rows come from: BOINC's result table after the saved cursor, up to a
 * second, each scan's keys checked before any of their rows is posted (--write-back); with
 * --follow also the window before the cursor read again (a transaction that stamped its mod_time
 * and committed later), less the rows this process posted there and would post as they are.
 */
import type { BoincDb, ResultKey } from "../database/boinc-db";
import type { ResultRow } from "../database/rows";
import { PostedResults } from "./posted-results";
import { RereadWindow } from "./reread-window";
import { FOLLOW_REREAD_SECONDS } from "./run-options";
import type { BridgeState } from "./state";

/** What the source asks of the write-back (write-back-stage.ts). */
export interface SourceWriteBack {
  /** With --write-back: --follow asks the write-back's table which rows it wrote. */
  on: boolean;
  /** Its opening: the first scan waits for it (the switch point), not for the service. */
  opened: Promise<void>;
  /** Each scan's keys before their rows are posted (the write-back's refusal). */
  checkScan(keys: ResultKey[]): Promise<void>;
  /** Where --write-back starts again: moves the state's cursor back. */
  startPoint(state: BridgeState): void;
}

export class RoundSource {
  /** --follow: the window read again before the cursor, and the rows posted (a row read again is posted only if changed). */
  readonly rereads: RereadWindow | null;
  readonly posted: PostedResults | null;

  constructor(
    private readonly db: Pick<BoincDb, "rowsAfter" | "writtenBack" | "serverTime">,
    /** The run's state: its cursor is where each round reads from. */
    private readonly state: BridgeState,
    private readonly writeBack: SourceWriteBack,
    options: { follow?: unknown; keysPerScan?: number },
  ) {
    const follow = (options.follow ?? null) !== null;
    this.keysPerScan = options.keysPerScan;
    this.rereads = follow ? new RereadWindow(FOLLOW_REREAD_SECONDS) : null;
    this.posted = follow ? new PostedResults(writeBack.on ? (ids) => db.writtenBack(ids) : null) : null;
  }

  private readonly keysPerScan?: number;

  /**
   * The first round's rows, opened at the start while the apps are registered: once the
   * write-back is open (its switch point read) and the cursor moved back to where it starts.
   */
  first(until: number): Promise<AsyncIterable<ResultRow>> {
    const rows = this.writeBack.opened.then(() => {
      this.writeBack.startPoint(this.state);
      return this.rows(until);
    });
    // Awaited by the first poll; not unhandled if the run fails before it.
    rows.catch(() => undefined);
    return rows;
  }

  /** A round's rows, before second `until`: after the cursor, and with --follow the unposted ones of the window before it. */
  rows(until: number): AsyncIterable<ResultRow> {
    const { db, state, rereads, posted } = this;
    const check = (keys: ResultKey[]) => this.writeBack.checkScan(keys);
    const rows = db.rowsAfter(rereads ? rereads.from(state.cursor) : state.cursor, until, { check, keysPerScan: this.keysPerScan });
    return rereads ? rereads.unposted(rows, state.cursor, posted ? (r) => posted.has(r) : undefined) : rows;
  }

  /** The database's clock (it stamps mod_time), in Unix seconds. */
  serverTime(): Promise<number> {
    return this.db.serverTime();
  }

  /** After a poll: the window forgets what is now before it. */
  polled(): void {
    this.rereads?.prune(this.state.cursor);
  }
}
