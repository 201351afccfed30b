/**
 * A batch of passes walks each host, user, team and the project row through its passes (one
 * statement per table, src/db/holder-walks.ts). The claim: the rows and the finished day
 * buckets are exactly those of the same passes posted one by one, so the project posted one
 * by one is the expected value, in both places a project keeps its history (its ledger, or
 * the queue to its history databases).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DAY, daysAgo, passFor } from "../reads/fixtures";
import { type PassBody, type TestProject, result, setupProject, workunit } from "../support/api-helpers";
import { projectIdOf } from "../support/project-id";

/** Host h, its owner 20 + h, the owner's team 30 + h (team 0 for host 3: no team). */
const who = (h: number) => ({ host: h, user: 20 + h, team: h === 3 ? 0 : 30 + h });

/** Each holder's credit columns, as stored. */
async function rows(project: TestProject, { withQueueSeq = true } = {}) {
  const id = await projectIdOf(project.slug);
  const all = async (q: string) => (await env.DB.prepare(q).bind(id).all()).results;
  const credit = "total_credit, expavg_credit, expavg_time, day_credit, create_time";
  return {
    hosts: await all(`SELECT id, user_id, ${credit} FROM hosts WHERE project_id = ? ORDER BY id`),
    users: await all(`SELECT id, team_id, ${credit} FROM users_now WHERE project_id = ? ORDER BY id`),
    teams: await all(`SELECT id, ${credit} FROM teams WHERE project_id = ? ORDER BY id`),
    project: await all(
      `SELECT total_credit, expavg_credit, expavg_time, day_credit, first_credit_time${withQueueSeq ? ", queue_seq" : ""} FROM projects WHERE id = ?`,
    ),
    history: await all(
      "SELECT subject, entity_id, day, credit, expavg_credit, expavg_time FROM credit_history WHERE project_id = ? ORDER BY subject, entity_id, day",
    ),
    // Each queued bucket once, whichever row (a pass's, or the batch's one) carries it.
    queued: (await all("SELECT entries FROM history_queue WHERE project_id = ? ORDER BY id"))
      .flatMap((r) => JSON.parse(String(r.entries)) as unknown[][])
      .sort((a, b) => String(a.slice(0, 3)).localeCompare(String(b.slice(0, 3)))),
  };
}

/**
 * Six days of passes: host 1 on most of them (its day finished mid-batch, twice); host 2
 * first credited inside the batch, then again on a later day (a fresh row's day finished in
 * the same batch); host 3 with no team; host 4 named by an invalid result before it is
 * credited (stored by the batch's attribution, walked from there); user 21 owning hosts 1 and 5.
 */
function history(t: number): { before: PassBody[]; batch: PassBody[] } {
  let wu = 1;
  const on = (now: number, ...hosts: number[]) => {
    const p = passFor(now, wu, who(hosts[0]!), 1);
    for (const h of hosts.slice(1)) p.workunits.push(...passFor(now, wu + p.workunits.length, who(h), 1).workunits);
    wu += p.workunits.length;
    return p;
  };
  const invalidFirst = on(t + 2 * DAY + 50, 4, 1);
  // Host 4's results in that pass are invalid: it is named, not credited.
  for (const r of invalidFirst.workunits[0]!.results) r.validate_state = "invalid";
  const fiveOfUser21 = on(t + 3 * DAY + 7.25, 5);
  for (const r of fiveOfUser21.workunits[0]!.results) Object.assign(r, { user_id: 21, team_id: 31 });
  return {
    before: [on(t, 1, 3), on(t + 600.5, 1)],
    batch: [
      on(t + 1200, 1),
      on(t + DAY + 10, 2, 3),
      on(t + DAY + 20 + 1 / 3, 1, 2),
      invalidFirst,
      on(t + 2 * DAY + 3600, 2, 4),
      fiveOfUser21,
      on(t + 3 * DAY + 99, 1, 4, 3),
      on(t + 5 * DAY + 1, 2, 1),
    ],
  };
}

