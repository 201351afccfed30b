/**
 * POST …/trickles against real D1: BOINC's trickle_credit rules end to end, the percentiles
 * the cron keeps, exactly-once per message id, and bad batches refused whole.
 * One hour at 3 GFLOPS is 3600 × 3e9 × 200/86400e9 = 25 credits (test/credit/trickle.test.ts).
 */
import { historyDays } from "../support/history";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { SECONDS_PER_DAY } from "../../src/credit/constants";
import { dayOf } from "../../src/credit/history";
import { errorOf, spoil } from "../support/api-helpers";
import type { components } from "../support/api-types";
import { request, createProject, typedClient } from "../support/api";
import { runCron } from "../support/cron";
import { projectIdOf } from "../support/project-id";

const NOW = 1_700_000_000;
const DAY_BEFORE = NOW - SECONDS_PER_DAY;

/** A project with app "climate" (trickle_max_runtime 7,200 s) and host 1 (3 GFLOPS) of user 5 in team 9, all created a day before NOW. */
async function setup() {
  const { slug, token } = await createProject("trickle");
  const api = typedClient(slug, token);
  await api.ok("PUT", "/apps/climate", { credit_mode: "trickle", trickle_max_runtime: 7200 });
  await api.ok("PUT", "/teams/9", { create_time: DAY_BEFORE });
  await api.ok("PUT", "/users/5", { create_time: DAY_BEFORE, team_id: 9 });
  await api.ok("PUT", "/hosts/1", { create_time: DAY_BEFORE, user_id: 5, p_fpops: 3e9 });
  const projectId = await projectIdOf(slug);
  return { slug, api, projectId };
}

const message = (id: number, over: Partial<components["schemas"]["TrickleMessage"]> = {}) => ({
  id,
  app: "climate",
  host_id: 1,
  runtime: 3600,
  ...over,
});

