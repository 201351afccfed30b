/**
 * Cobblestone's tables: the one source of truth for the database (migrations are generated
 * from this file by drizzle-kit). Column names are BOINC's where BOINC has the column.
 * Every row but a project's belongs to one project; ids inside a project are the project's
 * own BOINC ids.
 */
import { index, integer, primaryKey, real, sqliteTable, sqliteView, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { sql } from "drizzle-orm";
import { CREDIT_HALF_LIFE, DEFAULT_MAX_GRANTED_CREDIT, DEFAULT_MIN_AVG_PFC } from "../credit/constants";
import { CREDIT_POLICIES, FAIR, GPU_ONLY_SCALES } from "../credit/parameters";
import { DEFAULT_DAILY_HISTORY_DAYS, DEFAULT_RESULT_RETENTION_DAYS } from "../config";
import { DEFAULT_RATE_LIMIT_TIER, RATE_LIMIT_TIER_NAMES } from "../limits";
import { CREDIT_MODES } from "../credit/credit-mode";

/** The recent average credit pair, as BOINC stores it. */
const recentAverage = () => ({
  expavgCredit: real("expavg_credit").notNull().default(0),
  expavgTime: real("expavg_time").notNull().default(0),
});

export const projects = sqliteTable("projects", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  slug: text("slug").notNull().unique(),
  name: text("name").notNull(),
  url: text("url"),
  createdAt: real("created_at").notNull(),
  /** All credit granted in the project, and its RAC (clock started at created_at). */
  totalCredit: real("total_credit").notNull().default(0),
  /**
   * The `now` of the earliest pass that granted credit (a backfill's first second of history,
   * not the day the project was created here); null until the first grant. Set by the pass's
   * own update of this row (its step in credit-columns.ts): no row written for it.
   */
  firstCreditTime: real("first_credit_time"),
  ...recentAverage(),
  /**
   * How many hosts, users and teams the project has, kept by the batches that insert them
   * (src/db/holder-counts.ts; holders are never deleted), so no public read counts a whole table.
   */
  hostCount: integer("host_count").notNull().default(0),
  userCount: integer("user_count").notNull().default(0),
  teamCount: integer("team_count").notNull().default(0),
  /**
   * Where public reads of its hosts, users and teams come from (docs/public-reads.md, Holder
   * reads): KV snapshots the minute cron writes, trusted only when taken at or after this time
   * (Unix seconds; raised when the operator turns them back on, so a key left from before is
   * never served); NULL: read live from D1 (a minute in each colo's cache), and the cron writes none.
   */
  holderSnapshotsSince: real("holder_snapshots_since").default(0),
  /** Which rate-limit binding counts the project's requests (src/limits.ts); set by the operator. */
  rateLimitTier: text("rate_limit_tier", { enum: RATE_LIMIT_TIER_NAMES }).notNull().default(DEFAULT_RATE_LIMIT_TIER),
  /** Decided results and credited workunits are kept this many days (the idempotency window). */
  resultRetentionDays: integer("result_retention_days").notNull().default(DEFAULT_RESULT_RETENTION_DAYS),
  /**
   * The retention horizon (Unix seconds): every result or workunit row purged so far had
   * results sent before it, so a pass naming a result sent before it is refused (410).
   */
  purgedBefore: real("purged_before").notNull().default(0),
  /** Daily history buckets are kept this many days; older whole months roll up (credit_history_monthly). */
  dailyHistoryDays: integer("daily_history_days").notNull().default(DEFAULT_DAILY_HISTORY_DAYS),
  /**
   * Day number (a month's first day) before which history reads as monthly buckets: raised by
   * the roll-up in the batch that first moves days into months, so a read never sees a month
   * half rolled up (it sums the days and the monthly row of each month before it).
   */
  historyMonthlyBefore: integer("history_monthly_before").notNull().default(0),
  /** The roll-up has folded every daily row before this day (it stops scanning until the next month is due). */
  historyRolledBefore: integer("history_rolled_before").notNull().default(0),
  /**
   * The trickle horizon (a message id): every trickle row purged so far had an id at or below
   * it, so a message at or below it that is not stored is refused (410), never paid again.
   */
  tricklesPurgedThrough: integer("trickles_purged_through").notNull().default(0),
  /**
   * Credit granted in the project's current day (see creditHolder's dayCredit): the project's
   * history buckets are written on day transitions like a holder's.
   */
  dayCredit: real("day_credit").notNull().default(0),
  /**
   * The number of the project's last queue row (history_queue, app_credit_queue): raised by
   * the pass's own update of this row, so queue ids are never reused (docs/storage.md).
   */
  queueSeq: integer("queue_seq").notNull().default(0),
  /** The per-app credit fold has applied every app_credit_queue row up to this number. */
  appCreditFoldedThrough: integer("app_credit_folded_through").notNull().default(0),
  /**
   * JSON list of the D1 bindings that hold the project's daily history, each from a day on
   * ([{"binding": "DB_HISTORY_1", "from_day": 0}, …]); null: history stays with the ledger
   * (src/db/history-databases.ts, docs/storage.md).
   */
  historyDatabases: text("history_databases"),
  /**
   * In a history database's copy of the row: every history_queue row up to this id has been
   * moved into this database (raised in the same batch as the rows: a move is applied once).
   */
  historyMovedThrough: integer("history_moved_through").notNull().default(0),
  /**
   * Registry row: the D1 binding that holds the project's rows (null: this database). The
   * copy of the row in that database has null (src/db/project-db.ts).
   */
  database: text("database"),
  /**
   * Trickle credit's FLOPS bounds: the 50th and 95th percentile of p_fpops over the hosts with
   * expavg_credit > 10 (BOINC's fpops_percentile), written by the cron; null until one ran
   * with such a host.
   */
  fpopsP50: real("fpops_p50"),
  fpopsP95: real("fpops_p95"),
  fpopsPercentilesAt: real("fpops_percentiles_at"),
});

