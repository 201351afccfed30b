/**
 * Public reads come from KV snapshots that only the minute cron writes: a pass marks what it
 * touched, the cron rewrites those snapshots and clears the marks. Before the cron, a read
 * shows the old snapshot with its RAC decayed to now; a missing key is answered from D1.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { refreshSnapshots } from "../../src/jobs/kv-refresh";
import { expectError, setupProject } from "../support/api-helpers";
import { request } from "../support/api";
import { runCron } from "../support/cron";
import { daysAgo, decayed, passFor } from "./fixtures";

const publicGet = <P extends string>(slug: string, path: P, headers: Record<string, string> = {}) =>
  request("GET", `/v1/projects/${slug}${path}`, { headers });
const REL = 1e-12;

/** A holder's KV snapshot, as far as these checks read it. */
interface HolderSnapshot {
  data: { total_credit: number };
}

async function marksOf(slug: string) {
  const { results } = await env.DB.prepare(
    `SELECT DISTINCT json_extract(j.value, '$[0]') AS subject, json_extract(j.value, '$[1]') AS entity_id
     FROM kv_marks, json_each(kv_marks.subjects) AS j
     WHERE project_id = (SELECT id FROM projects WHERE slug = ?) ORDER BY subject, entity_id`,
  )
    .bind(slug)
    .all();
  return results;
}

describe("KV snapshots of hosts, users and teams", () => {
  it("a read shows the last snapshot decayed to now until the cron runs, then the new numbers", async () => {
    const { slug, api } = await setupProject("kv");
    const who = { host: 10, user: 10, team: 3 };
    await api.ok("POST", "/passes", passFor(daysAgo(2), 1, who));

    // First public read: no key yet, so D1 answers; an anonymous read never writes KV (the
    // answer is kept in the Cache API for a minute instead).
    const first = await publicGet(slug, "/users/10");
    expect(first.status).toBe(200);
    expect(first.body.total_credit).toBeGreaterThan(0);
    expect(await env.KV.get(`p/${slug}/users/10`)).toBeNull();

    await api.ok("POST", "/passes", passFor(daysAgo(1), 2, who));
    const ledger = await api.ok("GET", "/users/10"); // the project's token reads D1
    expect(ledger.total_credit).toBeGreaterThan(first.body.total_credit);

    const stale = await publicGet(slug, "/users/10");
    expect(stale.body.total_credit).toBe(first.body.total_credit);
    expect(stale.body.expavg_credit).toBe(first.body.expavg_credit);
    expect(stale.body.expavg_time).toBe(first.body.expavg_time);
    expect(stale.body.snapshot_time).toBe(first.body.snapshot_time);
    expect(stale.body.recent_average_credit).toBeCloseTo(decayed(first.body, stale.body.as_of), 9);
    expect(await marksOf(slug)).toContainEqual({ subject: "user", entity_id: 10 });

    await runCron();
    const fresh = await publicGet(slug, "/users/10");
    for (const f of ["total_credit", "expavg_credit", "expavg_time"] as const) expect(fresh.body[f]).toBe(ledger[f]);
    expect(fresh.body.apps).toEqual(ledger.apps.map((a) => ({ ...a, recent_average_credit: expect.any(Number) })));
    expect(fresh.body.snapshot_time).toBeGreaterThan(first.body.snapshot_time);
    expect(await marksOf(slug)).toEqual([]);

    // The team and host were written by the same cron run.
    for (const path of ["/teams/3", "/hosts/10"] as const) {
      const [kv, d1] = [await publicGet(slug, path), await api.ok("GET", path)];
      expect(kv.body.total_credit).toBe(d1.total_credit);
      expect(kv.body.total_credit).toBe(ledger.total_credit);
    }
  });

  it("a missing key is answered from D1 and not written to KV", async () => {
    const { slug, api } = await setupProject("kv");
    await api.ok("POST", "/passes", passFor(daysAgo(3), 1, { host: 11, user: 11 }));
    await runCron();
    await env.KV.delete(`p/${slug}/hosts/11`);
    const res = await publicGet(slug, "/hosts/11");
    const ledger = await api.ok("GET", "/hosts/11");
    expect(res.status).toBe(200);
    for (const f of ["total_credit", "expavg_credit", "expavg_time", "user_id"] as const) expect(res.body[f]).toBe(ledger[f]);
    expect(await env.KV.get(`p/${slug}/hosts/11`)).toBeNull();
  });

  it("RAC is decayed to the moment of the answer with BOINC's formula", async () => {
    const { slug, api } = await setupProject("kv");
    await api.ok("POST", "/passes", passFor(daysAgo(5), 1, { host: 12, user: 12 }));
    const res = await publicGet(slug, "/hosts/12");
    const { expavg_credit, expavg_time, as_of, recent_average_credit } = res.body;
    // Written out: the pair halves every 7 days of 86,400 s after expavg_time.
    const expected = expavg_credit * 0.5 ** ((as_of - expavg_time) / (7 * 86400));
    expect(Math.abs(recent_average_credit - expected) / expected).toBeLessThan(REL);
    expect(as_of - expavg_time).toBeGreaterThan(4 * 86400);
  });

  it("unknown ids and projects are 404 in the error shape, and a later pass makes the id readable", async () => {
    const { slug, api } = await setupProject("kv");
    expectError(await publicGet(slug, "/users/77"), 404, "not_found");
    expectError(await publicGet("no-such-project", "/users/1"), 404, "not_found");
    expectError(await publicGet("no-such-project", "/top/users"), 404, "not_found");
    expectError(await publicGet(slug, "/users/77/history"), 404, "not_found");
    await api.ok("POST", "/passes", passFor(daysAgo(1), 1, { host: 77, user: 77 }));
    await runCron();
    const res = await publicGet(slug, "/users/77");
    expect(res.status).toBe(200);
    expect(res.body.total_credit).toBeGreaterThan(0);
  });

  it("a registration (PUT) marks the holder, and the cron publishes its new name", async () => {
    const { slug, api } = await setupProject("kv");
    await api.ok("PUT", "/teams/5", { name: "Old name" });
    expect((await publicGet(slug, "/teams/5")).body.name).toBe("Old name");
    expect(await env.KV.get(`p/${slug}/teams/5`)).toBeNull();
    await api.ok("PUT", "/teams/5", { name: "New name" });
    expect((await publicGet(slug, "/teams/5")).body.name).toBe("Old name");
    await runCron();
    expect((await publicGet(slug, "/teams/5")).body.name).toBe("New name");
  });
});

