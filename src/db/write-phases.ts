/**
 * The order of the statements of a write batch, as data. The writers (passes, alone or in a
 * batch: pass-batch-writes.ts; paid trickles: trickle-writes.ts; client errors:
 * error-writes.ts) give their statements by phase, and assembleWrites puts them
 * in the order of WRITE_PHASES. Each phase names the tables its statements write (the schema's
 * drizzle tables) and the phases it must follow, with the reason; test/db/write-phases.test.ts
 * checks that the list keeps every such rule and that each writer's batch writes its tables in
 * an order the list allows.
 */
import type { SQL } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import {
  appCreditQueue,
  appVersions,
  creditHistory,
  historyQueue,
  hostAppVersions,
  hosts,
  kvMarks,
  projects,
  results,
  teams,
  trickles,
  users,
  workunits,
} from "./schema";

interface WritePhaseRule {
  readonly phase: string;
  /** The tables its statements insert into, update or delete from. */
  readonly writes: readonly SQLiteTable[];
  /** Phases whose statements must all have run before this one's. */
  readonly after: readonly string[];
  readonly why: string;
}

export const WRITE_PHASES = [
  {
    phase: "holderCounts",
    writes: [projects],
    after: [],
    why: "counts the named hosts, users and teams not stored yet, when no projectCredit statement does: before any statement inserts one (holder-counts.ts)",
  },
  {
    phase: "outcomes",
    writes: [results, trickles],
    after: [],
    why: "a result (or trickle) already decided fails its insert and the whole batch: its place does not matter",
  },
  { phase: "workunits", writes: [workunits], after: [], why: "the same for a workunit already credited" },
  { phase: "hostAppVersions", writes: [hostAppVersions], after: [], why: "no other statement of a pass reads these rows" },
  {
    phase: "fairErrors",
    writes: [hostAppVersions],
    after: ["hostAppVersions"],
    why: "client errors counted in the fair error rate of rows the statements above may have just created (fair-rows.ts fairErrorWrites)",
  },
  {
    phase: "finishedDays",
    writes: [creditHistory, historyQueue],
    after: [],
    why: "the day buckets the grants finish, read from the rows as they are before the grants, a holder the batch creates as a fresh row (history-transitions.ts, holder-walks.ts)",
  },
  {
    phase: "appCreditQueue",
    writes: [appCreditQueue],
    after: [],
    why: "the per-app credit's queue row, numbered by queue_seq as the batch found it (queue-numbers.ts)",
  },
  {
    phase: "projectCredit",
    writes: [projects],
    after: ["finishedDays", "appCreditQueue"],
    why: "the project's grant run, which starts its new day, raises queue_seq past every number the rows above took, and counts the named holders not stored yet (holder-counts.ts): the project's row written once",
  },
  {
    phase: "holders",
    writes: [hosts, users, teams],
    after: ["holderCounts", "projectCredit"],
    why: "creates the holders no grant statement inserts, and sets owners and teams, before the grants update them; after the count of the holders not stored yet",
  },
  {
    phase: "holderCredit",
    writes: [hosts, users, teams],
    after: ["holders", "finishedDays"],
    why: "each holder's grant run; a fresh holder is inserted here with its grants applied",
  },
  {
    phase: "grantedHolders",
    writes: [hosts, users],
    after: ["holderCredit"],
    why: "the last owner or team of a holder a grant statement inserted with an earlier pass's",
  },
  {
    phase: "versions",
    writes: [appVersions],
    after: [],
    why: "each app version's PFC walk, RAC walk and fair state: one statement per version (version-writes.ts)",
  },
  { phase: "kvMarks", writes: [kvMarks], after: [], why: "the subjects whose KV snapshots the minute cron rewrites" },
] as const satisfies readonly WritePhaseRule[];

export type WritePhase = (typeof WRITE_PHASES)[number]["phase"];

/** A writer's statements by phase; a phase it has nothing for is absent or empty. */
export type PhasedWrites = Partial<Record<WritePhase, readonly SQL[]>>;

/** The statements of one batch, in the order of WRITE_PHASES. */
export function assembleWrites(writes: PhasedWrites): SQL[] {
  return WRITE_PHASES.flatMap(({ phase }) => writes[phase] ?? []);
}
