/**
 * Issue 36, finding 7: the purge record stays small whatever the workunit ids. A project with
 * 1-day retention credits 500 workunits with even ids (2 to 1000) 3 days back, and one now; the
 * retention job deletes the 500. Their odd neighbours were never credited (BOINC's ids have
 * gaps: workunits that errored out). The record is then a row or two, not 500; a new result of
 * any purged workunit is still refused with 410, and an odd id is credited as ever.
 */
import { env } from "cloudflare:workers";
import { afterAll, describe, expect, it } from "vitest";
import { MAX_RUNS_PER_CHUNK, PURGED_BLOCK_IDS } from "../../src/db/retention";
import { expectError, result, setupProject, workunit } from "../support/api-helpers";
import { DAY, daysAgo, passFor } from "../reads/fixtures";
import { fixClock, restoreClock } from "../support/clock";
import { runCron } from "../support/cron";
import { projectIdOf } from "../support/project-id";

const RETENTION_CRON = "50 * * * *";
const who = { host: 10, user: 10 };
const EVEN = Array.from({ length: 500 }, (_, i) => 2 * (i + 1));

const late = (wu: number, id: number, sent: number, now: number) => ({
  now,
  workunits: [workunit(wu, [result(id, { host_id: 10, user_id: 10, sent_time: sent, received_time: now - 3600 })])],
});

describe("the purge record of workunits whose ids have gaps", () => {
  afterAll(restoreClock);
  it(
    "is a few rows for 500 purged workunits with even ids; each is still refused (410), an odd id is credited",
    { timeout: 120_000 },
    async () => {
      const { slug, api } = await setupProject("wu-gaps", { result_retention_days: 1 });
      const id = await projectIdOf(slug);
      const count = async (table: string) =>
        (await env.DB.prepare(`SELECT count(*) AS n FROM ${table} WHERE project_id = ?`).bind(id).first<number>("n"))!;
      const start = daysAgo(3);
      const results = (wu: number) =>
        [0, 1].map((k) => result(wu * 10 + k, { host_id: 10, user_id: 10, sent_time: start - 5000, received_time: start - 1000 }));
      for (let i = 0; i < EVEN.length; i += 250) {
        await api.ok("POST", "/passes", { now: start, workunits: EVEN.slice(i, i + 250).map((wu) => workunit(wu, results(wu))) });
      }
      // One workunit now: the project's clock is now, its cutoff a day back, so the 500 go and this one stays.
      await api.ok("POST", "/passes", passFor(daysAgo(0), 5001, who));
      expect(await count("workunits")).toBe(501);
      await runCron(RETENTION_CRON, Date.now());
      expect(await count("workunits")).toBe(1);

      // 500 runs of one id each, more than MAX_RUNS_PER_CHUNK: recorded by blocks of
      // PURGED_BLOCK_IDS ids. Ids 2…1000 all lie in block 0 (1000 < 4096): one row, no runs.
      expect(MAX_RUNS_PER_CHUNK).toBeLessThan(500);
      expect(PURGED_BLOCK_IDS).toBe(4096);
      expect(await count("purged_workunits")).toBe(0);
      const blocks = (
        await env.DB.prepare("SELECT block, offsets FROM purged_workunit_blocks WHERE project_id = ?").bind(id).all<{
          block: number;
          offsets: string;
        }>()
      ).results;
      expect(blocks.map((b) => b.block)).toEqual([0]);
      expect((JSON.parse(blocks[0]!.offsets) as number[]).sort((a, b) => a - b)).toEqual(EVEN);

      // A new result of a purged workunit, sent after the horizon (now − 1 day + skew): refused, each of them.
      const now = daysAgo(0);
      for (const wu of [2, 500, 1000]) {
        const refused = expectError(await api.raw("POST", "/passes", late(wu, wu * 10 + 7, now - 7200, now)), 410, "workunit_purged");
        expect(refused.message).toContain(`workunit ${wu} `);
      }
      // An odd id between them was never stored: credited as a fresh workunit.
      expect((await api.ok("POST", "/passes", late(501, 5017, now - 7200, now))).workunits[0]!.path).toBe("fresh");

      // Two days on (the server's clock moved by hand): ten more even ids credited just before
      // `now` above, and workunit 5001, purged in one chunk of 11 runs: merged into block 0's
      // row, and a row for block 1 (5001 / 4096 = 1). Two rows in all.
      fixClock(Date.now() / 1000 + 2 * DAY, true);
      const more = [1002, 1004, 1006, 1008, 1010, 1012, 1014, 1016, 1018, 1020];
      expect(more.length + 1).toBeGreaterThan(MAX_RUNS_PER_CHUNK);
      const sentLater = (wu: number) =>
        [0, 1].map((k) => result(wu * 10 + k, { host_id: 10, user_id: 10, sent_time: now - 7200, received_time: now - 3600 }));
      await api.ok("POST", "/passes", { now: now - 600, workunits: more.map((wu) => workunit(wu, sentLater(wu))) });
      await api.ok("POST", "/passes", passFor(daysAgo(0), 6001, who));
      await runCron(RETENTION_CRON, Date.now());
      expect(await count("workunits")).toBe(1);
      expect(await count("purged_workunits")).toBe(0);
      expect(await count("purged_workunit_blocks")).toBe(2);
      const later = daysAgo(0) + 60;
      for (const wu of [4, 1000, 1020, 5001]) {
        expectError(await api.raw("POST", "/passes", late(wu, wu * 10 + 7, later - 7200, later)), 410, "workunit_purged");
      }
      expect((await api.ok("POST", "/passes", late(1021, 10217, later - 7200, later))).workunits[0]!.path).toBe("fresh");
    },
  );
});
