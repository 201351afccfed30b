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
  MAX_CLOCK_SKEW_SECONDS,
} from "../../src/config";
import { database } from "../../src/db/client";
import { parseSettings } from "../../src/env-vars";
import { purgeProject, retentionSettings, runRetention } from "../../src/jobs/retention";
import { expectError, result, setupProject, workunit } from "../support/api-helpers";
import { ADMIN_TOKEN, request, createProject, typedClient } from "../support/api";
import { runCron } from "../support/cron";
import { EINSTEIN, T0, createAm, rpcBody, totals } from "../am/support";
import { DAY, daysAgo, passFor } from "../reads/fixtures";
import { projectIdOf } from "../support/project-id";

const RETENTION_CRON = "50 * * * *";
const STEP_DAYS = 10;
const STEPS = 15; // 150 days: five windows of 30
const WU_PER_STEP = 3;
const who = { host: 10, user: 10 };

/** The retention settings of a deployment with these variables, parsed as the Worker parses them (src/env-vars.ts). */
function settingsWith(vars: Record<string, string> = {}) {
  const parsed = parseSettings(vars);
  if (!parsed.ok) throw new Error(parsed.problems.join("; "));
  return retentionSettings(parsed.value);
}

/** The project's decided rows, as the database holds them. */
async function storedRows(slug: string): Promise<{ results: number; workunits: number }> {
  const count = (table: string) =>
    env.DB.prepare(`SELECT count(*) AS n FROM ${table} WHERE project_id = (SELECT id FROM projects WHERE slug = ?)`)
      .bind(slug)
      .first<number>("n");
  return { results: (await count("results"))!, workunits: (await count("workunits"))! };
}

/** A holder's stored credit. */
interface Ledger {
  total_credit: number;
  expavg_credit: number;
  expavg_time: number;
}

/** What a purge must not change: the user's and host's ledger and the user's daily history. */
async function ledger(api: Awaited<ReturnType<typeof setupProject>>["api"]) {
  const pick = (h: Ledger) => ({ total_credit: h.total_credit, expavg_credit: h.expavg_credit, expavg_time: h.expavg_time });
  // Up to yesterday: today's RAC is decayed to the moment of reading.
  const end = new Date(Date.now() - DAY * 1000).toISOString().slice(0, 10);
  return {
    user: pick(await api.ok("GET", "/users/10")),
    host: pick(await api.ok("GET", "/hosts/10")),
    history: (await api.ok("GET", `/users/10/history?days=${STEPS * STEP_DAYS + 10}&end=${end}`)).days,
  };
}

