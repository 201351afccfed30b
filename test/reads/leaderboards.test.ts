/**
 * Leaderboards rank by RAC decayed to now (or by total credit), page by cursor and come from
 * KV once the cron has written them. Scenario: five users; user i (1…5) gets i workunits
 * 5(i−1)+1 days ago. A RAC started by one pass is proportional to its credit, then halves
 * every 7 days: i · 0.5^((5i−4)/7) ≈ 0.91, 1.10, 1.01, 0.82, 0.63 for i = 1…5, so by RAC the
 * order is 2, 3, 1, 4, 5 while by total it is 5, 4, 3, 2, 1. (The test checks that the two
 * orders differ, else it would prove nothing.)
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { expectError, setupProject } from "../support/api-helpers";
import { request } from "../support/api";
import { runCron } from "../support/cron";
import { daysAgo, decayed, passFor } from "./fixtures";
import { projectIdOf } from "../support/project-id";

const USERS = [1, 2, 3, 4, 5];

async function fiveUsers() {
  const project = await setupProject("top");
  // Oldest first, as a project's clock runs: a pass before the clock is granted at the clock (SECURITY.md).
  for (const i of [...USERS].reverse()) {
    await project.api.ok("POST", "/passes", passFor(daysAgo(5 * (i - 1) + 1), i * 100, { host: i, user: i }, i));
  }
  const ledger = await Promise.all(USERS.map((i) => project.api.ok("GET", `/users/${i}`)));
  return { ...project, ledger };
}

const top = (slug: string, query: "" | `?${string}`) => request("GET", `/v1/projects/${slug}/top/users${query}`);

describe("GET /v1/projects/:slug/top/users", () => {
  it("ranks by RAC decayed to now, and by total credit", async () => {
    const { slug, ledger } = await fiveUsers();
    const byRac = await top(slug, "?by=expavg_credit");
    expect(byRac.status).toBe(200);
    const asOf = byRac.body.as_of;
    const expectedRac = [...ledger].sort((a, b) => decayed(b, asOf) - decayed(a, asOf) || a.id - b.id).map((u) => u.id);
    const expectedTotal = [...ledger].sort((a, b) => b.total_credit - a.total_credit || a.id - b.id).map((u) => u.id);
    expect(expectedRac).toEqual([2, 3, 1, 4, 5]);
    expect(expectedTotal).toEqual([5, 4, 3, 2, 1]);

    expect(byRac.body.users.map((u) => u.id)).toEqual(expectedRac);
    expect(byRac.body.users.map((u) => u.rank)).toEqual([1, 2, 3, 4, 5]);
    for (const u of byRac.body.users) expect(u.recent_average_credit).toBeCloseTo(decayed(u, asOf), 9);
    expect(byRac.body).toMatchObject({ total: 5, next_cursor: null });

    const byTotal = await top(slug, "?by=total_credit");
    expect(byTotal.body.users.map((u) => u.id)).toEqual(expectedTotal);
    expect(byTotal.body.users.map((u) => u.total_credit)).toEqual(expectedTotal.map((id) => ledger[id - 1]!.total_credit));
    // RAC is the default order.
    expect((await top(slug, "")).body.users.map((u) => u.id)).toEqual(expectedRac);
  });

  it("pages with limit and next_cursor until the end", async () => {
    const { slug } = await fiveUsers();
    const seen: number[] = [];
    const ranks: number[] = [];
    let query: `?${string}` = "?by=total_credit&limit=2";
    for (let page = 0; page < 5; page++) {
      const res = await top(slug, query);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.users.length).toBe(page < 2 ? 2 : 1);
      seen.push(...res.body.users.map((u) => u.id));
      ranks.push(...res.body.users.map((u) => u.rank));
      if (res.body.next_cursor === null) break;
      query = `?by=total_credit&limit=2&cursor=${res.body.next_cursor}`;
    }
    expect(ranks).toEqual([1, 2, 3, 4, 5]);
    expect(new Set(seen).size).toBe(5);
  });

  it("is written to KV by the cron and served from there", async () => {
    const { slug, api } = await fiveUsers();
    await runCron();
    const key = `p/${slug}/top2/users/total_credit/0`;
    const stored: { data: { entries: { id: number }[] } } = JSON.parse((await env.KV.get(key))!);
    expect(stored.data.entries.map((e) => e.id)).toEqual((await top(slug, "?by=total_credit")).body.users.map((u) => u.id));
    // A new pass changes D1 at once, the public leaderboard only after the next cron run.
    await api.ok("POST", "/passes", passFor(daysAgo(0), 900, { host: 1, user: 1 }, 20));
    expect((await top(slug, "?by=total_credit")).body.users[0]!.id).toBe(5);
    await runCron();
    expect((await top(slug, "?by=total_credit")).body.users[0]!.id).toBe(1);
  });

  it("hosts and teams have leaderboards too", async () => {
    const { slug, ledger } = await fiveUsers();
    const hosts = await request("GET", `/v1/projects/${slug}/top/hosts?by=total_credit`);
    expect(hosts.body.hosts.map((h) => h.total_credit)).toEqual(ledger.map((u) => u.total_credit).sort((a, b) => b - a));
    const teams = await request("GET", `/v1/projects/${slug}/top/teams`);
    expect(teams.body).toMatchObject({ teams: [], total: 0, next_cursor: null });
  });

  it("a board of more than one page is never ranked by an anonymous read: 503 until the cron has published it", async () => {
    const { slug, token } = await setupProject("top");
    const id = await projectIdOf(slug);
    // 1,500 users: user i has total credit 2·i, so by total the order is 1500, 1499, … 1.
    await env.DB.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1500)
       INSERT INTO users (project_id, id, create_time, total_credit) SELECT ?, i, 0, 2 * i FROM n`,
    )
      .bind(id)
      .run();
    // Counted as the batches that insert holders count them (src/db/holder-counts.ts).
    await env.DB.prepare("UPDATE projects SET user_count = user_count + 1500 WHERE id = ?").bind(id).run();
    const before = await top(slug, "?by=total_credit");
    expectError(before, 503, "not_published");
    expect(before.headers!.get("Retry-After")).toBe("60");
    // The project's own token ranks from D1 at once.
    const fresh = await request("GET", `/v1/projects/${slug}/top/users?by=total_credit&limit=3`, { token });
    expect(fresh.body.users.map((u) => u.id)).toEqual([1500, 1499, 1498]);
    // The registration marked the project: the minute cron publishes its top pages.
    await runCron();
    const after = await top(slug, "?by=total_credit&limit=1000");
    expect(after.body.users.map((u) => u.id)).toEqual(Array.from({ length: 1000 }, (_, i) => 1500 - i));
    expect(after.body.total).toBe(1500);
    const next = await top(slug, `?by=total_credit&limit=1000&cursor=${after.body.next_cursor}`);
    expect(next.body.users.map((u) => u.id)).toEqual(Array.from({ length: 500 }, (_, i) => 500 - i));
    expect(next.body).toMatchObject({ total: 1500, next_cursor: null });
    // Pages of 700: the third request spans stored page 1 and page 2, past the board's end.
    const first = await top(slug, "?by=total_credit&limit=700");
    const second = await top(slug, `?by=total_credit&limit=700&cursor=${first.body.next_cursor}`);
    const third = await top(slug, `?by=total_credit&limit=700&cursor=${second.body.next_cursor}`);
    expect(third.status).toBe(200);
    // Ranks 1,401 to 1,500: users 100 down to 1.
    expect(third.body.users.map((u) => u.id)).toEqual(Array.from({ length: 100 }, (_, i) => 100 - i));
    expect(third.body).toMatchObject({ total: 1500, next_cursor: null });
  });

  it("rejects a bad query with 400 and an unknown project with 404", async () => {
    const { slug } = await setupProject("top");
    for (const q of ["?limit=0", "?limit=1001", "?limit=ten", "?by=rac", "?cursor=nonsense", `?cursor=${btoa("x:1")}`] as const) {
      expectError(await top(slug, q), 400, "validation_failed");
    }
    expectError(await request("GET", "/v1/projects/nope/top/users"), 404, "not_found");
  });
});

describe("daysAgo, the fixtures' clock", () => {
  it("never answers a time after now, so a run that starts just after midnight can post today's pass", () => {
    const midnight = Date.UTC(2026, 10, 26) / 1000;
    // 00:02:32, when CI's run of 2026-11-25 reached these tests: 01:00 would be 57 min ahead.
    expect(daysAgo(0, midnight + 152)).toBe(midnight + 76);
    expect(daysAgo(2, midnight + 152)).toBe(midnight - 2 * 86400 + 76);
    // From 02:00 on, 01:00 of the asked day.
    expect(daysAgo(0, midnight + 7200)).toBe(midnight + 3600);
    expect(daysAgo(1, midnight + 20 * 3600)).toBe(midnight - 86400 + 3600);
  });
});
