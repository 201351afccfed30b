/**
 * GET /v1/cpid/:cpid: one volunteer's credit summed across the projects of this deployment.
 * Each project computes BOINC's exported cpid, md5(internal cross_project_id ‖ email), and
 * sends only that.
 */
import { describe, expect, it } from "vitest";
import { expectRel } from "../credit/close";
import { expectError, issueAt, ledgerState, pass, result, workunit } from "../support/api-helpers";
import { request, createProject, typedClient } from "../support/api";
import { WEEK, clockNow } from "./helpers";

/** What a BOINC project exports as a user's cpid (workerd's crypto.subtle has MD5). */
async function exportedCpid(crossProjectId: string, email: string): Promise<string> {
  const digest = await crypto.subtle.digest("MD5", new TextEncoder().encode(crossProjectId + email));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function project(prefix: string) {
  const { slug, token } = await createProject(prefix);
  const api = typedClient(slug, token);
  await api.ok("PUT", "/apps/a", {});
  await api.ok("PUT", "/app-versions/1", { app: "a", platform: "linux", plan_class: "", version_num: 1 });
  return { slug, api };
}

/** One workunit with one valid result of `user` on `host`; returns the credit granted. */
async function credit(api: ReturnType<typeof typedClient>, wuId: number, host: number, user: number, elapsed: number) {
  const res = await api.ok("POST", "/passes", {
    ...pass(workunit(wuId, [result(wuId, { host_id: host, user_id: user, elapsed_time: elapsed })])),
    now: clockNow(),
  });
  return res.workunits[0]!.credit;
}

describe("volunteer totals by cpid", () => {
  it("sums total credit and RAC decayed to now across projects, a row per project", async () => {
    const cpid = await exportedCpid("4b1a8f0c2d3e4f5061728394a5b6c7d8", "volunteer@example.org");
    const hostCpid = await exportedCpid("host-internal-cpid", "volunteer@example.org");
    const p1 = await project("cpid-a");
    const p2 = await project("cpid-b");
    const created = clockNow() - 3 * 86400;
    await p1.api.ok("PUT", "/users/7", { cpid, create_time: created, name: "Vol" });
    await p1.api.ok("PUT", "/hosts/70", { cpid: hostCpid, user_id: 7, create_time: created });
    await p2.api.ok("PUT", "/users/3", { cpid, create_time: created });

    const c1 = await credit(p1.api, 1, 70, 7, 1000);
    const c2 = (await credit(p2.api, 1, 30, 3, 2000)) + (await credit(p2.api, 2, 30, 3, 500));

    const res = await request("GET", `/v1/cpid/${cpid}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const body = res.body;
    expect(body.projects.map((r) => [r.project, r.user_id])).toEqual(
      [
        [p1.slug, 7],
        [p2.slug, 3],
      ].sort(),
    );
    expectRel(body.total_credit, c1 + c2);
    // Each project's row is what that project's own user lookup says …
    for (const row of body.projects) {
      const api = row.project === p1.slug ? p1.api : p2.api;
      const user = await api.ok("GET", `/users/${row.user_id}`);
      expect(row).toMatchObject({ total_credit: user.total_credit, expavg_credit: user.expavg_credit, expavg_time: user.expavg_time });
    }
    // … and the RAC total is each stored pair decayed to as_of (half-life a week), summed.
    const decayed = body.projects.map((r) => r.expavg_credit * 2 ** (-(body.as_of - r.expavg_time) / WEEK));
    expectRel(body.recent_average_credit, decayed[0]! + decayed[1]!, 1e-12);
    expect(body.hosts).toEqual([]);

    // The host's cpid finds the host.
    const host = await request("GET", `/v1/cpid/${hostCpid}`);
    expect(host.body.projects).toEqual([]);
    expect(host.body.hosts).toMatchObject([{ project: p1.slug, host_id: 70 }]);
    expectRel(host.body.hosts[0]!.total_credit, c1);
  });

  it("a user who opted out of stats export is left out, with their hosts", async () => {
    const cpid = await exportedCpid("private", "private@example.org");
    const hostCpid = await exportedCpid("private-host", "private@example.org");
    const p = await project("cpid-private");
    await p.api.ok("PUT", "/users/9", { cpid, stats_export: false });
    await p.api.ok("PUT", "/hosts/90", { cpid: hostCpid, user_id: 9 });
    await credit(p.api, 1, 90, 9, 1000);
    expectError(await request("GET", `/v1/cpid/${cpid}`), 404, "not_found");
    expectError(await request("GET", `/v1/cpid/${hostCpid}`), 404, "not_found");
    // Opting back in shows them again.
    await p.api.ok("PUT", "/users/9", { stats_export: true });
    expect((await request("GET", `/v1/cpid/${cpid}`)).body.projects).toHaveLength(1);
  });

  it("a project sends the hashed cpid, never the email; hex digits are stored lowercase", async () => {
    const p = await project("cpid-format");
    const email = expectError(await p.api.raw("PUT", "/users/1", { cpid: "volunteer@example.org" }), 400, "validation_failed");
    expect(email.issues!.map((i) => i.path)).toEqual(["cpid"]);
    const cpid = await exportedCpid("upper", "upper@example.org");
    await p.api.ok("PUT", "/users/1", { cpid: cpid.toUpperCase() });
    await credit(p.api, 1, 10, 1, 1000);
    expect((await request("GET", `/v1/cpid/${cpid}`)).body.projects).toMatchObject([{ project: p.slug, user_id: 1 }]);
  });

  it("a host_cpid is 32 hex digits too, on every route that takes a cpid: anything else is a 400 naming the field and changes nothing", async () => {
    const p = await project("cpid-refused");
    const cpid = await exportedCpid("kept", "kept@example.org");
    const hostCpid = await exportedCpid("kept-host", "kept@example.org");
    await p.api.ok("PUT", "/users/1", { cpid, name: "Kept" });
    await p.api.ok("PUT", "/hosts/10", { cpid: hostCpid, user_id: 1, name: "box" });
    const before = await ledgerState(p.api, [10, 11, 12, 13], [1, 2]);
    // What BOINC never makes: a host_cpid not hashed, too short, too long, not hex, an email.
    const bad = ["host-cpid", "0123abcd", `${hostCpid}0`, hostCpid.slice(1), `${hostCpid.slice(1)}g`, "volunteer@example.org", ""];
    for (const value of bad) {
      const what = JSON.stringify(value);
      for (const path of ["/hosts/10", "/hosts/11"] as const) {
        const error = expectError(await p.api.raw("PUT", path, { cpid: value, name: "changed" }), 400, "validation_failed");
        expect(issueAt(error, "cpid").message, what).toContain("32 hex digits");
      }
      expect(
        issueAt(expectError(await p.api.raw("PUT", "/users/1", { cpid: value }), 400, "validation_failed"), "cpid").message,
        what,
      ).toContain("32 hex digits");
      // A bulk request is all or nothing: the good rows beside the bad one are not written either.
      const bulk = await p.api.raw("POST", "/holders", {
        users: [{ id: 2, name: "new" }],
        hosts: [
          { id: 12, cpid: hostCpid },
          { id: 13, cpid: value },
        ],
      });
      expect(issueAt(expectError(bulk, 400, "validation_failed"), "hosts[1].cpid").message, what).toContain("32 hex digits");
      const bulkUser = await p.api.raw("POST", "/holders", { users: [{ id: 2, cpid: value }] });
      expect(issueAt(expectError(bulkUser, 400, "validation_failed"), "users[0].cpid").message, what).toContain("32 hex digits");
    }
    // Nothing changed: host 10 and user 1 as they were, hosts 11 to 13 and user 2 still unknown (404).
    expect(await ledgerState(p.api, [10, 11, 12, 13], [1, 2])).toEqual(before);
    expect(before.hosts).toMatchObject({ 10: { host_cpid: hostCpid, name: "box" }, 11: 404, 12: 404, 13: 404 });
    // The path of GET /v1/cpid takes only what a PUT stores.
    for (const value of ["host-cpid", "0123abcd", `${hostCpid}0`, hostCpid.slice(1), `${hostCpid.slice(1)}g`]) {
      const error = expectError(await request("GET", `/v1/cpid/${value}`), 400, "validation_failed");
      expect(issueAt(error, "cpid").message).toContain("32 lowercase hex digits");
    }
    // Upper case is BOINC's hex too: taken, and stored (and found) in lower case.
    await p.api.ok("PUT", "/hosts/10", { cpid: hostCpid.toUpperCase() });
    expect((await p.api.ok("GET", "/hosts/10")).host_cpid).toBe(hostCpid);
    expect((await request("GET", `/v1/cpid/${hostCpid}`)).body.hosts).toMatchObject([{ project: p.slug, host_id: 10 }]);
  });

  it("a cpid is 32 lowercase hex digits", async () => {
    expectError(await request("GET", "/v1/cpid/not-a-cpid"), 400, "validation_failed");
    expectError(await request("GET", `/v1/cpid/${"A".repeat(32)}`), 400, "validation_failed");
    expectError(await request("GET", `/v1/cpid/${"0".repeat(32)}`), 404, "not_found");
  });
});
