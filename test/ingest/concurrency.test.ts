/**
 * No lost update under concurrency (docs/spec/api-contract.md#concurrency): passes fired at once, sharing app
 * versions, hosts, users and teams, end as some serial order of them would: every result
 * credited exactly once, every total the sum of its grants, every pfc_n the number of
 * samples accepted.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { pass, result, setupProject, workunit } from "../support/api-helpers";
import { callWith } from "../security/support";
import { relativeError } from "../support/trace";
import { racingD1 } from "../support/racing-d1";
import type { components } from "../support/api-types";
import { projectIdOf } from "../support/project-id";

const PASSES = 24;
const HOSTS = [31, 32, 33, 34, 35];
// Hosts 31–33 belong to user 1 (team 7), hosts 34–35 to user 2 (team 8).
const userOf = (host: number) => (host <= 33 ? 1 : 2);
const teamOf = (user: number) => (user === 1 ? 7 : 8);

function concurrentPass(i: number) {
  const hostA = HOSTS[i % HOSTS.length]!;
  const hostB = HOSTS[(i + 1) % HOSTS.length]!;
  const r = (id: number, host: number, appVersionId: number) =>
    result(id, {
      host_id: host,
      user_id: userOf(host),
      team_id: teamOf(userOf(host)),
      app_version_id: appVersionId,
      // Each result's own runtime: every claim is a sane PFC sample (ratio 0.5 … 1.5).
      elapsed_time: 500 + 41 * ((id * 7) % 25),
    });
  const wuId = 1000 + i;
  return pass(workunit(wuId, [r(wuId * 10 + 1, hostA, 1), r(wuId * 10 + 2, hostB, 2)]));
}

describe("concurrent passes", () => {
  it(`${PASSES} passes at once (plus 4 duplicates) lose no update and credit each result once`, { timeout: 120_000 }, async () => {
    const { api, slug } = await setupProject("conc");
    const bodies = Array.from({ length: PASSES }, (_, i) => concurrentPass(i));
    // Four passes are also posted a second time, right beside the first.
    const posted = bodies.flatMap((b, i) => (i < 4 ? [b, b] : [b]));
    const responses = await Promise.all(posted.map((b) => api.ok("POST", "/passes", b)));

    const grants = new Map<number, { host: number; credit: number; replayed: boolean }[]>();
    responses.forEach((res, k) => {
      const body = posted[k]!;
      res.workunits[0]!.results.forEach((r, j) => {
        const list = grants.get(r.id) ?? [];
        list.push({ host: body.workunits[0]!.results[j]!.host_id, credit: r.granted_credit, replayed: r.replayed });
        grants.set(r.id, list);
      });
    });
    // Every result was processed exactly once; a duplicate post only replayed it.
    expect(grants.size).toBe(PASSES * 2);
    for (const list of grants.values()) expect(list.filter((g) => !g.replayed)).toHaveLength(1);

    const projectId = await projectIdOf(slug);
    const stored = await env.DB.prepare("SELECT count(*) AS n FROM results WHERE project_id = ?").bind(projectId).first<{ n: number }>();
    expect(stored!.n).toBe(PASSES * 2);
    // Each account created once though every pass found it missing: the losers ran again.
    const counts = await env.DB.prepare("SELECT host_count, user_count, team_count FROM projects WHERE id = ?").bind(projectId).first();
    expect(counts).toEqual({ host_count: HOSTS.length, user_count: 2, team_count: 2 });

    const credited = [...grants.values()].map((list) => list.find((g) => !g.replayed)!);
    const sum = (pred: (g: { host: number }) => boolean) => credited.filter(pred).reduce((s, g) => s + g.credit, 0);
    for (const host of HOSTS) {
      const h = await api.ok("GET", `/hosts/${host}`);
      expect(
        relativeError(
          h.total_credit,
          sum((g) => g.host === host),
        ),
      ).toBeLessThan(1e-12);
    }
    for (const user of [1, 2]) {
      const u = await api.ok("GET", `/users/${user}`);
      expect(
        relativeError(
          u.total_credit,
          sum((g) => userOf(g.host) === user),
        ),
      ).toBeLessThan(1e-12);
      const t = await api.ok("GET", `/teams/${teamOf(user)}`);
      expect(
        relativeError(
          t.total_credit,
          sum((g) => userOf(g.host) === user),
        ),
      ).toBeLessThan(1e-12);
    }

    // Every valid result here is a sane PFC sample: app versions 1 and 2 each took one per pass,
    // and each host one per result it returned.
    const { app_versions } = await api.ok("GET", "/app-versions");
    expect(app_versions.find((v) => v.id === 1)!.pfc_n).toBe(PASSES);
    expect(app_versions.find((v) => v.id === 2)!.pfc_n).toBe(PASSES);
    for (const host of HOSTS) {
      const { host_app_versions } = await api.ok("GET", `/host-app-versions?host_id=${host}`);
      const returned = credited.filter((g) => g.host === host).length;
      const samples = host_app_versions.reduce((s: number, h) => s + h.pfc_n, 0);
      expect(samples).toBe(returned);
    }
  });
});

describe("concurrent identical error reports", () => {
  it("the same POST /errors sent twice at once gets 200 and the same outcomes both times, recorded once", async () => {
    const { token, slug } = await setupProject("errrace");
    const body: components["schemas"]["ErrorsRequest"] = {
      results: [
        { id: 7001, host_id: 41, app_version_id: 1, outcome: "error" },
        { id: 7002, host_id: 42, app_version_id: 1, outcome: "timeout", delay_bound: 3600 },
      ],
    };
    const DB = racingD1(env.DB, 2);
    const responses = await Promise.all([1, 2].map(() => callWith({ DB }, "POST", `/v1/projects/${slug}/errors`, { token, body })));
    for (const res of responses) {
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.results.map((r) => [r.id, r.outcome])).toEqual([
        [7001, "error"],
        [7002, "timeout"],
      ]);
    }
    // Exactly one of them recorded the results; the other is answered as its replay.
    expect(responses.map((r) => r.body.results[0]!.replayed).sort()).toEqual([false, true]);
    const { results } = await env.DB.prepare(
      "SELECT id FROM results WHERE project_id = (SELECT id FROM projects WHERE slug = ?) ORDER BY id",
    )
      .bind(slug)
      .all();
    expect(results).toEqual([{ id: 7001 }, { id: 7002 }]);
  });
});
