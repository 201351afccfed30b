/**
 * One bridge run: registers apps and versions, then reads the decided results after the cursor
 * second by second and posts each second as BOINC's validator would have (rescale at a crossed
 * mark, the pass, the errors). Passes of consecutive seconds travel together in one request
 * (POST /pass-batches, applied in order, each with its own `now`) until a rescale or an error
 * report must come between them; the cursor advances only after the service answered.
 *
 * The parts: follow-loop.ts runs the rounds (one, or one per --follow poll, backing off and
 * reconnecting); round.ts turns a round's rows into rescales, passes and error reports;
 * request-pipeline.ts posts the passes one request at a time, then writes back and saves. This
 * file opens what they need (the lock, the database, the service, the write-back) and wires them.
 */
import { grantsOfAnswer } from "../write-back/answer-grants";
import { CobblestoneApi } from "../service/api-client";
import { BoincDb, modTimeIndexStatement, type ResultKey, redactDsn } from "../database/boinc-db";
import { CreditComparison, type CompareSummary, summaryText } from "../telling/compare";
import { BOINC_DEFAULT_CAPS, CreditCeilings, type ValidatorCaps } from "../write-back/credit-bounds";
import { type CreditMode, NO_STATED_MODES, type StatedModes, statedModes } from "../database/credit-modes";
import { clockSetBack, refuseCursorAhead, rewind, whenText, writeBackStart } from "./cursor-checks";
import { BridgeError } from "../shared/errors";
import { type EventLog, type Level, textLog } from "../telling/event-log";
import type { KnownVersions } from "../service/second-calls";
import { followLoop } from "./follow-loop";
import { FollowMeter, minuteText } from "./follow-meter";
import { HolderRegistrar } from "../service/holders";
import { lockState } from "./lock";
import { PostedResults } from "./posted-results";
import { Progress } from "../telling/progress";
import { registerApps } from "../service/register-apps";
import { registerModes, tellModes } from "../service/register-modes";
import { RequestPipeline } from "./request-pipeline";
import { RereadWindow } from "./reread-window";
import { DEFAULT_RETRY, type RetryOptions } from "../service/retrying-fetch";
import { Rounds, SKIPS_LOGGED } from "./round";
import type { ResultRow } from "../database/rows";
import { RunGuard } from "./run-guard";
import { normalizeServiceUrl } from "../service/service-url";
import { type BridgeState, freshState, loadState, saveState } from "./state";
import { type TrickleSettings, withTrickleApp } from "../database/trickle-config";
import { refuseTrickleWriteBack, writeTrickles } from "../write-back/trickle-write-back";
import { TrickleFeed, type TrickleReport } from "./trickles";
import type { BridgeStatus } from "../telling/status";
import { countUnpaid } from "../write-back/unpaid";
import { UnpaidWatch } from "./unpaid-watch";
import type { WriteBackReport } from "../write-back/write-back";
import { WriteBackLink } from "../write-back/write-back-link";
import { accountWarning, writeBackAccount } from "../write-back/write-back-privileges";
import { refuseGrantedByOthers } from "../write-back/write-back-refusals";

