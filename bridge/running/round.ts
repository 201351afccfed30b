/**
 * One round: the rows validated since the cursor, second by second, turned into what BOINC's
 * validator did then (a rescale at a crossed mark, the pass, the error reports) and handed to the
 * request pipeline. A backfill is one round; --follow runs one per poll.
 */
import type { CobblestoneApi } from "../service/api-client";
import { type KnownVersions, type SecondCalls, type Skipped, callsForSecond, rescaleMarkBefore } from "../service/second-calls";
import { type HolderIds, emptyHolderIds } from "../service/holders";
import type { AppCredits } from "../service/mode-credit";
import type { PostedResults } from "./posted-results";
import type { RequestPipeline } from "./request-pipeline";
import { type ResultRow, after } from "../database/rows";

/** Seconds are grouped into batches of about this many rows, whose hosts/users/teams register together. */
const BATCH_ROWS = 2000;
/** Skipped results named one by one; the rest are counted. */
export const SKIPS_LOGGED = 20;

export interface Second {
  time: number;
  rows: ResultRow[];
}

export async function* seconds(rows: AsyncIterable<ResultRow>): AsyncGenerator<Second> {
  let current: Second | null = null;
  for await (const row of rows) {
    if (current && row.mod_time !== current.time) {
      yield current;
      current = null;
    }
    (current ??= { time: row.mod_time, rows: [] }).rows.push(row);
  }
  if (current) yield current;
}

export async function* batches(all: AsyncIterable<Second>, batchRows = BATCH_ROWS): AsyncGenerator<Second[]> {
  let batch: Second[] = [];
  let rows = 0;
  for await (const s of all) {
    batch.push(s);
    rows += s.rows.length;
    if (rows >= batchRows) {
      yield batch;
      batch = [];
      rows = 0;
    }
  }
  if (batch.length > 0) yield batch;
}

export function holdersOf(calls: SecondCalls[]): HolderIds {
  const ids = emptyHolderIds();
  for (const c of calls) {
    for (const p of c.passes) {
      for (const w of p.workunits) {
        for (const r of w.results) {
          ids.hosts.add(r.host_id);
          if (r.user_id) ids.users.add(r.user_id);
          if (r.team_id) ids.teams.add(r.team_id);
        }
      }
    }
    for (const e of c.errors) for (const r of e.results) ids.hosts.add(r.host_id);
  }
  return ids;
}

export interface RoundParts {
  pipeline: RequestPipeline;
  /** Rescales and error reports; null in a dry run (counted, not posted). */
  api: Pick<CobblestoneApi, "rescale" | "postErrors"> | null;
  registrar: { register(ids: HolderIds): Promise<void> };
  knownVersions: KnownVersions;
  /** The apps' modes and caps: a fixed or post-assigned app's pass carries its workunit's credit (mode-credit.ts). */
  credits?: AppCredits;
  /** A workunit of a fixed or post-assigned app posted with credit 0 (told for the first SKIPS_LOGGED; the rest are counted). */
  noCredit?(w: SecondCalls["noCredit"][number]): void;
  /** The rescale schedule replayed (0: none). */
  rescaleEvery: number;
  /** --follow: a grant's time is when the bridge first sees the result validated (the poll's database clock), not its mod_time. */
  follow: boolean;
  /** --follow: the results this process posted and got answered; a row read again unchanged is not posted again. */
  posted?: PostedResults | null;
  /** Stop after this many seconds of history, over all rounds (tests use it to interrupt a run). */
  maxSeconds?: number;
  /** Aborted: the round stops before the next second. */
  signal?: AbortSignal;
  /** A result skipped (told for the first SKIPS_LOGGED; the rest are counted). */
  skipped(s: Skipped): void;
  /** Rows done (the progress line). */
  progress?(rows: number): void;
}