const projectId = () =>
  integer("project_id")
    .notNull()
    .references(() => projects.id);

export const apps = sqliteTable(
  "apps",
  {
    projectId: projectId(),
    /** Numbered 1, 2, 3 … per project in order of registration (BOINC's app.id). */
    id: integer("id").notNull(),
    name: text("name").notNull(),
    minAvgPfc: real("min_avg_pfc").notNull().default(DEFAULT_MIN_AVG_PFC),
    hostScaleCheck: integer("host_scale_check", { mode: "boolean" }).notNull().default(false),
    targetNresults: integer("target_nresults").notNull().default(0),
    creditMode: text("credit_mode", {
      enum: CREDIT_MODES,
    })
      .notNull()
      .default("adaptive"),
    maxGrantedCredit: real("max_granted_credit").notNull().default(DEFAULT_MAX_GRANTED_CREDIT),
    deprecated: integer("deprecated", { mode: "boolean" }).notNull().default(false),
    /** How a GPU-only app is scaled: BOINC's 0.1, or the cross-project plan-class registry. */
    gpuOnlyScale: text("gpu_only_scale", { enum: GPU_ONLY_SCALES }).notNull().default("boinc"),
    /** The plan-class table version "cross-project" reads (a pin); null: the latest. */
    crossProjectVersion: real("cross_project_version"),
    /** Which rules pay claims: BOINC's, or the fair policy (docs/fair-credit.md). Both keep their statistics. */
    creditPolicy: text("credit_policy", { enum: CREDIT_POLICIES }).notNull().default("boinc"),
    /** The fair policy's app level S (typical PFC/est of the reference device); null before any version is mature. */
    fairLevel: real("fair_level"),
    // The fair policy's anchor (version 3, docs/spec/fair-policy.md#r31): S_ref, null until the app matured
    // (or since a re-base); S as it would be without the clamp (the alarm); when each happened.
    fairSRef: real("fair_s_ref"),
    fairSRaw: real("fair_s_raw"),
    fairAnchoredAt: real("fair_anchored_at"),
    fairRebasedAt: real("fair_rebased_at"),
    /** BOINC's trickle handler --max_runtime: trickles are refused for an app without it. */
    trickleMaxRuntime: real("trickle_max_runtime"),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.id] }), uniqueIndex("apps_name").on(t.projectId, t.name)],
);

export const appVersions = sqliteTable(
  "app_versions",
  {
    projectId: projectId(),
    id: integer("id").notNull(),
    appId: integer("app_id").notNull(),
    platform: text("platform").notNull(),
    planClass: text("plan_class").notNull().default(""),
    versionNum: integer("version_num").notNull(),
    deprecated: integer("deprecated", { mode: "boolean" }).notNull().default(false),
    pfcN: real("pfc_n").notNull().default(0),
    pfcAvg: real("pfc_avg").notNull().default(0),
    pfcScale: real("pfc_scale").notNull().default(0),
    ...recentAverage(),
    // The fair policy's version state (src/credit/fair-state.ts FairVersionState).
    fairN: integer("fair_n").notNull().default(0),
    fairLevel: real("fair_level"),
    /** JSON array of its first samples (ln), null once full. */
    fairBuf: text("fair_buf"),
    fairTHi: real("fair_t_hi").notNull().default(FAIR.initialHigh),
    fairTLo: real("fair_t_lo").notNull().default(FAIR.initialLow),
    fairZn: integer("fair_zn").notNull().default(0),
    /** Share of its samples' z above fair_t_hi (EMA); the quantile gate is derived from it. */
    fairFv: real("fair_fv").notNull().default(FAIR.highShareStart),
    /** Written by rescale; null: the default seed (1 CPU, 0.1 GPU). */
    fairScale: real("fair_scale"),
    /** A rescale found it mature and gave it S / L_v: its expected PFC is est × S (docs/spec/fair-policy.md#r11). */
    fairOwnScale: integer("fair_own_scale", { mode: "boolean" }).notNull().default(false),
    /** Sealed at its app's anchor: only founder rows feed it since (docs/spec/fair-policy.md#founders). */
    fairSealed: integer("fair_sealed", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.id] })],
);

