/**
 * Anonymous reads do bounded work (docs/public-reads.md): each public GET reads at most a
 * fixed number of D1 rows, whatever the size of the project or the depth of the page (D1's
 * own `meta.rows_read`), and no anonymous read writes KV, not even 10,000 of unknown ids.
 * Leaderboard pages, top and deep, come from KV only (the crons rank every board from scans:
 * no index is kept per grant), in the order of RAC decayed to now.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { SNAPSHOT_LIMITS } from "../../src/snapshots/limits";
import { errorOf, setupProject } from "../support/api-helpers";
import { runs } from "../fuzz/config";
import { runCron } from "../support/cron";
import { JOBS } from "../../src/jobs/schedule";
import { callWith } from "../security/support";
import { type Meter, meteredD1, meteredKv } from "../support/metered";
import { daysAgo, decayed, passFor } from "./fixtures";
import { projectIdOf } from "../support/project-id";

/** The documented bound (docs/public-reads.md): the longest history window plus its carry-in row and lookups. */
const MAX_ROWS = SNAPSHOT_LIMITS.maxHistoryDays + 10;
/** Holders of each kind: 13 pages of 1,000, so three lie below the 10 the minute cron ranks. */
const HOLDERS = 12_500;
const PAGE = SNAPSHOT_LIMITS.leaderboardPageSize;
const DEEP_JOB = JOBS.find((j) => j.name === "leaderboard-pages")!.cron;

/** A stored leaderboard page in KV, as far as these checks read it. */
interface LeaderboardPage {
  data: { entries: { id: number; rank: number; sort_key: unknown }[] };
}

async function anonymous<P extends string>(path: P) {
  const meter: Meter = { rowsRead: 0, kvWrites: 0 };
  const res = await callWith({ DB: meteredD1(env.DB, meter), KV: meteredKv(env.KV, meter) }, "GET", path);
  return { res, meter };
}

let slug = "";
let token = "";

