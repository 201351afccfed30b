/**
 * Passes whose workunits no other request posts never lose a race (issue 36, finding 8): the
 * rows they share are holders and host_app_versions that each creates when its read found them
 * missing, and a row another request created since is written as an update of it, not a
 * conflict (docs/spec/api-contract.md#concurrency). Here every request reads before any writes
 * (the race at its worst): each write batch must commit the first time, and every result is
 * still credited exactly once.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type PassBody, type ResultBody, result, setupProject, workunit } from "../support/api-helpers";
import { callWith } from "../security/support";
import { relativeError } from "../support/trace";
import { daysAgo } from "../reads/fixtures";
import { racingD1 } from "../support/racing-d1";
import { projectIdOf } from "../support/project-id";

const CLIENTS = 16;
const HOSTS = [501, 502, 503, 504, 505, 506];
const userOf = (host: number) => 600 + (host % 3);
const teamOf = (user: number) => 700 + (user % 2);

/** Client c's pass: three workunits of its own, each result on one of the shared new hosts. */
function clientPass(c: number, now: number): PassBody {
  const wus = [0, 1, 2].map((w) => {
    const id = 10_000 + c * 10 + w;
    const r = (j: number): ResultBody => {
      const host = HOSTS[(c + w + j) % HOSTS.length]!;
      return result(id * 10 + j, {
        host_id: host,
        user_id: userOf(host),
        team_id: teamOf(userOf(host)),
        // Each result's own runtime: every claim a sane PFC sample.
        elapsed_time: 500 + 41 * ((id * 7 + j) % 25),
        sent_time: now - 7200,
        received_time: now - 60,
      });
    };
    return workunit(id, [r(0), r(1)]);
  });
  return { now, workunits: wus };
}

async function projectId(slug: string): Promise<number> {
  return await projectIdOf(slug);
}

/** Every result stored once, each holder created once, each host's total the sum of its grants. */
async function expectCreditedOnce(slug: string, bodies: PassBody[], granted: Map<number, number>): Promise<void> {
  const id = await projectId(slug);
  const results = bodies.flatMap((b) => b.workunits.flatMap((w) => w.results));
  expect(granted.size).toBe(results.length);
  const stored = await env.DB.prepare("SELECT count(*) AS n FROM results WHERE project_id = ?").bind(id).first<number>("n");
  expect(stored).toBe(results.length);
  const counts = await env.DB.prepare("SELECT host_count, user_count, team_count FROM projects WHERE id = ?").bind(id).first();
  expect(counts).toEqual({ host_count: HOSTS.length, user_count: 3, team_count: 2 });
  for (const host of HOSTS) {
    const mine = results.filter((r) => r.host_id === host);
    const total = (await env.DB.prepare("SELECT total_credit FROM hosts WHERE project_id = ? AND id = ?")
      .bind(id, host)
      .first<number>("total_credit"))!;
    expect(
      relativeError(
        total,
        mine.reduce((s, r) => s + granted.get(r.id)!, 0),
      ),
    ).toBeLessThan(1e-12);
    // Each valid result here is one PFC sample of its host's host_app_version.
    const samples = await env.DB.prepare("SELECT sum(pfc_n) AS n FROM host_app_versions WHERE project_id = ? AND host_id = ?")
      .bind(id, host)
      .first<number>("n");
    expect(samples).toBe(mine.length);
  }
  for (const user of [600, 601, 602]) {
    const mine = results.filter((r) => r.user_id === user);
    const total = (await env.DB.prepare("SELECT total_credit FROM users_now WHERE project_id = ? AND id = ?")
      .bind(id, user)
      .first<number>("total_credit"))!;
    expect(
      relativeError(
        total,
        mine.reduce((s, r) => s + granted.get(r.id)!, 0),
      ),
    ).toBeLessThan(1e-12);
  }
}

describe("disjoint passes creating the same holders at once", () => {
  it(
    `${CLIENTS} passes that all found the same hosts, users, teams and host_app_versions missing all commit the first time`,
    { timeout: 120_000 },
    async () => {
      const { token, slug } = await setupProject("disjoint");
      const now = daysAgo(1);
      const bodies = Array.from({ length: CLIENTS }, (_, c) => clientPass(c, now));
      const lost = { races: 0 };
      const DB = racingD1(env.DB, CLIENTS, lost);
      const responses = await Promise.all(bodies.map((body) => callWith({ DB }, "POST", `/v1/projects/${slug}/passes`, { token, body })));
      for (const res of responses) expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(lost.races).toBe(0);
      const granted = new Map(
        responses.flatMap((res) => res.body.workunits.flatMap((w) => w.results.map((r) => [r.id, r.granted_credit] as const))),
      );
      await expectCreditedOnce(slug, bodies, granted);
    },
  );

  it(`${CLIENTS} pass batches doing the same all commit the first time`, { timeout: 120_000 }, async () => {
    const { token, slug } = await setupProject("disjoint-batch");
    const now = daysAgo(1);
    // Each client's batch: its pass split in two, a minute apart.
    const bodies = Array.from({ length: CLIENTS }, (_, c) => clientPass(c, now));
    const batches = bodies.map((b) => ({
      passes: [
        { now: now - 60, workunits: b.workunits.slice(0, 1) },
        { now, workunits: b.workunits.slice(1) },
      ],
    }));
    const lost = { races: 0 };
    const DB = racingD1(env.DB, CLIENTS, lost);
    const responses = await Promise.all(
      batches.map((body) => callWith({ DB }, "POST", `/v1/projects/${slug}/pass-batches`, { token, body })),
    );
    for (const res of responses) expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(lost.races).toBe(0);
    const granted = new Map(
      responses.flatMap((res) =>
        res.body.passes.flatMap((p) => p.workunits.flatMap((w) => w.results.map((r) => [r.id, r.granted_credit] as const))),
      ),
    );
    await expectCreditedOnce(slug, bodies, granted);
  });
});