/**
 * Per host and app version statistics. An anonymous-platform row has its negative
 * app_version_id (-2 … -6) and its app; a regular row's app_id is its version's app.
 */
// WITHOUT ROWID (hand-written in migration 0010: a row write costs one D1 row, not two); keep it if a migration rebuilds the table.
export const hostAppVersions = sqliteTable(
  "host_app_versions",
  {
    projectId: projectId(),
    hostId: integer("host_id").notNull(),
    appId: integer("app_id").notNull(),
    appVersionId: integer("app_version_id").notNull(),
    pfcN: real("pfc_n").notNull().default(0),
    pfcAvg: real("pfc_avg").notNull().default(0),
    etN: real("et_n").notNull().default(0),
    etAvg: real("et_avg").notNull().default(0),
    etVar: real("et_var").notNull().default(0),
    etQ: real("et_q").notNull().default(0),
    turnaroundN: real("turnaround_n").notNull().default(0),
    turnaroundAvg: real("turnaround_avg").notNull().default(0),
    turnaroundVar: real("turnaround_var").notNull().default(0),
    turnaroundQ: real("turnaround_q").notNull().default(0),
    consecutiveValid: integer("consecutive_valid").notNull().default(0),
    // The fair policy's host state (src/credit/fair-state.ts FairHostState).
    fairN: integer("fair_n").notNull().default(0),
    /** Typical ln(PFC/est); null while the host is young. */
    fairQ: real("fair_q"),
    /** JSON array of a young host's samples (ln), null once established. */
    fairBuf: text("fair_buf"),
    fairRun: integer("fair_run").notNull().default(0),
    fairErr: real("fair_err").notNull().default(0),
    /** The host's share of z above its version's fair_t_hi (EMA); null until its first established sample. */
    fairF: real("fair_f"),
    /**
     * The row existed before its version was sealed (docs/spec/fair-policy.md#founders): set when it is inserted,
     * from its version's fair_sealed at that moment; 1 for every row stored before version 3.
     */
    fairFounder: integer("fair_founder", { mode: "boolean" }).notNull().default(true),
    // The neutrality window (src/credit/neutrality-window.ts): valid results' credit, device-seconds
    // and count in the 30-day period `neutral_period` and the one before it, written with the row's statistics.
    neutralPeriod: integer("neutral_period").notNull().default(0),
    neutralCredit: real("neutral_credit").notNull().default(0),
    neutralDeviceSeconds: real("neutral_device_seconds").notNull().default(0),
    neutralResults: integer("neutral_results").notNull().default(0),
    neutralPrevCredit: real("neutral_prev_credit").notNull().default(0),
    neutralPrevDeviceSeconds: real("neutral_prev_device_seconds").notNull().default(0),
    neutralPrevResults: integer("neutral_prev_results").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.hostId, t.appId, t.appVersionId] })],
);

/**
 * RAC decayed to any time t is expavg_credit·2^(−(t − expavg_time)/half_life), so its order is
 * the order of ln(expavg_credit) + expavg_time·ln2/half_life, which never changes with t: a
 * virtual generated column (computed when read, so it costs no write), the key leaderboards
 * rank by. No credit (0) ranks below every positive RAC. No index holds it or total_credit:
 * each would be a row written on every grant; the cron ranks from a scan instead
 * (src/snapshots/ranking.ts).
 */
const RAC_RANK_OF_ZERO = -1e308;
const racRank = () =>
  real("rac_rank").generatedAlwaysAs(
    sql.raw(
      `CASE WHEN expavg_credit > 0 THEN ln(expavg_credit) + expavg_time * ${Math.LN2} / ${CREDIT_HALF_LIFE}.0 ELSE ${RAC_RANK_OF_ZERO} END`,
    ),
    { mode: "virtual" },
  );

/** Columns shared by hosts, users and teams. */
const creditHolder = () => ({
  projectId: projectId(),
  id: integer("id").notNull(),
  name: text("name"),
  createTime: real("create_time").notNull(),
  totalCredit: real("total_credit").notNull().default(0),
  ...recentAverage(),
  racRank: racRank(),
  /**
   * Credit granted in the holder's current day (the day of expavg_time, its last grant). The
   * first grant of a later day writes the finished day's history bucket from it and restarts it
   * in the same UPDATE, so history costs one row per holder per day, and today's bucket is read
   * from the live row (docs/storage.md, Daily history).
   */
  dayCredit: real("day_credit").notNull().default(0),
});