beforeAll(async () => {
  const project = await setupProject("bounded");
  slug = project.slug;
  token = project.token;
  await project.api.ok("POST", "/passes", passFor(daysAgo(3), 1, { host: 10, user: 10, team: 3 }));
  const id = await projectIdOf(slug);
  // Many holders at once, straight into D1, counted on the project row as the batches that
  // insert holders count them: every third has no RAC (a tie across page boundaries), the rest
  // RACs and times that cross in order.
  for (const table of ["users", "hosts", "teams"]) {
    await env.DB.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 100 UNION ALL SELECT i + 1 FROM n WHERE i < ${100 + HOLDERS - 1})
       INSERT INTO ${table} (project_id, id, create_time, total_credit, expavg_credit, expavg_time)
       SELECT ?, i, 0, (i * 7919) % 1000, CASE WHEN i % 3 = 0 THEN 0 ELSE (i * 104729) % 5000 + 1 END,
              CASE WHEN i % 3 = 0 THEN 0 ELSE ${daysAgo(20)} + (i * 15485863) % (20 * 86400) END FROM n`,
    )
      .bind(id)
      .run();
    const count = { users: "user_count", hosts: "host_count", teams: "team_count" }[table];
    await env.DB.prepare(`UPDATE projects SET ${count} = ${count} + ${HOLDERS} WHERE id = ?`).bind(id).run();
  }
  // The minute cron ranks the top 10 pages (the pass marked the project), the leaderboard-pages
  // job the three below.
  await runCron();
  await runCron(DEEP_JOB);
}, 300_000);

describe("every anonymous GET reads a bounded number of D1 rows and writes no KV", () => {
  it("measured on each public route of a project with 12,500 holders of each kind", { timeout: 300_000 }, async () => {
    const top = (kind: string) => [`/top/${kind}?limit=1000`, `/top/${kind}?by=total_credit&limit=1000`];
    const paths = [
      "",
      "/history?days=3660",
      "/apps",
      "/app-versions",
      ...top("users"),
      ...top("hosts"),
      ...top("teams"),
      "/users/10",
      "/users/10/history?days=3660",
      "/hosts/10",
      "/hosts/10/history?days=3660",
      "/teams/3",
      "/teams/3/history?days=3660",
      "/users/999999",
      "/stats/user.gz",
    ].map((p) => `/v1/projects/${slug}${p}`);
    paths.push("/v1/plan-classes", `/p/${slug}`, `/p/${slug}/users/10`, "/", "/central");
    const measured: Record<string, number> = {};
    for (const path of paths) {
      const { res, meter } = await anonymous(path);
      expect(res.status, path).toBeLessThan(500);
      expect(meter.kvWrites, path).toBe(0);
      measured[path] = meter.rowsRead;
    }
    console.log("rows read per anonymous GET:", JSON.stringify(measured, null, 1));
    for (const [path, rows] of Object.entries(measured)) expect(rows, path).toBeLessThanOrEqual(MAX_ROWS);
    // A leaderboard page of 1,000, top or deep, is read from KV: no board row.
    for (const kind of ["users", "hosts", "teams"]) expect(measured[`/v1/projects/${slug}/top/${kind}?limit=1000`]).toBeLessThanOrEqual(1);
  });

  it("every page, top and deep, comes from KV, and the pages follow decayed RAC", { timeout: 300_000 }, async () => {
    const { results } = await env.DB.prepare(
      "SELECT id, expavg_credit, expavg_time FROM users_now WHERE project_id = (SELECT id FROM projects WHERE slug = ?)",
    )
      .bind(slug)
      .all<{ id: number; expavg_credit: number; expavg_time: number }>();
    const now = Date.now() / 1000;
    // Hand-made order: BOINC's decay of each pair to now, highest first, ties by id.
    const expected = [...results].sort((a, b) => decayed(b, now) - decayed(a, now) || a.id - b.id).map((u) => u.id);
    const seen: number[] = [];
    const costs: number[] = [];
    // 700 a page, so requests span two stored pages, the 10th (minute cron) and 11th (deep job) among them.
    let query: `?${string}` = "?limit=700";
    for (;;) {
      const { res, meter } = await anonymous(`/v1/projects/${slug}/top/users${query}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      costs.push(meter.rowsRead);
      seen.push(...res.body.users.map((u) => u.id));
      if (res.body.next_cursor === null) break;
      query = `?limit=700&cursor=${res.body.next_cursor}`;
    }
    expect(seen).toEqual(expected);
    expect(seen.length).toBe(HOLDERS + 1);
    // No board row read: at most the project's registry row, once per isolate.
    for (const cost of costs) expect(cost).toBeLessThanOrEqual(1);
  });

  it("a page not published yet answers 503 without scanning the board; the project's token reads D1", { timeout: 300_000 }, async () => {
    const first = await anonymous(`/v1/projects/${slug}/top/hosts?by=total_credit&limit=1000`);
    const deep = Math.ceil(HOLDERS / PAGE) - 1;
    const key = `p/${slug}/top2/hosts/total_credit/${deep}`;
    const stored = (await env.KV.get(key))!;
    await env.KV.delete(key);
    try {
      // A cursor at the end of page `deep − 1`, made as the API makes one (rank, key, id).
      const page: LeaderboardPage = JSON.parse((await env.KV.get(`p/${slug}/top2/hosts/total_credit/${deep - 1}`))!);
      const before = page.data.entries.at(-1)!;
      const cursor = btoa(JSON.stringify([before.rank, before.sort_key, before.id])).replace(/=+$/, "");
      const missing = await anonymous(`/v1/projects/${slug}/top/hosts?by=total_credit&limit=1000&cursor=${cursor}`);
      expect(missing.res.status).toBe(503);
      expect(errorOf(missing.res).code).toBe("not_published");
      expect(missing.res.headers!.get("Retry-After")).toBe(`${SNAPSHOT_LIMITS.maxAgeSeconds}`);
      // The project row's count and at most the registry row: never the board.
      expect(missing.meter.rowsRead).toBeLessThanOrEqual(2);

      // The project's own token ranks from a scan of the board: the same entries, read from D1.
      const meter: Meter = { rowsRead: 0, kvWrites: 0 };
      const fresh = await callWith(
        { DB: meteredD1(env.DB, meter) },
        "GET",
        `/v1/projects/${slug}/top/hosts?by=total_credit&limit=1000&cursor=${cursor}`,
        { token },
      );
      expect(fresh.status).toBe(200);
      expect(fresh.body.hosts.map((h) => h.id)).toEqual((JSON.parse(stored) as LeaderboardPage).data.entries.map((e) => e.id));
      // A scan of the board and a sort of what lies below the cursor (docs/public-reads.md): at most 2 × holders + the project row + the token.
      expect(meter.rowsRead).toBeLessThanOrEqual(2 * (HOLDERS + 1) + 2);
      console.log(`token read of a deep page: ${meter.rowsRead} rows read; anonymous from KV: ${first.meter.rowsRead}`);
    } finally {
      await env.KV.put(key, stored);
    }
  });

  // 1,000 here (about a minute on a loaded machine); `FUZZ_SCALE=10 npx vitest run` runs the 10,000 of
  // SECURITY.md's figure.
  const UNKNOWN_READS = runs(1000);
  it(`${UNKNOWN_READS} anonymous reads of unknown ids write nothing to KV`, { timeout: 900_000 }, async () => {
    const meter: Meter = { rowsRead: 0, kvWrites: 0 };
    const bindings = { DB: meteredD1(env.DB, meter), KV: meteredKv(env.KV, meter) };
    const statuses = new Set<number>();
    for (let i = 0; i < UNKNOWN_READS; i += 20) {
      const kinds = Array.from({ length: Math.min(20, UNKNOWN_READS - i) }, (_, k) => ["users", "hosts", "teams"][(i + k) % 3]);
      const answers = await Promise.all(
        kinds.map((kind, k) => callWith(bindings, "GET", `/v1/projects/${slug}/${kind}/${1_000_000 + i + k}`)),
      );
      for (const a of answers) statuses.add(a.status);
    }
    expect([...statuses]).toEqual([404]);
    expect(meter.kvWrites).toBe(0);
    console.log(`${UNKNOWN_READS} unknown-id reads: ${meter.kvWrites} KV writes, ${meter.rowsRead} D1 rows read`);
  });
});
