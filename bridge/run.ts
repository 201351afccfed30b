/**
 * One bridge run: registers apps and versions, then reads the decided results after the cursor
 * second by second and posts each second as BOINC's validator would have (rescale at a crossed
 * mark, the pass, the errors). Passes of consecutive seconds travel together in one request
 * (POST /pass-batches, applied in order, each with its own `now`) until a rescale or an error
 * report must come between them; the cursor advances only after the service answered.
 */
import { type CobblestoneApi as Api, CobblestoneApi } from "./api-client";
import { BoincDb, type ResultKey } from "./boinc-db";
import { CreditComparison, type CompareSummary, summaryText } from "./compare";
import { BridgeError, isTransient } from "./errors";
import { type KnownVersions, type PassBody, type SecondCalls, callsForSecond, rescaleMarkBefore } from "./events";
import { HolderRegistrar, type HolderIds, eachLimited, emptyHolderIds } from "./holders";
import { lockState } from "./lock";
import { RunGuard } from "./run-guard";
import { PassBatch } from "./pass-batch";
import { type Grant, WriteBack, type WriteBackReport } from "./write-back";
import { refuseGrantedByOthers, refuseUnpaidCreditModes } from "./write-back-refusals";
import { Progress } from "./progress";
import type { RetryOptions } from "./retrying-fetch";
import { type ResultRow, after } from "./rows";
import { normalizeServiceUrl } from "./service-url";
import { type BridgeState, freshState, loadState, saveState } from "./state";

export interface BridgeOptions {
  db: string;
  url: string;
  project: string;
  token: string;
  stateFile: string;
  since: number | null;
  rescaleEvery: number;
  dryRun: boolean;
  compare: string | null;
  progress: boolean;
  retry?: RetryOptions;
  /** Stop after this many seconds of history (tests use it to interrupt a run). */
  maxSeconds?: number;
  /** Aborted (Ctrl-C): the run stops after the request in flight, saves and returns `interrupted`. */
  signal?: AbortSignal;
  log?: (line: string) => void;
  /** Passes per request (default: the API's most); the benchmark compares with 1. */
  passesPerRequest?: number;
  /** Write each grant into the BOINC database (write-back.ts); off: the database is only read. */
  writeBack?: boolean;
  /** The project's config.xml has <credit_by_app/>: the write-back keeps credit_user and credit_team too. */
  creditByApp?: boolean;
  /** When the validators were restarted with --no_credit (Unix seconds): needed by the first write-back run, then kept in the database. */
  switchTime?: number | null;
  /** --follow: keep polling for newly validated results, this many seconds apart, until the signal aborts. */
  follow?: { pollSeconds: number } | null;
  /** Result keys read per scan of the result table (default 100,000); --write-back's refusal checks each scan before posting its rows. */
  keysPerScan?: number;
}

/** BOINC's feeder recalculates scales every 10 minutes; the bridge rescales at the same marks. */
export const DEFAULT_RESCALE_EVERY = 600;

/**
 * Seconds stamped this recently by the database's clock are left for the next run: BOINC's
 * daemons stamp mod_time when a statement runs, and its transaction may commit a little later.
 */
export const SETTLE_SECONDS = 10;

/**
 * --follow reads up to 2 s behind the database's clock, and reads the 10 s before its cursor
 * again each time, posting any row there it has not posted (a transaction that stamped its
 * mod_time and committed later): the lag stays near the poll interval, and no late commit
 * within 10 s is missed (docs/bridge.md, "Live: --follow").
 */
export const FOLLOW_HOLD_SECONDS = 2;
export const FOLLOW_REREAD_SECONDS = 10;
/**
 * The write-back's upkeep (prune of its table, check of recent workunits: write-back.ts) is done
 * between writes: after every poll of --follow, a little (up to 2 x 5 statements of 1,000 rows),
 * and at the end of a one-shot run, more (a run from cron every minute sweeps 50,000 rows a run).
 */
