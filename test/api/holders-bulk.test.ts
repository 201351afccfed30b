/**
 * POST /holders registers many hosts, users and teams in one request: each exactly as its own
 * PUT would (create_time starts the RAC clock), all or nothing.
 */
import { describe, expect, it } from "vitest";
import { request } from "../support/api";
import { expectError, setupProject } from "../support/api-helpers";

/** A host's exported cpid: 32 hex digits, as BOINC makes it. */
const HOST_CPID = "f0e1d2c3b4a5968778695a4b3c2d1e0f";

describe("POST /v1/projects/:slug/holders", () => {
  it("stores each holder exactly as its own PUT would", async () => {
    const { slug, token, api } = await setupProject("bulk");
    const body = {
      teams: [{ id: 5, create_time: 1000, name: "Five" }],
      users: [{ id: 3, create_time: 2000, team_id: 5, name: "Ada", cpid: "0123456789ABCDEF0123456789abcdef" }],
      hosts: [
        { id: 7, create_time: 3000, user_id: 3, cpid: HOST_CPID },
        { id: 8, create_time: 3500, user_id: 3 },
      ],
    };
    expect(await api.ok("POST", "/holders", body)).toEqual({ hosts: 2, users: 1, teams: 1 });
    const viaPut = await api.ok("PUT", "/hosts/9", { create_time: 3000, user_id: 3, cpid: HOST_CPID });
    const host = await api.ok("GET", "/hosts/7");
    for (const f of ["create_time", "user_id", "host_cpid", "total_credit", "expavg_credit", "expavg_time"] as const) {
      expect(host[f], f).toEqual(viaPut[f]);
    }
    expect(host).toMatchObject({ create_time: 3000, expavg_time: 3000, user_id: 3, host_cpid: HOST_CPID });
    expect(await api.ok("GET", "/users/3")).toMatchObject({
      create_time: 2000,
      team_id: 5,
      name: "Ada",
      cpid: "0123456789abcdef0123456789abcdef",
    });
    expect(await api.ok("GET", "/teams/5")).toMatchObject({ create_time: 1000, name: "Five" });
    // Again with other details: updated in place (a PUT's semantics), counted again.
    expect(await api.ok("POST", "/holders", { teams: [{ id: 5, name: "Five!" }] })).toEqual({ hosts: 0, users: 0, teams: 1 });
    expect((await api.ok("GET", "/teams/5")).name).toBe("Five!");
    expect((await request("GET", `/v1/projects/${slug}/teams/5`, { token })).status).toBe(200);
  });

  it("refuses a future create_time, a duplicate id or a bad token, and writes nothing", async () => {
    const { slug, token } = await setupProject("bulk-bad");
    const future = Date.now() / 1000 + 3600;
    const res = await request("POST", `/v1/projects/${slug}/holders`, {
      token,
      body: { teams: [{ id: 1, create_time: 100 }], hosts: [{ id: 2, create_time: future }] },
    });
    expect(expectError(res, 422, "create_time_in_future").issues).toEqual([
      { path: "hosts[0].create_time", message: "must not be in the future" },
    ]);
    expect((await request("GET", `/v1/projects/${slug}/teams/1`, { token })).status).toBe(404);

    const twice = await request("POST", `/v1/projects/${slug}/holders`, { token, body: { users: [{ id: 4 }, { id: 4 }] } });
    expectError(twice, 400, "validation_failed");
    expect((await request("GET", `/v1/projects/${slug}/users/4`, { token })).status).toBe(404);

    expectError(await request("POST", `/v1/projects/${slug}/holders`, { token: "nope", body: { users: [{ id: 4 }] } }), 401);
  });

  it("takes at most 1000 of a kind per request (413)", async () => {
    const { slug, token } = await setupProject("bulk-big");
    const hosts = Array.from({ length: 1001 }, (_, i) => ({ id: i + 1 }));
    expectError(await request("POST", `/v1/projects/${slug}/holders`, { token, body: { hosts } }), 413, "too_large");
  });
});
