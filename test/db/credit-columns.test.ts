/**
 * docs/development.md's recipe "Adding a statistic a pass keeps", followed for a throwaway
 * statistic on the holders: `best_run`, the largest grant run a holder was paid in one pass
 * (its TypeScript form below, as the engine's would be in src/credit/). The test build adds
 * its column to this test's D1 and one entry to the column list; nothing else is written:
 * the writer's walk (holderWalkWrites) is generated from the list, and a pass per batch and
 * all passes in one batch both leave the engine's values, to the last bit.
 */
import { env } from "cloudflare:workers";
import { getTableName, sql } from "drizzle-orm";
import { real, sqliteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import type { Grant } from "../../src/credit/pass";

import { runBatch } from "../../src/db/batch";
import { database } from "../../src/db/client";
import { type CreditColumn, HOLDER_CREDIT_COLUMNS } from "../../src/db/credit-columns";
import { NO_BATCH_HOLDERS, holderWalkWrites } from "../../src/db/holder-walks";
import { usersAsTheyStand } from "../../src/db/owner-carriers";
import { grantGroups } from "../../src/db/grant-groups";
import { QueueNumbers } from "../../src/db/queue-numbers";
import { type HolderTable, hosts, teams, users } from "../../src/db/schema";
import { grantRun } from "../../src/db/stat-updates";

const db = database(env.DB);

/**
 * The recipe's column, as schema.ts would declare it in creditHolder (`bestRun: real("best_run")…`):
 * here on a stand-in of each holder table, whose column this test's D1 adds.
 */
const bestRunOf = new Map(
  [hosts, users, teams].map((t) => [t, sqliteTable(getTableName(t), { bestRun: real("best_run").notNull().default(0) }).bestRun]),
);
/** The recipe's one entry: the statistic's column and its step from the row's value before a run and the run. */
const BEST_RUN: CreditColumn<HolderTable> = {
  column: (t) => bestRunOf.get(t)!,
  as: "best",
  step: (before, run) => sql`max(${before("best")}, ${run("credit")} + ${run("rest")})`,
};
const COLUMNS = [...HOLDER_CREDIT_COLUMNS, BEST_RUN];

/** Its TypeScript form: a pass's run on a holder (grantRun, as the engine collapses it), then the largest. */
function bestRunTs(passes: readonly { now: number; grants: readonly Grant[] }[], hostId: number): number {
  let best = 0;
  for (const { now, grants } of passes) {
    const parts = grants.filter((g) => g.hostId === hostId).map((g) => ({ credit: g.credit, start: g.startTime }));
    if (parts.length === 0) continue;
    const run = grantRun(now, parts);
    best = Math.max(best, run.first.credit + run.restCredit);
  }
  return best;
}

const HOSTS = [1, 2, 3];
const grant = (resultId: number, hostId: number, credit: number, startTime: number): Grant => ({
  resultId,
  hostId,
  userId: 10 + hostId,
  teamId: 20,
  appId: 1,
  credit,
  startTime,
});
/** Four passes a day apart; each credits some hosts, some twice, with credits no float sums exactly. */
const PASSES = [
  { now: 1_000_000, grants: [grant(1, 1, 12.5, 999_000), grant(2, 2, 1 / 3, 999_500), grant(3, 1, 0.1, 999_900)] },
  { now: 1_086_400, grants: [grant(4, 2, 40.25, 1_080_000), grant(5, 3, 7 / 9, 1_086_000)] },
  { now: 1_172_800, grants: [grant(6, 1, 3.3, 1_170_000), grant(7, 1, 8.8, 1_170_001), grant(8, 3, 0, 1_172_000)] },
  { now: 1_259_200, grants: [grant(9, 2, 0.2, 1_250_000), grant(10, 2, 0.7, 1_250_001), grant(11, 3, 99.9, 1_259_000)] },
];

/** A project whose hosts, users and team exist, and the throwaway column on the holders' tables. */
async function setUp(projectId: number): Promise<void> {
  await env.DB.prepare("INSERT INTO projects (id, slug, name, created_at) VALUES (?, ?, ?, 0)")
    .bind(projectId, `p${projectId}`, `p${projectId}`)
    .run();
  for (const id of HOSTS) {
    await env.DB.prepare("INSERT INTO hosts (project_id, id, create_time, user_id, expavg_time) VALUES (?, ?, 0, ?, ?)")
      .bind(projectId, id, 10 + id, PASSES[0]!.now)
      .run();
    await env.DB.prepare("INSERT INTO users (project_id, id, create_time, team_id, expavg_time) VALUES (?, ?, 0, 20, ?)")
      .bind(projectId, 10 + id, PASSES[0]!.now)
      .run();
  }
  await env.DB.prepare("INSERT INTO teams (project_id, id, create_time, expavg_time) VALUES (?, 20, 0, ?)")
    .bind(projectId, PASSES[0]!.now)
    .run();
}

interface Row {
  id: number;
  total_credit: number;
  expavg_credit: number;
  expavg_time: number;
  day_credit: number;
  best_run: number;
}
const rowsOf = async (projectId: number) =>
  (
    await env.DB.prepare(
      "SELECT id, total_credit, expavg_credit, expavg_time, day_credit, best_run FROM hosts WHERE project_id = ? ORDER BY id",
    )
      .bind(projectId)
      .all<Row>()
  ).results;

describe("a statistic added to the holders' column list", () => {
  it("is written by a pass alone and by a pass batch, each equal to its TypeScript form", async () => {
    for (const t of ["hosts", "users", "teams"]) await env.DB.exec(`ALTER TABLE ${t} ADD COLUMN best_run REAL NOT NULL DEFAULT 0`);
    // A user's column rides on its carrier host too (src/db/owner-carriers.ts): its owner_ twin.
    await env.DB.exec("ALTER TABLE hosts ADD COLUMN owner_best_run REAL");
    const [alone, batched] = [31, 32];
    await setUp(alone);
    await setUp(batched);

    const empty = { hosts: new Map(), users: new Map(), teams: new Map() };
    const write = async (projectId: number, passes: typeof PASSES) => {
      const walks = holderWalkWrites(
        projectId,
        passes.map(({ now, grants }) => ({ now, grants, groups: grantGroups(grants), fresh: empty })),
        new QueueNumbers(projectId),
        "ledger",
        NO_BATCH_HOLDERS,
        COLUMNS,
      );
      await runBatch(db, [...walks.history, ...walks.holders, ...walks.projectRow]);
    };
    // A pass alone is a batch of one.
    for (const pass of PASSES) await write(alone, [pass]);
    await write(batched, PASSES);

    const want = HOSTS.map((id) => bestRunTs(PASSES, id));
    // Worked out by hand: host 1's runs are 12.6 (12.5 + 0.1) and 12.1 (3.3 + 8.8); host 2's
    // 1/3, 40.25 and 0.9; host 3's 7/9, 0 and 99.9.
    expect(want[0]).toBeCloseTo(12.6, 12);
    expect(want[1]).toBe(40.25);
    expect(want[2]).toBe(99.9);
    const byAlone = await rowsOf(alone);
    const byBatch = await rowsOf(batched);
    expect(byAlone.map((r) => r.best_run)).toEqual(want);
    expect(byBatch.map((r) => r.best_run)).toEqual(want);
    // The walk's other columns agree with the passes' one by one too.
    expect(byBatch).toEqual(byAlone);
    // Each user's as it stands: its row's, or its carrier host's.
    const userRows = await db.all<{ best_run: number }>(
      sql`SELECT id, best_run FROM ${usersAsTheyStand(batched, [BEST_RUN as CreditColumn<typeof users>], sql`(SELECT id FROM users WHERE project_id = ${batched})`)} ORDER BY id`,
    );
    expect(userRows.map((r) => r.best_run)).toEqual(want);
  });
});
