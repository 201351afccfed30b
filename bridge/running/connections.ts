/**
 * The run's connections and what guards them: the state file's lock, the service's client, the
 * BOINC database, the one-run guard (run-guard.ts) and the write-back's own connection. Before
 * every poll, post and write-back commit the guard is checked to be still held; after the
 * database was away (--follow) the guard's and the write-back's connections are checked again.
 * Closed in the reverse order, whatever happened.
 */
import { CobblestoneApi } from "../service/api-client";
import { BoincDb, modTimeIndexStatement } from "../database/boinc-db";
import { DEFAULT_RETRY, type RetryOptions } from "../service/retrying-fetch";
import { type StateLock, lockState } from "./lock";
import { RunGuard } from "./run-guard";
import type { BridgeOptions } from "./run-options";
import type { BridgeStatus } from "../telling/status";
import type { Teller } from "../telling/event-log";
import type { UnpaidWatch } from "./unpaid-watch";
import { WriteBackLink } from "../write-back/write-back-link";

/** The apps' ceilings (service-apps.ts): the write-back's bound on each write, read again from the service after a reconnection. */
export interface RunCeilings {
  ofAppId(appId: number): number;
  set(serviceApps: readonly { name: string; max_granted_credit: number }[]): void;
}

export class RunConnections {
  readonly writeBacks: WriteBackLink | null;
  db: BoincDb | null = null;
  guard: RunGuard | null = null;
  /** The unpaid count (unpaid-watch.ts) reads the database: settled before it closes. */
  unpaid: UnpaidWatch | null = null;

  private constructor(
    private readonly options: BridgeOptions,
    readonly url: string,
    private readonly teller: Teller,
    private readonly status: BridgeStatus | null,
    private readonly lock: StateLock | null,
    private readonly ceilings: RunCeilings,
  ) {
    this.writeBacks =
      options.writeBack && !options.dryRun
        ? new WriteBackLink(options.db, {
            creditByApp: options.creditByApp ?? false,
            // Each event name a literal: test/bridge/event-table.test.ts reads them from the source.
            log: (line, kind) => {
              if (kind === "retry") teller.tell("warn", "write_back_retry", line);
              else if (kind === "repair") teller.tell("warn", "write_back_repair", line);
              else teller.tell("warn", "write_back_warning", line);
            },
            project: options.project,
            switchTime: options.switchTime ?? null,
            beforeCommit: this.ensureGuard,
            ceilingOfApp: (appId) => ceilings.ofAppId(appId),
          })
        : null;
  }

  /** The state file's lock first (a dry run takes none): a second run on it stops before anything is opened. */
  static async lock(options: BridgeOptions, url: string, teller: Teller, status: BridgeStatus | null, ceilings: RunCeilings) {
    const lock = options.dryRun ? null : await lockState(options.stateFile);
    return new RunConnections(options, url, teller, status, lock, ceilings);
  }

  private client: CobblestoneApi | null = null;

  /** The service's client, with the retries told and counted, and the guard checked before each write to the service. */
  api(): CobblestoneApi {
    const { options, status, teller } = this;
    const defaultRetry: RetryOptions = {
      ...DEFAULT_RETRY,
      onRetry: (why: string, ms: number, next: number, max: number) => {
        status?.retried();
        teller.tell("warn", "retry", `${why}; retrying in ${(ms / 1000).toFixed(1)} s (attempt ${next} of ${max})`, {
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
    this.client = new CobblestoneApi(this.url, options.project, options.token, retry, this.ensureGuard);
    return this.client;
  }

  /**
   * The database, the guard, and the service's check (`checked`, made meanwhile): a database
   * that fails is told first. Warns when the result table has no index on mod_time.
   */
  async open(checked: Promise<unknown>): Promise<BoincDb> {
    const { options, teller } = this;
    checked.catch(() => undefined);
    const boinc = await BoincDb.open(options.db);
    this.db = boinc;
    if (!options.dryRun) {
      this.guard = await RunGuard.take(options.db, boinc.database, options.project, { log: (line) => teller.tell("warn", "guard", line) });
      this.status?.setGuardHeld(this.guard.held);
    }
    const schema = await boinc.checkSchema();
    if (!schema.modTimeIndex) {
      const statement = modTimeIndexStatement(boinc.database);
      teller.tell(
        "warn",
        "no_mod_time_index",
        `the result table of database '${boinc.database}' has no index on mod_time: each read of the results after the cursor scans the whole table, which is slow on a large database. Create one where this run reads (${this.writeBacks ? "with --write-back that is the primary: an index created on a replica only is not there" : "created on the primary, it reaches the replicas too"}): ${statement} (docs/bridge.md, step 3 of the checklist)`,
        { database: boinc.database, statement },
      );
    }
    await checked;
    return boinc;
  }

  /** The one-run guard still held (run-guard.ts), told to the status either way. */
  readonly ensureGuard = async (): Promise<void> => {
    const guard = this.guard;
    if (!guard) return;
    try {
      await guard.ensureHeld();
    } finally {
      this.status?.setGuardHeld(guard.held);
    }
  };

  /** Before each poll: the guard, and the write-back's connection if a reopening is due. */
  readonly beforePoll = async (): Promise<void> => {
    await this.ensureGuard();
    await this.writeBacks?.ensureOpen();
  };

  /**
   * --follow, after the database was away: the guard's and the write-back's connections again
   * (the pool reconnects itself), and the apps' ceilings read again. The write-back is reopened
   * before the next poll even if the database is still away now (ensureOpen).
   */
  readonly reconnect = async (): Promise<void> => {
    this.writeBacks?.markStale();
    await this.ensureGuard();
    if (this.writeBacks) {
      await this.writeBacks.reopen();
      if (this.client) this.ceilings.set(await this.client.apps());
    }
    this.teller.note("reconnect", "follow: connections checked, the write-back's opened again", { guard_held: this.guard?.held ?? false });
  };

  async close(): Promise<void> {
    await this.writeBacks?.close();
    await this.unpaid?.settle();
    await this.db?.close();
    await this.guard?.release();
    this.status?.setGuardHeld(false);
    await this.lock?.release();
  }
}
