/**
 * Issue 36, finding 4: a project whose history lives in a history database answers its public
 * history as its ledger does, however far the minute job has moved the finished days. Passes
 * for host 1 at now − 2 d and now − 1 d, then the minute cron three times (each run refreshes
 * KV and moves history): the anonymous `/hosts/1/history` equals the token's D1 read, which
 * counts each finished day once wherever it is (queued, moved, or both after a move cut short).
 */
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { database } from "../../src/db/client";
import { opener } from "../../src/db/project-db";
import { moveAllHistory } from "../../src/jobs/history-move";
import { loadHolderSnapshots } from "../../src/snapshots/holders";
import { request } from "../support/api";
import { runCron } from "../support/cron";
import { fixClock, restoreClock, ORDINARY_NOW } from "../support/clock";
import { setupProject } from "../support/api-helpers";
import { DAY, daysAgo, passFor } from "./fixtures";
import { projectIdOf } from "../support/project-id";

const who = { host: 1, user: 1 };

describe("public history of a project with a history database (issue 36, finding 4)", () => {
  beforeAll(() => fixClock(ORDINARY_NOW));
  afterAll(restoreClock);

  it("equals the ledger's after the minute crons, and on every read between them", async () => {
    const { slug, api } = await setupProject("histdb-read", { history_database: "DB_HISTORY_1" });
    const projectId = await projectIdOf(slug);
    const first = await api.ok("POST", "/passes", passFor(daysAgo(2), 1, who));
    const second = await api.ok("POST", "/passes", passFor(daysAgo(1), 2, who));
    const credit = (res: typeof first) => res.workunits.flatMap((w) => w.results).reduce((s, r) => s + r.granted_credit, 0);
    const [c1, c2] = [credit(first), credit(second)];
    expect(c1).toBeGreaterThan(0);

    const ledger = await api.ok("GET", "/hosts/1/history?days=5");
    // The ledger's own read, by hand: nothing before the first pass, each pass's credit on its day.
    const day = (t: number) => Math.floor(t / DAY);
    const today = day(ORDINARY_NOW);
    const byDay = new Map(ledger.days.map((d) => [d.date, d]));
    expect(ledger.days).toHaveLength(5);
    expect(ledger.days.map((d) => d.credit)).toEqual([0, 0, c1, c2, 0]);
    expect(ledger.days[1]!.total_credit).toBeCloseTo(0, 9);
    expect(ledger.days[2]!.total_credit).toBeCloseTo(c1, 9);
    expect(ledger.days[4]!.total_credit).toBeCloseTo(c1 + c2, 9);
    expect(byDay.size).toBe(5);
    expect(day(daysAgo(2))).toBe(today - 2);

    // A move cut short after the history database took the buckets and raised its mark, before
    // the ledger's delete: the queue row is read in both places and must count once.
    const queue = await env.DB.prepare("SELECT project_id, id, entries FROM history_queue WHERE project_id = ?").bind(projectId).all();
    expect(queue.results.length).toBe(1);
    await moveAllHistory(env, database(env.DB), "DB");
    const inHistoryDb = await env.DB_HISTORY_1.prepare("SELECT count(*) AS n FROM credit_history WHERE project_id = ? AND subject = 'host'")
      .bind(projectId)
      .first<number>("n");
    expect(inHistoryDb).toBe(1);
    for (const r of queue.results) {
      await env.DB.prepare("INSERT INTO history_queue (project_id, id, entries) VALUES (?, ?, ?)")
        .bind(r.project_id, r.id, r.entries)
        .run();
    }
    expect((await api.ok("GET", "/hosts/1/history?days=5")).days).toEqual(ledger.days);
    const loaded = (await loadHolderSnapshots(database(env.DB), projectId, "hosts", [1], today - 5, opener(env))).get(1)!;
    expect(loaded.history.buckets.map((b) => [b.day, b.credit])).toEqual([
      [today - 2, c1],
      [today - 1, c2],
    ]);

    for (let run = 1; run <= 3; run++) {
      await runCron("* * * * *", Date.now());
      const seen = await request("GET", `/v1/projects/${slug}/hosts/1/history?days=5`);
      expect(seen.status).toBe(200);
      expect(seen.body.days, `public history after minute cron ${run}`).toEqual(ledger.days);
      // And the token's read after the move still agrees with what it read before it.
      expect((await api.ok("GET", "/hosts/1/history?days=5")).days).toEqual(ledger.days);
    }
    expect(await env.DB.prepare("SELECT count(*) AS n FROM history_queue WHERE project_id = ?").bind(projectId).first<number>("n")).toBe(0);
  });
});
