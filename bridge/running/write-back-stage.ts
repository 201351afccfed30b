/**
 * The write-back as a link of the run's chain (--write-back; without it every step is a no-op):
 * opened while the apps are registered; each scan's keys checked before any of their rows is
 * posted (write-back-refusals.ts); where the run starts again (its own writing, or the switch
 * point); each answered request's grants written; its upkeep between rounds; the trickle
 * messages' writes; and the unpaid results counted for the metric.
 */
import type { BoincDb, ResultKey } from "../database/boinc-db";
import { whenText, writeBackStart } from "./cursor-checks";
import type { BridgeState } from "./state";
import type { Teller } from "../telling/event-log";
import { refuseTrickleWriteBack, type TrickleWrite, type TrickleWritten, writeTrickles } from "../write-back/trickle-write-back";
import { countUnpaid } from "../write-back/unpaid";
import type { Grant, WriteBack } from "../write-back/write-back";
import type { WriteBackLink } from "../write-back/write-back-link";
import { refuseGrantedByOthers } from "../write-back/write-back-refusals";

export class WriteBackStage {
  /** The write-back's opening: its checks and tables, its switch point (a few statements). */
  readonly opened: Promise<void>;

  constructor(
    private readonly link: Pick<WriteBackLink, "open" | "writeBack" | "write"> | null,
    private readonly boinc: Pick<BoincDb, "writtenBack" | "reader">,
    private readonly teller: Teller,
  ) {
    this.opened = link ? link.open() : Promise.resolve();
    // Awaited where it matters (each scan's check, the registration); not unhandled meanwhile.
    this.opened.catch(() => undefined);
  }

  get on(): boolean {
    return this.link !== null;
  }

  private get open(): WriteBack | null {
    return this.link?.writeBack ?? null;
  }

  /** A scan's keys, before any of their rows is posted: --write-back refuses results a validator still grants. */
  readonly checkScan = async (keys: ResultKey[]): Promise<void> => {
    await this.opened;
    const writeBack = this.open;
    if (writeBack) await refuseGrantedByOthers(this.boinc, keys, writeBack.switchTime);
  };

  /** --write-back starts where its own writing stopped, or at the switch point (cursor-checks.ts). */
  startPoint(state: BridgeState): void {
    const writeBack = this.open;
    const back = writeBack ? writeBackStart(state, writeBack.switchTime) : null;
    if (!back) return;
    this.teller.tell(
      "warn",
      "cursor_rewound",
      `--write-back: ${back.why}; going back to ${whenText(back.to.mod_time)} to post them again and write them back (re-posting is safe: the service answers them as replayed)`,
      { from_mod_time: state.cursor.mod_time, to_mod_time: back.to.mod_time },
    );
    state.cursor = back.to;
  }

  /** Writes one answered request's grants; null without --write-back. */
  get write(): ((grants: Grant[]) => Promise<number>) | null {
    const link = this.link;
    return link ? (grants) => link.write(grants) : null;
  }

  /** Its table's prune and the re-check of recent workunits, `batches` statements of each at most. */
  async upkeep(batches: number): Promise<void> {
    await this.open?.upkeep(batches);
  }

  /** Trickle messages written in the transaction that writes their credit; null without --write-back. */
  get writeTrickles(): ((batch: TrickleWrite) => Promise<TrickleWritten>) | null {
    if (!this.link) return null;
    return (batch) => {
      const wb = this.open;
      if (!wb) throw new Error("the write-back is not open");
      return writeTrickles(wb, batch);
    };
  }

  /** Trickle credit with --write-back: its privileges on the trickle tables checked first. */
  async refuseTrickles(): Promise<void> {
    const wb = this.open;
    if (wb) await refuseTrickleWriteBack(wb);
  }

  /** The unpaid results now (unpaid.ts); null until the write-back is open (no switch point). */
  readonly countUnpaid = async (): Promise<number | null> => {
    const wb = this.open;
    return wb ? countUnpaid(this.boinc.reader, wb.switchTime) : null;
  };
}
