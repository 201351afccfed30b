/**
 * The batch's own renderer (src/db/render-sql.ts) gives exactly drizzle's text and parameters
 * for every piece it takes, and declines (null: drizzle renders) every piece it does not.
 * The statements of the pass writers are checked whole; every other test runs them through D1.
 */
import { env } from "cloudflare:workers";
import { type SQL, eq, sql } from "drizzle-orm";
import { SQLiteAsyncDialect, alias } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import type { Attribution, Grant } from "../../src/credit/pass";
import { appCreditQueueWrites } from "../../src/db/app-credit-queue";
import { database } from "../../src/db/client";
import { attributionCounts, holderCountStatement } from "../../src/db/holder-counts";
import { NO_BATCH_HOLDERS, grantWalkPhases, holderWalkWrites } from "../../src/db/holder-walks";
import { PROJECT_SUBJECT, markSubjects } from "../../src/db/kv-marks";
import { grantGroups } from "../../src/db/grant-groups";
import { workunitInserts } from "../../src/db/outcome-writes";
import { QueueNumbers } from "../../src/db/queue-numbers";
import { renderStatement } from "../../src/db/render-sql";
import { hosts, projects } from "../../src/db/schema";
import { setClause } from "../../src/db/stat-updates";
import { col, name } from "../../src/db/sql-helpers";

const dialect = new SQLiteAsyncDialect();
const drizzles = (s: SQL) => {
  const q = dialect.sqlToQuery(s);
  return { sql: q.sql, params: q.params };
};

const grants: Grant[] = [
  { resultId: 11, hostId: 1, userId: 7, teamId: 3, appId: 2, credit: 12.5, startTime: 990.25 },
  { resultId: 12, hostId: 2, userId: 8, teamId: 0, appId: 2, credit: 1 / 3, startTime: 991, perApp: "credit" },
  { resultId: 13, hostId: 4, userId: 0, teamId: 0, appId: 5, credit: 0, startTime: 992, perApp: "none" },
];
const attributions: Attribution[] = grants.map((g) => ({ hostId: g.hostId, userId: g.userId, teamId: g.teamId }));

describe("the batch's SQL renderer", () => {
  it("renders every statement of the pass writers as drizzle does", () => {
    const groups = grantGroups(grants);
    const fresh = { hosts: new Map([[4, 0]]), users: new Map([[8, 0]]), teams: new Map<number, null>() };
    const statements = [
      // A pass alone: a batch of one, its holders stored or fresh.
      ...[{ hosts: new Map(), users: new Map(), teams: new Map() }, fresh].flatMap((f) =>
        Object.values(
          grantWalkPhases(9, [{ now: 1000.5, groups, grants, fresh: f }], {
            ...NO_BATCH_HOLDERS,
            counts: attributionCounts(9, attributions),
          }),
        ).flat(),
      ),
      ...appCreditQueueWrites(
        9,
        [
          { now: 999, groups },
          { now: 1000.5, groups },
        ],
        new QueueNumbers(9),
      ),
      ...markSubjects(9, [PROJECT_SUBJECT, { subject: "host", id: 1 }]),
      ...holderCountStatement(attributionCounts(9, attributions)),
      ...workunitInserts(9, [{ id: 5, appId: 2, credit: 12.5, at: 1000 }]),
      ...(["guarded", "ledger", "queue"] as const).flatMap((history) => {
        const passes = [
          { now: 999, groups, grants, fresh },
          { now: 1000.5, groups, grants, fresh: { hosts: new Map(), users: new Map(), teams: new Map() } },
        ];
        const walks = holderWalkWrites(9, passes, new QueueNumbers(9), history);
        return [...walks.history, ...walks.holders, ...walks.projectRow];
      }),
    ];
    expect(statements.length).toBeGreaterThan(8);
    for (const s of statements) {
      const fast = renderStatement(s);
      expect(fast, drizzles(s).sql).not.toBeNull();
      expect(fast).toEqual(drizzles(s));
    }
  });

  it("takes text, identifiers, tables, columns, bound values and nesting exactly as drizzle", () => {
    const nested = sql`UPDATE ${hosts} SET ${setClause([[hosts.totalCredit.name, sql`${name(hosts.totalCredit)} + ${1.5}`]])}
      WHERE ${eq(hosts.projectId, 3)} AND ${hosts.id} IN (${sql.join(
        [1, 2, 3].map((n) => sql`${n}`),
        sql`, `,
      )})`;
    const cases: SQL[] = [
      nested,
      sql`SELECT ${null}, ${true}, ${false}, ${"it's"}, ${10n}, ${-0.1}, ${col('odd"name')} FROM ${projects}`,
      sql`SELECT ${undefined}${sql.raw("1")}`,
      sql`${sql.identifier("a")}.${sql.identifier("b")} = ${sql`${sql`${"deep"}`}`}`,
    ];
    for (const s of cases) expect(renderStatement(s)).toEqual(drizzles(s));
  });

  it("declines what it does not render, and drizzle renders it", () => {
    const h = alias(hosts, "h");
    const db = database(env.DB);
    const declined: SQL[] = [
      sql`SELECT ${sql.placeholder("x")}`,
      sql`SELECT ${h.id} FROM ${h}`,
      sql`SELECT * FROM (${db.select({ id: hosts.id }).from(hosts)})`,
      sql`SELECT ${[1, 2]}`,
      sql`SELECT ${"inline"}`.inlineParams(),
      sql`SELECT ${{ an: "object" }}`,
    ];
    for (const s of declined) {
      expect(renderStatement(s)).toBeNull();
      expect(drizzles(s).sql.length).toBeGreaterThan(0);
    }
  });
});
