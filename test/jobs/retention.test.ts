/**
 * Retention in compressed time: passes every 10 days across five 30-day windows, the purge
 * run after each. The decided rows level off at one window's worth instead of growing, while
 * totals, RAC and history read the same before and after a purge, and a purged result posted
 * again is refused (410), never credited twice.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_AM_RPC_RETENTION_DAYS,
  DEFAULT_AUDIT_RETENTION_DAYS,
  DEFAULT_RESULT_RETENTION_DAYS,
} from "../../src/credit/constants";
import { database } from "../../src/db/client";
import { purgeProject, retentionSettings, runRetention } from "../../src/jobs/retention";
import { expectError, result, setupProject, workunit } from "../api/helpers";
import { ADMIN_TOKEN, call } from "../support/api";
import { runCron } from "../support/cron";
import { EINSTEIN, T0, createAm, rpcBody, totals } from "../am/support";
import { DAY, daysAgo, passFor } from "../reads/fixtures";

const RETENTION_CRON = "50 * * * *";
const STEP_DAYS = 10;
const STEPS = 15; // 150 days: five windows of 30
const WU_PER_STEP = 3;
const who = { host: 10, user: 10 };

/** The project's decided rows, as the database holds them. */
async function storedRows(slug: string): Promise<{ results: number; workunits: number }> {
  const count = (table: string) =>
    env.DB.prepare(`SELECT count(*) AS n FROM ${table} WHERE project_id = (SELECT id FROM projects WHERE slug = ?)`)
      .bind(slug)
      .first<number>("n");
  return { results: (await count("results"))!, workunits: (await count("workunits"))! };
}

/** What a purge must not change: the user's and host's ledger and the user's daily history. */
async function ledger(api: Awaited<ReturnType<typeof setupProject>>["api"]) {
  const pick = (h: any) => ({ total_credit: h.total_credit, expavg_credit: h.expavg_credit, expavg_time: h.expavg_time });
  // Up to yesterday: today's RAC is decayed to the moment of reading.
  const end = new Date(Date.now() - DAY * 1000).toISOString().slice(0, 10);
  return {
    user: pick(await api.ok("GET", "/users/10")),
    host: pick(await api.ok("GET", "/hosts/10")),
    history: (await api.ok("GET", `/users/10/history?days=${STEPS * STEP_DAYS + 10}&end=${end}`)).days,
  };
}

describe("retention purge", () => {
  it("keeps one window of decided rows, leaves totals, RAC and history alone, and refuses a purged result", { timeout: 60_000 }, async () => {
    const { slug, api } = await setupProject("retention");
    const start = daysAgo(STEPS * STEP_DAYS + 1);
    const sizes: number[] = [];
    for (let step = 0; step < STEPS; step++) {
      const now = start + step * STEP_DAYS * DAY;
      await api.ok("POST", "/passes", passFor(now, 1 + step * WU_PER_STEP, who, WU_PER_STEP));
      const before = step === STEPS - 1 ? await ledger(api) : null;
      await runCron(RETENTION_CRON, now * 1000);
      sizes.push((await storedRows(slug)).results);
      if (before) expect(await ledger(api)).toEqual(before);
    }
    // A row goes once decided more than 30 days before the run: with a pass every 10 days,
    // the passes at now, now-10, now-20 and now-30 days (not older than 30) stay: 4 passes
    // × 3 workunits × 2 results = 24 rows, and 12 workunits.
    const window = (DEFAULT_RESULT_RETENTION_DAYS / STEP_DAYS + 1) * WU_PER_STEP * 2;
    expect(window).toBe(24);
    expect(sizes.slice(0, 4)).toEqual([6, 12, 18, 24]);
    expect(sizes.slice(4)).toEqual(Array(STEPS - 4).fill(window));
    expect(await storedRows(slug)).toEqual({ results: window, workunits: window / 2 });

    const credited = await api.ok("GET", "/users/10");
    // The first pass again: its rows are gone; it is refused, not credited a second time.
    const again = await api.raw("POST", "/passes", passFor(start, 1, who, WU_PER_STEP));
    const error = expectError(again, 410, "outside_retention_window");
    expect(error.message).toContain(`${DEFAULT_RESULT_RETENTION_DAYS}-day`);
    expect(error.issues?.[0]?.path).toBe("workunits[0].results[0].sent_time");
    // A late result of a purged workunit (sent before it was credited) is refused too.
    const late = { now: start + (STEPS - 1) * STEP_DAYS * DAY, workunits: [workunit(1, [result(13, { host_id: 10, user_id: 10, sent_time: start - 5000, received_time: start + 40 * DAY })])] };
    expectError(await api.raw("POST", "/passes", late), 410, "outside_retention_window");
    // The newest pass, still within the window, is replayed as before.
    const lastNow = start + (STEPS - 1) * STEP_DAYS * DAY;
    const replay = await api.ok("POST", "/passes", passFor(lastNow, 1 + (STEPS - 1) * WU_PER_STEP, who, WU_PER_STEP));
    expect(replay.workunits.every((w: any) => w.replayed)).toBe(true);
    const after = await api.ok("GET", "/users/10");
    expect(after.total_credit).toBe(credited.total_credit);
    expect(after.expavg_credit).toBe(credited.expavg_credit);
  });

  it("a backfill of old history is measured on the project's own clock: the server's date purges nothing it still needs", { timeout: 60_000 }, async () => {
    const { slug, api } = await setupProject("backfill");
    // History a year old, posted today (as `npm run bridge` backfills), the hourly purge
    // running at the server's real time between passes.
    const start = daysAgo(365);
    const serverNow = Date.now();
    for (let step = 0; step < 5; step++) {
      const now = start + step * STEP_DAYS * DAY;
      await api.ok("POST", "/passes", passFor(now, 1 + step * WU_PER_STEP, who, WU_PER_STEP));
      await runCron(RETENTION_CRON, serverNow);
    }
    // The project's clock is at start + 40 days, so the cutoff is start + 10 days: only the
    // pass at start goes; the passes at +10, +20, +30, +40 stay: 4 × 3 workunits × 2 results.
    // (Measured on the server's date, every row would go and the next pass be refused, 410.)
    expect(await storedRows(slug)).toEqual({ results: 24, workunits: 12 });
    // The next pass of the backfill, with a result sent a week before it, is credited.
    const next = start + 5 * STEP_DAYS * DAY;
    const body = passFor(next, 100, who, 1);
    body.workunits[0]!.results[0]!.sent_time = next - 7 * DAY;
    const credited = await api.ok("POST", "/passes", body);
    expect(credited.workunits[0].results[0].granted_credit).toBeGreaterThan(0);
  });

  it("a project created with its own window keeps it", async () => {
    const created = await call("POST", "/v1/projects", {
      token: ADMIN_TOKEN,
      body: { slug: `long-${Math.random().toString(36).slice(2, 8)}`, name: "Long", result_retention_days: 60 },
    });
    expect(created.status).toBe(201);
    const row = await env.DB.prepare("SELECT result_retention_days AS d FROM projects WHERE slug = ?").bind(created.body.slug).first<{ d: number }>("d");
    expect(row).toBe(60);
  });
});