/** What the rounds did, counted as it happened. */
export interface RoundCounts {
  rows: number;
  seconds: number;
  skipped: number;
  /** Rows read again that the service already had as they are (posted-results.ts): not posted again. */
  unchanged: number;
  /** Workunits of fixed or post-assigned apps posted with credit 0. */
  no_credit: number;
  rescales: number;
  /** Error reports (requests) and the outcomes they carried. */
  errors: number;
  error_outcomes: number;
  /** A round stopped on the signal. */
  interrupted: boolean;
}

export class Rounds {
  readonly counts: RoundCounts = {
    rows: 0,
    seconds: 0,
    skipped: 0,
    unchanged: 0,
    no_credit: 0,
    rescales: 0,
    errors: 0,
    error_outcomes: 0,
    interrupted: false,
  };
  private secondsLeft: number;

  constructor(private readonly parts: RoundParts) {
    this.secondsLeft = parts.maxSeconds ?? Infinity;
  }

  /** One pass over `rows`, read at the database's clock `seenAt`; returns once all is answered, written and saved. */
  async run(seenAt: number, rows: AsyncIterable<ResultRow>): Promise<void> {
    const { pipeline, registrar, knownVersions, follow, posted } = this.parts;
    outer: for await (const rowBatch of batches(seconds(rows))) {
      // The second keeps all its rows (the cursor moves past them); only the others are posted.
      const fresh = posted ? await posted.unposted(rowBatch.map((s) => s.rows)) : rowBatch.map((s) => s.rows);
      const calls = rowBatch.map((s, i) => callsForSecond(follow ? seenAt : s.time, fresh[i]!, knownVersions, this.parts.credits));
      await registrar.register(holdersOf(calls));
      for (const [i, call] of calls.entries()) {
        if (this.secondsLeft-- <= 0) break outer;
        if (this.parts.signal?.aborted) {
          this.counts.interrupted = true;
          break outer;
        }
        await this.second(call, rowBatch[i]!, fresh[i]!);
      }
    }
    await pipeline.drain();
  }

  private async second(call: SecondCalls, { time, rows }: Second, fresh: ResultRow[]): Promise<void> {
    const { pipeline, api, posted } = this.parts;
    const next = pipeline.next;
    for (const s of call.skipped) {
      if (this.counts.skipped++ < SKIPS_LOGGED) this.parts.skipped(s);
    }
    for (const w of call.noCredit) {
      if (this.counts.no_credit++ < SKIPS_LOGGED) this.parts.noCredit?.(w);
    }
    if (call.passes.length + call.errors.length > 0) {
      const mark = rescaleMarkBefore(next.last_event_time, call.time, this.parts.rescaleEvery);
      if (mark !== null && mark > (next.last_rescale_mark ?? -Infinity)) {
        // The passes before the mark first, then the rescale, as BOINC's history ran.
        await pipeline.flush();
        await pipeline.settle();
        if (api) await api.rescale(mark);
        next.last_rescale_mark = mark;
        this.counts.rescales++;
        pipeline.commit();
      }
      for (const pass of call.passes) await pipeline.add(pass, call.boincGranted, fresh);
      if (call.errors.length > 0) {
        await pipeline.flush();
        await pipeline.settle();
      }
      // Remembered once answered: a report that failed leaves its rows to be posted again.
      const rowOf = posted && call.errors.length > 0 ? new Map(fresh.map((r) => [r.id, r])) : null;
      for (const errors of call.errors) {
        if (api) {
          await api.postErrors(errors);
          if (rowOf) for (const r of errors.results) posted!.remember(rowOf.get(r.id)!);
        }
        this.counts.errors++;
        this.counts.error_outcomes += errors.results.length;
      }
      next.last_event_time = call.time;
    }
    // A row re-read before the cursor (--follow) never moves it back.
    const last = { mod_time: time, id: rows.at(-1)!.id };
    if (after(last, next.cursor)) next.cursor = last;
    if (pipeline.empty) {
      await pipeline.settle();
      pipeline.commit();
    }
    this.counts.rows += rows.length;
    this.counts.unchanged += rows.length - fresh.length;
    this.counts.seconds++;
    this.parts.progress?.(rows.length);
  }
}