// WITHOUT ROWID (hand-written in migration 0019: a new row costs one D1 row, not two); keep it if a migration rebuilds the table.
export const hosts = sqliteTable(
  "hosts",
  {
    ...creditHolder(),
    /** The host's current owner (0 = none). */
    userId: integer("user_id").notNull().default(0),
    /** BOINC's host_cpid (already hashed with the owner's email). */
    hostCpid: text("host_cpid"),
    /** The host's benchmark FLOPS (BOINC's host.p_fpops); null: never reported. */
    pFpops: real("p_fpops"),
    /**
     * The owner's credit, carried: the user's credit columns after its last grant on this
     * host, numbered by the user's credit_seq (docs/storage.md#owners-credit-rides-on-a-host).
     * owner_credit_seq NULL: it carries none (its owner changed since, or it never carried); each owner_X is users.X. The grant that
     * writes this row anyway writes them, so the user's row is not written.
     */
    ownerCreditSeq: integer("owner_credit_seq"),
    ownerTotalCredit: real("owner_total_credit"),
    ownerExpavgCredit: real("owner_expavg_credit"),
    ownerExpavgTime: real("owner_expavg_time"),
    ownerDayCredit: real("owner_day_credit"),
  },
  // Partial: a host a pass creates has no cpid yet, and its insert then writes no index entry
  // (D1 counts each as a row written); `host_cpid = ?` still searches the index.
  (t) => [
    primaryKey({ columns: [t.projectId, t.id] }),
    index("hosts_host_cpid")
      .on(t.hostCpid)
      .where(sql`host_cpid IS NOT NULL`),
  ],
);

// WITHOUT ROWID (hand-written in migration 0019: a new row costs one D1 row, not two); keep it if a migration rebuilds the table.
export const users = sqliteTable(
  "users",
  {
    ...creditHolder(),
    /** The user's current team (0 = none). */
    teamId: integer("team_id").notNull().default(0),
    /** The exported cross-project id. */
    cpid: text("cpid"),
    /** false: the user opted out of stats exports and cross-project totals (BOINC's STATSEXPORT consent). */
    statsExport: integer("stats_export", { mode: "boolean" }).notNull().default(true),
    /**
     * The number of grant runs (and credit sets) the credit columns of this row have seen; a
     * host in `carriers` carrying a higher one holds the user's credit instead (users_now).
     */
    creditSeq: integer("credit_seq").notNull().default(0),
    /** JSON array of at most CARRIERS_PER_USER host ids that may carry the user's credit (owner_* of hosts); NULL: none. */
    carriers: text("carriers"),
  },
  // Partial, as hosts_host_cpid: a user a pass creates writes no index entry.
  (t) => [
    primaryKey({ columns: [t.projectId, t.id] }),
    index("users_cpid")
      .on(t.cpid)
      .where(sql`cpid IS NOT NULL`),
  ],
);

/**
 * Every user as its credit stands: the row, or the newest owner credit its carrier hosts hold
 * (docs/storage.md#owners-credit-rides-on-a-host). A view (hand-written in migration 0027):
 * every read of a user's credit reads it, never `users`' own credit columns.
 */
export const usersNow = sqliteView("users_now", {
  projectId: integer("project_id").notNull(),
  id: integer("id").notNull(),
  name: text("name"),
  createTime: real("create_time").notNull(),
  totalCredit: real("total_credit").notNull(),
  expavgCredit: real("expavg_credit").notNull(),
  expavgTime: real("expavg_time").notNull(),
  racRank: real("rac_rank"),
  dayCredit: real("day_credit").notNull(),
  teamId: integer("team_id").notNull(),
  cpid: text("cpid"),
  statsExport: integer("stats_export", { mode: "boolean" }).notNull(),
  creditSeq: integer("credit_seq").notNull(),
  carriers: text("carriers"),
}).existing();

// WITHOUT ROWID (hand-written in migration 0019: a new row costs one D1 row, not two); keep it if a migration rebuilds the table.
export const teams = sqliteTable("teams", { ...creditHolder() }, (t) => [primaryKey({ columns: [t.projectId, t.id] })]);

/** The tables of the credit holders (hosts, users, teams): each is a creditHolder(). */
export type HolderTable = typeof hosts | typeof users | typeof teams;

/** Columns shared by BOINC's credit_user and credit_team (credit per app). */
const creditByApp = () => ({
  projectId: projectId(),
  appId: integer("app_id").notNull(),
  njobs: integer("njobs").notNull().default(0),
  total: real("total").notNull().default(0),
  expavg: real("expavg").notNull().default(0),
  expavgTime: real("expavg_time").notNull().default(0),
});

// WITHOUT ROWID (hand-written in migration 0010: a row write costs one D1 row, not two); keep it if a migration rebuilds the table.
export const creditUsers = sqliteTable("credit_users", { ...creditByApp(), userId: integer("user_id").notNull() }, (t) => [
  primaryKey({ columns: [t.projectId, t.userId, t.appId] }),
]);

// WITHOUT ROWID (hand-written in migration 0010: a row write costs one D1 row, not two); keep it if a migration rebuilds the table.
export const creditTeams = sqliteTable("credit_teams", { ...creditByApp(), teamId: integer("team_id").notNull() }, (t) => [
  primaryKey({ columns: [t.projectId, t.teamId, t.appId] }),
]);

/**
 * A workunit that has been credited: its results, late ones included, get this credit. The
 * primary key makes two concurrent passes that both credit it collide (one rolls back).
 */
