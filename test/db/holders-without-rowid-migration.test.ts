/**
 * Migration 0019 rebuilds hosts, users and teams WITHOUT ROWID. The migrations run here on a
 * copy of the schema under other table names (as compact-rows-migration.test.ts does), with
 * accounts stored before it: every column survives, the cpid indexes and the count triggers
 * are back, and a new row still counts.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { migrateRenamedTo } from "../support/renamed-migrations";

const PREFIX = "m19_";

const all = async (sql: string) => (await env.DB.prepare(sql).all()).results;

describe("migration 0019 (hosts, users and teams WITHOUT ROWID)", () => {
  it("keeps every account and column, the cpid indexes and the count triggers", async () => {
    await migrateRenamedTo(PREFIX, "0019", async () => {
      await env.DB.prepare(`INSERT INTO ${PREFIX}projects (id, slug, name, created_at) VALUES (1, 'old', 'Old', 1700000000)`).run();
      await env.DB.batch([
        env.DB.prepare(
          `INSERT INTO ${PREFIX}hosts (project_id, id, name, create_time, total_credit, expavg_credit, expavg_time, user_id, host_cpid, p_fpops, day_credit)
           VALUES (1, 7, 'h7', 1700000000, 12.5, 3.25, 1700000100, 2, 'abc', 1e9, 1.5), (1, 8, NULL, 1700000001, 0, 0, 0, 0, NULL, NULL, 0)`,
        ),
        env.DB.prepare(
          `INSERT INTO ${PREFIX}users (project_id, id, name, create_time, total_credit, expavg_credit, expavg_time, team_id, cpid, stats_export, day_credit)
           VALUES (1, 2, 'Ann', 1700000000, 12.5, 3.25, 1700000100, 4, 'def', 0, 1.5)`,
        ),
        env.DB.prepare(
          `INSERT INTO ${PREFIX}teams (project_id, id, name, create_time, total_credit, expavg_credit, expavg_time, day_credit) VALUES (1, 4, 'T', 1700000000, 12.5, 3.25, 1700000100, 1.5)`,
        ),
      ]);
    });

    expect(
      await all(
        `SELECT project_id, id, name, create_time, total_credit, expavg_credit, expavg_time, user_id, host_cpid, p_fpops, day_credit FROM ${PREFIX}hosts ORDER BY id`,
      ),
    ).toEqual([
      {
        project_id: 1,
        id: 7,
        name: "h7",
        create_time: 1700000000,
        total_credit: 12.5,
        expavg_credit: 3.25,
        expavg_time: 1700000100,
        user_id: 2,
        host_cpid: "abc",
        p_fpops: 1e9,
        day_credit: 1.5,
      },
      {
        project_id: 1,
        id: 8,
        name: null,
        create_time: 1700000001,
        total_credit: 0,
        expavg_credit: 0,
        expavg_time: 0,
        user_id: 0,
        host_cpid: null,
        p_fpops: null,
        day_credit: 0,
      },
    ]);
    expect(await all(`SELECT id, name, team_id, cpid, stats_export, day_credit FROM ${PREFIX}users`)).toEqual([
      { id: 2, name: "Ann", team_id: 4, cpid: "def", stats_export: 0, day_credit: 1.5 },
    ]);
    expect(await all(`SELECT id, name, total_credit FROM ${PREFIX}teams`)).toEqual([{ id: 4, name: "T", total_credit: 12.5 }]);
    // The generated leaderboard key is computed for the rebuilt rows too: ln(3.25) + t·ln2/week.
    const rank = await env.DB.prepare(`SELECT rac_rank FROM ${PREFIX}hosts WHERE id = 7`).first<number>("rac_rank");
    expect(rank).toBeCloseTo(Math.log(3.25) + (1700000100 * Math.LN2) / 604800, 6);

    for (const table of ["hosts", "users", "teams"]) {
      const { sql } = (await env.DB.prepare(`SELECT sql FROM sqlite_master WHERE name = '${PREFIX}${table}'`).first<{ sql: string }>())!;
      expect(sql).toMatch(/WITHOUT ROWID$/);
    }
    const extras = await all(
      `SELECT type, tbl_name FROM sqlite_master WHERE type IN ('index', 'trigger') AND tbl_name IN ('${PREFIX}hosts', '${PREFIX}users', '${PREFIX}teams') ORDER BY tbl_name, type`,
    );
    expect(extras).toEqual([
      { type: "index", tbl_name: `${PREFIX}hosts` },
      { type: "trigger", tbl_name: `${PREFIX}hosts` },
      { type: "trigger", tbl_name: `${PREFIX}teams` },
      { type: "index", tbl_name: `${PREFIX}users` },
      { type: "trigger", tbl_name: `${PREFIX}users` },
    ]);
    // The count triggers fire on the rebuilt tables (the rows copied by the migration did not count again).
    await env.DB.prepare(`UPDATE ${PREFIX}projects SET host_count = 2 WHERE id = 1`).run();
    await env.DB.prepare(`INSERT INTO ${PREFIX}hosts (project_id, id, create_time) VALUES (1, 9, 1700000002)`).run();
    expect(await env.DB.prepare(`SELECT host_count FROM ${PREFIX}projects WHERE id = 1`).first<number>("host_count")).toBe(3);
    // Many migrations, one statement at a time: seconds on a loaded machine.
  }, 120_000);
});
