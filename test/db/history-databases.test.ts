/**
 * A project whose history lives in two databases of its own (DB_HISTORY_1, then DB_HISTORY_2
 * from a later day), next to the same project kept in one database, through twelve days of
 * real passes in compressed time with every cron run as deployed (a 3-day result window, so
 * the retention job purges several windows). No number here is computed by hand: the claim is
 * that the two projects answer alike, so the one-database project is the expected value.
 */
import { expectError } from "../support/api-helpers";
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dayOf, dayOfDate } from "../../src/credit/history";
import { database } from "../../src/db/client";
import { moveHistory } from "../../src/db/history-queue";
import { parseHistoryDatabases } from "../../src/db/history-databases";
import { projectDatabase } from "../../src/db/project-db";
import { result, workunit } from "../support/api-helpers";
import { ADMIN_TOKEN, type ProjectSettings, request, createProject, typedClient } from "../support/api";
import { fixClock, restoreClock } from "../support/clock";
import { runCron } from "../support/cron";
import { projectIdOf } from "../support/project-id";

const DAY = 86400;
const START = Date.UTC(2026, 2, 1, 6) / 1000;
const DAYS = 12;
const ADD_SECOND_AFTER_DAY = 5;
const HOSTS = [10, 11, 12];
const teamOf = (host: number) => (host === 12 ? 0 : 5);

type Api = ReturnType<typeof typedClient>;

async function setup(prefix: string, settings: ProjectSettings) {
  const { slug, token } = await createProject(prefix, { result_retention_days: 3, ...settings });
  const api = typedClient(slug, token);
  await api.ok("PUT", "/apps/a", {});
  await api.ok("PUT", "/apps/b", {});
  await api.ok("PUT", "/app-versions/1", { app: "a", platform: "linux", plan_class: "", version_num: 1 });
  await api.ok("PUT", "/app-versions/2", { app: "b", platform: "linux", plan_class: "", version_num: 1 });
  const id = await projectIdOf(slug);
  return { slug, token, api, id };
}

/** The k-th pass of day d: two workunits of two results each, on two of the three hosts. */
async function postPass(api: Api, d: number, k: number) {
  const now = START + d * DAY + k * 3 * 3600;
  const wu = (d * 10 + k) * 2;
  const pick = (i: number) => HOSTS[(d + k + i) % HOSTS.length]!;
  const results = (w: number, app: number) =>
    [0, 1].map((i) =>
      result(w * 10 + i, {
        host_id: pick(i),
        user_id: pick(i),
        team_id: teamOf(pick(i)),
        app_version_id: app,
        elapsed_time: 1000 + 100 * ((d + i) % 4),
        cpu_time: 900,
        flops_estimate: 3e9 * (1 + i),
        sent_time: now - 20_000,
        received_time: now - 600,
      }),
    );
  await api.ok("POST", "/passes", {
    now,
    workunits: [workunit(wu + 1, results(wu + 1, 1)), workunit(wu + 2, results(wu + 2, 2), { app: "b" })],
  });
}

/** What the public sees of a project, read fresh from D1 with its token (KV would lag a minute). */
async function answers(api: Api) {
  const strip = ({ slug: _s, name: _n, snapshot_time: _t, as_of: _a, create_time: _c, ...rest }: Record<string, unknown>) => rest;
  const out: Record<string, unknown> = { project: strip(await api.ok("GET", "")), projectHistory: await api.ok("GET", "/history?days=40") };
  for (const id of HOSTS) {
    out[`host ${id}`] = strip(await api.ok("GET", `/hosts/${id}`));
    out[`host ${id} history`] = await api.ok("GET", `/hosts/${id}/history?days=40`);
    out[`user ${id}`] = strip(await api.ok("GET", `/users/${id}`));
    out[`user ${id} history`] = await api.ok("GET", `/users/${id}/history?days=40`);
  }
  out["team 5"] = strip(await api.ok("GET", "/teams/5"));
  out["team 5 history"] = await api.ok("GET", "/teams/5/history?days=40");
  return out;
}

const count = (d1: D1Database, table: string, id: number) =>
  d1.prepare(`SELECT count(*) AS n FROM ${table} WHERE project_id = ?`).bind(id).first<number>("n");

async function historyDump(d1: D1Database, id: number) {
  return (
    await d1
      .prepare(
        "SELECT subject, entity_id, day, credit, expavg_credit, expavg_time FROM credit_history WHERE project_id = ? ORDER BY subject, entity_id, day",
      )
      .bind(id)
      .all()
  ).results;
}