// WITHOUT ROWID (hand-written in migrations 0010 and 0013: a row write costs one D1 row, not two); keep it if a migration rebuilds the table.
export const workunits = sqliteTable(
  "workunits",
  {
    projectId: projectId(),
    id: integer("id").notNull(),
    /** A late result naming another app is refused. */
    appId: integer("app_id").notNull(),
    credit: real("credit").notNull(),
    /** Whole seconds: the `now` of the crediting pass, for the retention purge. */
    creditedAt: integer("credited_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.id] })],
);

/**
 * The workunits the retention purge deleted, as runs of consecutive ids (`first_id` to
 * `last_id`, every id in it was a stored workunit): a new result for one of them is refused,
 * never credited as a fresh workunit (docs/storage.md). One row per run, not per workunit.
 */
// WITHOUT ROWID (hand-written in its migration: a row write costs one D1 row, not two); keep it if a migration rebuilds the table.
export const purgedWorkunits = sqliteTable(
  "purged_workunits",
  {
    projectId: projectId(),
    firstId: integer("first_id").notNull(),
    lastId: integer("last_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.firstId] })],
);

/**
 * The workunits the retention purge deleted where their ids have many gaps (a chunk that would
 * make more than a few runs of purged_workunits): per block of PURGED_BLOCK_IDS ids, a JSON
 * array of the purged ids' offsets in it (id − block × PURGED_BLOCK_IDS). A chunk of purged
 * workunits is then a row per block it touches, not a row per workunit (docs/storage.md).
 */
// WITHOUT ROWID (hand-written in its migration, as purged_workunits): a row write costs one D1 row.
export const purgedWorkunitBlocks = sqliteTable(
  "purged_workunit_blocks",
  {
    projectId: projectId(),
    block: integer("block").notNull(),
    offsets: text("offsets").notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.block] })],
);

/**
 * Every result with a final outcome: a verdict (valid/invalid) or an error outcome. Written
 * once, ever: the primary key is what makes a result count exactly once. A row holds only
 * what a replay's answer, the fairness report and the retention purge read (docs/storage.md).
 */
// WITHOUT ROWID (hand-written in migrations 0010 and 0013: a row write costs one D1 row, not two); keep it if a migration rebuilds the table.
export const results = sqliteTable(
  "results",
  {
    projectId: projectId(),
    id: integer("id").notNull(),
    appId: integer("app_id").notNull(),
    hostId: integer("host_id").notNull(),
    /** A code of db/codes.ts RESULT_OUTCOMES: the verdict, or the error outcome. */
    outcome: integer("outcome").notNull(),
    grantedCredit: real("granted_credit").notNull().default(0),
    claimedCredit: real("claimed_credit"),
    /** A code of db/codes.ts PFC_MODES. */
    pfcMode: integer("pfc_mode"),
    /**
     * A claimed valid result: its workunit's credit under each policy, each NULL where it
     * equals the one before it (boinc: the granted credit; fair: boinc), and the fair rule (a
     * code of FAIR_RULE_CODES) that decided its claim.
     */
    boincCredit: real("boinc_credit"),
    fairCredit: real("fair_credit"),
    fairRule: integer("fair_rule"),
    /** The first 64 bits of the SHA-256 of the posted content (http/fingerprint.ts): a re-post with other content is a conflict. */
    fingerprint: integer("fingerprint").notNull(),
    /** Whole seconds: the `now` of the pass that gave the outcome. */
    decidedAt: integer("decided_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.id] })],
);

/**
 * Every trickle message that was paid, with what it was paid: the primary key makes a message
 * count exactly once (a re-post with the same fingerprint gets this answer again).
 */
// WITHOUT ROWID (hand-written in migration 0013: a row write costs one D1 row, not two); keep it if a migration rebuilds the table.
export const trickles = sqliteTable(
  "trickles",
  {
    projectId: projectId(),
    id: integer("id").notNull(),
    appId: integer("app_id").notNull(),
    hostId: integer("host_id").notNull(),
    /** The first 64 bits of the SHA-256 of the posted message (http/fingerprint.ts): the same id with other content is a conflict. */
    fingerprint: integer("fingerprint").notNull(),
    credit: real("credit").notNull(),
    /**
     * The runtime paid when it was cut to the app's maximum; NULL when the reported runtime
     * (part of the fingerprint) was paid. With the FLOPS and their source (a code of
     * FLOPS_SOURCES), the answer's explanation.
     */
    cutRuntime: real("cut_runtime"),
    flops: real("flops").notNull(),
    flopsSource: integer("flops_source").notNull(),
    /** Whole seconds: the `now` of the batch that paid it. */
    grantedAt: integer("granted_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.id] })],
);

/** What a daily history or a KV snapshot is kept for. "project" has entity id 0. */
const CREDIT_SUBJECTS = ["host", "user", "team", "project"] as const;
export type CreditSubject = (typeof CREDIT_SUBJECTS)[number];

/**
 * Daily credit (UTC days), written by every pass from its grants: what BOINC never stored.
 * `credit` is what was granted that day; the RAC pair is the subject's after its last grant of
 * the day, so the day's end value is that pair decayed to the end of the day.
 */
// WITHOUT ROWID (hand-written in migration 0010: a row write costs one D1 row, not two); keep it if a migration rebuilds the table.
export const creditHistory = sqliteTable(
  "credit_history",
  {
    projectId: projectId(),
    subject: text("subject", { enum: CREDIT_SUBJECTS }).notNull(),
    entityId: integer("entity_id").notNull(),
    /** Days since 1970-01-01 UTC. */
    day: integer("day").notNull(),
    credit: real("credit").notNull().default(0),
    ...recentAverage(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.subject, t.entityId, t.day] })],
);

/**
 * History older than the project's daily span, one bucket per subject and month: the days'
 * credit summed, and the latest RAC pair among them (src/jobs/history-rollup.ts).
 */
export const creditHistoryMonthly = sqliteTable(
  "credit_history_monthly",
  {
    projectId: projectId(),
    subject: text("subject", { enum: CREDIT_SUBJECTS }).notNull(),
    entityId: integer("entity_id").notNull(),
    /** Months since 1970-01 (UTC): (year − 1970) × 12 + month − 1. */
    month: integer("month").notNull(),
    credit: real("credit").notNull().default(0),
    ...recentAverage(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.subject, t.entityId, t.month] })],
);

/**
 * The queue of subjects whose KV snapshot is out of date: a pass appends ONE row naming every
 * subject it touched (a JSON array of [subject, id] pairs), so marking costs one D1 row write
 * per pass, not one per subject. The minute cron reads the oldest rows, writes the snapshots,
 * and in one batch deletes the rows it read and appends what it could not write. `id` is the
 * rowid (no AUTOINCREMENT: that would cost a write to sqlite_sequence per row).
 */
export const kvMarks = sqliteTable("kv_marks", {
  id: integer("id").primaryKey(),
  projectId: projectId(),
  /** JSON array of [subject, entity id] pairs (src/db/kv-marks.ts). No index: the cron reads the whole queue. */
  subjects: text("subjects").notNull(),
});

/**
 * Finished days of a project whose history lives in other databases: a pass appends ONE row
 * with the history buckets its first grants of a new day closed (a JSON array of [subject,
 * entity id, day, credit, expavg_credit, expavg_time]); the minute job moves them to the
 * project's history database and deletes them (src/db/history-queue.ts). `id` is the
 * project's queue_seq, so an id is never used twice.
 */
// WITHOUT ROWID (hand-written in the migration): a row write costs one D1 row.
export const historyQueue = sqliteTable(
  "history_queue",
  {
    projectId: projectId(),
    id: integer("id").notNull(),
    entries: text("entries").notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.id] })],
);

