/**
 * The history roll-up, through real passes and the hourly cron. Every pass grants a fixed
 * credit (credit_mode "fixed"), so the numbers are known by hand: host 10 / user 10 get 100 on
 * the 5th and 50 on the 15th (12:00 UTC) of each month from 2024-01 to 2026-06, 30 months ×
 * 150 = 4,500. The last pass is at 2026-06-15 12:00, the project's clock. 730 days before
 * 2026-06-15 is 2024-06-15 (no 29 February in between), so 2024-01 … 2024-05 roll up and
 * daily history starts at 2024-06-01.
 */
import { historyDays } from "../support/history";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { dayOfDate } from "../../src/credit/history";
import { runBatch } from "../../src/db/batch";
import { database } from "../../src/db/client";
import { CURSOR_START, chunkEnd, deleteChunk, foldChunk, raiseMonthlyBefore } from "../../src/db/history-rollup";
import { rollUpProject } from "../../src/jobs/history-rollup";
import { expectError, result, workunit } from "../support/api-helpers";
import { ADMIN_TOKEN, type ProjectSettings, request, createProject, rawRequest, typedClient } from "../support/api";
import { withFixedClock } from "../support/clock";
import { runCron } from "../support/cron";
import { getPage } from "../web/html";
import { projectIdOf } from "../support/project-id";

const RETENTION_CRON = "50 * * * *";
const MONTHS = 30;
const LAST_PASS = Date.UTC(2024, MONTHS - 1, 15, 12) / 1000;
const SERVER_NOW = LAST_PASS + 600;
const BOUNDARY = dayOfDate("2024-06-01");
/** From 2024-01-01 to the last pass's day: the whole history in one read. */
const WHOLE = `end=2026-06-15&days=${dayOfDate("2026-06-15") - dayOfDate("2024-01-01") + 1}`;

async function fixedProject(settings: ProjectSettings = {}) {
  const { slug, token } = await createProject("rollup", settings);
  const api = typedClient(slug, token);
  await api.ok("PUT", "/apps/a", { credit_mode: "fixed" });
  await api.ok("PUT", "/app-versions/1", { app: "a", platform: "linux", plan_class: "", version_num: 1 });
  const id = await projectIdOf(slug);
  return { slug, api, id };
}

type Api = ReturnType<typeof typedClient>;

/** One workunit granting `credit` to host 10 / user 10 in a pass at `now`. */
async function grant(api: Api, wu: number, credit: number, now: number) {
  const r = result(wu * 10, { host_id: 10, user_id: 10, sent_time: now - 5000, received_time: now - 1000 });
  const out = await api.ok("POST", "/passes", { now, workunits: [workunit(wu, [r], { canonical_credit: credit, target_nresults: 1 })] });
  expect(out.workunits[0]!.results[0]!.granted_credit).toBe(credit);
}

async function postThirtyMonths(api: Api) {
  for (let k = 0; k < MONTHS; k++) {
    await grant(api, 2 * k + 1, 100, Date.UTC(2024, k, 5, 12) / 1000);
    await grant(api, 2 * k + 2, 50, Date.UTC(2024, k, 15, 12) / 1000);
  }
}

/** Both history tables of a project, as stored (days: with each holder's current day, kept on its row). */
async function stored(id: number) {
  const days = { results: (await historyDays(env.DB, id)).map(({ entity_id: _e, ...d }) => d) };
  const months = await env.DB.prepare(
    "SELECT subject, month, credit, expavg_credit, expavg_time FROM credit_history_monthly WHERE project_id = ? ORDER BY subject, month",
  )
    .bind(id)
    .all();
  return { days: days.results, months: months.results };
}

/** The whole history; today's RAC (decayed to the moment of reading, the clock running) left out. */
const historyOf = async (api: Api, path: "/history" | `/${"users" | "hosts" | "teams"}/${number}/history`) => {
  const body = await api.ok("GET", `${path}?${WHOLE}`);
  const days = body.days.map((d, i, all) => (i === all.length - 1 ? { ...d, expavg_credit: "today" } : d));
  return { days, monthly_before: body.monthly_before };
};

