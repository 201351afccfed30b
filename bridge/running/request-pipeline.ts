/**
 * The requests of passes, in the order the service must see them: post -> write -> save.
 * Passes wait in a batch until it is full or told to go (`flush`); a request leaves only after
 * the one before it was answered, so the service gets them one at a time, in order. Once a
 * request is answered its grants are written back, then the cursor it reached is saved. That
 * write and save run while the next request is built and posted, chained so that each waits for
 * every write and save before it, and a failure stops every one after it (nothing is saved past
 * a request that was not written).
 */
import type { PassBatchAnswer } from "../write-back/answer-grants";
import type { PassBody, SecondCalls } from "../service/second-calls";
import { PassBatch } from "../service/pass-batch";
import type { ResultRow } from "../database/rows";
import type { BridgeState } from "./state";
import type { Grant } from "../write-back/write-back";

type Granted = SecondCalls["boincGranted"];

/** One request of passes, with what its answer needs. */
export interface PassRequest {
  passes: PassBody[];
  /** BOINC's own credit of its results (--compare). */
  boincGranted: Granted;
  /** The rows of its seconds (kept only with `keepRows`): the write-back's grants, --follow's lag. */
  rows: Map<number, ResultRow>;
  /** Validated results in its passes. */
  results: number;
}

export interface RequestPipelineParts {
  /** Posts one request; null in a dry run: nothing is posted or written, the cursor moves in memory only. */
  post: ((passes: PassBody[]) => Promise<PassBatchAnswer>) | null;
  /** Reads an answer as soon as it comes: the grants to write back (and the run's counts of it). */
  grants(request: PassRequest, answer: PassBatchAnswer): Grant[];
  /** Writes back one answered request's grants and says how many it wrote; null without --write-back. */
  write: ((grants: Grant[]) => Promise<number>) | null;
  /** Before each write-back write: the place for the run guard's check. */
  beforeWrite?: () => Promise<void>;
  /** After an answered request's write (with or without --write-back), before its save. */
  written?: (request: PassRequest, written: number) => void;
  /** Saves the state (a dry run saves nothing). */
  save(state: BridgeState): Promise<void>;
  /** Keep each request's rows for its answer (--write-back, --follow). */
  keepRows: boolean;
  /** Passes per request (default: the API's most). */
  passesPerRequest?: number;
}

export class RequestPipeline {
  /** The state as last saved. */
  readonly saved: BridgeState;
  /** Runs ahead of `saved` by the seconds whose passes wait, are in flight or are being written. */
  readonly next: BridgeState;
  /** Requests and passes sent, validated results added, results of the answered requests. */
  readonly counts = { requests: 0, passes: 0, results: 0, answered: 0 };
  private readonly batch: PassBatch;
  private waitingRows = new Map<number, ResultRow>();
  private inFlight: Promise<void> = Promise.resolve();
  private writing: Promise<void> = Promise.resolve();
  private pendingResults = 0;

  constructor(
    saved: BridgeState,
    private readonly parts: RequestPipelineParts,
  ) {
    this.saved = saved;
    this.next = { ...saved };
    this.batch = new PassBatch(parts.passesPerRequest);
  }

  /** No pass waits to be sent. */
  get empty(): boolean {
    return this.batch.empty;
  }

  /** Validated results added and not yet through (answered, and written back with --write-back). */
  get pending(): number {
    return this.pendingResults;
  }

  /** Adds one pass (the rows of its second with it); a full batch is sent first. */
  async add(pass: PassBody, granted: Granted, rows: readonly ResultRow[]): Promise<void> {
    if (!this.batch.fits(pass)) await this.flush();
    this.batch.add(pass, granted);
    if (this.parts.keepRows) for (const r of rows) this.waitingRows.set(r.id, r);
    const results = pass.workunits.reduce((n, w) => n + w.results.length, 0);
    this.counts.results += results;
    this.pendingResults += results;
  }

  /** Sends the passes waiting as one request, once the request before it was answered (its failure is thrown here). */
  async flush(): Promise<void> {
    if (this.batch.empty) return;
    const { passes, boincGranted } = this.batch.take();
    const request: PassRequest = {
      passes,
      boincGranted,
      rows: this.waitingRows,
      results: passes.reduce((n, p) => n + p.workunits.reduce((m, w) => m + w.results.length, 0), 0),
    };
    this.waitingRows = new Map();
    this.counts.requests++;
    this.counts.passes += passes.length;
    // The cursor to save once this request is answered: `next` holds just its seconds now.
    const snapshot = { ...this.next };
    await this.settle();
    this.inFlight = this.answer(request, snapshot);
    // Handled where awaited (the next flush, settle, drain).
    this.inFlight.catch(() => undefined);
  }

  /**
   * The request in flight answered (its write may still run). A rescale, an error report and a
   * save from the round wait for it. A holder registration need not: it names only hosts, users
   * and teams that no request before it named, so it changes no row the request in flight reads.
   */
  settle(): Promise<void> {
    return this.inFlight;
  }

  /** Saves `next` as it is now, after every write and save before it. */
  commit(snapshot: BridgeState = { ...this.next }): void {
    this.chain(async () => {
      Object.assign(this.saved, snapshot);
      await this.parts.save(this.saved);
    });
  }

  /** Sends what waits, and returns once everything is answered, written and saved (or throws the first failure). */
  async drain(): Promise<void> {
    await this.flush();
    await this.settle();
    await this.writing;
  }

  /** Runs `work` after every write and save before it, never beside one (maintenance on the write-back's connection). */
  async afterWrites(work: () => Promise<void>): Promise<void> {
    this.chain(work);
    await this.writing;
  }

  /**
   * After a failure: the request in flight and the writes end (however they end) before the run
   * does, so nothing is saved after it; what was not answered is dropped, and `next` is the saved
   * state again (--follow reads it again from the saved cursor).
   */
  async abandon(): Promise<void> {
    await this.inFlight.catch(() => undefined);
    this.inFlight = Promise.resolve();
    await this.writing.catch(() => undefined);
    this.writing = Promise.resolve();
    Object.assign(this.next, this.saved);
    this.batch.take();
    this.waitingRows = new Map();
    this.pendingResults = 0;
  }

  private chain(work: () => Promise<void>): void {
    this.writing = this.writing.then(work);
    // Handled where awaited (the next answer, drain, abandon); this keeps Node from calling it unhandled meanwhile.
    this.writing.catch(() => undefined);
  }

  private async answer(request: PassRequest, snapshot: BridgeState): Promise<void> {
    const { post, write } = this.parts;
    if (post) {
      const answer = await post(request.passes);
      this.counts.answered += request.results;
      const grants = this.parts.grants(request, answer);
      // The previous request's write and save (and their failure, if they failed) first: they keep the posting order.
      await this.writing;
      // Written before the cursor moves: a run killed in between posts the request again, the service
      // answers it as replayed, and the write-back's table says which results are written already.
      this.chain(async () => {
        let written = 0;
        if (write && grants.length > 0) {
          await this.parts.beforeWrite?.();
          written = await write(grants);
        }
        this.pendingResults -= request.results;
        this.parts.written?.(request, written);
      });
    } else {
      this.pendingResults -= request.results;
    }
    this.commit(snapshot);
  }
}