/**
 * Per-app credit waiting to be folded into credit_users / credit_teams: a pass appends ONE row
 * with its grant runs per (user, app) and (team, app) (a JSON array of [kind, holder id, app
 * id, first credit, first start, rest credit, jobs]); the hourly job applies them in order and
 * writes each per-app row once (src/db/app-credit-queue.ts).
 */
// WITHOUT ROWID (hand-written in the migration): a row write costs one D1 row.
export const appCreditQueue = sqliteTable(
  "app_credit_queue",
  {
    projectId: projectId(),
    id: integer("id").notNull(),
    /** The pass's `now`: every run in the row was granted at it. */
    now: real("now").notNull(),
    runs: text("runs").notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.id] })],
);

/**
 * Account managers (Science United style): each posts its hosts' RPCs with its own token,
 * stored only as a hash.
 */
export const accountManagers = sqliteTable(
  "account_managers",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    slug: text("slug").notNull().unique(),
    name: text("name").notNull(),
    /** The current token's hash. */
    tokenHash: text("token_hash").notNull().unique(),
    createdAt: real("created_at").notNull(),
    /** The token before the last rotation, working until previous_expires_at (a rotation's grace). */
    previousTokenHash: text("previous_token_hash"),
    previousExpiresAt: real("previous_expires_at"),
    /** Set by a revocation: no token of this account manager works until the next rotation. */
    revokedAt: real("revoked_at"),
  },
  (t) => [index("account_managers_previous_token").on(t.previousTokenHash)],
);

/**
 * Central server: a project elsewhere (a classic BOINC server, or another Cobblestone
 * deployment) that pushes its app-version export. Its token is stored only as a hash.
 */
export const centralContributors = sqliteTable("central_contributors", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  name: text("name").notNull(),
  url: text("url"),
  tokenHash: text("token_hash").notNull().unique(),
  createdAt: real("created_at").notNull(),
});

const amId = () =>
  integer("am_id")
    .notNull()
    .references(() => accountManagers.id);

/**
 * Every RPC an account manager posted for a host, with what it booked (`outcome`, the JSON
 * answer: claims, bookings, clips). `seq` numbers a host's RPCs: an RPC is written as number
 * last + 1, so of two concurrent RPCs of one host only one can be written on a given baseline
 * (the other rolls back and is computed again). The unique time makes a replay collide.
 */