describe("history roll-up", () => {
  withFixedClock(SERVER_NOW, true);

  it("rolls days older than two years into months that add up to the total; a re-run changes nothing", { timeout: 120_000 }, async () => {
    const { api, id } = await fixedProject();
    await postThirtyMonths(api);
    const before = await historyOf(api, "/users/10/history");
    expect(before.monthly_before).toBeNull();
    expect(before.days.every((d) => d.period === "day")).toBe(true);

    await runCron(RETENTION_CRON, SERVER_NOW * 1000);
    const after = await stored(id);
    // Subjects host, user and project (no team); 2 day rows per month each.
    expect(after.days.filter((d) => d.day < BOUNDARY)).toEqual([]);
    expect(after.days).toHaveLength(25 * 2 * 3);
    // 2024-01 is month (2024 − 1970) × 12 = 648; five months, 100 + 50 each, per subject.
    expect(after.months.map((m) => [m.subject, m.month, m.credit])).toEqual(
      ["host", "project", "user"].flatMap((s) => [648, 649, 650, 651, 652].map((month) => [s, month, 150])),
    );
    // A month keeps the pair of its latest pass: the 15th, 12:00.
    expect(after.months.find((m) => m.subject === "user" && m.month === 652)!.expavg_time).toBe(Date.UTC(2024, 4, 15, 12) / 1000);
    const project = await env.DB.prepare("SELECT history_monthly_before AS b FROM projects WHERE id = ?").bind(id).first<number>("b");
    expect(project).toBe(BOUNDARY);

    const user = await api.ok("GET", "/users/10");
    expect(user.total_credit).toBe(MONTHS * 150);
    for (const path of ["/users/10/history", "/hosts/10/history", "/history"] as const) {
      const h = await historyOf(api, path);
      expect(h.monthly_before).toBe("2024-06-01");
      const months = h.days.filter((d) => d.period === "month");
      expect(months.map((d) => [d.date, d.credit])).toEqual(
        ["2024-01-01", "2024-02-01", "2024-03-01", "2024-04-01", "2024-05-01"].map((d) => [d, 150]),
      );
      // The buckets add up to the total, from nothing before the first.
      expect(h.days.reduce((s, d) => s + d.credit, 0)).toBe(4500);
      expect(h.days[0]!.total_credit - h.days[0]!.credit).toBe(0);
      expect(h.days.at(-1)!.total_credit).toBe(4500);
    }
    // Days from the boundary on read as before; May's RAC is the RAC at the end of 2024-05-31.
    const now = await historyOf(api, "/users/10/history");
    expect(now.days.filter((d) => d.period === "day")).toEqual(before.days.filter((d) => d.date >= "2024-06-01"));
    const may = now.days.find((d) => d.date === "2024-05-01")!;
    const may31 = before.days.find((d) => d.date === "2024-05-31")!;
    expect(may).toMatchObject({ total_credit: may31.total_credit });
    expect(may.expavg_credit).toBeCloseTo(may31.expavg_credit as number, 9); // not the last day: a number

    // The public read (KV, D1 beyond the snapshot's year) says the same.
    await runCron("* * * * *", SERVER_NOW * 1000);
    const slug = (await env.DB.prepare("SELECT slug FROM projects WHERE id = ?").bind(id).first<string>("slug"))!;
    const pub = await request("GET", `/v1/projects/${slug}/users/10/history?${WHOLE}`);
    expect(pub.body.days.slice(0, -1)).toEqual(now.days.slice(0, -1));

    await runCron(RETENTION_CRON, SERVER_NOW * 1000 + 3_600_000);
    expect(await stored(id)).toEqual(after);
    expect((await historyOf(api, "/users/10/history")).days).toEqual(now.days);
  });

  it(
    "is crash-safe: a cut-short roll-up reads the same, a failed batch changes nothing, and a late pass is granted at the project's clock",
    { timeout: 120_000 },
    async () => {
      const { api, id } = await fixedProject({ result_retention_days: 3650 });
      await postThirtyMonths(api);
      const db = database(env.DB);
      const project = { id, dailyHistoryDays: 730, clock: LAST_PASS, historyRolledBefore: 0 };

      // A batch that fails part-way (its last statement) leaves no trace: the days are all still there.
      const args = [id, BOUNDARY, CURSOR_START, 4] as const;
      const failing = [
        raiseMonthlyBefore(id, BOUNDARY),
        chunkEnd(...args),
        foldChunk(...args),
        deleteChunk(...args),
        sql`INSERT INTO no_such_table VALUES (1)`,
      ];
      await expect(runBatch(db, failing)).rejects.toThrow();
      const untouched = await stored(id);
      expect(untouched.months).toEqual([]);
      expect(untouched.days).toHaveLength(MONTHS * 2 * 3);

      // Chunks of 4 day rows, one chunk a run: 30 rows to fold take 8 runs (7 × 4 + 2).
      const tight = { chunkRows: 4, maxChunks: 1 };
      expect(await rollUpProject(db, project, SERVER_NOW, tight)).toBe(4);
      const half = await historyOf(api, "/users/10/history");
      expect(half.monthly_before).toBe("2024-06-01");
      const runs = [4];
      for (let i = 0; i < 10 && runs.at(-1) === 4; i++) runs.push(await rollUpProject(db, project, SERVER_NOW, tight));
      expect(runs).toEqual([4, 4, 4, 4, 4, 4, 4, 2]);
      const whole = await historyOf(api, "/users/10/history");
      expect(whole).toEqual(half);
      const rolled = await stored(id);
      expect(rolled.months.map((m) => m.credit)).toEqual(Array(15).fill(150));
      // Done: a later run skips the project until the boundary moves.
      const done = (await env.DB.prepare("SELECT history_rolled_before AS b FROM projects WHERE id = ?").bind(id).first<number>("b"))!;
      expect(done).toBe(BOUNDARY);
      expect(await rollUpProject(db, { ...project, historyRolledBefore: done }, SERVER_NOW, tight)).toBe(0);

      // A pass dated March 2024, after the project's clock reached 2026-06-15: time never runs
      // backwards (SECURITY.md), so it is granted at the clock, and its 100 credits are the
      // clock's day's, not a day in a month already rolled up.
      await grant(api, 1000, 100, Date.UTC(2024, 2, 10, 12) / 1000);
      const late = await historyOf(api, "/users/10/history");
      expect(late.days.find((d) => d.date === "2024-03-01")).toMatchObject({ period: "month", credit: 150 });
      expect(late.days.find((d) => d.date === "2026-06-15")).toMatchObject({ period: "day", credit: 150 });
      expect(late.days.reduce((s, d) => s + d.credit, 0)).toBe(4600);
      expect((await api.ok("GET", "/users/10")).total_credit).toBe(4600);
      // When the clock reaches 2026-07-15, 2024-06 rolls up too.
      const july = Date.UTC(2026, 6, 15, 12) / 1000;
      // Folded: June 2024 (2 rows × 3 subjects).
      expect(await rollUpProject(db, { ...project, clock: july, historyRolledBefore: done }, july, { chunkRows: 100, maxChunks: 5 })).toBe(
        6,
      );
      const user = (await stored(id)).months.filter((m) => m.subject === "user");
      expect(user.map((m) => [m.month, m.credit])).toEqual([
        [648, 150],
        [649, 150],
        [650, 150],
        [651, 150],
        [652, 150],
        [653, 150],
      ]);
    },
  );

  it(
    "keeps the project's own span: daily_history_days 62 rolls up all but two months, and the page says so",
    { timeout: 120_000 },
    async () => {
      const { slug, api, id } = await fixedProject({ daily_history_days: 62 });
      await postThirtyMonths(api);
      await runCron(RETENTION_CRON, SERVER_NOW * 1000);
      // 62 days before 2026-06-15 is 2026-04-14: days from 2026-04-01 stay.
      const h = await historyOf(api, "/users/10/history");
      expect(h.monthly_before).toBe("2026-04-01");
      expect(h.days.filter((d) => d.period === "month")).toHaveLength(27);
      expect(h.days.reduce((s, d) => s + d.credit, 0)).toBe(4500);
      const days = (await stored(id)).days.filter((d) => d.subject === "user");
      expect(days.map((d) => d.day)).toEqual(
        ["2026-04-05", "2026-04-15", "2026-05-05", "2026-05-15", "2026-06-05", "2026-06-15"].map(dayOfDate),
      );

      await runCron("* * * * *", SERVER_NOW * 1000);
      const page = await getPage(`/p/${slug}/users/10?days=365`);
      expect(page.status).toBe(200);
      expect(page.html).toContain("Before 2026-04-01, history is kept as monthly totals");
      const recent = await getPage(`/p/${slug}/users/10?days=30`);
      expect(recent.html).not.toContain("monthly totals");
    },
  );

  it("runs in every database: a project in its own (DB_LARGE) has its months there", async () => {
    const { api, id } = await fixedProject({ database: "DB_LARGE" });
    await grant(api, 1, 100, Date.UTC(2024, 0, 5, 12) / 1000);
    await grant(api, 2, 50, LAST_PASS);
    await runCron(RETENTION_CRON, SERVER_NOW * 1000);
    // January 2024 (month 648) is past the span; June 2026 is not.
    const months = await env.DB_LARGE.prepare(
      "SELECT subject, month, credit FROM credit_history_monthly WHERE project_id = ? ORDER BY subject",
    )
      .bind(id)
      .all();
    expect(months.results).toEqual(["host", "project", "user"].map((subject) => ({ subject, month: 648, credit: 100 })));
    expect(await historyDays(env.DB_LARGE, id)).toHaveLength(3);
    expect(await env.DB.prepare("SELECT count(*) AS n FROM credit_history_monthly WHERE project_id = ?").bind(id).first<number>("n")).toBe(
      0,
    );
  });

  it("refuses a span outside 31 … 36,600 days with a 400 in the error shape, creating nothing", async () => {
    for (const bad of [30, 36_601, 90.5, "730"]) {
      const slug = `span-${Math.random().toString(36).slice(2, 8)}`;
      const res = await rawRequest("POST", "/v1/projects", { token: ADMIN_TOKEN, body: { slug, name: "Span", daily_history_days: bad } });
      const error = expectError(res, 400);
      expect(error.issues?.map((i) => i.path)).toEqual(["daily_history_days"]);
      expect(await env.DB.prepare("SELECT count(*) AS n FROM projects WHERE slug = ?").bind(slug).first<number>("n")).toBe(0);
    }
  });
});
