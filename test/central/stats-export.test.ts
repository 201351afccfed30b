/**
 * BOINC-compatible stats exports: the daily job writes user.gz, team.gz, host.gz, tables.xml
 * and .ndjson.gz siblings to KV (in parts when larger than a KV value); GET serves only those. The files are read back as a stats site would: gunzip (DecompressionStream), then a
 * real XML parser, and every record is checked against the credit in D1.
 */
import { env, exports } from "cloudflare:workers";
import { XMLParser } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import { database } from "../../src/db/client";
import { exportProjectStats } from "../../src/services/stats-export";
import { expectError, pass, result, workunit } from "../support/api-helpers";
import { request, createProject, typedClient } from "../support/api";
import { STATS_CRON, clockNow, getRaw, runCron } from "./helpers";
import { projectIdOf } from "../support/project-id";

/** Every element's text as a string (so that a cpid of digits stays a string), lists where BOINC repeats. */
const parser = new XMLParser({ parseTagValue: false, isArray: (name) => ["user", "team", "host", "application"].includes(name) });

async function gunzip(res: Response): Promise<string> {
  return new Response(res.body!.pipeThrough(new DecompressionStream("gzip"))).text();
}

async function file(slug: string, name: string): Promise<{ text: string; source: string | null }> {
  const res = await getRaw(`/v1/projects/${slug}/stats/${name}`);
  expect(res.status, name).toBe(200);
  const source = res.headers.get("x-stats-source");
  return { text: name.endsWith(".gz") ? await gunzip(res) : await res.text(), source };
}

/** %f: BOINC prints six decimals. */
function expectPrinted(printed: string, stored: number): void {
  expect(printed).toMatch(/^-?\d+\.\d{6}$/);
  expect(Math.abs(Number(printed) - stored)).toBeLessThanOrEqual(5e-7);
}

/** The D1 columns the checks compare with the files. */
interface UserRow {
  id: number;
  name: string | null;
  create_time: number;
  total_credit: number;
  expavg_credit: number;
  expavg_time: number;
  cpid: string | null;
  team_id: number;
}
interface HostRow {
  total_credit: number;
  expavg_credit: number;
  host_cpid: string | null;
}

/** Records of the XML files as the parser reads them: every value a string. */
interface ExportedUser {
  id: string;
  name: string;
  create_time: string;
  total_credit: string;
  expavg_credit: string;
  expavg_time: string;
  cpid: string;
  teamid?: string;
}
interface ExportedHost {
  id: string;
  total_credit: string;
  expavg_credit: string;
  host_cpid: string;
}
interface ExportedTeam {
  id: string;
  name: string;
  total_credit: string;
}
interface ExportedTables {
  nusers_total: string;
  nhosts_total: string;
  nteams_total: string;
  total_credit: string;
  applications: { application: { name: string }[] };
}

async function rows<T>(sql: string, ...binds: unknown[]): Promise<T[]> {
  return (
    await env.DB.prepare(sql)
      .bind(...binds)
      .all<T>()
  ).results;
}

/** A project whose users cover every rule: credit, none, opted out, a team, a name to escape. */
async function projectWithVolunteers() {
  const { slug, token } = await createProject("stats");
  const api = typedClient(slug, token);
  await api.ok("PUT", "/apps/a", {});
  await api.ok("PUT", "/apps/b", {});
  await api.ok("PUT", "/app-versions/1", { app: "a", platform: "linux", plan_class: "", version_num: 1 });
  await api.ok("PUT", "/users/1", { name: "Ann & <Bob>", cpid: "0123456789abcdef0123456789abcdef" });
  await api.ok("PUT", "/users/2", { name: "Private", stats_export: false });
  await api.ok("PUT", "/users/3", { name: "No credit yet" });
  await api.ok("PUT", "/teams/5", { name: 'Team "Five"' });
  await api.ok("PUT", "/hosts/14", { cpid: "fedcba9876543210fedcba9876543210", user_id: 4 });
  const r = (id: number, host: number, user: number, team: number, elapsed: number) =>
    result(id, { host_id: host, user_id: user, team_id: team, elapsed_time: elapsed });
  await api.ok("POST", "/passes", {
    ...pass(
      workunit(1, [r(11, 11, 1, 5, 1000)]),
      workunit(2, [r(21, 12, 2, 0, 2000)]),
      workunit(3, [r(31, 14, 4, 0, 1500)]),
      workunit(4, [r(41, 11, 1, 5, 500)]),
    ),
    now: clockNow(),
  });
  const id = await projectIdOf(slug);
  return { slug, id, api };
}

