/**
 * Token scopes (docs/tokens-and-audit.md#scopes): every route that takes a project token has a
 * scope decision here, and /openapi.json says the same (a new route without one fails the first
 * test). An `ingest` token is refused 403 `insufficient_scope` on every `manage` route and on
 * PUT apps with a setting, writing nothing; the bridge's own calls (bridge/service/api-client.ts, with
 * the bodies bridge/service/register-apps.ts sends) all succeed with one; a `manage` token issues and
 * revokes `ingest` tokens without ending itself.
 */
import { exports } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CobblestoneApi } from "../../bridge/service/api-client";
import { INGEST_APP_FIELDS } from "../../src/routes/apps/apps.schemas";
import { ADMIN_TOKEN, createProject, rawRequest, request } from "../support/api";
import { expectError, result, setupProject, workunit } from "../support/api-helpers";
import type { OpenApiOperation } from "../support/api-types";
import { dbState } from "./db-state";

/**
 * Which scope each route taking a project token needs: `ingest` (any of the project's tokens),
 * `manage`, or `ingest fields` (an `ingest` token may send INGEST_APP_FIELDS only; any other
 * field needs `manage`).
 */
type Decision = "ingest" | "manage" | "ingest fields";
const SCOPE_OF: Record<string, Decision> = {
  "PUT /v1/projects/{slug}/apps/{app}": "ingest fields",
  "GET /v1/projects/{slug}/apps/{app}/fairness": "ingest",
  "POST /v1/projects/{slug}/apps/{app}/fair-rebase": "manage",
  "PUT /v1/projects/{slug}/app-versions/{id}": "ingest",
  "PUT /v1/projects/{slug}/hosts/{id}": "ingest",
  "PUT /v1/projects/{slug}/users/{id}": "ingest",
  "PUT /v1/projects/{slug}/teams/{id}": "ingest",
  "POST /v1/projects/{slug}/holders": "ingest",
  "GET /v1/projects/{slug}/host-app-versions": "ingest",
  "POST /v1/projects/{slug}/passes": "ingest",
  "POST /v1/projects/{slug}/pass-batches": "ingest",
  "POST /v1/projects/{slug}/trickles": "ingest",
  "POST /v1/projects/{slug}/errors": "ingest",
  "POST /v1/projects/{slug}/rescale": "ingest",
  "POST /v1/projects/{slug}/tokens": "manage",
  "GET /v1/projects/{slug}/tokens": "manage",
  "DELETE /v1/projects/{slug}/tokens/{id}": "manage",
  "GET /v1/projects/{slug}/rate-limit": "ingest",
  "GET /v1/projects/{slug}/history-databases": "ingest",
  "GET /v1/projects/{slug}/holder-reads": "ingest",
  "GET /v1/projects/{slug}/audit": "ingest",
};

/** A valid body for the manage routes that take one (the refusal must not be a 400). */
const MANAGE_BODIES: Record<string, unknown> = {
  "POST /v1/projects/{slug}/apps/{app}/fair-rebase": { reason: "a new build" },
  "POST /v1/projects/{slug}/tokens": { scope: "ingest" },
};

/** A valid value of each PutApp field that is a setting (every field but INGEST_APP_FIELDS). */
const SETTING_SAMPLES: Record<string, unknown> = {
  credit_mode: "fixed",
  max_granted_credit: 50,
  min_avg_pfc: 2,
  gpu_only_scale: "cross-project",
  cross_project_version: null,
  trickle_max_runtime: 3600,
  deprecated: true,
  credit_policy: "fair",
};

async function projectRoutes(): Promise<Map<string, { op: OpenApiOperation; roles: string[] }>> {
  const { body: doc } = await request("GET", "/openapi.json");
  const found = new Map<string, { op: OpenApiOperation; roles: string[] }>();
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const requirement = op.security?.find((r) => "projectToken" in r);
      if (requirement) found.set(`${method.toUpperCase()} ${path}`, { op, roles: requirement.projectToken! });
    }
  }
  return found;
}