describe("retention purge", () => {
  it("keeps one window of decided rows, leaves totals, RAC and history alone, and refuses a purged result", async () => {
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
    const late = {
      now: start + (STEPS - 1) * STEP_DAYS * DAY,
      workunits: [workunit(1, [result(13, { host_id: 10, user_id: 10, sent_time: start - 5000, received_time: start + 40 * DAY })])],
    };
    expectError(await api.raw("POST", "/passes", late), 410, "outside_retention_window");
    // The newest pass, still within the window, is replayed as before.
    const lastNow = start + (STEPS - 1) * STEP_DAYS * DAY;
    const replay = await api.ok("POST", "/passes", passFor(lastNow, 1 + (STEPS - 1) * WU_PER_STEP, who, WU_PER_STEP));
    expect(replay.workunits.every((w) => w.replayed)).toBe(true);
    const after = await api.ok("GET", "/users/10");
    expect(after.total_credit).toBe(credited.total_credit);
    expect(after.expavg_credit).toBe(credited.expavg_credit);
  });

  it("a backfill of old history is measured on the project's own clock: the server's date purges nothing it still needs", async () => {
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
    expect(credited.workunits[0]!.results[0]!.granted_credit).toBeGreaterThan(0);
  });

  it("sets no horizon before the project's first grant: a backfill of old history starts however many runs after creation", async () => {
    const { slug, api } = await setupProject("before-first");
    const horizon = () => env.DB.prepare("SELECT purged_before AS h FROM projects WHERE slug = ?").bind(slug).first<number>("h");
    // The hourly job runs between creation and the first bridge run, a day of them.
    const serverNow = Date.now();
    for (let hour = 0; hour < 3; hour++) await runCron(RETENTION_CRON, serverNow + hour * 3600_000);
    expect(await horizon()).toBe(0);
    // 120 days old: an error outcome first (a second with only errors), the job, then passes.
    const start = daysAgo(120);
    await api.ok("POST", "/errors", { now: start, results: [{ id: 5, host_id: 10, app_version_id: 1, outcome: "error" }] });
    await runCron(RETENTION_CRON, serverNow);
    expect(await horizon()).toBe(0);
    expect(await storedRows(slug)).toEqual({ results: 1, workunits: 0 });
    const first = await api.ok("POST", "/passes", passFor(start + 60, 1, who, 1));
    expect(first.workunits[0]!.path).toBe("fresh");
    // From the first grant on, the window is measured on the project's clock as before: 40
    // days of history later the cutoff is start + 10 days, past the error and the first pass.
    await api.ok("POST", "/passes", passFor(start + 40 * DAY, 2, who, 1));
    await runCron(RETENTION_CRON, serverNow);
    expect(await storedRows(slug)).toEqual({ results: 2, workunits: 1 });
    expect(await horizon()).toBe(start + 10 * DAY + MAX_CLOCK_SKEW_SECONDS);
  });

  it("a project created with its own window keeps it", async () => {
    const created = await request("POST", "/v1/projects", {
      token: ADMIN_TOKEN,
      body: { slug: `long-${Math.random().toString(36).slice(2, 8)}`, name: "Long", result_retention_days: 60 },
    });
    expect(created.status).toBe(201);
    const row = await env.DB.prepare("SELECT result_retention_days AS d FROM projects WHERE slug = ?")
      .bind(created.body.slug)
      .first<{ d: number }>("d");
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
    const tight = { ...settingsWith(), chunkRows: 3, maxChunks: 2 };
    const id = await projectIdOf(slug);
    // The project's clock has reached `now` (a later pass would have moved it there).
    const project = { id, resultRetentionDays: DEFAULT_RESULT_RETENTION_DAYS, clock: now, credited: true };
    expect(await purgeProject(db, project, now, tight)).toEqual({ results: 6, workunits: 5, trickles: 0 });
    expect(await storedRows(slug)).toEqual({ results: 4, workunits: 0 });
    expect(await purgeProject(db, project, now, tight)).toEqual({ results: 4, workunits: 0, trickles: 0 });
    // Audit rows are stamped with the server's clock: a run a year and a day from now drops them.
    const later = Date.now() / 1000 + (tight.auditDays + 1) * DAY;
    const counts = await runRetention(db, later, { ...tight, maxChunks: 1000 });
    expect(counts.audit).toBe(auditBefore);
    expect(await auditRows()).toBe(0);
  });

  it("reads its windows from the environment, the defaults when unset; a bad one is refused, not replaced", () => {
    expect(settingsWith({ AUDIT_RETENTION_DAYS: "30", AM_RPC_RETENTION_DAYS: "7" })).toMatchObject({ auditDays: 30, amRpcDays: 7 });
    expect(settingsWith()).toMatchObject({ auditDays: DEFAULT_AUDIT_RETENTION_DAYS, amRpcDays: DEFAULT_AM_RPC_RETENTION_DAYS });
    expect(() => settingsWith({ AUDIT_RETENTION_DAYS: "soon" })).toThrow(
      'AUDIT_RETENTION_DAYS: expected a whole number of days ≥ 1, got "soon"',
    );
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
    const settings = { ...settingsWith({ AM_RPC_RETENTION_DAYS: "5" }), maxChunks: 1000 };
    // Five days after the last RPC: all three are older than the window, the latest stays.
    const counts = await runRetention(database(env.DB), t[2]! + 5 * DAY + 1, settings);
    expect(counts.amRpcs).toBe(2);
    const kept = await env.DB.prepare(
      "SELECT seq FROM am_rpcs WHERE host_id = 5 AND am_id = (SELECT id FROM account_managers WHERE slug = ?)",
    )
      .bind(am.slug)
      .all<{ seq: number }>();
    expect(kept.results.map((r) => r.seq)).toEqual([3]);
    // The first RPC again: older than the host's latest, refused as out of order (409).
    const replay = await am.rpcRaw(5, rpcBody(t[0]!, [totals(EINSTEIN, { cpu_ec: 10, cpu_time: 100 })]));
    expectError(replay, 409, "rpc_out_of_order");
  });
});

/**
 * Trickle messages carry no time, only an id that grows with time (BOINC's msg_from_host.id).
 * One hour at 3 GFLOPS is 3600 × 3e9 × 200 / 86400e9 = 25 credits a message.
 */
