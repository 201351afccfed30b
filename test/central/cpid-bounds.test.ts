/**
 * /v1/cpid/{cpid} does bounded work: at most MAX_CPID_ROWS users and hosts per cpid, the answer
 * saying there are more, cached a minute; a user cpid is 32 hex digits.
 */
import { describe, expect, it } from "vitest";
import { MAX_CPID_ROWS } from "../../src/routes/cpid/cpid.schemas";
import { expectError, issueAt, setupProject } from "../support/api-helpers";
import { request } from "../support/api";

describe("/v1/cpid/{cpid} does bounded work", () => {
  it("3,000 users and 3,000 hosts with one cpid: at most MAX_CPID_ROWS of each, the answer says more, and it is cached", async () => {
    const { slug, api } = await setupProject("crowd");
    const cpid = "00112233445566778899aabbccddeeff";
    for (let start = 1; start <= 3000; start += 1000) {
      const ids = Array.from({ length: 1000 }, (_, i) => start + i);
      await api.ok("POST", "/holders", {
        users: ids.map((id) => ({ id, cpid })),
        hosts: ids.map((id) => ({ id, cpid, user_id: id })),
      });
    }
    const res = await request("GET", `/v1/cpid/${cpid}`);
    expect(res.status).toBe(200);
    expect(res.body.projects).toHaveLength(MAX_CPID_ROWS);
    expect(res.body.hosts).toHaveLength(MAX_CPID_ROWS);
    expect(res.body).toMatchObject({ more_projects: true, more_hosts: true });
    // The first by project then id: users and hosts 1 … 100.
    expect(res.body.projects.map((p) => [p.project, p.user_id])).toEqual(Array.from({ length: MAX_CPID_ROWS }, (_, i) => [slug, i + 1]));
    // Unbounded, such an answer was 945 KB; 200 rows of at most a few hundred bytes each.
    expect(JSON.stringify(res.body).length).toBeLessThan(100_000);
    // Kept a minute: a user added meanwhile is not read until then.
    await api.ok("PUT", "/users/3001", { cpid });
    expect((await request("GET", `/v1/cpid/${cpid}`)).body).toEqual(res.body);
    expect(res.headers?.get("cache-control")).toBe("public, max-age=60");
  }, 120_000);

  it("a user cpid is 32 hex digits", async () => {
    const { api } = await setupProject("cpid-hex");
    const error = expectError(await api.raw("PUT", "/users/1", { cpid: "0123" }), 400, "validation_failed");
    expect(issueAt(error, "cpid").message).toContain("32 hex digits");
  });
});