const UPKEEP_BATCHES = { follow: 5, end: 50 };
/** --follow's back-off while the service or the database is unavailable: 5 s doubling to 5 min. */
const BACKOFF_MS = { first: 5_000, max: 300_000 };
const MINUTE_MS = 60_000;

/** Options for a one-shot backfill with the CLI's defaults; `extra` overrides any of them. */
export function bridgeOptions(
  target: Pick<BridgeOptions, "db" | "url" | "project" | "token" | "stateFile">,
  extra: Partial<BridgeOptions> = {},
): BridgeOptions {
  return { since: null, rescaleEvery: DEFAULT_RESCALE_EVERY, dryRun: false, compare: null, progress: false, ...target, ...extra };
}

/** What one run did, counted as it happened. */
export interface BridgeReport {
  /** Result rows read from the database (every kind, skipped ones too). */
  rows: number;
  /** Validated results posted in passes, and of those the ones the service already had. */
  results: number;
  replayed: number;
  /** Client errors and timeouts posted in error reports. */
  error_outcomes: number;
  skipped: number;
  passes: number;
  /** Requests that carried the passes. */
  requests: number;
  /** Error reports (requests). */
  errors: number;
  rescales: number;
  /** Host, user and team records sent (new ones and refreshed ones). */
  holders: number;
  seconds: number;
  elapsed_s: number;
  /** Where the cursor is now (the last second fully answered). */
  cursor: { mod_time: number; id: number };
  interrupted: boolean;
  compare: CompareSummary | null;
  /** With --write-back: what was written into the BOINC database. */
  write_back: WriteBackReport | null;
  /** With --follow: seconds from the validator's mod_time to the answered (and written) request. */
  lag: { n: number; mean_s: number; max_s: number } | null;
}

/** Seconds are grouped into batches of about this many rows, whose hosts/users/teams register together. */
const BATCH_ROWS = 2000;
const SKIPS_LOGGED = 20;

interface Second {
  time: number;
  rows: ResultRow[];
}

