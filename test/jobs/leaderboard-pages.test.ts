/**
 * The leaderboard-pages job ranks each board with more pages than the minute cron keeps from a
 * scan and writes its deeper pages to KV, within a KV-write budget per run (going on from where
 * the last run stopped), and again once the board is due (hourly, or when it grows a page).
 * Scenario: 11,500 users straight into D1, so pages 10 and 11 (0-based) lie below the top 10.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { publishLeaderboards } from "../../src/jobs/leaderboard-pages";
import { SNAPSHOT_LIMITS } from "../../src/snapshots/limits";
import { setupProject } from "../support/api-helpers";
import { projectIdOf } from "../support/project-id";

const USERS = 11_500;
const PAGE = SNAPSHOT_LIMITS.leaderboardPageSize;
let slug = "";
let projectId = 0;

beforeAll(async () => {
  slug = (await setupProject("deep")).slug;
  projectId = await projectIdOf(slug);
  // Totals repeat every 1,000 ids (ties by id); RACs differ from the totals' order.
  await env.DB.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${USERS})
     INSERT INTO users (project_id, id, create_time, total_credit, expavg_credit, expavg_time)
     SELECT ?, i, 0, (i * 7919) % 1000, (i * 104729) % 5000 + 1, 1.7e9 + (i * 15485863) % 86400 FROM n`,
  )
    .bind(projectId)
    .run();
  await countUsers(USERS);
}, 120_000);

/** Users inserted straight into D1 are counted as the batches that insert holders count them (src/db/holder-counts.ts). */
const countUsers = (n: number) => env.DB.prepare("UPDATE projects SET user_count = user_count + ? WHERE id = ?").bind(n, projectId).run();

const page = async (by: string, n: number) => JSON.parse((await env.KV.get(`p/${slug}/top2/users/${by}/${n}`)) ?? "null");

/** Hand-made order of the users by total credit: highest first, ties by id. */
async function byTotal(): Promise<number[]> {
  const { results } = await env.DB.prepare("SELECT id, total_credit FROM users_now WHERE project_id = ?")
    .bind(projectId)
    .all<{ id: number; total_credit: number }>();
  return results.sort((a, b) => b.total_credit - a.total_credit || a.id - b.id).map((u) => u.id);
}

describe("leaderboard-pages job", () => {
  it(
    "writes the pages below the top ones within its budget, resumes, then waits until the board is due",
    { timeout: 120_000 },
    async () => {
      const now = 2_000_000_000;
      // Budget 3: both deep pages by RAC, then the first by total; the second waits for the next run.
      expect(await publishLeaderboards(env, now, 3)).toEqual({ boards: 2, written: 3, failed: 0 });
      expect(await page("total_credit", 11)).toBeNull();
      expect(await page("total_credit", 9)).toBeNull(); // the top pages are the minute cron's
      expect(await publishLeaderboards(env, now + 600, 900)).toEqual({ boards: 1, written: 1, failed: 0 });

      const order = await byTotal();
      const p10 = await page("total_credit", 10);
      const p11 = await page("total_credit", 11);
      expect(p10.data.entries.map((e: { id: number }) => e.id)).toEqual(order.slice(10 * PAGE, 11 * PAGE));
      expect(p11.data.entries.map((e: { id: number }) => e.id)).toEqual(order.slice(11 * PAGE));
      expect(p11.data.entries.map((e: { rank: number }) => e.rank)).toEqual(
        Array.from({ length: USERS - 11 * PAGE }, (_, i) => 11 * PAGE + i + 1),
      );
      expect(p10.data.total).toBe(USERS);
      expect((await page("expavg_credit", 11)).data.entries.length).toBe(USERS - 11 * PAGE);

      // Published: nothing is due until an hour after, unless the board grows a page.
      expect(await publishLeaderboards(env, now + 1200)).toEqual({ boards: 0, written: 0, failed: 0 });
      expect(await publishLeaderboards(env, now + 600 + SNAPSHOT_LIMITS.leaderboardRepublishSeconds)).toEqual({
        boards: 2,
        written: 4,
        failed: 0,
      });
      await env.DB.prepare("INSERT INTO users (project_id, id, create_time) VALUES (?, ?, 0)")
        .bind(projectId, USERS + 600)
        .run();
      await countUsers(1);
      // 11,501 users still make 12 pages: not due; 500 more make a 13th.
      expect((await publishLeaderboards(env, now + 4800)).written).toBe(0);
      await env.DB.prepare(
        `WITH RECURSIVE n(i) AS (SELECT ${USERS + 1} UNION ALL SELECT i + 1 FROM n WHERE i < ${USERS + 500})
       INSERT INTO users (project_id, id, create_time) SELECT ?, i, 0 FROM n`,
      )
        .bind(projectId)
        .run();
      await countUsers(500);
      expect(await publishLeaderboards(env, now + 4860)).toEqual({ boards: 2, written: 6, failed: 0 });
      expect((await page("total_credit", 12)).data.entries.length).toBe(USERS + 501 - 12 * PAGE);
    },
  );
});