describe("retention's bounds and other tables", () => {
  it("deletes at most chunk × chunks rows a run, and audit rows past their own window", async () => {
    const { slug, api } = await setupProject("bounded");
    const then = daysAgo(40);
    await api.ok("POST", "/passes", passFor(then, 1, who, 5)); // 10 results, 5 workunits
    const db = database(env.DB);
    const auditRows = async () => (await env.DB.prepare("SELECT count(*) AS n FROM audit_log").first<number>("n"))!;
    const auditBefore = await auditRows();
    expect(auditBefore).toBeGreaterThan(0);
    const now = then + 35 * DAY;
    // Chunks of 3, two per run: 6 results and 5 workunits (the workunit chunk of the 2nd
    // batch deletes the last 2), then the remaining 4 results.
    const tight = { ...retentionSettings({}), chunkRows: 3, maxChunks: 2 };
    const id = (await env.DB.prepare("SELECT id FROM projects WHERE slug = ?").bind(slug).first<number>("id"))!;
    // The project's clock has reached `now` (a later pass would have moved it there).
    const project = { id, resultRetentionDays: DEFAULT_RESULT_RETENTION_DAYS, clock: now };
    expect(await purgeProject(db, project, now, tight)).toEqual({ results: 6, workunits: 5 });
    expect(await storedRows(slug)).toEqual({ results: 4, workunits: 0 });
    expect(await purgeProject(db, project, now, tight)).toEqual({ results: 4, workunits: 0 });
    // Audit rows are stamped with the server's clock: a run a year and a day from now drops them.
    const later = Date.now() / 1000 + (tight.auditDays + 1) * DAY;
    const counts = await runRetention(db, later, { ...tight, maxChunks: 1000 });
    expect(counts.audit).toBe(auditBefore);
    expect(await auditRows()).toBe(0);
  });

  it("reads its windows from the environment, falling back to the defaults", () => {
    expect(retentionSettings({ AUDIT_RETENTION_DAYS: "30", AM_RPC_RETENTION_DAYS: "7" })).toMatchObject({ auditDays: 30, amRpcDays: 7 });
    expect(retentionSettings({ AUDIT_RETENTION_DAYS: "soon" })).toMatchObject({
      auditDays: DEFAULT_AUDIT_RETENTION_DAYS,
      amRpcDays: DEFAULT_AM_RPC_RETENTION_DAYS,
    });
  });
});

describe("account-manager RPC retention", () => {
  it("drops RPCs past the window but a host's latest, and a replay of a dropped RPC books nothing", async () => {
    const am = await createAm("keep");
    const t = [T0, T0 + 10 * DAY, T0 + 20 * DAY];
    const cumulative = [10, 20, 30];
    for (const [i, at] of t.entries()) {
      await am.rpc(5, rpcBody(at, [totals(EINSTEIN, { cpu_ec: cumulative[i]!, cpu_time: 100 * (i + 1) })]));
    }
    const settings = { ...retentionSettings({ AM_RPC_RETENTION_DAYS: "5" }), maxChunks: 1000 };
    // Five days after the last RPC: all three are older than the window, the latest stays.
    const counts = await runRetention(database(env.DB), t[2]! + 5 * DAY + 1, settings);
    expect(counts.amRpcs).toBe(2);
    const kept = await env.DB.prepare("SELECT seq FROM am_rpcs WHERE host_id = 5 AND am_id = (SELECT id FROM account_managers WHERE slug = ?)")
      .bind(am.slug)
      .all<{ seq: number }>();
    expect(kept.results.map((r) => r.seq)).toEqual([3]);
    // The first RPC again: older than the host's latest, refused as out of order (409).
    const replay = await am.rpcRaw(5, rpcBody(t[0]!, [totals(EINSTEIN, { cpu_ec: 10, cpu_time: 100 })]));
    expectError(replay, 409, "rpc_out_of_order");
  });
});