export interface BridgeOptions {
  db: string;
  url: string;
  project: string;
  token: string;
  stateFile: string;
  since: number | null;
  /** --rewind TIME: move the saved cursor back to TIME (never forward) and post again from there. */
  rewind?: number | null;
  rescaleEvery: number;
  dryRun: boolean;
  compare: string | null;
  progress: boolean;
  retry?: RetryOptions;
  /** Each attempt of a request to the service (--request-timeout), its largest answer (--max-answer-mib), its attempts (--request-attempts); defaults in retrying-fetch.ts and capped-answer.ts. */
  requestTimeoutMs?: number;
  maxAnswerBytes?: number;
  requestAttempts?: number;
  /** Stop after this many seconds of history (tests use it to interrupt a run). */
  maxSeconds?: number;
  /** Aborted (Ctrl-C): the run stops after the request in flight, saves and returns `interrupted`. */
  signal?: AbortSignal;
  /** Where the text lines go (default stderr); `events` instead takes every event (--log-format json). */
  log?: (line: string) => void;
  events?: EventLog;
  /** What a monitor reads (--metrics-port, --metrics-file): the run keeps it up to date. */
  status?: BridgeStatus;
  /** Passes per request (default: the API's most); the benchmark compares with 1. */
  passesPerRequest?: number;
  /** Write each grant into the BOINC database (write-back.ts); off: the database is only read. */
  writeBack?: boolean;
  /** The project's config.xml has <credit_by_app/>: the write-back keeps credit_user and credit_team too. */
  creditByApp?: boolean;
  /** When the validators were restarted with --no_credit (Unix seconds): needed by the first write-back run, then kept in the database. */
  switchTime?: number | null;
  /**
   * config.xml's db_user when the write-back logs in as it, the project's own account
   * (--project-account, or a URL with that user): the run warns (write_back_account). The CLI
   * sets it; null or absent: another account.
   */
  projectAccount?: string | null;
  /** Each app's credit mode as config.xml's validators and --credit-mode state it (credit-modes.ts): registered with the app. */
  creditModes?: StatedModes;
  /** The validators' --max_granted_credit (config.xml, --max-granted-credit): no answer above it is written (credit-bounds.ts). Default: BOINC's. */
  validatorCaps?: ValidatorCaps;
  /** --follow: keep polling for newly validated results, this many seconds apart, until the signal aborts. */
  follow?: { pollSeconds: number } | null;
  /** With --write-back and a status: count the unpaid results for the metric (unpaid-watch.ts; the CLI: when metrics are asked for). */
  countUnpaid?: boolean;
  /** Result keys read per scan of the result table (default 100,000); --write-back's refusal checks each scan before posting its rows. */
  keysPerScan?: number;
  /** Trickle credit (trickle-config.ts): the variety and --max_runtime of the project's trickle_credit handler; null or absent: none. */
  trickles?: TrickleSettings | null;
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
  /** With --follow: rows read again (their mod_time moved) that this process had posted as they are, so not posted again. */
  unchanged: number;
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
  /** With trickle credit: the messages posted (and written back). */
  trickles: TrickleReport | null;
}