describe("a batch walks its holders and project row", () => {
  for (const settings of [{}, { history_database: "DB_HISTORY_1" }]) {
    const where = "history_database" in settings ? "history queued for its history database" : "history in its ledger";
    it(`leaves every holder, the project row and the finished days as its passes one by one (${where})`, async () => {
      // An hour into a day, so that the days below are the days the passes fall on.
      const { before, batch } = history(Math.floor(daysAgo(12) / DAY) * DAY + 3600);
      const single = await setupProject("walk-single", settings);
      const batched = await setupProject("walk-batch", settings);
      for (const p of before) {
        await single.api.ok("POST", "/passes", p);
        await batched.api.ok("POST", "/passes", p);
      }
      for (const p of batch) await single.api.ok("POST", "/passes", p);
      await batched.api.ok("POST", "/pass-batches", { passes: batch });

      const [one, many] = [await rows(single), await rows(batched)];
      expect(many).toEqual(one);
      // What the comparison covers: five hosts, four users, three teams, and days finished by
      // the batch itself (host 1's days 0 to 3, host 2's days 1 and 2 from its fresh row, the
      // project's days 0 to 3), in the place the project keeps them.
      expect(one.hosts.map((h) => h.id)).toEqual([1, 2, 3, 4, 5]);
      expect(one.users.map((h) => h.id)).toEqual([21, 22, 23, 24]);
      expect(one.teams.map((h) => h.id)).toEqual([31, 32, 34]);
      const finished =
        "history_database" in settings ? one.queued.map((e) => `${e[0]} ${e[1]}`) : one.history.map((h) => `${h.subject} ${h.entity_id}`);
      expect(finished.filter((f) => f === "host 1")).toHaveLength(4);
      expect(finished.filter((f) => f === "host 2")).toHaveLength(2);
      expect(finished.filter((f) => f === "project 0")).toHaveLength(4);
      expect("history_database" in settings ? one.history : one.queued).toEqual([]);
    });
  }
  /** `workunits` workunits at `now`, each with two results on hosts 2w - 1 and 2w (host h owned by user 1000 + h, in team 1 + h % 7). */
  const wide = (now: number, firstWu: number, workunits: number): PassBody => ({
    now,
    workunits: Array.from({ length: workunits }, (_, w) => {
      const id = firstWu + w;
      const on = (h: number) => ({ host_id: h, user_id: 1000 + h, team_id: 1 + (h % 7), sent_time: now - 5000, received_time: now - 1000 });
      return workunit(id, [result(id * 10 + 1, on(2 * w + 1)), result(id * 10 + 2, { ...on(2 * w + 2), elapsed_time: 1200 })]);
    }),
  });

  const projectId = async (slug: string) => await projectIdOf(slug);
  /** The project's history_queue row numbers, in order. */
  const queueIds = async (slug: string) =>
    (
      await env.DB.prepare("SELECT id FROM history_queue WHERE project_id = ? ORDER BY id")
        .bind(await projectId(slug))
        .all<{ id: number }>()
    ).results.map((r) => r.id);
  /** The `n` numbers up to queue_seq: a batch's queue rows take them, so no later pass reuses one. */
  const lastNumbers = async (slug: string, n: number) => {
    const seq = (await env.DB.prepare("SELECT queue_seq FROM projects WHERE id = ?")
      .bind(await projectId(slug))
      .first<number>("queue_seq"))!;
    return Array.from({ length: n }, (_, i) => seq - n + 1 + i);
  };

  for (const settings of [{}, { history_database: "DB_HISTORY_1" }]) {
    const queued = "history_database" in settings;
    it(`splits a wide batch's walks into statements of at most 500 steps, each numbering its queue row (${queued ? "queued" : "ledger"})`, async () => {
      const t = Math.floor(daysAgo(12) / DAY) * DAY + 3600;
      // 600 hosts and 600 users credited on day 0, then on day 1 and day 2 by the batch: two
      // days, so their buckets are walked; 1,200 steps a table, so three statements of 250
      // rows each. Each row finishes day 0 and day 1; the 7 teams too.
      const before = wide(t, 1, 300);
      const batch = [wide(t + DAY, 1001, 300), wide(t + 2 * DAY, 2001, 300)];
      const single = await setupProject("wide-single", settings);
      const batched = await setupProject("wide-batch", settings);
      for (const p of [before, ...batch]) await single.api.ok("POST", "/passes", p);
      await batched.api.ok("POST", "/passes", before);
      await batched.api.ok("POST", "/pass-batches", { passes: batch });

      // queue_seq aside (below), everything as the passes one by one.
      const [one, many] = [await rows(single, { withQueueSeq: false }), await rows(batched, { withQueueSeq: false })];
      expect(many).toEqual(one);
      const finished = queued ? one.queued.map((e) => String(e[0])) : one.history.map((h) => String(h.subject));
      expect(finished.filter((f) => f === "host")).toHaveLength(1200);
      expect(finished.filter((f) => f === "user")).toHaveLength(1200);
      expect(finished.filter((f) => f === "team")).toHaveLength(14);
      if (queued) {
        // The batch's three queue rows take three numbers, all at or below queue_seq, so no later pass reuses one.
        expect(await queueIds(batched.slug)).toEqual(await lastNumbers(batched.slug, 3));
      }
    });

    it(`reads the buckets of rows granted on one day from the rows as stored, in one statement (${queued ? "queued" : "ledger"})`, async () => {
      const t = Math.floor(daysAgo(12) / DAY) * DAY + 3600;
      // 600 hosts and 600 users credited on day 0, then twice each on day 1 by the batch: every
      // row's steps on one day, so only its first can finish a bucket (day 0), and no walk is needed.
      const before = wide(t, 1, 300);
      const batch = [wide(t + DAY, 1001, 300), wide(t + DAY + 60, 2001, 300)];
      const single = await setupProject("oneday-single", settings);
      const batched = await setupProject("oneday-batch", settings);
      for (const p of [before, ...batch]) await single.api.ok("POST", "/passes", p);
      await batched.api.ok("POST", "/passes", before);
      await batched.api.ok("POST", "/pass-batches", { passes: batch });

      const [one, many] = [await rows(single, { withQueueSeq: false }), await rows(batched, { withQueueSeq: false })];
      expect(many).toEqual(one);
      const finished = queued ? one.queued.map((e) => String(e[0])) : one.history.map((h) => String(h.subject));
      expect(finished.filter((f) => f === "host")).toHaveLength(600);
      expect(finished.filter((f) => f === "user")).toHaveLength(600);
      expect(finished.filter((f) => f === "team")).toHaveLength(7);
      if (queued) {
        // The pass before took queue_seq to 1; the batch's one queue row takes the next number,
        // and its two granting passes raise queue_seq by one each, as posted alone.
        expect(await queueIds(batched.slug)).toEqual([2]);
        expect(await lastNumbers(batched.slug, 1)).toEqual([3]);
      }
    });
  }
});