export const amRpcs = sqliteTable(
  "am_rpcs",
  {
    amId: amId(),
    hostId: integer("host_id").notNull(),
    seq: integer("seq").notNull(),
    rpcTime: real("rpc_time").notNull(),
    userId: integer("user_id").notNull(),
    /** SHA-256 of the posted content: the same time with other content is a conflict. */
    fingerprint: text("fingerprint").notNull(),
    outcome: text("outcome").notNull(),
  },
  (t) => [primaryKey({ columns: [t.amId, t.hostId, t.seq] }), uniqueIndex("am_rpcs_time").on(t.amId, t.hostId, t.rpcTime)],
);

/** The lifetime totals a host last reported for a project: the baseline of the next delta. */
export const amHostProjects = sqliteTable(
  "am_host_projects",
  {
    amId: amId(),
    hostId: integer("host_id").notNull(),
    /** The project's master URL as a key (src/credit/project-url.ts). */
    url: text("url").notNull(),
    /** The master URL as the client last sent it: what a client attaches to. Null: before it was kept. */
    masterUrl: text("master_url"),
    lastTime: real("last_time").notNull(),
    cpuEc: real("cpu_ec").notNull(),
    cpuTime: real("cpu_time").notNull(),
    gpuEc: real("gpu_ec").notNull(),
    gpuTime: real("gpu_time").notNull(),
    njobsSuccess: real("njobs_success").notNull(),
    njobsError: real("njobs_error").notNull(),
  },
  (t) => [primaryKey({ columns: [t.amId, t.hostId, t.url] })],
);

/** What an account manager's daily accounting row is kept for. */
const AM_SUBJECTS = ["total", "user", "project", "user_project", "host", "host_project"] as const;
export type AmSubject = (typeof AM_SUBJECTS)[number];

/**
 * Daily accounting (UTC days) of booked deltas: per subject (entity id 0 and url '' where the
 * subject has none), the day's deltas and the running total of estimated credit. The factor
 * columns are written by the daily reconciliation on user_project and host_project rows.
 */
export const amDaily = sqliteTable(
  "am_daily",
  {
    amId: amId(),
    subject: text("subject", { enum: AM_SUBJECTS }).notNull(),
    entityId: integer("entity_id").notNull(),
    url: text("url").notNull(),
    /** Days since 1970-01-01 UTC. */
    day: integer("day").notNull(),
    /** host_project rows: the user the host's latest delta of the day was booked for. */
    userId: integer("user_id").notNull().default(0),
    /** Estimated credit booked (after clipping), and claimed before clipping. */
    ec: real("ec").notNull().default(0),
    claimedEc: real("claimed_ec").notNull().default(0),
    cpuTime: real("cpu_time").notNull().default(0),
    gpuTime: real("gpu_time").notNull().default(0),
    njobsSuccess: real("njobs_success").notNull().default(0),
    njobsError: real("njobs_error").notNull().default(0),
    /** Estimated credit booked up to the end of this day. */
    totalEc: real("total_ec").notNull().default(0),
    /**
     * Written by the daily reconciliation, null until then. user_project and host_project rows:
     * factor = min(1, granted / estimated) over the window ending this day, with the window's
     * sums, and confirmed_ec = ec × factor; user, project and total rows: confirmed_ec, the sum
     * of their user_project rows' (estimated credit of projects that cannot be reconciled is
     * not confirmed).
     */
    confirmedEc: real("confirmed_ec"),
    factor: real("factor"),
    windowGranted: real("window_granted"),
    windowEstimated: real("window_estimated"),
  },
  (t) => [primaryKey({ columns: [t.amId, t.subject, t.entityId, t.url, t.day] })],
);

