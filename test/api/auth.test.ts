/**
 * Tokens (docs/spec/api-contract.md#tokens): no or an unknown token is 401, the token of another
 * project 403, admin routes need the admin token; and a refused request writes nothing.
 */
import { describe, expect, it } from "vitest";
import { ADMIN_TOKEN, request } from "../support/api";
import type { RequestBody } from "../support/api-types";
import {
  expectError,
  expectNoEntitiesOf,
  expectNothingWritten,
  expectProcessedFresh,
  ledgerState,
  setupProject,
  validPass,
} from "../support/api-helpers";

describe("POST /v1/projects/:slug/passes auth", () => {
  it("missing token → 401, nothing written", async () => {
    const { slug, api } = await setupProject();
    const body = validPass();
    const res = await request("POST", `/v1/projects/${slug}/passes`, { body });
    const error = expectError(res, 401, "unauthorized");
    expect(error.message).toMatch(/Bearer/);
    await expectNothingWritten(api, body);
  });

  it("unknown token → 401, nothing written", async () => {
    const { slug, api } = await setupProject();
    const body = validPass();
    const res = await request("POST", `/v1/projects/${slug}/passes`, { body, token: "cbl_not-a-real-token" });
    expectError(res, 401, "unauthorized");
    await expectNothingWritten(api, body);
  });

  it("a non-Bearer Authorization header → 401, nothing written", async () => {
    const { slug, token, api } = await setupProject();
    const body = validPass();
    for (const authorization of [`Basic ${token}`, "Bearer", "Bearer ", token]) {
      const res = await postWithAuthorization(`/v1/projects/${slug}/passes`, authorization, body);
      expectError(res, 401, "unauthorized");
    }
    await expectNothingWritten(api, body);
  });

  it("the admin token on a project route → 401", async () => {
    const { slug, api } = await setupProject();
    const body = validPass();
    expectError(await request("POST", `/v1/projects/${slug}/passes`, { body, token: ADMIN_TOKEN }), 401, "unauthorized");
    await expectNothingWritten(api, body);
  });

  it("another project's token → 403, neither project written", async () => {
    const mine = await setupProject();
    const theirs = await setupProject();
    const body = validPass();
    const res = await request("POST", `/v1/projects/${mine.slug}/passes`, { body, token: theirs.token });
    const error = expectError(res, 403, "forbidden");
    expect(error.message).toContain(mine.slug);
    await expectNoEntitiesOf(theirs.api, body);
    await expectNothingWritten(theirs.api, body);
    await expectNothingWritten(mine.api, body);
  });
});

describe("POST /v1/projects (admin)", () => {
  const newSlug = () => `adm-${Math.random().toString(36).slice(2, 10)}`;

  it("without a token → 401, project not created", async () => {
    const slug = newSlug();
    expectError(await request("POST", "/v1/projects", { body: { slug, name: "X" } }), 401, "unauthorized");
    // The slug is still free: creating it now is 201, not 409.
    expect((await request("POST", "/v1/projects", { token: ADMIN_TOKEN, body: { slug, name: "X" } })).status).toBe(201);
  });

  it("with a wrong admin token → 401, project not created", async () => {
    const slug = newSlug();
    const res = await request("POST", "/v1/projects", { token: "test-admin-token-but-wrong", body: { slug, name: "X" } });
    expectError(res, 401, "unauthorized");
    expect((await request("GET", `/v1/projects/${slug}/apps`)).status).toBe(404);
    expect((await request("POST", "/v1/projects", { token: ADMIN_TOKEN, body: { slug, name: "X" } })).status).toBe(201);
  });

  it("with a project token → 401, project not created", async () => {
    const { token } = await setupProject();
    const slug = newSlug();
    expectError(await request("POST", "/v1/projects", { token, body: { slug, name: "X" } }), 401, "unauthorized");
    expect((await request("GET", `/v1/projects/${slug}/apps`)).status).toBe(404);
  });

  it("an existing slug → 409, the first project's token keeps working", async () => {
    const { slug, token, api } = await setupProject();
    const res = await request("POST", "/v1/projects", { token: ADMIN_TOKEN, body: { slug, name: "Again" } });
    expectError(res, 409, "conflict");
    await expectProcessedFresh(api, validPass());
    expect(token).toMatch(/^cbp_/);
  });

  it("a bad slug → 400 with path slug", async () => {
    const res = await request("POST", "/v1/projects", { token: ADMIN_TOKEN, body: { slug: "Not A Slug", name: "X" } });
    const error = expectError(res, 400, "validation_failed");
    expect(error.issues!.map((i) => i.path)).toEqual(["slug"]);
  });
});

describe("other project routes need the project's token", () => {
  it("PUT /apps/:app without a token → 401, app not created", async () => {
    const { slug, api } = await setupProject();
    const before = await ledgerState(api, []);
    expectError(await request("PUT", `/v1/projects/${slug}/apps/newapp`, { body: { host_scale_check: true } }), 401);
    expect(await ledgerState(api, [])).toEqual(before);
  });

  it("PUT /app-versions/:id with another project's token → 403, nothing changed", async () => {
    const mine = await setupProject();
    const theirs = await setupProject();
    const before = await ledgerState(mine.api, []);
    const res = await request("PUT", `/v1/projects/${mine.slug}/app-versions/9`, {
      token: theirs.token,
      body: { app: "a", platform: "linux", plan_class: "", version_num: 9 },
    });
    expectError(res, 403, "forbidden");
    expect(await ledgerState(mine.api, [])).toEqual(before);
    expect((await theirs.api.ok("GET", "/app-versions")).app_versions.map((v) => v.id)).toEqual([1, 2, 3]);
  });

  it("PUT /hosts/:id without a token → 401, host not created", async () => {
    const { slug, api } = await setupProject();
    expectError(await request("PUT", `/v1/projects/${slug}/hosts/77`, { body: { name: "h" } }), 401);
    expect((await api.raw("GET", "/hosts/77")).status).toBe(404);
  });

  it("POST /errors without a token → 401, host_app_version not created", async () => {
    const { slug, api } = await setupProject();
    const res = await request("POST", `/v1/projects/${slug}/errors`, {
      body: { now: 6000, results: [{ id: 1, host_id: 10, app_version_id: 1, outcome: "timeout", delay_bound: 100 }] },
    });
    expectError(res, 401);
    expect(await api.ok("GET", "/host-app-versions?host_id=10")).toEqual({ host_app_versions: [] });
  });

  it("POST /rescale with an unknown token → 401", async () => {
    const { slug } = await setupProject();
    expectError(await request("POST", `/v1/projects/${slug}/rescale`, { body: {}, token: "cbl_nope" }), 401);
  });

  it("GET /host-app-versions without a token → 401; with another project's → 403", async () => {
    const mine = await setupProject();
    const theirs = await setupProject();
    expectError(await request("GET", `/v1/projects/${mine.slug}/host-app-versions?host_id=10`), 401, "unauthorized");
    const res = await request("GET", `/v1/projects/${mine.slug}/host-app-versions?host_id=10`, { token: theirs.token });
    expectError(res, 403, "forbidden");
  });
});

/** A POST with a raw Authorization header (a token alone is sent as `Bearer <token>`). */
function postWithAuthorization<P extends string>(path: P, authorization: string, body: RequestBody<"POST", P>) {
  return request("POST", path, { headers: { Authorization: authorization }, body });
}
