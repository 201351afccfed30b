/**
 * Migration 0024 moves the purge record's one-workunit runs (ids with gaps, recorded before
 * purged_workunit_blocks) into blocks, and keeps longer runs: every workunit it recorded is
 * still refused (410), and an id it did not record is credited as ever.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import migration from "../../migrations/0024_purged_workunit_blocks.sql?raw";
import { expectError, result, setupProject, workunit } from "../support/api-helpers";
import { daysAgo, passFor } from "../reads/fixtures";
import { projectIdOf } from "../support/project-id";

const late = (wu: number, now: number) => ({
  now,
  workunits: [workunit(wu, [result(wu * 10 + 7, { host_id: 10, user_id: 10, sent_time: now - 7200, received_time: now - 3600 })])],
});

describe("migration 0024 (purged_workunit_blocks)", () => {
  it("moves one-workunit runs into a row per block, keeps longer runs, and refuses what was recorded", async () => {
    const { slug, api } = await setupProject("wu-migrate");
    const id = await projectIdOf(slug);
    const now = daysAgo(0);
    await api.ok("POST", "/passes", passFor(now, 20_000, { host: 10, user: 10 }));
    // As the purge recorded gaps before: a row per workunit (2, 4, 4100), and one run (7 to 9).
    for (const [first, last] of [
      [2, 2],
      [4, 4],
      [7, 9],
      [4100, 4100],
    ]) {
      await env.DB.prepare("INSERT INTO purged_workunits (project_id, first_id, last_id) VALUES (?, ?, ?)").bind(id, first, last).run();
    }
    // The migration's data statements (the table itself exists: the test database is migrated).
    const [create, ...moves] = migration.split("--> statement-breakpoint");
    expect(create).toContain("CREATE TABLE `purged_workunit_blocks`");
    expect(moves).toHaveLength(2);
    for (const statement of moves) await env.DB.prepare(statement).run();

    const runs = await env.DB.prepare("SELECT first_id, last_id FROM purged_workunits WHERE project_id = ?").bind(id).all();
    expect(runs.results).toEqual([{ first_id: 7, last_id: 9 }]);
    const blocks = await env.DB.prepare("SELECT block, offsets FROM purged_workunit_blocks WHERE project_id = ? ORDER BY block")
      .bind(id)
      .all<{ block: number; offsets: string }>();
    // 2 and 4 are in block 0; 4100 is block 1 (4100 / 4096), offset 4.
    expect(blocks.results.map((b) => [b.block, JSON.parse(b.offsets)])).toEqual([
      [0, [2, 4]],
      [1, [4]],
    ]);
    for (const wu of [2, 4, 8, 4100]) expectError(await api.raw("POST", "/passes", late(wu, now)), 410, "workunit_purged");
    // Ids it did not record, beside recorded ones in the same blocks: 3, 6, and 4101.
    for (const wu of [3, 6, 4101]) {
      expect((await api.ok("POST", "/passes", late(wu, now))).workunits[0]!.path, `workunit ${wu}`).toBe("fresh");
    }
  });
});