describe("history in databases of its own", () => {
  beforeAll(() => fixClock(START, false));
  afterAll(restoreClock);

  it("answers like the one-database project, keeps the ledger flat, moves each day once, and re-runs change nothing", async () => {
    const one = await setup("hist-one", {});
    const two = await setup("hist-two", { history_database: "DB_HISTORY_1" });
    let secondFrom = 0;
    for (let d = 0; d < DAYS; d++) {
      fixClock(START + d * DAY + 20 * 3600);
      for (let k = 0; k < 4; k++) {
        await postPass(one.api, d, k);
        await postPass(two.api, d, k);
      }
      await runCron("* * * * *", Date.now());
      await runCron("50 * * * *", Date.now());
      if (d === ADD_SECOND_AFTER_DAY) {
        const added = await request("POST", `/v1/projects/${two.slug}/history-databases`, {
          token: ADMIN_TOKEN,
          body: { database: "DB_HISTORY_2" },
        });
        expect(added.status).toBe(200);
        // From the project's next day on: its clock (the server's here, ahead of the passes) is on day d + 1.
        secondFrom = dayOfDate(added.body.history_databases[1]!.from_date);
        expect(secondFrom).toBe(dayOf(Date.now() / 1000) + 1);
        expect(added.body.history_databases.map((h: { database: string }) => h.database)).toEqual(["DB_HISTORY_1", "DB_HISTORY_2"]);
      }
    }

    // A move cut short: the first history database took its buckets, then the run died before
    // the second database and the ledger's delete. The next run must neither lose nor double.
    fixClock(START + DAYS * DAY + 3600);
    await postPass(one.api, DAYS, 0);
    await postPass(two.api, DAYS, 0);
    const ledger = database(env.DB);
    const row = (await env.DB.prepare("SELECT slug, name, created_at, daily_history_days, history_databases FROM projects WHERE id = ?")
      .bind(two.id)
      .first<{ slug: string; name: string; created_at: number; daily_history_days: number; history_databases: string }>())!;
    const copy = {
      id: two.id,
      slug: row.slug,
      name: row.name,
      createdAt: row.created_at,
      dailyHistoryDays: row.daily_history_days,
      ledger: "DB",
    };
    const targets = parseHistoryDatabases(row.history_databases);
    await expect(
      moveHistory(
        ledger,
        copy,
        targets,
        (b) => {
          if (b === "DB_HISTORY_2") throw new Error("the run dies here");
          return projectDatabase(env, b);
        },
        200,
      ),
    ).rejects.toThrow("the run dies here");
    expect(await count(env.DB, "history_queue", two.id)).toBeGreaterThan(0);

    await runCron("", Date.now());
    const expected = await answers(one.api);
    expect(await answers(two.api)).toEqual(expected);

    // The ledger holds no history of the second project, and no queue; the history databases
    // hold exactly the rows the one-database project holds, split at the day the second came in.
    expect(await count(env.DB, "credit_history", two.id)).toBe(0);
    expect(await count(env.DB, "history_queue", two.id)).toBe(0);
    const firstRows = await historyDump(env.DB_HISTORY_1, two.id);
    const secondRows = await historyDump(env.DB_HISTORY_2, two.id);
    expect(firstRows.length).toBeGreaterThan(0);
    expect(secondRows.length).toBeGreaterThan(0);
    expect(firstRows.every((r) => (r.day as number) < secondFrom)).toBe(true);
    expect(secondRows.every((r) => (r.day as number) >= secondFrom)).toBe(true);
    const key = (r: Record<string, unknown>) => `${r.subject}/${r.entity_id}/${r.day}`;
    const merged = [...firstRows, ...secondRows].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
    expect(merged).toEqual(await historyDump(env.DB, one.id));

    // The ledgers stay flat: results and workunits of the last three days only, in both.
    for (const p of [one, two]) {
      expect(await count(env.DB, "results", p.id)).toBeLessThanOrEqual(4 * 4 * 4 + 4);
      expect(await count(env.DB, "app_credit_queue", p.id)).toBe(0);
    }

    // Every job again, twice: nothing moves.
    const before = [await historyDump(env.DB_HISTORY_1, two.id), await historyDump(env.DB_HISTORY_2, two.id), await answers(two.api)];
    await runCron("", Date.now() + 1000);
    await runCron("", Date.now() + 2000);
    expect([await historyDump(env.DB_HISTORY_1, two.id), await historyDump(env.DB_HISTORY_2, two.id), await answers(two.api)]).toEqual(
      before,
    );
  }, 300_000);

  it("refuses a history database that is not bound, is the ledger, or is listed already, with 422 naming the field", async () => {
    const unknown = await request("POST", "/v1/projects", {
      token: ADMIN_TOKEN,
      body: { slug: "hist-bad-1", name: "x", history_database: "DB_NOPE" },
    });
    expect(unknown.status).toBe(422);
    expect(expectError(unknown, 422).issues?.[0]?.path).toBe("history_database");
    const ledger = await request("POST", "/v1/projects", {
      token: ADMIN_TOKEN,
      body: { slug: "hist-bad-2", name: "x", database: "DB_LARGE", history_database: "DB_LARGE" },
    });
    expect(ledger.status).toBe(422);
    expect((await request("GET", "/v1/projects/hist-bad-1")).status).toBe(404);
    const { slug } = await createProject("hist-ok", { history_database: "DB_HISTORY_1" });
    const again = await request("POST", `/v1/projects/${slug}/history-databases`, {
      token: ADMIN_TOKEN,
      body: { database: "DB_HISTORY_1" },
    });
    expect(again.status).toBe(422);
    expect(expectError(again, 422).message).toContain("already holds");
  });
});