describe("stats exports (BOINC db_dump)", () => {
  it("user.gz, team.gz, host.gz and tables.xml parse as BOINC's and match the credit in D1", async () => {
    const { slug, id } = await projectWithVolunteers();
    await runCron(STATS_CRON, clockNow());

    // Users: total_credit > 0 and not opted out (users 1 and 4; 2 opted out, 3 has no credit).
    const users = await file(slug, "user.gz");
    expect(users.source).toBe("kv");
    expect(users.text.startsWith('<?xml version="1.0" encoding="utf-8"?>\n<users>\n')).toBe(true);
    const exportedUsers: ExportedUser[] = parser.parse(users.text).users.user;
    const d1Users = await rows<UserRow>(
      "SELECT * FROM users_now WHERE project_id = ? AND total_credit > 0 AND stats_export = 1 ORDER BY id",
      id,
    );
    expect(exportedUsers.map((u) => Number(u.id))).toEqual([1, 4]);
    expect(d1Users.map((u) => u.id)).toEqual([1, 4]);
    exportedUsers.forEach((u, i) => {
      const d = d1Users[i]!;
      expect(u.name).toBe(d.name ?? "");
      expect(u.create_time).toBe(String(Math.trunc(d.create_time)));
      expectPrinted(u.total_credit, d.total_credit);
      expectPrinted(u.expavg_credit, d.expavg_credit);
      expectPrinted(u.expavg_time, d.expavg_time);
      expect(u.cpid).toBe(d.cpid ?? "");
      // teamid only when not 0, as db_dump writes it.
      expect(u.teamid).toBe(d.team_id === 0 ? undefined : String(d.team_id));
    });
    expect(exportedUsers[0]!.name).toBe("Ann & <Bob>");
    expect(Object.keys(exportedUsers[0]!)).toEqual([
      "id",
      "name",
      "create_time",
      "total_credit",
      "expavg_credit",
      "expavg_time",
      "cpid",
      "teamid",
    ]);

    // Hosts: with credit and an owner who did not opt out (11 and 14; 12 belongs to user 2).
    const hosts: ExportedHost[] = parser.parse((await file(slug, "host.gz")).text).hosts.host;
    const d1Hosts = await rows<HostRow>("SELECT * FROM hosts WHERE project_id = ? AND id IN (11, 14) ORDER BY id", id);
    expect(hosts.map((h) => Number(h.id))).toEqual([11, 14]);
    hosts.forEach((h, i) => {
      expectPrinted(h.total_credit, d1Hosts[i]!.total_credit);
      expectPrinted(h.expavg_credit, d1Hosts[i]!.expavg_credit);
      expect(h.host_cpid).toBe(d1Hosts[i]!.host_cpid ?? "");
    });

    // Teams with credit: team 5 (user 1's two jobs).
    const teams: ExportedTeam[] = parser.parse((await file(slug, "team.gz")).text).teams.team;
    const [team5] = await rows<{ total_credit: number }>("SELECT * FROM teams WHERE project_id = ? AND id = 5", id);
    expect(teams.map((t) => Number(t.id))).toEqual([5]);
    expect(teams[0]!.name).toBe('Team "Five"');
    expectPrinted(teams[0]!.total_credit, team5!.total_credit);
    expect(team5!.total_credit).toBeCloseTo(
      (await rows<{ total_credit: number }>("SELECT total_credit FROM users_now WHERE project_id = ? AND id = 1", id))[0]!.total_credit,
      9,
    );

    // tables.xml: counts and credit ignore consent, as db_dump's do (users 1, 2, 4; hosts 11, 12, 14).
    const tables: ExportedTables = parser.parse((await file(slug, "tables.xml")).text).tables;
    const [sums] = await rows<{ n: number; credit: number }>(
      "SELECT count(*) AS n, sum(total_credit) AS credit FROM users_now WHERE project_id = ? AND total_credit > 0",
      id,
    );
    expect(tables.nusers_total).toBe("3");
    expect(tables.nhosts_total).toBe("3");
    expect(tables.nteams_total).toBe("1");
    expect(sums!.n).toBe(3);
    expectPrinted(tables.total_credit, sums!.credit);
    expect(tables.applications.application.map((a) => a.name)).toEqual(["a", "b"]);
  });

  it("a file served from KV has an ETag: a stats site polling daily gets 304 until the next run", async () => {
    const { slug } = await projectWithVolunteers();
    await runCron(STATS_CRON, clockNow());
    const first = await getRaw(`/v1/projects/${slug}/stats/user.gz`);
    const etag = first.headers.get("etag")!;
    expect(etag).toBe(`"user.gz-${first.headers.get("x-generated-at")}"`);
    await first.body!.cancel();
    const again = await exports.default.fetch(`http://cobblestone.test/v1/projects/${slug}/stats/user.gz`, {
      headers: { "If-None-Match": etag },
    });
    expect(again.status).toBe(304);
    await runCron(STATS_CRON, clockNow() + 60);
    const next = await exports.default.fetch(`http://cobblestone.test/v1/projects/${slug}/stats/user.gz`, {
      headers: { "If-None-Match": etag },
    });
    expect(next.status).toBe(200);
    expect(parser.parse(await gunzip(next)).users.user).toHaveLength(2);
  });

  it("the .ndjson.gz siblings carry the same records with unrounded numbers", async () => {
    const { slug, id } = await projectWithVolunteers();
    await runCron(STATS_CRON, clockNow());
    const lines = (await file(slug, "user.ndjson.gz")).text
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    const d1Users = await rows<UserRow>(
      "SELECT * FROM users_now WHERE project_id = ? AND total_credit > 0 AND stats_export = 1 ORDER BY id",
      id,
    );
    expect(lines).toEqual(
      d1Users.map((u) => ({
        id: u.id,
        name: u.name,
        create_time: u.create_time,
        total_credit: u.total_credit,
        expavg_credit: u.expavg_credit,
        expavg_time: u.expavg_time,
        cpid: u.cpid,
        teamid: u.team_id,
      })),
    );
    const hostIds = (await file(slug, "host.ndjson.gz")).text
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l).id);
    expect(hostIds).toEqual([11, 14]);
  });

  it("a file too large for a KV value is stored in parts, and GET joins them into the same bytes", async () => {
    const { slug, id } = await projectWithVolunteers();
    await runCron(STATS_CRON, clockNow());
    const fromKv = await file(slug, "user.gz");
    // A limit of 64 bytes stands in for KV's 25 MiB: every file is over it.
    const report = await exportProjectStats(database(env.DB), env.KV, { id, slug }, clockNow(), 64);
    const parts = report.parts["user.gz"]!;
    expect(parts).toBeGreaterThan(1);
    const first = await env.KV.getWithMetadata<{ parts: number }>(`stats/${slug}/user.gz`, "arrayBuffer");
    expect(first.value!.byteLength).toBe(64);
    expect(first.metadata!.parts).toBe(parts);
    expect(await env.KV.get(`stats/${slug}/user.gz/${parts - 1}`)).not.toBeNull();
    const joined = await file(slug, "user.gz");
    expect(joined.source).toBe("kv");
    expect(joined.text).toBe(fromKv.text);
    // Back under the limit: one value again, and the old parts are gone.
    await exportProjectStats(database(env.DB), env.KV, { id, slug }, clockNow());
    expect(await env.KV.get(`stats/${slug}/user.gz/1`)).toBeNull();
    expect((await file(slug, "user.gz")).text).toBe(fromKv.text);
  });

  it("a project without a job run yet has no files (404, never built from D1); unknown files and projects are errors", async () => {
    const { slug } = await projectWithVolunteers();
    expectError(await request("GET", `/v1/projects/${slug}/stats/user.gz`), 404, "not_found");
    expectError(await request("GET", `/v1/projects/${slug}/stats/user.xml`), 400, "validation_failed");
    expectError(await request("GET", "/v1/projects/no-such-project/stats/user.gz"), 404, "not_found");
  });
});
