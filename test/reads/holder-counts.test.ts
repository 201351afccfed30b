/**
 * The project's host, user and team counts (docs/storage.md, "What a pass writes") are kept by
 * the batches that insert holders, not by triggers: after registrations, a bulk registration,
 * passes, a pass batch and a trickle, each count is the number of rows stored, and naming a
 * holder again never counts it twice.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { NOW, pass, result, setupProject, workunit } from "../support/api-helpers";

async function counts(slug: string) {
  const row = (await env.DB.prepare("SELECT id, host_count, user_count, team_count FROM projects WHERE slug = ?").bind(slug).first<{
    id: number;
    host_count: number;
    user_count: number;
    team_count: number;
  }>())!;
  const stored = async (table: string) =>
    (await env.DB.prepare(`SELECT count(*) AS n FROM ${table} WHERE project_id = ?`).bind(row.id).first<number>("n"))!;
  return {
    counted: { hosts: row.host_count, users: row.user_count, teams: row.team_count },
    stored: { hosts: await stored("hosts"), users: await stored("users"), teams: await stored("teams") },
  };
}

const by = (host: number, user: number, team: number) => ({ host_id: host, user_id: user, team_id: team });

describe("holder counts", () => {
  it("count each host, user and team once, whichever request creates it", { timeout: 120_000 }, async () => {
    const { slug, api } = await setupProject("counts");
    await api.ok("PUT", "/apps/climate", { credit_mode: "trickle", trickle_max_runtime: 7200 });

    // Registrations: team 9, user 5 in it, host 1 of user 5; host 1 again (renamed).
    await api.ok("PUT", "/teams/9", {});
    await api.ok("PUT", "/users/5", { team_id: 9 });
    await api.ok("PUT", "/hosts/1", { user_id: 5, p_fpops: 3e9 });
    await api.ok("PUT", "/hosts/1", { name: "renamed" });
    expect(await counts(slug)).toEqual({ counted: { hosts: 1, users: 1, teams: 1 }, stored: { hosts: 1, users: 1, teams: 1 } });

    // Bulk: host 1 and team 9 exist; hosts 2 and 3, user 6 and team 10 are new.
    await api.ok("POST", "/holders", { hosts: [{ id: 1 }, { id: 2 }, { id: 3 }], users: [{ id: 6 }], teams: [{ id: 9 }, { id: 10 }] });
    expect((await counts(slug)).counted).toEqual({ hosts: 3, users: 2, teams: 2 });

    // A pass: host 2 (user 6, team 10) exists; host 11 of new user 11 in new team 12; host 13
    // of no user (counts only itself).
    await api.ok(
      "POST",
      "/passes",
      pass(
        workunit(1, [result(11, by(2, 6, 10)), result(12, by(11, 11, 12))]),
        workunit(2, [result(21, by(13, 0, 0)), result(22, { ...by(11, 11, 12), elapsed_time: 1100 })]),
      ),
    );
    expect((await counts(slug)).counted).toEqual({ hosts: 5, users: 3, teams: 3 });

    // A pass batch whose two passes both name new host 20 (user 5) and existing host 1.
    const batchPass = (wu: number, now: number) => ({
      now,
      workunits: [workunit(wu, [result(wu * 10 + 1, by(20, 5, 9)), result(wu * 10 + 2, by(1, 5, 9))])],
    });
    await api.ok("POST", "/pass-batches", { passes: [batchPass(3, NOW + 10), batchPass(4, NOW + 20)] });
    expect((await counts(slug)).counted).toEqual({ hosts: 6, users: 3, teams: 3 });

    // A trickle from host 1: everything it names exists.
    await api.ok("POST", "/trickles", { now: NOW + 30, messages: [{ id: 1, app: "climate", host_id: 1, runtime: 3600 }] });
    expect(await counts(slug)).toEqual({ counted: { hosts: 6, users: 3, teams: 3 }, stored: { hosts: 6, users: 3, teams: 3 } });
  });
});