describe("HTTP caching of public reads", () => {
  it("ETag and Cache-Control; If-None-Match gives 304 until the snapshot changes", async () => {
    const { slug, api } = await setupProject("etag");
    await api.ok("POST", "/passes", passFor(daysAgo(2), 1, { host: 20, user: 20 }));
    await runCron();
    const res = await publicGet(slug, "/users/20");
    const etag = res.headers!.get("ETag")!;
    expect(etag).toMatch(/^W\/".+"$/);
    expect(res.headers!.get("Cache-Control")).toBe("public, max-age=60");

    const again = await publicGet(slug, "/users/20", { "If-None-Match": etag });
    expect(again.status).toBe(304);
    expect(again.body).toBe("");

    await api.ok("POST", "/passes", passFor(daysAgo(1), 2, { host: 20, user: 20 }));
    await runCron();
    const changed = await publicGet(slug, "/users/20", { "If-None-Match": etag });
    expect(changed.status).toBe(200);
    expect(changed.headers!.get("ETag")).not.toBe(etag);
  });

  it("a read with the project's token comes from D1 and is not publicly cacheable", async () => {
    const { slug, token } = await setupProject("etag");
    const res = await request("GET", `/v1/projects/${slug}/apps`, { token });
    expect(res.status).toBe(200);
    expect(res.headers!.get("Cache-Control")).toBe("private, no-cache");
    expect(await env.KV.get(`p/${slug}/apps`)).toBeNull();
  });
});