describe("trickle retention", () => {
  const T = 1_700_000_000;
  const message = (id: number) => ({ id, app: "climate", host_id: 1, runtime: 3600 });
  /** What a purge must not change: the stored ledger, not the RAC decayed to the moment of reading. */
  const credit = (h: Ledger) => ({ total_credit: h.total_credit, expavg_credit: h.expavg_credit, expavg_time: h.expavg_time });

  /** A project with app "climate" and host 1 (3 GFLOPS, user 5), created before T. */
  async function trickleProject() {
    const { slug, token } = await createProject("trickle-retention");
    const api = typedClient(slug, token);
    await api.ok("PUT", "/apps/climate", { credit_mode: "trickle", trickle_max_runtime: 7200 });
    await api.ok("PUT", "/hosts/1", { create_time: T - 100 * DAY, user_id: 5, p_fpops: 3e9 });
    const id = await projectIdOf(slug);
    const stored = async () =>
      (await env.DB.prepare("SELECT id FROM trickles WHERE project_id = ? ORDER BY id").bind(id).all<{ id: number }>()).results.map(
        (r) => r.id,
      );
    const horizon = () => env.DB.prepare("SELECT trickles_purged_through AS h FROM projects WHERE id = ?").bind(id).first<number>("h");
    return { api, id, stored, horizon };
  }

  it("keeps one window of paid messages, leaves totals alone, and refuses a purged message instead of paying it again", async () => {
    const { api, stored, horizon } = await trickleProject();
    // Every 10 days, three messages: ids 10k + 1 … 10k + 3 (k = 0 … 7), the purge run after each.
    const sizes: number[] = [];
    let before: unknown = null;
    for (let k = 0; k < 8; k++) {
      const now = T + k * STEP_DAYS * DAY;
      await api.ok("POST", "/trickles", { now, messages: [1, 2, 3].map((i) => message(10 * k + i)) });
      if (k === 7) before = credit(await api.ok("GET", "/hosts/1"));
      await runCron(RETENTION_CRON, now * 1000);
      sizes.push((await stored()).length);
    }
    // A message goes once paid more than 30 days before the run: the runs keep the steps at
    // now, now − 10, now − 20 and now − 30 days: 4 × 3 = 12 messages.
    expect(sizes).toEqual([3, 6, 9, 12, 12, 12, 12, 12]);
    expect(await stored()).toEqual([41, 42, 43, 51, 52, 53, 61, 62, 63, 71, 72, 73]);
    // The horizon stops below the first message still kept: 41 − 1.
    expect(await horizon()).toBe(40);
    const host = await api.ok("GET", "/hosts/1");
    expect(credit(host)).toEqual(before);
    // 8 steps × 3 messages × 25 credits.
    expect(host.total_credit).toBe(600);

    const last = T + 7 * STEP_DAYS * DAY;
    // A purged message again: refused, not paid a second time, and nothing of the batch is written.
    const again = await api.raw("POST", "/trickles", { now: last, messages: [message(74), message(1)] });
    const error = expectError(again, 410, "outside_retention_window");
    expect(error.message).toContain(`${DEFAULT_RESULT_RETENTION_DAYS}-day`);
    expect(error.issues).toEqual([{ path: "messages[1].id", message: "at or below the retention horizon (message 40)" }]);
    // An id below the horizon that was never posted is refused the same way (it may have been).
    expectError(await api.raw("POST", "/trickles", { now: last, messages: [message(35)] }), 410, "outside_retention_window");
    // A message still kept replays; a new one is paid.
    const replay = await api.ok("POST", "/trickles", { now: last, messages: [message(41)] });
    expect(replay.messages[0]).toMatchObject({ id: 41, replayed: true, granted_credit: 25 });
    expect((await api.ok("GET", "/hosts/1")).total_credit).toBe(600);
    const fresh = await api.ok("POST", "/trickles", { now: last, messages: [message(74)] });
    expect(fresh.messages[0]).toMatchObject({ id: 74, replayed: false, granted_credit: 25 });
    expect((await api.ok("GET", "/hosts/1")).total_credit).toBe(625);
  });

  it("purges in id order, a bounded chunk a run, and stops at a message still inside the window", async () => {
    const { api, id, stored, horizon } = await trickleProject();
    const old = T - 40 * DAY;
    // Ids 1, 2, 3 and 5 paid 40 days before T; id 4 paid at T (it arrived late).
    await api.ok("POST", "/trickles", { now: old, messages: [1, 2, 3, 5].map(message) });
    await api.ok("POST", "/trickles", { now: T, messages: [message(4)] });
    const db = database(env.DB);
    const now = T + DAY; // cutoff: T − 29 days, so 1, 2, 3, 5 are past it and 4 is not
    const project = { id, resultRetentionDays: DEFAULT_RESULT_RETENTION_DAYS, clock: now, credited: true };
    const tight = { ...settingsWith(), chunkRows: 2, maxChunks: 1 };
    // Run 1: the next two ids above 0 (1, 2) are both old: horizon 2, both deleted.
    expect(await purgeProject(db, project, now, tight)).toMatchObject({ trickles: 2 });
    expect([await horizon(), await stored()]).toEqual([2, [3, 4, 5]]);
    // Run 2: the next two (3, 4): 4 is inside the window, so the horizon stops at 3.
    expect(await purgeProject(db, project, now, tight)).toMatchObject({ trickles: 1 });
    expect([await horizon(), await stored()]).toEqual([3, [4, 5]]);
    // Run 3: 4 still blocks; 5 waits until 4 is past the window too.
    expect(await purgeProject(db, project, now, tight)).toMatchObject({ trickles: 0 });
    expect([await horizon(), await stored()]).toEqual([3, [4, 5]]);
    const replay = await api.ok("POST", "/trickles", { now: T, messages: [message(5)] });
    expect(replay.messages[0]).toMatchObject({ replayed: true });
    // 31 days after T both are past it: horizon 5, nothing left.
    const later = T + 31 * DAY;
    expect(await purgeProject(db, { ...project, clock: later }, later, tight)).toMatchObject({ trickles: 2 });
    expect([await horizon(), await stored()]).toEqual([5, []]);
  });
});
