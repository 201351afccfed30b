/**
 * What each turn of the follow loop does (follow-loop.ts: one turn for a backfill, one per poll
 * with --follow): the round of the rows since the cursor (the first reads the rows opened at the
 * start; a later one reads the database's clock, and goes back when that clock was set back),
 * then the round's trickle messages; between polls the write-back's upkeep and the minute's
 * summary; after a failure, what was in flight ends and the connections are checked again.
 */
import { clockSetBack, whenText } from "./cursor-checks";
import type { DatabaseClock } from "./database-clock";
import type { FollowLoopParts } from "./follow-loop";
import { type FollowMeter, minuteText } from "./follow-meter";
import type { RequestPipeline } from "./request-pipeline";
import type { ResultRow } from "../database/rows";
import type { RoundSource } from "./round-source";
import type { Rounds } from "./round";
import { FOLLOW_HOLD_SECONDS, UPKEEP_BATCHES } from "./run-options";
import type { BridgeState } from "./state";
import type { BridgeStatus } from "../telling/status";
import type { Teller } from "../telling/event-log";
import type { TrickleFeed } from "./trickles";
import type { UnpaidWatch } from "./unpaid-watch";
import type { WriteBackStage } from "./write-back-stage";

/** The run's chain, from the rows read to the cursor saved: each link one object. */
export interface RunChain {
  /** Its cursor is where each round reads from; the checkpoint saves it. */
  state: BridgeState;
  source: Pick<RoundSource, "rows" | "serverTime" | "polled">;
  rounds: Pick<Rounds, "run" | "counts">;
  pipeline: Pick<RequestPipeline, "afterWrites" | "abandon" | "commit" | "drain" | "next">;
  writeBack: Pick<WriteBackStage, "upkeep" | "on">;
  trickles: Pick<TrickleFeed, "round"> | null;
}

export interface PollParts {
  /** The run's start: the database's clock then, and the first round's rows (opened at the start: round-source.ts). */
  seenAt: number;
  firstRows: Promise<AsyncIterable<ResultRow>>;
  clock: DatabaseClock;
  /** --follow (its seconds between polls; absent: a backfill's one round), and the signal that stops it. */
  options: { follow?: { pollSeconds: number } | null; signal?: AbortSignal };
  connections: { beforePoll(): Promise<void>; reconnect(): Promise<void> };
  meter: FollowMeter | null;
  unpaid: UnpaidWatch | null;
  status: BridgeStatus | null;
  teller: Teller;
}

export class Polls implements FollowLoopParts {
  readonly pollSeconds: number | null;
  readonly signal?: AbortSignal;
  /** --follow: the write-back's upkeep after each poll, a little (upkeep() does more at a backfill's end). */
  readonly afterPoll?: () => Promise<void>;

  constructor(
    private readonly chain: RunChain,
    private readonly parts: PollParts,
  ) {
    this.pollSeconds = parts.options.follow?.pollSeconds ?? null;
    this.signal = parts.options.signal;
    if (this.pollSeconds !== null) this.afterPoll = () => this.upkeep(UPKEEP_BATCHES.follow);
  }

  readonly beforePoll = () => this.parts.connections.beforePoll();
  readonly reconnect = () => this.parts.connections.reconnect();
  readonly interrupted = () => this.chain.rounds.counts.interrupted;
  readonly recover = () => this.chain.pipeline.abandon();

  readonly poll = async (first: boolean): Promise<void> => {
    const { rounds, source } = this.chain;
    const { clock } = this.parts;
    if (first) {
      clock.polled(this.parts.seenAt);
      await rounds.run(this.parts.seenAt, await this.parts.firstRows);
    } else {
      const seen = await source.serverTime();
      await this.backIfClockSetBack(seen, clock.polled(seen));
      await rounds.run(seen, source.rows(seen - FOLLOW_HOLD_SECONDS + 1));
    }
    await this.trickleRound();
  };

  /** The write-back's upkeep (its table's prune, the re-check of recent workunits) after the round's writes, never beside one: they share its connection. */
  upkeep(batches: number): Promise<void> {
    return this.chain.pipeline.afterWrites(() => this.chain.writeBack.upkeep(batches));
  }

  readonly backingOff = (e: Error, ms: number): void => {
    this.parts.status?.failed("unavailable");
    this.parts.teller.tell("warn", "backoff", `follow: ${e.message}; trying again in ${ms / 1000} s`, {
      reason: e.message,
      delay_s: ms / 1000,
    });
  };

  readonly polled = (): void => {
    const { state, writeBack } = this.chain;
    const { meter, status, teller } = this.parts;
    this.chain.source.polled();
    if (this.pollSeconds !== null) this.parts.unpaid?.poll();
    status?.polled();
    const minute = meter?.minuteSummary();
    if (minute) {
      teller.tell("info", "minute", minuteText(minute, writeBack.on, state.cursor), {
        seconds: minute.seconds,
        results: minute.results,
        written: writeBack.on ? minute.written : null,
        lag_max_s: Math.round(minute.lagMax * 1000) / 1000,
        cursor_mod_time: state.cursor.mod_time,
      });
    }
  };

  /** The round's trickle messages, after its passes were written and saved (the write-back's connection is shared). */
  private async trickleRound(): Promise<void> {
    const trickles = this.chain.trickles;
    if (trickles) await this.chain.pipeline.afterWrites(() => trickles.round());
  }

  /** --follow: the database's clock behind the cursor was set back since the last poll; the cursor goes back so that what it stamped since is posted. */
  private async backIfClockSetBack(seen: number, sinceLastPoll: number): Promise<void> {
    const { state, pipeline } = this.chain;
    const back = clockSetBack(state.cursor, seen, sinceLastPoll);
    if (!back) return;
    this.parts.teller.tell(
      "warn",
      "clock_set_back",
      `follow: the database's clock (${whenText(seen)}) is behind the cursor (${whenText(state.cursor.mod_time)}): it was set back since the last poll; going back to ${whenText(back.mod_time)} so that the results stamped since are posted`,
      { clock: seen, cursor_mod_time: state.cursor.mod_time, to_mod_time: back.mod_time },
    );
    state.cursor = back;
    pipeline.next.cursor = back;
    pipeline.commit();
    await pipeline.drain();
  }
}
