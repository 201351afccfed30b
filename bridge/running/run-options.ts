/**
 * What a run is asked to do (the CLI's options, or a test's), with the defaults and the margins
 * of the database's clock every part of the run shares.
 */
import type { ValidatorCaps } from "../write-back/credit-bounds";
import type { StatedModes } from "../database/credit-modes";
import type { EventLog } from "../telling/event-log";
import type { RetryOptions } from "../service/retrying-fetch";
import type { BridgeStatus } from "../telling/status";
import type { TrickleSettings } from "../database/trickle-config";

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
export const UPKEEP_BATCHES = { follow: 5, end: 50 };

/** Options for a one-shot backfill with the CLI's defaults; `extra` overrides any of them. */
export function bridgeOptions(
  target: Pick<BridgeOptions, "db" | "url" | "project" | "token" | "stateFile">,
  extra: Partial<BridgeOptions> = {},
): BridgeOptions {
  return { since: null, rescaleEvery: DEFAULT_RESCALE_EVERY, dryRun: false, compare: null, progress: false, ...target, ...extra };
}