async function issue(slug: string, token: string, scope?: "ingest" | "manage") {
  const res = await request("POST", `/v1/projects/${slug}/tokens`, { token, ...(scope ? { body: { scope } } : {}) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

const tokensOf = async (slug: string, token: string) => (await request("GET", `/v1/projects/${slug}/tokens`, { token })).body.tokens;

const auditOf = async (slug: string, token: string) => (await request("GET", `/v1/projects/${slug}/audit`, { token })).body.entries;

describe("token scopes: the decision of every route", () => {
  it("every route that takes a project token has a scope decision, and /openapi.json declares it", async () => {
    const routes = await projectRoutes();
    // A route added without a decision here (or one removed) fails this line.
    expect([...routes.keys()].sort()).toEqual(Object.keys(SCOPE_OF).sort());
    for (const [key, { roles }] of routes) expect([key, roles]).toEqual([key, SCOPE_OF[key] === "manage" ? ["manage"] : []]);
  });

  it("an ingest token is refused 403 insufficient_scope on every manage route, writing nothing; a manage token passes", async () => {
    const { slug, token } = await setupProject("scope-manage");
    const ingest = await issue(slug, token, "ingest");
    const routes = await projectRoutes();
    const manage = [...routes].filter(([key]) => SCOPE_OF[key] === "manage");
    expect(manage.length).toBeGreaterThanOrEqual(4);
    const call = (key: string, op: OpenApiOperation, auth: string) => {
      const [method, path] = key.split(" ") as [string, string];
      const url = path.replace("{slug}", slug).replace("{app}", "a").replace("{id}", String(ingest.id));
      const body = MANAGE_BODIES[key] ?? (op.requestBody ? {} : undefined);
      return rawRequest(method, url, { token: auth, ...(body === undefined ? {} : { body }) });
    };

    const before = await dbState();
    const audited = await auditOf(slug, token);
    for (const [key, { op }] of manage) {
      const error = expectError(await call(key, op, ingest.token), 403, "insufficient_scope");
      expect(error.message, key).toContain("needs a 'manage' token");
    }
    expect(await dbState()).toEqual(before);
    expect(await auditOf(slug, token)).toEqual(audited);

    // The same calls with the project's manage token go through.
    for (const [key, { op }] of manage) {
      const res = await call(key, op, token);
      expect(res.status, `${key}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    }
  });

  it("every ingest route takes an ingest token (whatever else it answers, not 401 or 403)", async () => {
    const { slug, token } = await setupProject("scope-ingest");
    const ingest = await issue(slug, token, "ingest");
    const refused: string[] = [];
    for (const [key, { op }] of await projectRoutes()) {
      if (SCOPE_OF[key] === "manage") continue;
      const [method, path] = key.split(" ") as [string, string];
      const url = path.replace("{slug}", slug).replace("{app}", "a").replace("{id}", "1");
      const res = await rawRequest(method, url, { token: ingest.token, ...(op.requestBody ? { body: {} } : {}) });
      if (res.status === 401 || res.status === 403) refused.push(`${key}: ${res.status} ${JSON.stringify(res.body)}`);
    }
    expect(refused).toEqual([]);
    // A public read with it is answered from the ledger, as with any of the project's tokens.
    const fresh = await request("GET", `/v1/projects/${slug}/apps`, { token: ingest.token });
    expect(fresh.status).toBe(200);
    expect(fresh.headers!.get("Cache-Control")).toContain("private");
  });

  it("PUT apps: an ingest token registers with the bridge's fields; every setting needs a manage token", async () => {
    const { slug, token } = await createProject("scope-apps");
    const ingest = await issue(slug, token, "ingest");
    const { body: doc } = await request("GET", "/openapi.json");
    const fields = Object.keys(doc.components.schemas.PutApp!.properties!);
    // A new PutApp field is either registration (INGEST_APP_FIELDS) or a setting with a sample here.
    expect(fields.sort()).toEqual([...INGEST_APP_FIELDS, ...Object.keys(SETTING_SAMPLES)].sort());

    const put = (body: unknown, auth: string) => rawRequest("PUT", `/v1/projects/${slug}/apps/a`, { token: auth, body });
    expect((await put({}, ingest.token)).status).toBe(200);
    const registered = await put({ host_scale_check: true, target_nresults: 2 }, ingest.token);
    expect(registered.status).toBe(200);
    expect(registered.body).toMatchObject({ host_scale_check: true, target_nresults: 2 });

    const before = await dbState();
    for (const [field, value] of Object.entries(SETTING_SAMPLES)) {
      // Alone, and beside the fields an ingest token may send: refused whole either way.
      for (const body of [{ [field]: value }, { host_scale_check: false, [field]: value }]) {
        const error = expectError(await put(body, ingest.token), 403, "insufficient_scope");
        expect(error.message).toContain(field);
      }
    }
    expect(await dbState()).toEqual(before);

    for (const [field, value] of Object.entries(SETTING_SAMPLES)) {
      const res = await put({ [field]: value, ...(field === "credit_mode" ? { max_granted_credit: 50 } : {}) }, token);
      expect(res.status, `${field}: ${JSON.stringify(res.body)}`).toBe(200);
    }
  });
});

describe("token scopes: the bridge with an ingest token", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("every call of the bridge's documented flow succeeds with an ingest token, each audited under that token", async () => {
    const { slug, token } = await createProject("scope-bridge");
    const ingest = await issue(slug, token, "ingest");
    // The bridge's own client (bridge/service/api-client.ts), its requests sent to this Worker.
    vi.stubGlobal("fetch", (input: RequestInfo | URL, init?: RequestInit) => exports.default.fetch(new Request(input, init)));
    const api = new CobblestoneApi("http://cobblestone.test", slug, ingest.token, {
      maxAttempts: 1,
      baseDelayMs: 0,
      maxDelayMs: 0,
      timeoutMs: 30_000,
    });

    await api.check();
    // bridge/service/register-apps.ts: the app with its BOINC columns, then its versions.
    await api.putApp("a", { host_scale_check: false });
    await api.putApp("g", { host_scale_check: true, target_nresults: 2 });
    await api.putAppVersion(1, { app: "a", platform: "linux", plan_class: "", version_num: 1 });
    await api.putAppVersion(2, { app: "g", platform: "linux", plan_class: "", version_num: 5 });
    expect((await api.apps()).map((a) => a.name)).toEqual(["a", "g"]);
    expect((await api.appVersions()).map((v) => v.id)).toEqual([1, 2]);
    await api.postHolders({ hosts: [{ id: 10, user_id: 10, create_time: 1000 }], users: [{ id: 10, create_time: 1000 }], teams: [] });
    const batch = await api.postPassBatch({
      passes: [{ now: 6000, workunits: [workunit(1, [result(11), result(12, { host_id: 10 })])] }],
    });
    expect(batch.passes[0]!.workunits[0]!.credit).toBeGreaterThan(0);
    await api.postErrors({ now: 6100, results: [{ id: 21, host_id: 10, app_version_id: 1, outcome: "error" }] });
    await api.rescale(6200);

    const writes = (await auditOf(slug, token)).filter((e) => e.actor === `token:${ingest.id}`).map((e) => `${e.method} ${e.route}`);
    expect(new Set(writes)).toEqual(
      new Set([
        "PUT /v1/projects/:slug/apps/:app",
        "PUT /v1/projects/:slug/app-versions/:id",
        "POST /v1/projects/:slug/holders",
        "POST /v1/projects/:slug/pass-batches",
        "POST /v1/projects/:slug/errors",
        "POST /v1/projects/:slug/rescale",
      ]),
    );
  });
});

describe("token scopes: issuing and revoking", () => {
  it("the first token manages; a manage token issues ingest ones without ending itself; rotation stays within a scope", async () => {
    const { slug, token } = await createProject("scope-issue");
    const [first] = await tokensOf(slug, token);
    expect(first).toMatchObject({ scope: "manage", expires_at: null });

    const a = await issue(slug, token, "ingest");
    expect(a).toMatchObject({ scope: "ingest", expires_at: null });
    // Issuing an ingest token leaves the manage one alone.
    expect(await tokensOf(slug, token)).toEqual([first, { id: a.id, created_at: a.created_at, expires_at: null, scope: "ingest" }]);

    // A second ingest token rotates the first (24 h), still not the manage one.
    const b = await issue(slug, token, "ingest");
    expect(await tokensOf(slug, token)).toEqual([
      first,
      { id: a.id, created_at: a.created_at, expires_at: b.others_expire_at, scope: "ingest" },
      { id: b.id, created_at: b.created_at, expires_at: null, scope: "ingest" },
    ]);

    // No body: a manage token (as before scopes), which rotates the manage ones only.
    const m = await issue(slug, token);
    expect(m.scope).toBe("manage");
    const listed = await tokensOf(slug, m.token);
    expect(listed.map((t) => [t.id, t.scope, t.expires_at])).toEqual([
      [first!.id, "manage", m.others_expire_at],
      [a.id, "ingest", b.others_expire_at],
      [b.id, "ingest", null],
      [m.id, "manage", null],
    ]);

    // The operator issues either; a manage one by default (a project that lost its tokens).
    expect((await issue(slug, ADMIN_TOKEN)).scope).toBe("manage");
    expect((await issue(slug, ADMIN_TOKEN, "ingest")).scope).toBe("ingest");
    expectError(await rawRequest("POST", `/v1/projects/${slug}/tokens`, { token, body: { scope: "admin" } }), 400, "validation_failed");
  });

  it("ingest tokens may all be revoked; the last live manage token can't be (409), ingest tokens or not", async () => {
    const { slug, token } = await createProject("scope-revoke");
    const [mine] = await tokensOf(slug, token);
    const a = await issue(slug, token, "ingest");
    const b = await issue(slug, token, "ingest");
    for (const id of [a.id, b.id]) expect((await request("DELETE", `/v1/projects/${slug}/tokens/${id}`, { token })).status).toBe(200);
    expectError(await request("GET", `/v1/projects/${slug}/rate-limit`, { token: b.token }), 401, "unauthorized");

    const c = await issue(slug, token, "ingest");
    const error = expectError(await request("DELETE", `/v1/projects/${slug}/tokens/${mine!.id}`, { token }), 409, "conflict");
    expect(error.message).toContain("last live 'manage' token");
    expectError(await request("DELETE", `/v1/projects/${slug}/tokens/${mine!.id}`, { token: ADMIN_TOKEN }), 409, "conflict");
    expect((await request("GET", `/v1/projects/${slug}/rate-limit`, { token: c.token })).status).toBe(200);

    // With a second manage token the first may go.
    const m = await issue(slug, token);
    expect((await request("DELETE", `/v1/projects/${slug}/tokens/${mine!.id}`, { token: m.token })).status).toBe(200);
    expect((await tokensOf(slug, m.token)).map((t) => t.scope)).toEqual(["ingest", "manage"]);
  });
});