/** A project's host that is an account manager's host: what reconciliation compares. */
export const amHostLinks = sqliteTable(
  "am_host_links",
  {
    projectId: projectId(),
    hostId: integer("host_id").notNull(),
    amId: amId(),
    amHostId: integer("am_host_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.hostId] }), index("am_host_links_am_host").on(t.amId, t.amHostId)],
);

/**
 * The app versions a contributor last pushed, one set per (contributor, project): a push
 * replaces its set. reported_at dates it; sets not refreshed for 30 days drop out.
 */
export const centralContributions = sqliteTable(
  "central_contributions",
  {
    contributorId: integer("contributor_id")
      .notNull()
      .references(() => centralContributors.id, { onDelete: "cascade" }),
    /** The contributor's own name for the project ("" when it pushes one project). */
    project: text("project").notNull(),
    appVersionId: integer("app_version_id").notNull(),
    app: text("app").notNull(),
    platform: text("platform").notNull(),
    planClass: text("plan_class").notNull(),
    versionNum: integer("version_num").notNull(),
    pfcN: real("pfc_n").notNull(),
    pfcAvg: real("pfc_avg").notNull(),
    pfcScale: real("pfc_scale").notNull(),
    ...recentAverage(),
    reportedAt: real("reported_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.contributorId, t.project, t.appVersionId] })],
);

/** One published version of the plan-class scale table: the time of the aggregation run. */
export const planClassScaleVersions = sqliteTable("plan_class_scale_versions", {
  version: real("version").primaryKey(),
  /** Projects whose fresh reports were read (local and contributed), counted or not. */
  nsources: integer("nsources").notNull(),
});

/**
 * The published plan-class scale table, one version per aggregation run (version = the run's
 * time), kept so that a project can pin one. kind "plan_class" rows are per plan class,
 * "proc_type" rows per processor type (cpu, nvidia, amd, intel_gpu, apple_gpu).
 */
export const planClassScales = sqliteTable(
  "plan_class_scales",
  {
    version: real("version")
      .notNull()
      .references(() => planClassScaleVersions.version),
    kind: text("kind", { enum: ["plan_class", "proc_type"] }).notNull(),
    name: text("name").notNull(),
    procType: text("proc_type").notNull(),
    /** Average pfc_scale, weighted by each version's RAC decayed to the run's time. */
    scale: real("scale").notNull(),
    /** The weight behind it: the summed decayed RAC (credits/day). */
    recentCredit: real("recent_credit").notNull(),
    nprojects: integer("nprojects").notNull(),
    nversions: integer("nversions").notNull(),
  },
  (t) => [primaryKey({ columns: [t.version, t.kind, t.name] })],
);

/**
 * What a project token may do (docs/tokens-and-audit.md#scopes): `ingest` is what a validator
 * or the bridge needs (passes, errors, trickles, rescales, registering apps, versions and
 * holders, every read); `manage` is that and the project's settings, the fair re-base and its
 * tokens.
 */
export const TOKEN_SCOPES = ["ingest", "manage"] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

/**
 * A project's bearer tokens, stored only as SHA-256. A project may hold several: rotation
 * issues a new one and gives the others of its scope 24 hours (`expires_at`); revocation
 * deletes the row. The id is not secret: it names the token in the audit log and in
 * DELETE …/tokens/:id.
 */
export const projectTokens = sqliteTable(
  "project_tokens",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    projectId: projectId(),
    tokenHash: text("token_hash").notNull().unique(),
    createdAt: real("created_at").notNull(),
    /** Null: works until revoked. Set when a newer token of the same scope is issued. */
    expiresAt: real("expires_at"),
    /**
     * TOKEN_SCOPES. The default is for the rows stored before scopes existed: those tokens
     * could do everything, and keep doing it. Every insert names its scope.
     */
    scope: text("scope", { enum: TOKEN_SCOPES }).notNull().default("manage"),
  },
  (t) => [index("project_tokens_project").on(t.projectId)],
);

/**
 * Every write that succeeded: who (`actor`: "token:<id>", "admin", "am:<id>",
 * "contributor:<id>"), what (method, route pattern, path), when, and the request id. Rows of
 * project routes carry the project; the project reads them with GET /audit.
 */
export const auditLog = sqliteTable(
  "audit_log",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    projectId: integer("project_id"),
    at: real("at").notNull(),
    actor: text("actor").notNull(),
    method: text("method").notNull(),
    route: text("route").notNull(),
    target: text("target").notNull(),
    status: integer("status").notNull(),
    requestId: text("request_id").notNull(),
    /** Why, where the route asks for one (a fair re-base). */
    reason: text("reason"),
  },
  (t) => [index("audit_log_project").on(t.projectId, t.id)],
);

/**
 * The KV refresh's fence: the \`now\` of the newest run that started. A run whose \`now\` is
 * older stops writing, so KV never gets a snapshot older than one a newer run wrote.
 */
export const kvRefreshFence = sqliteTable("kv_refresh_fence", {
  id: integer("id").primaryKey(),
  takenAt: real("taken_at").notNull(),
});

/** The credit holders by table name (the leaderboards: each by RAC or by total credit). */
export const HOLDER_KINDS = ["hosts", "users", "teams"] as const;
export type HolderKind = (typeof HOLDER_KINDS)[number];
export const LEADERBOARD_ORDERS = ["expavg_credit", "total_credit"] as const;
export type LeaderboardOrder = (typeof LEADERBOARD_ORDERS)[number];

/**
 * Where the whole-leaderboard publication (src/jobs/leaderboard-pages.ts) stands for each
 * board (a project's hosts, users or teams in one order): written once per board per run of
 * that job, never by a pass.
 */
export const leaderboardPublications = sqliteTable(
  "leaderboard_publications",
  {
    projectId: projectId(),
    kind: text("kind", { enum: HOLDER_KINDS }).notNull(),
    by: text("by", { enum: LEADERBOARD_ORDERS }).notNull(),
    /** The next page to write of a publication under way (0: none under way). */
    nextPage: integer("next_page").notNull().default(0),
    /** When the last whole publication finished (Unix seconds; 0: never). */
    publishedAt: real("published_at").notNull().default(0),
    /** How many holders the last whole publication ranked. */
    holders: integer("holders").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.kind, t.by] })],
);