export async function runBridge(options: BridgeOptions): Promise<BridgeReport> {
  const emit = options.events ?? textLog(options.log);
  const tell = (level: Level, event: string, msg: string, fields?: Record<string, string | number | boolean | null>) =>
    emit({ level, event, msg, fields });
  /** An event only the JSON log shows (the text log keeps its lines). */
  const note = (event: string, msg: string, fields: Record<string, string | number | boolean | null>) =>
    emit({ level: "info", event, msg, fields, jsonOnly: true });
  const status = options.status ?? null;
  const started = Date.now();
  const url = normalizeServiceUrl(options.url);
  const lock = options.dryRun ? null : await lockState(options.stateFile);
  let db: BoincDb | null = null;
  let guard: RunGuard | null = null;
  let unpaid: UnpaidWatch | null = null;
  // Before every poll, post and write-back commit: the one-run guard still held (run-guard.ts).
  const ensureGuard = async () => {
    if (!guard) return;
    try {
      await guard.ensureHeld();
    } finally {
      status?.setGuardHeld(guard.held);
    }
  };
  /** The most each app's results may be granted (credit-bounds.ts): set once the service's apps are read. */
  let ceilings: CreditCeilings | null = null;
  const writeBacks =
    options.writeBack && !options.dryRun
      ? new WriteBackLink(options.db, {
          creditByApp: options.creditByApp ?? false,
          // Each event name a literal: test/bridge/event-table.test.ts reads them from the source.
          log: (line, kind) => {
            if (kind === "retry") tell("warn", "write_back_retry", line);
            else if (kind === "repair") tell("warn", "write_back_repair", line);
            else tell("warn", "write_back_warning", line);
          },
          project: options.project,
          switchTime: options.switchTime ?? null,
          beforeCommit: ensureGuard,
          ceilingOfApp: (appId) => ceilings?.ofAppId(appId) ?? Infinity,
        })
      : null;
  try {
    const defaultRetry: RetryOptions = {
      ...DEFAULT_RETRY,
      onRetry: (why: string, ms: number, next: number, max: number) => {
        status?.retried();
        tell("warn", "retry", `${why}; retrying in ${(ms / 1000).toFixed(1)} s (attempt ${next} of ${max})`, {
          reason: why,
          delay_s: ms / 1000,
          attempt: next,
          max_attempts: max,
        });
      },
    };
    const retry: RetryOptions = {
      ...(options.retry ?? defaultRetry),
      ...(options.requestTimeoutMs === undefined ? {} : { timeoutMs: options.requestTimeoutMs }),
      ...(options.maxAnswerBytes === undefined ? {} : { maxAnswerBytes: options.maxAnswerBytes }),
      ...(options.requestAttempts === undefined ? {} : { maxAttempts: options.requestAttempts }),
    };
    const api = new CobblestoneApi(url, options.project, options.token, retry, ensureGuard);
    // The service is checked while the database is opened; a database that fails is told first, as before.
    const checked = api.check();
    checked.catch(() => undefined);
    const boinc = await BoincDb.open(options.db);
    db = boinc;
    if (!options.dryRun) {
      guard = await RunGuard.take(options.db, boinc.database, options.project, { log: (line) => tell("warn", "guard", line) });
      status?.setGuardHeld(guard.held);
    }
    const schema = await boinc.checkSchema();
    if (!schema.modTimeIndex) {
      const statement = modTimeIndexStatement(boinc.database);
      tell(
        "warn",
        "no_mod_time_index",
        `the result table of database '${boinc.database}' has no index on mod_time: each read of the results after the cursor scans the whole table, which is slow on a large database. Create one where this run reads (${writeBacks ? "with --write-back that is the primary: an index created on a replica only is not there" : "created on the primary, it reaches the replicas too"}): ${statement} (docs/bridge.md, step 3 of the checklist)`,
        { database: boinc.database, statement },
      );
    }
    await checked;
    const stored = await loadState(options.stateFile, url, options.project);
    const state: BridgeState = stored ?? freshState(url, options.project, options.since ?? 0);
    if (stored && options.since !== null && options.since > state.cursor.mod_time) state.cursor = { mod_time: options.since, id: 0 };
    const follow = options.follow ?? null;
    // Whole seconds that are over by the database's own clock (it stamps mod_time), less a margin.
    const seenAt = await boinc.serverTime();
    const until = seenAt - (follow ? FOLLOW_HOLD_SECONDS : SETTLE_SECONDS) + 1;
    if (options.rewind !== undefined && options.rewind !== null) {
      tell("warn", "rewind", rewind(state, options.rewind, seenAt), { cursor_mod_time: state.cursor.mod_time });
    }
    refuseCursorAhead(state, seenAt, options.stateFile);
    if (!writeBacks && !options.dryRun && state.write_back_cursor) {
      tell(
        "warn",
        "not_written_back",
        `this state file's project writes its credit back (its write-back wrote up to ${whenText(state.write_back_cursor.mod_time)}), but this run has no --write-back: it posts without writing, and the next --write-back run posts these results again and writes them`,
      );
    }
    // The write-back's account: the project's own, or one that may do more than write credit, is told (docs/bridge.md, "Switch-over checklist").
    const account = writeBacks ? await writeBackAccount(options.db) : null;
    const projectUser = writeBacks ? (options.projectAccount ?? null) : null;
    note(
      "start",
      `start: project '${options.project}' at ${redactDsn(url)}, database ${redactDsn(options.db)}, cursor ${state.cursor.mod_time}:${state.cursor.id}`,
      {
        project: options.project,
        url: redactDsn(url),
        database: redactDsn(options.db),
        follow: follow !== null,
        poll_every_s: follow?.pollSeconds ?? null,
        write_back: writeBacks !== null,
        dry_run: options.dryRun,
        cursor_mod_time: state.cursor.mod_time,
        cursor_id: state.cursor.id,
        write_back_account: account?.account ?? null,
        write_back_project_account: account ? projectUser !== null : null,
        write_back_beyond: account && account.beyond.length > 0 ? account.beyond.join(", ") : null,
      },
    );
    const warning = account ? accountWarning(account.account, projectUser, account.beyond) : null;
    if (account && warning) {
      tell("warn", "write_back_account", warning, {
        account: account.account,
        project_account: projectUser !== null,
        beyond: account.beyond.length > 0 ? account.beyond.join(", ") : null,
      });
    }
    // The database's side of the start (the write-back's checks and tables, the first scan of the
    // result table) runs while the apps are registered with the service.
    const writeBackOpened = writeBacks ? writeBacks.open() : Promise.resolve();
    writeBackOpened.catch(() => undefined);
    /** Each scan's keys, before any of their rows is posted: --write-back refuses results a validator still grants. */
    const check = async (keys: ResultKey[]) => {
      await writeBackOpened;
      const writeBack = writeBacks?.writeBack;
      if (writeBack) await refuseGrantedByOthers(boinc, keys, writeBack.switchTime);
    };
    // --follow re-reads the window before its cursor, skipping the rows it has posted there.
    const rereads = follow ? new RereadWindow(FOLLOW_REREAD_SECONDS) : null;
    // --follow reads a result again when BOINC's daemons move its mod_time: posted again only if changed.
    const posted = follow ? new PostedResults(writeBacks ? (ids) => boinc.writtenBack(ids) : null) : null;
    /** A round's rows: after the cursor (the saved one), and with --follow the unposted ones of the window before it. */
    const rowsOfRound = (until: number): AsyncIterable<ResultRow> => {
      const rows = boinc.rowsAfter(rereads ? rereads.from(state.cursor) : state.cursor, until, { check, keysPerScan: options.keysPerScan });
      return rereads ? rereads.unposted(rows, state.cursor, posted ? (r) => posted.has(r) : undefined) : rows;
    };
    /** --write-back starts where its own writing stopped, or at the switch point (cursor-checks.ts). */
    const backToWriteBack = () => {
      const writeBack = writeBacks?.writeBack;
      const back = writeBack ? writeBackStart(state, writeBack.switchTime) : null;
      if (!back) return;
      tell(
        "warn",
        "cursor_rewound",
        `--write-back: ${back.why}; going back to ${whenText(back.to.mod_time)} to post them again and write them back (re-posting is safe: the service answers them as replayed)`,
        { from_mod_time: state.cursor.mod_time, to_mod_time: back.to.mod_time },
      );
      state.cursor = back.to;
    };
    // The first scan waits for the write-back's switch point (a few statements), not for the service.
    const firstRows = writeBackOpened.then(() => {
      backToWriteBack();
      return rowsOfRound(until);
    });
    firstRows.catch(() => undefined);
    const databaseApps = await boinc.apps();
    /** The ceilings of the service's apps as it lists them now (the database's apps give their ids). */
    const ceilingsOf = (serviceApps: readonly { name: string; max_granted_credit: number }[]) =>
      new CreditCeilings(options.validatorCaps ?? BOINC_DEFAULT_CAPS, serviceApps, databaseApps);
    let knownVersions: KnownVersions;
    const stated = statedModes(
      withTrickleApp(options.creditModes ?? NO_STATED_MODES, options.trickles ?? null, databaseApps),
      databaseApps.map((a) => a.name),
    );
    /** Each app's credit mode: the service's, as registered (a dry run registers nothing: the stated one first). */
    let modes: Map<string, CreditMode>;
    let startApps: Awaited<ReturnType<CobblestoneApi["apps"]>> = [];
    try {
      const dryRunLine = (line: string) => tell("info", "dry_run", line);
      knownVersions = await registerApps(boinc, databaseApps, api, options.dryRun, dryRunLine);
      const service = await registerModes(api, options.project, stated, options.dryRun, dryRunLine);
      modes = service.modes;
      startApps = options.dryRun ? [] : service.apps;
      ceilings = ceilingsOf(options.dryRun ? [] : service.apps);
      tellModes(databaseApps, stated, modes, writeBacks !== null, emit);
    } catch (e) {
      // The service's refusal is told, as when the two sides ran one after the other; the
      // write-back's connection must be open (or failed) before the run closes it.
      await writeBackOpened.catch(() => undefined);
      throw e;
    }
    await writeBackOpened;
    const answerCeilings = ceilings;
    /** --follow, after the database was away: the guard's and the write-back's connections again (the pool reconnects itself). */
    const reconnect = async () => {
      // Reopened before the next poll even if the database is still away now (ensureOpen).
      writeBacks?.markStale();
      await ensureGuard();
      if (writeBacks) {
        await writeBacks.reopen();
        ceilings = ceilingsOf(await api.apps());
      }
      note("reconnect", "follow: connections checked, the write-back's opened again", { guard_held: guard?.held ?? false });
    };

    // Counting is a scan of BOINC's whole result table (no index on mod_time): only for a progress
    // line, and beside the first reads rather than before them.
    const showProgress = options.progress && !follow;
    const progress = new Progress(0, process.stderr, showProgress);
    if (showProgress) {
      boinc.countAfter(state.cursor, until).then(
        (n) => (progress.total = n),
        () => undefined,
      );
    }
    const registrar = new HolderRegistrar(boinc, options.dryRun ? null : api);
    const comparison = options.compare ? new CreditComparison(options.compare) : null;
    const meter = follow ? new FollowMeter() : null;
    // --follow: the database's clock minus this machine's (the lag is measured by the database's clock).
    let clockOffset = 0;
    /** --follow: when the last poll read the database's clock (this machine's monotonic clock, ms). */
    let lastPoll = 0;
    let replayed = 0;
    // A write-back run writes every answered request before it saves: its writing reached the cursor.
    const save = options.dryRun
      ? async () => undefined
      : (s: BridgeState) => saveState(options.stateFile, writeBacks ? { ...s, write_back_cursor: { ...s.cursor } } : s);
    const pipeline = new RequestPipeline(state, {
      post: options.dryRun ? null : (passes) => api.postPassBatch({ passes }),
      grants: (request, answer) =>
        grantsOfAnswer(request.passes, answer, request.rows, ceilings ?? answerCeilings, (r, workunitId) => {
          if (r.replayed) replayed++;
          const theirs = request.boincGranted.get(r.id);
          if (theirs && comparison)
            comparison.add({
              result_id: r.id,
              workunit_id: workunitId,
              app: theirs.app,
              boinc: theirs.granted,
              cobblestone: r.granted_credit,
            });
        }),
      write: writeBacks ? (grants) => writeBacks.write(grants) : null,
      written: (request, written) => {
        let lagMax: number | null = null;
        if (meter && rereads) {
          // To the millisecond: the clocks' sum carries float noise (2.1000001430511475).
          lagMax = Math.round(meter.answered(request.rows.values(), Date.now() / 1000 + clockOffset, written) * 1000) / 1000;
          for (const row of request.rows.values()) rereads.add(row);
          status?.lagged(lagMax);
        }
        // Answered and written: from now on, the same row read again is not posted again.
        posted?.rememberPasses(request.passes, request.rows);
        note(
          "request",
          `request answered: ${request.passes.length} passes, ${request.results} results${writeBacks ? `, ${written} written back` : ""}`,
          {
            passes: request.passes.length,
            results: request.results,
            written: writeBacks ? written : null,
            lag_max_s: lagMax,
          },
        );
      },
      save,
      keepRows: writeBacks !== null || follow !== null,
      passesPerRequest: options.passesPerRequest,
    });
    status?.attach({
      posted: () => pipeline.counts.answered,
      written: () => writeBacks?.report?.written ?? 0,
      backlog: () => pipeline.pending,
      writeBackRetries: () => writeBacks?.report?.retries ?? 0,
      cursor: () => state.cursor.mod_time,
    });
    if (status) status.following = follow !== null;
    if (status && writeBacks && options.countUnpaid) {
      unpaid = new UnpaidWatch(
        async () => {
          const wb = writeBacks.writeBack;
          return wb ? countUnpaid(boinc.reader, wb.switchTime) : null;
        },
        status,
        (msg, fields) => tell("warn", "unpaid", msg, fields),
      );
    }
    const trickles = options.trickles
      ? new TrickleFeed({
          pool: boinc.reader,
          api: options.dryRun ? null : api,
          registrar,
          settings: options.trickles,
          write: writeBacks
            ? (batch) => {
                const wb = writeBacks.writeBack;
                if (!wb) throw new Error("the write-back is not open");
                return writeTrickles(wb, batch);
              }
            : null,
          cursor: () => pipeline.saved.trickle_cursor ?? 0,
          // After every write and save of passes (the round runs in afterWrites): saved with them.
          saveCursor: (id) => {
            pipeline.saved.trickle_cursor = id;
            pipeline.next.trickle_cursor = id;
            return save(pipeline.saved);
          },
          serverTime: () => boinc.serverTime(),
          log: (line, warn) => (warn ? tell("warn", "trickle_warning", line) : tell("info", "trickle", line)),
          signal: options.signal,
        })
      : null;
    if (trickles && writeBacks?.writeBack) await refuseTrickleWriteBack(writeBacks.writeBack);
    await trickles?.prepare(databaseApps, startApps);
    /** The round's trickle messages, after its passes were written and saved (the write-back's connection is shared). */
    const trickleRound = async () => {
      if (trickles) await pipeline.afterWrites(() => trickles.round());
    };
    const rounds = new Rounds({
      pipeline,
      api: options.dryRun ? null : api,
      registrar,
      knownVersions,
      credits: { mode: (app) => modes.get(app), cap: (app) => (ceilings ?? answerCeilings).of(app) },
      noCredit: (w) =>
        tell(
          "warn",
          "workunit_no_credit",
          `workunit ${w.workunit_id} (app '${w.app}', credit mode ${w.mode}) has no credit: its canonical_credit is 0 (${w.mode === "fixed" ? "create_work gave it no --credit" : "the validator's init_result() set no claimed_credit"}); its valid results are granted 0, as BOINC's validator grants them`,
          { workunit_id: w.workunit_id, app: w.app, mode: w.mode },
        ),
      rescaleEvery: options.rescaleEvery,
      follow: follow !== null,
      posted,
      maxSeconds: options.maxSeconds,
      signal: options.signal,
      skipped: (s) => tell("warn", "skipped", `result ${s.id} skipped: ${s.reason}`, { result_id: s.id, reason: s.reason }),
      progress: (rows) => progress.add(rows),
    });

    // The write-back's upkeep (its table's prune, the re-check of recent workunits) after each
    // round's writes, never beside one: they share its connection.
    const upkeep = (batches: number) => () => pipeline.afterWrites(async () => writeBacks?.writeBack?.upkeep(batches));
    await followLoop({
      beforePoll: async () => {
        await ensureGuard();
        await writeBacks?.ensureOpen();
      },
      afterPoll: follow ? upkeep(UPKEEP_BATCHES.follow) : undefined,
      pollSeconds: follow?.pollSeconds ?? null,
      signal: options.signal,
      poll: async (first) => {
        if (first) {
          clockOffset = seenAt - Date.now() / 1000;
          lastPoll = performance.now();
          await rounds.run(seenAt, await firstRows);
          await trickleRound();
          return;
        }
        const seen = await boinc.serverTime();
        clockOffset = seen - Date.now() / 1000;
        const back = clockSetBack(state.cursor, seen, (performance.now() - lastPoll) / 1000);
        lastPoll = performance.now();
        if (back) {
          tell(
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
        await rounds.run(seen, rowsOfRound(seen - FOLLOW_HOLD_SECONDS + 1));
        await trickleRound();
      },
      interrupted: () => rounds.counts.interrupted,
      recover: () => pipeline.abandon(),
      reconnect,
      backingOff: (e, ms) => {
        status?.failed("unavailable");
        tell("warn", "backoff", `follow: ${e.message}; trying again in ${ms / 1000} s`, { reason: e.message, delay_s: ms / 1000 });
      },
      polled: () => {
        rereads?.prune(state.cursor);
        if (follow) unpaid?.poll();
        status?.polled();
        const minute = meter?.minuteSummary();
        if (minute) {
          tell("info", "minute", minuteText(minute, writeBacks !== null, state.cursor), {
            seconds: minute.seconds,
            results: minute.results,
            written: writeBacks ? minute.written : null,
            lag_max_s: Math.round(minute.lagMax * 1000) / 1000,
            cursor_mod_time: state.cursor.mod_time,
          });
        }
      },
    });
    const counts = rounds.counts;
    if (options.signal?.aborted) counts.interrupted = true;
    else if (!follow) {
      await upkeep(UPKEEP_BATCHES.end)();
      await unpaid?.countNow();
    }
    progress.finish();
    if (counts.no_credit > SKIPS_LOGGED) {
      tell("warn", "workunit_no_credit", `… ${counts.no_credit - SKIPS_LOGGED} more workunits with no credit`, {
        more: counts.no_credit - SKIPS_LOGGED,
      });
    }
    if (counts.skipped > SKIPS_LOGGED) {
      tell("warn", "skipped", `… ${counts.skipped - SKIPS_LOGGED} more results skipped`, { more: counts.skipped - SKIPS_LOGGED });
    }
    const compare = comparison ? await comparison.close() : null;
    if (compare) tell("info", "compare", summaryText(compare), { results: compare.results, agreeing: compare.agreeing });
    return {
      rows: counts.rows,
      results: pipeline.counts.results,
      replayed,
      unchanged: counts.unchanged,
      error_outcomes: counts.error_outcomes,
      skipped: counts.skipped,
      passes: pipeline.counts.passes,
      requests: pipeline.counts.requests,
      errors: counts.errors,
      rescales: counts.rescales,
      holders: registrar.count,
      seconds: counts.seconds,
      elapsed_s: (Date.now() - started) / 1000,
      cursor: state.cursor,
      interrupted: counts.interrupted,
      compare,
      write_back: writeBacks?.report ?? null,
      lag: meter?.lag ?? null,
      trickles: trickles?.report ?? null,
    };
  } catch (e) {
    status?.failed("fatal");
    throw e;
  } finally {
    await writeBacks?.close();
    await unpaid?.settle();
    await db?.close();
    await guard?.release();
    status?.setGuardHeld(false);
    await lock?.release();
  }
}

export { BridgeError };