describe("POST /v1/projects/{slug}/trickles", () => {
  it("pays 25 credits for an hour at 3 GFLOPS to host, user, team and project, with RAC and history as any grant", async () => {
    const { api, projectId } = await setup();
    const res = await api.ok("POST", "/trickles", { now: NOW, messages: [message(1)] });
    expect(res.messages).toEqual([
      {
        id: 1,
        granted_credit: 25,
        replayed: false,
        explain: { reported_runtime: 3600, runtime: 3600, runtime_cut: false, flops: 3e9, flops_source: "host" },
      },
    ]);
    // update_average Case A: the RAC clock is at create_time, one day (86,400 s) before; the
    // weight is 2^(−1/7) and the day's 25 credits add (1 − 2^(−1/7)) × 25 / 1 day.
    const rac = (1 - 2 ** (-1 / 7)) * 25;
    for (const path of ["/hosts/1", "/users/5", "/teams/9"]) {
      const holder = await api.ok("GET", path);
      expect(holder.total_credit).toBe(25);
      expect(holder.expavg_credit).toBeCloseTo(rac, 12);
      expect(holder.expavg_time).toBe(NOW);
    }
    const history = (await historyDays(env.DB, projectId))
      .filter((d) => d.day === dayOf(NOW))
      .map(({ subject, credit }) => ({ subject, credit }));
    expect(history).toEqual([
      { subject: "host", credit: 25 },
      { subject: "project", credit: 25 },
      { subject: "team", credit: 25 },
      { subject: "user", credit: 25 },
    ]);
  });

  it("shows in the leaderboard (after the cron) and in the cpid's cross-project total like any other credit", async () => {
    const { slug, api } = await setup();
    const cpid = crypto.randomUUID().replaceAll("-", "");
    await api.ok("PUT", "/users/5", { cpid });
    await api.ok("POST", "/trickles", { now: NOW, messages: [message(1), message(2)] });
    await runCron();
    const top = await request("GET", `/v1/projects/${slug}/top/users?by=total_credit`);
    expect(top.body.users.map((u) => [u.id, u.total_credit])).toEqual([[5, 50]]);
    const byCpid = await request("GET", `/v1/cpid/${cpid}`);
    expect(byCpid.status, JSON.stringify(byCpid.body)).toBe(200);
    expect(byCpid.body.total_credit).toBe(50);
  });

  it("cuts a runtime above trickle_max_runtime: 10,000 s pays 7,200 s = 50 credits", async () => {
    const { api } = await setup();
    const res = await api.ok("POST", "/trickles", { now: NOW, messages: [message(1, { runtime: 10_000 })] });
    expect(res.messages[0]).toMatchObject({ granted_credit: 50, explain: { reported_runtime: 10_000, runtime: 7200, runtime_cut: true } });
  });

  it("books per-app credit (no job) only for a message that names its result", async () => {
    const { api } = await setup();
    await api.ok("POST", "/trickles", { now: NOW, messages: [message(1), message(2, { result_id: 77 })] });
    // Per-app credit is folded by the hourly job (docs/storage.md).
    await runCron("50 * * * *");
    const user = await api.ok("GET", "/users/5");
    expect(user.total_credit).toBe(50);
    expect(user.apps).toEqual([expect.objectContaining({ app: "climate", total_credit: 25, jobs: 0 })]);
  });

  it("uses the percentiles the cron computed over hosts with RAC > 10: p50 for an unknown benchmark, p95 as a cap", async () => {
    const { api, projectId } = await setup();
    // 21 counted hosts (ids 101…121) of 1e9 … 21e9 FLOPS, with RAC 20 > 10. Left out: host 200
    // (RAC 5, 100e9) and host 201 (no benchmark). n = 21: p50 = value[floor(10.5)] = 11e9,
    // p95 = value[floor(19.95)] = 20e9.
    for (let i = 1; i <= 21; i++) await api.ok("PUT", `/hosts/${100 + i}`, { create_time: DAY_BEFORE, p_fpops: i * 1e9 });
    await api.ok("PUT", "/hosts/200", { create_time: DAY_BEFORE, p_fpops: 100e9 });
    await api.ok("PUT", "/hosts/201", { create_time: DAY_BEFORE, user_id: 5 });
    await api.ok("PUT", "/hosts/202", { create_time: DAY_BEFORE, user_id: 5, p_fpops: -1 });
    await api.ok("PUT", "/hosts/203", { create_time: DAY_BEFORE, user_id: 5, p_fpops: 50e9 });
    await env.DB.prepare(
      "UPDATE hosts SET expavg_credit = CASE WHEN id = 200 THEN 5 ELSE 20 END WHERE project_id = ? AND (id BETWEEN 101 AND 121 OR id = 200)",
    )
      .bind(projectId)
      .run();

    // Before any cron run there are no percentiles: a host without a benchmark cannot be paid.
    const early = await api.raw("POST", "/trickles", { now: NOW, messages: [message(1, { host_id: 201 })] });
    expect(early.status).toBe(422);
    expect(errorOf(early).code).toBe("cannot_pay");
    expect(errorOf(early).issues![0]!.path).toBe("messages[0].host_id");

    await runCron("*/10 * * * *");
    const project = await env.DB.prepare("SELECT fpops_p50, fpops_p95 FROM projects WHERE id = ?").bind(projectId).first();
    expect(project).toEqual({ fpops_p50: 11e9, fpops_p95: 20e9 });

    const res = await api.ok("POST", "/trickles", {
      now: NOW,
      messages: [message(1, { host_id: 201 }), message(2, { host_id: 202 }), message(3, { host_id: 203 }), message(4)],
    });
    // 3600 × 11e9 × 200/86400e9 = 91.666…; 3600 × 20e9 × 200/86400e9 = 166.666…; host 1 keeps its 3e9: 25.
    expect(res.messages.map((m) => [m.explain.flops_source, m.explain.flops])).toEqual([
      ["p50", 11e9],
      ["p50", 11e9],
      ["p95", 20e9],
      ["host", 3e9],
    ]);
    expect(res.messages[0]!.granted_credit).toBeCloseTo(275 / 3, 10);
    expect(res.messages[1]!.granted_credit).toBeCloseTo(275 / 3, 10);
    expect(res.messages[2]!.granted_credit).toBeCloseTo(500 / 3, 10);
    expect(res.messages[3]!.granted_credit).toBe(25);
  });

  it("pays each message id once under a storm of concurrent duplicates", async () => {
    const { api, projectId } = await setup();
    const body = { now: NOW, messages: [message(1), message(2, { runtime: 1800 })] };
    const answers = await Promise.all(Array.from({ length: 16 }, () => api.raw("POST", "/trickles", body)));
    expect(answers.map((a) => a.status)).toEqual(Array(16).fill(200));
    // Exactly one post paid them; every other one replays the same payment.
    expect(answers.filter((a) => !a.body.messages[0]!.replayed)).toHaveLength(1);
    for (const a of answers) expect(a.body.messages.map((m) => m.granted_credit)).toEqual([25, 12.5]);
    expect((await api.ok("GET", "/hosts/1")).total_credit).toBe(37.5);
    const rows = await env.DB.prepare("SELECT count(*) AS n FROM trickles WHERE project_id = ?").bind(projectId).first("n");
    expect(rows).toBe(2);
  });

  it("answers the same id with other content 409, and writes nothing of that batch", async () => {
    const { api } = await setup();
    await api.ok("POST", "/trickles", { now: NOW, messages: [message(1)] });
    const res = await api.raw("POST", "/trickles", { now: NOW, messages: [message(2), message(1, { runtime: 3000 })] });
    expect(res.status).toBe(409);
    expect(errorOf(res).issues![0]).toMatchObject({ path: "messages[1].id" });
    expect((await api.ok("GET", "/hosts/1")).total_credit).toBe(25);
  });

  it("refuses bad batches whole with a clear error", async () => {
    const { api } = await setup();
    await api.ok("PUT", "/apps/nomax", {});
    const cases: [unknown, number, string, string][] = [
      [{ messages: [message(1, { runtime: 0 })] }, 400, "validation_failed", "messages[0].runtime"],
      [{ messages: [message(1, { runtime: -60 })] }, 400, "validation_failed", "messages[0].runtime"],
      [{ messages: [message(1, { app: undefined })] }, 400, "validation_failed", "messages[0].app"],
      [{ messages: [message(1), message(1)] }, 400, "validation_failed", "messages[1].id"],
      [{ messages: [spoil(message(1), (m) => (m.extra = true))] }, 400, "validation_failed", "messages[0]"],
      [{ messages: [] }, 400, "validation_failed", "messages"],
      [{ messages: [message(1, { host_id: 999 })] }, 404, "not_found", "messages[0].host_id"],
      [{ messages: [message(1, { app: "nope" })] }, 404, "not_found", "messages[0].app"],
      [{ messages: [message(1), message(2, { app: "nomax" })] }, 422, "cannot_pay", "messages[1].app"],
    ];
    for (const [body, status, code, path] of cases) {
      const res = await api.untyped("POST", "/trickles", body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(errorOf(res).code).toBe(code);
      expect(errorOf(res).issues!.map((i) => i.path)).toContain(path);
    }
    expect((await api.ok("GET", "/hosts/1")).total_credit).toBe(0);
  });

  it("an app with credit_mode 'trickle' grants nothing when its results are validated", async () => {
    const { api } = await setup();
    const res = await api.raw("POST", "/passes", {
      now: NOW,
      workunits: [
        {
          id: 1,
          app: "climate",
          rsc_fpops_est: 3e12,
          rsc_fpops_bound: 3e13,
          target_nresults: 1,
          results: [
            {
              id: 11,
              host_id: 1,
              user_id: 5,
              team_id: 9,
              app_version_id: -2,
              elapsed_time: 1000,
              cpu_time: 900,
              flops_estimate: 3e9,
              sent_time: DAY_BEFORE,
              received_time: NOW - 10,
              validate_state: "valid",
            },
          ],
        },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.workunits[0]!.results[0]).toMatchObject({ validate_state: "valid", granted_credit: 0 });
    expect((await api.ok("GET", "/hosts/1")).total_credit).toBe(0);
  });
});