async function* seconds(rows: AsyncIterable<ResultRow>): AsyncGenerator<Second> {
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

async function* batches(all: AsyncIterable<Second>): AsyncGenerator<Second[]> {
  let batch: Second[] = [];
  let rows = 0;
  for await (const s of all) {
    batch.push(s);
    rows += s.rows.length;
    if (rows >= BATCH_ROWS) {
      yield batch;
      batch = [];
      rows = 0;
    }
  }
  if (batch.length > 0) yield batch;
}

function holdersOf(calls: SecondCalls[]): HolderIds {
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

/** Apps and versions as the database has them, registered (PUT, idempotent) unless a dry run; a dry run compares them with the service's instead. */
async function registerApps(db: BoincDb, api: Api, dryRun: boolean, log: (line: string) => void): Promise<KnownVersions> {
  const apps = await db.apps();
  const versions = await db.appVersions();
  if (dryRun) {
    const [known, knownVersions] = await Promise.all([api.apps(), api.appVersions()]);
    const registered = new Map(knownVersions.map((v) => [v.id, v.app]));
    const clashes = versions.filter((v) => registered.has(v.id) && registered.get(v.id) !== v.app);
    if (clashes.length > 0) {
      throw new BridgeError(
        `the service has app versions under other apps than the database (a run would be refused, 409):\n  ` +
          clashes.map((v) => `app version ${v.id}: '${registered.get(v.id)}' there, '${v.app}' here`).join("\n  "),
      );
    }
    const newApps = apps.filter((a) => !known.some((k) => k.name === a.name)).length;
    const newVersions = versions.filter((v) => !registered.has(v.id)).length;
    log(`would register ${apps.length} apps (${newApps} new) and ${versions.length} app versions (${newVersions} new)`);
  } else {
    await eachLimited(apps, 8, async (a) => {
      await api.putApp(a.name, {
        host_scale_check: a.host_scale_check !== 0,
        ...(a.target_nresults > 0 ? { target_nresults: a.target_nresults } : {}),
      });
    });
    await eachLimited(versions, 8, async (v) => {
      await api.putAppVersion(v.id, { app: v.app, platform: v.platform, plan_class: v.plan_class ?? "", version_num: v.version_num });
    });
  }
  return new Map(versions.map((v) => [v.id, v.app]));
}

export async function runBridge(options: BridgeOptions): Promise<BridgeReport> {
  const log = options.log ?? ((line: string) => process.stderr.write(line + "\n"));
  const started = Date.now();
  const url = normalizeServiceUrl(options.url);
  const lock = options.dryRun ? null : await lockState(options.stateFile);
  let db: BoincDb | null = null;
  let guard: RunGuard | null = null;
  // Before every poll, post and write-back commit: the one-run guard still held (run-guard.ts).
  const ensureGuard = async () => {
    await guard?.ensureHeld();
  };
  let writeBack: WriteBack | null = null;
  try {
    const retry = options.retry ?? {
      maxAttempts: 12,
      baseDelayMs: 500,
      maxDelayMs: 60_000,
      onRetry: (why: string, ms: number, next: number, max: number) =>
        log(`${why}; retrying in ${(ms / 1000).toFixed(1)} s (attempt ${next} of ${max})`),
    };
    const api = new CobblestoneApi(url, options.project, options.token, retry, ensureGuard);
    // The service is checked while the database is opened; a database that fails is told first, as before.
    const checked = api.check();
    checked.catch(() => undefined);
    db = await BoincDb.open(options.db);
    if (!options.dryRun) guard = await RunGuard.take(options.db, db.database, options.project, { log });
    await db.checkSchema();
    await checked;
    const stored = await loadState(options.stateFile, url, options.project);
    const state: BridgeState = stored ?? freshState(url, options.project, options.since ?? 0);
    if (stored && options.since !== null && options.since > state.cursor.mod_time) state.cursor = { mod_time: options.since, id: 0 };
    const follow = options.follow ?? null;
    const openWriteBack = async () => {
      writeBack = await WriteBack.open(
        options.db,
        {
          creditByApp: options.creditByApp ?? false,
          log,
          project: options.project,
          switchTime: options.switchTime ?? null,
          beforeCommit: ensureGuard,
        },
        writeBack ?? undefined,
      );
    };
    // Whole seconds that are over by the database's own clock (it stamps mod_time), less a margin.
    const seenAt = await db.serverTime();
    let until = seenAt - (follow ? FOLLOW_HOLD_SECONDS : SETTLE_SECONDS) + 1;
    // The database's side of the start (the write-back's checks and tables, the first scan of the
    // result table) runs while the apps are registered with the service.
    const writeBackOpened = options.writeBack && !options.dryRun ? openWriteBack() : Promise.resolve();
    writeBackOpened.catch(() => undefined);
    /** Each scan's keys, before any of their rows is posted: --write-back refuses results a validator still grants. */
    const check = async (keys: ResultKey[]) => {
      await writeBackOpened;
      if (writeBack) await refuseGrantedByOthers(db!, keys, (writeBack as WriteBack).switchTime);
    };
    const posted = new Map<number, number>();
    /** A round's rows: after the cursor; --follow re-reads the window before it, skipping the rows it has posted there. */
    const rowsOfRound = (until: number): AsyncIterable<ResultRow> => {
      const from = follow ? { mod_time: Math.max(0, state.cursor.mod_time - FOLLOW_REREAD_SECONDS), id: 0 } : state.cursor;
      const rows = db!.rowsAfter(from, until, { check, keysPerScan: options.keysPerScan });
      return follow ? unposted(rows, state.cursor, posted) : rows;
    };
    const firstRows = rowsOfRound(until);
    let knownVersions: KnownVersions;
    try {
      knownVersions = await registerApps(db, api, options.dryRun, log);
      if (options.writeBack && !options.dryRun) await refuseUnpaidCreditModes(api);
    } catch (e) {
      // The service's refusal is told, as when the two sides ran one after the other; the
      // write-back's connection must be open (or failed) before the run closes it.
      await writeBackOpened.catch(() => undefined);
      throw e;
    }
    await writeBackOpened;
    /** --follow, after the database was away: the guard's and the write-back's connections again (the pool reconnects itself). */
    const reconnect = async () => {
      await ensureGuard();
      if (writeBack) {
        await (writeBack as WriteBack).close();
        await openWriteBack();
        await refuseUnpaidCreditModes(api);
      }
    };

    // Counting is a scan of BOINC's whole result table (no index on mod_time): only for a progress
    // line, and beside the first reads rather than before them.
    const showProgress = options.progress && !follow;
    const progress = new Progress(0, process.stderr, showProgress);
    if (showProgress) {
      db.countAfter(state.cursor, until).then(
        (n) => (progress.total = n),
        () => undefined,
      );
    }
    const registrar = new HolderRegistrar(db, options.dryRun ? null : api);
    const comparison = options.compare ? new CreditComparison(options.compare) : null;
    const report: BridgeReport = {
      rows: 0,
      results: 0,
      replayed: 0,
      error_outcomes: 0,
      skipped: 0,
      passes: 0,
      requests: 0,
      errors: 0,
      rescales: 0,
      holders: 0,
      seconds: 0,
      elapsed_s: 0,
      cursor: state.cursor,
      interrupted: false,
      compare: null,
      write_back: (writeBack as WriteBack | null)?.report ?? null,
      lag: follow ? { n: 0, mean_s: 0, max_s: 0 } : null,
    };
    // --follow: the database's clock minus this machine's, and the rows posted in the re-read window.
    let clockOffset = 0;
    const minute = { at: Date.now(), written: 0, results: 0, lagMax: 0 };
    // `next` runs ahead of `state` (the saved one) by the seconds whose passes wait in `batch`.
    const next: BridgeState = { ...state };
    const batch = new PassBatch(options.passesPerRequest);
    // The write of an answered request (--write-back) and the save of the cursor after it run while
    // the next request is posted; every save waits for the writes before it (chained on `writing`).
    let writing: Promise<void> = Promise.resolve();
    const chain = (work: () => Promise<void>) => {
      writing = writing.then(work);
      // Handled where awaited (the next flush, the end of a round); this keeps Node from calling it unhandled meanwhile.
      writing.catch(() => undefined);
    };
    // The request in flight: the next one is built (rows read, holders registered) while it waits
    // for its answer, and leaves only after it was answered, so the service still gets them one
    // after another, in order. A rescale, an error report and a save of the cursor from the loop
    // wait for it (`settle`). A holder registration does not: it names only hosts, users and teams
    // that no request before it named, so it changes no row the request in flight reads or writes.
    let inFlight: Promise<void> = Promise.resolve();
    const settle = () => inFlight;
    const commit = async (snapshot: BridgeState = { ...next }) => {
      const save = async () => {
        Object.assign(state, snapshot);
        report.cursor = state.cursor;
        if (!options.dryRun) await saveState(options.stateFile, state);
      };
      chain(save);
    };
    /** Posts one request of passes, writes back its grants, saves the cursor after it. */
    const answer = async (
      passes: PassBody[],
      boincGranted: SecondCalls["boincGranted"],
      rowsOfRequest: Map<number, ResultRow>,
      snapshot: BridgeState,
    ) => {
      if (!options.dryRun) {
        const answer = await api.postPassBatch({ passes });
        const grants: Grant[] = [];
        for (const [i, p] of answer.passes.entries()) {
          // The grant's time is the pass's own now, as posted: a pass answered again after a crash
          // (replayed) may come back with the project's later clock, and must write the same numbers.
          const grantTime = passes[i]!.now ?? p.now;
          for (const w of p.workunits) {
            for (const r of w.results) {
              const row = rowsOfRequest.get(r.id);
              if (row && r.validate_state === "valid") grants.push(grantOf(row, r.granted_credit, grantTime));
              if (r.replayed) report.replayed++;
              const boinc = boincGranted.get(r.id);
              if (boinc && comparison)
                comparison.add({ result_id: r.id, workunit_id: w.id, app: boinc.app, boinc: boinc.granted, cobblestone: r.granted_credit });
            }
          }
        }
        // Written before the cursor moves: a run killed in between posts the request again, the service
        // answers it as replayed, and the write-back's table says which results are written already.
        const write = async () => {
          const before = writeBack?.report.written ?? 0;
          await (writeBack as WriteBack | null)?.write(grants);
          if (follow) {
            const done = Date.now() / 1000 + clockOffset;
            for (const row of rowsOfRequest.values()) {
              const lag = Math.max(0, done - row.mod_time);
              report.lag!.mean_s += (lag - report.lag!.mean_s) / ++report.lag!.n;
              report.lag!.max_s = Math.max(report.lag!.max_s, lag);
              minute.lagMax = Math.max(minute.lagMax, lag);
              posted.set(row.id, row.mod_time);
            }
            minute.results += rowsOfRequest.size;
            minute.written += (writeBack?.report.written ?? 0) - before;
          }
        };
        // The previous request's write and save (and their failure, if they failed) first: they keep the posting order.
        await writing;
        chain(write);
      }
      await commit(snapshot);
    };
    const flush = async () => {
      if (batch.empty) return;
      const { passes, boincGranted } = batch.take();
      const rowsOfRequest = waitingRows;
      waitingRows = new Map();
      report.requests++;
      report.passes += passes.length;
      // The cursor to save once this request is answered: `next` holds just its seconds now.
      const snapshot = { ...next };
      // The request before it answered (its refusal thrown here) before this one leaves.
      await settle();
      inFlight = answer(passes, boincGranted, rowsOfRequest, snapshot);
      // Handled where awaited (the next flush, settle, the end of a round).
      inFlight.catch(() => undefined);
    };
    // The rows of the passes waiting in `batch`, for the write-back of their answer.
    let waitingRows = new Map<number, ResultRow>();
    const post = async (pass: PassBody, granted: SecondCalls["boincGranted"], rows: ResultRow[]) => {
      if (!batch.fits(pass)) await flush();
      batch.add(pass, granted);
      if (writeBack || follow) for (const r of rows) waitingRows.set(r.id, r);
      report.results += pass.workunits.reduce((n, w) => n + w.results.length, 0);
    };

    let secondsLeft = options.maxSeconds ?? Infinity;
    let backoff = 0;
    /** One pass over the rows validated since the cursor (a backfill is one round; --follow repeats it). */
    const round = async (seenAt: number, rows: AsyncIterable<ResultRow>) => {
      outer: for await (const rowBatch of batches(seconds(rows))) {
        // --follow: a grant's time is when the bridge first sees the result validated (the database's clock now).
        const calls = rowBatch.map((s) => callsForSecond(follow ? seenAt : s.time, s.rows, knownVersions));
        await registrar.register(holdersOf(calls));
        for (const [i, call] of calls.entries()) {
          if (secondsLeft-- <= 0) break outer;
          if (options.signal?.aborted) {
            report.interrupted = true;
            break outer;
          }
          const rows = rowBatch[i]!.rows;
          for (const s of call.skipped) {
            if (report.skipped++ < SKIPS_LOGGED) log(`result ${s.id} skipped: ${s.reason}`);
          }
          if (call.passes.length + call.errors.length > 0) {
            const mark = rescaleMarkBefore(next.last_event_time, call.time, options.rescaleEvery);
            if (mark !== null && mark > (next.last_rescale_mark ?? -Infinity)) {
              // The passes before the mark first, then the rescale, as BOINC's history ran.
              await flush();
              await settle();
              if (!options.dryRun) await api.rescale(mark);
              next.last_rescale_mark = mark;
              report.rescales++;
              await commit();
            }
            for (const pass of call.passes) await post(pass, call.boincGranted, rows);
            if (call.errors.length > 0) {
              await flush();
              await settle();
            }
            for (const errors of call.errors) {
              if (!options.dryRun) await api.postErrors(errors);
              report.errors++;
              report.error_outcomes += errors.results.length;
            }
            next.last_event_time = call.time;
          }
          // A row re-read before the cursor (--follow) never moves it back.
          const last = { mod_time: rowBatch[i]!.time, id: rows.at(-1)!.id };
          if (after(last, next.cursor)) next.cursor = last;
          if (batch.empty) {
            await settle();
            await commit();
          }
          report.rows += rows.length;
          report.seconds++;
          progress.add(rows.length);
        }
      }
      await flush();
      await settle();
      await writing;
    };

    for (let n = 0; ; n++) {
      if (n > 0) {
        if (!follow || report.interrupted || options.signal?.aborted) break;
        await sleep(backoff || follow.pollSeconds * 1000, options.signal);
        if (options.signal?.aborted) break;
      }
      try {
        if (n === 0) {
          clockOffset = seenAt - Date.now() / 1000;
          await round(seenAt, firstRows);
        } else {
          await ensureGuard();
          const seen = await db.serverTime();
          clockOffset = seen - Date.now() / 1000;
          until = seen - FOLLOW_HOLD_SECONDS + 1;
          await round(seen, rowsOfRound(until));
        }
        // After the round's writes (round() awaits them): the upkeep shares their connection.
        if (follow) await (writeBack as WriteBack | null)?.upkeep(UPKEEP_BATCHES.follow);
        backoff = 0;
      } catch (e) {
        // The request in flight, and the write of the last one answered, end before the run does
        // (or, --follow, before it reads again from the saved cursor): no save after the run's end.
        await inFlight.catch(() => undefined);
        inFlight = Promise.resolve();
        await writing.catch(() => undefined);
        writing = Promise.resolve();
        if (!follow || !isTransient(e)) throw e;
        // Nothing unanswered is kept: the next round reads it again from the saved cursor.
        Object.assign(next, state);
        batch.take();
        waitingRows = new Map();
        backoff = Math.min(BACKOFF_MS.max, Math.max(BACKOFF_MS.first, backoff * 2));
        log(`follow: ${(e as Error).message}; trying again in ${backoff / 1000} s`);
        await reconnect().catch((again: unknown) => {
          if (!isTransient(again)) throw again;
        });
        continue;
      }
      if (follow) {
        for (const [id, t] of posted) if (t < state.cursor.mod_time - FOLLOW_REREAD_SECONDS) posted.delete(id);
        if (Date.now() - minute.at >= MINUTE_MS) {
          log(
            `follow: ${minute.results} results posted${writeBack ? `, ${minute.written} written back` : ""} in the last ${((Date.now() - minute.at) / 1000).toFixed(0)} s; lag behind the validator at most ${minute.lagMax.toFixed(1)} s; cursor ${new Date(state.cursor.mod_time * 1000).toISOString()}`,
          );
          Object.assign(minute, { at: Date.now(), written: 0, results: 0, lagMax: 0 });
        }
      }
    }
    if (options.signal?.aborted) report.interrupted = true;
    else if (!follow) await (writeBack as WriteBack | null)?.upkeep(UPKEEP_BATCHES.end);
    progress.finish();
    if (report.skipped > SKIPS_LOGGED) log(`… ${report.skipped - SKIPS_LOGGED} more results skipped`);
    report.holders = registrar.count;
    if (comparison) {
      report.compare = await comparison.close();
      log(summaryText(report.compare));
    }
    report.elapsed_s = (Date.now() - started) / 1000;
    return report;
  } finally {
    await (writeBack as WriteBack | null)?.close();
    await db?.close();
    await guard?.release();
    await lock?.release();
  }
}

/** Rows after the cursor, and rows before it (the re-read window) not posted yet. */
async function* unposted(rows: AsyncIterable<ResultRow>, cursor: { mod_time: number; id: number }, posted: Map<number, number>) {
  for await (const row of rows) if (after(row, cursor) || !posted.has(row.id)) yield row;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done);
  });
}

function grantOf(row: ResultRow, credit: number, time: number): Grant {
  return {
    result_id: row.id,
    workunit_id: row.workunit_id,
    app_id: row.app_id ?? 0,
    user_id: Math.max(0, row.user_id ?? 0),
    team_id: Math.max(0, row.team_id ?? 0),
    sent_time: row.sent_time ?? 0,
    credit,
    time,
  };
}

export { BridgeError };