describe("the KV refresh job", () => {
  it("does at most its budget of writes per run and leaves the rest of the marks for the next", async () => {
    const { slug, api } = await setupProject("budget");
    await api.ok("POST", "/passes", passFor(daysAgo(1), 1, { host: 30, user: 30 }));
    await api.ok("POST", "/passes", passFor(daysAgo(1), 2, { host: 31, user: 31 }));
    // Drain what other tests left, then mark ours again.
    await refreshSnapshots(env, Date.now() / 1000);
    await api.ok("POST", "/passes", passFor(daysAgo(0), 3, { host: 30, user: 30 }));
    await api.ok("POST", "/passes", passFor(daysAgo(0), 4, { host: 31, user: 31 }));
    expect(await marksOf(slug)).toHaveLength(5); // the project, 2 hosts, 2 users

    // A budget of 2 is too small for the project's snapshots: two holders go first.
    const first = await refreshSnapshots(env, Date.now() / 1000, 2);
    expect(first).toMatchObject({ written: 2, failed: 0, left: 3 });
    const second = await refreshSnapshots(env, Date.now() / 1000, 2);
    expect(second).toMatchObject({ written: 2, left: 1 });
    const third = await refreshSnapshots(env, Date.now() / 1000);
    expect(third.left).toBe(0);
    expect(await marksOf(slug)).toEqual([]);
  });

  it("shares a small budget round robin: two projects with many marks both get written in one run", async () => {
    const busy = await setupProject("rrbusy");
    const quiet = await setupProject("rrquiet");
    await refreshSnapshots(env, Date.now() / 1000);
    // The busy project's six holder marks are all older than the quiet one's.
    for (const h of [50, 51, 52]) await busy.api.ok("POST", "/passes", passFor(daysAgo(0), h, { host: h, user: h }));
    for (const h of [60, 61, 62]) await quiet.api.ok("POST", "/passes", passFor(daysAgo(0), h, { host: h, user: h }));
    expect(await marksOf(busy.slug)).toHaveLength(7); // the project, 3 hosts, 3 users
    expect(await marksOf(quiet.slug)).toHaveLength(7);

    // A budget of 4 is too small for either project's snapshots, so holders share it: 2 each.
    const report = await refreshSnapshots(env, Date.now() / 1000, 4);
    expect(report).toMatchObject({ written: 4, failed: 0 });
    expect(await marksOf(busy.slug)).toHaveLength(5);
    expect(await marksOf(quiet.slug)).toHaveLength(5);
  });

  it("keeps the mark of a snapshot whose KV write failed, and writes it on the next run", async () => {
    const { slug, api } = await setupProject("kvfail");
    await refreshSnapshots(env, Date.now() / 1000);
    await api.ok("POST", "/passes", passFor(daysAgo(1), 1, { host: 40, user: 40 }));
    const failing = `p/${slug}/users/40`;
    const flakyKv = new Proxy(env.KV, {
      get(target, prop) {
        if (prop === "put") {
          return (key: string, ...rest: unknown[]) =>
            key === failing
              ? Promise.reject(new Error("injected KV failure"))
              : (target.put as (key: string, ...rest: unknown[]) => Promise<void>)(key, ...rest);
        }
        const value = Reflect.get(target, prop);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const report = await refreshSnapshots({ ...env, KV: flakyKv }, Date.now() / 1000);
    expect(report.failed).toBe(1);
    expect(await marksOf(slug)).toEqual([{ subject: "user", entity_id: 40 }]);
    expect(await env.KV.get(failing)).toBeNull();

    await refreshSnapshots(env, Date.now() / 1000);
    expect(await marksOf(slug)).toEqual([]);
    expect((JSON.parse((await env.KV.get(failing))!) as HolderSnapshot).data.total_credit).toBe(
      (await api.ok("GET", "/users/40")).total_credit,
    );
  });

  it("queues one row per pass, and a pass that marks while the cron writes keeps its mark", async () => {
    const { slug, api } = await setupProject("kvqueue");
    await refreshSnapshots(env, Date.now() / 1000);
    const rows = async () =>
      (await env.DB.prepare("SELECT count(*) AS n FROM kv_marks WHERE project_id = (SELECT id FROM projects WHERE slug = ?)")
        .bind(slug)
        .first<number>("n"))!;
    // Three workunits on three hosts of three users in one pass: seven subjects, one row.
    await api.ok("POST", "/passes", {
      now: daysAgo(0),
      workunits: [70, 71, 72].flatMap((h) => passFor(daysAgo(0), h, { host: h, user: h, team: 7 }).workunits),
    });
    expect(await marksOf(slug)).toHaveLength(8); // the project, 3 hosts, 3 users, 1 team
    expect(await rows()).toBe(1);

    // While the cron writes host 70's snapshot, another pass credits host 70 again.
    let passed = false;
    const racingKv = new Proxy(env.KV, {
      get(target, prop) {
        if (prop === "put") {
          return async (key: string, ...rest: unknown[]) => {
            if (key === `p/${slug}/hosts/70` && !passed) {
              passed = true;
              await api.ok("POST", "/passes", passFor(daysAgo(0), 73, { host: 70, user: 70, team: 7 }));
            }
            return (target.put as (key: string, ...rest: unknown[]) => Promise<void>)(key, ...rest);
          };
        }
        const value = Reflect.get(target, prop);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    await refreshSnapshots({ ...env, KV: racingKv }, Date.now() / 1000);
    expect(passed).toBe(true);
    // The racing pass's row is untouched: its subjects wait for the next run.
    expect(await marksOf(slug)).toEqual([
      { subject: "host", entity_id: 70 },
      { subject: "project", entity_id: 0 },
      { subject: "team", entity_id: 7 },
      { subject: "user", entity_id: 70 },
    ]);
    await refreshSnapshots(env, Date.now() / 1000);
    expect((JSON.parse((await env.KV.get(`p/${slug}/hosts/70`))!) as HolderSnapshot).data.total_credit).toBe(
      (await api.ok("GET", "/hosts/70")).total_credit,
    );
  });
});
