/** The OpenAPI document comes from the zod route declarations; /docs renders it. */
import { describe, expect, it } from "vitest";
import { call } from "../support/api";

describe("API documentation", () => {
  it("GET /openapi.json describes every v1 route with its request and error schemas", async () => {
    const res = await call("GET", "/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe("3.1.0");
    const paths = Object.keys(res.body.paths);
    for (const p of [
      "/v1/projects",
      "/v1/projects/{slug}/apps/{app}",
      "/v1/projects/{slug}/apps",
      "/v1/projects/{slug}/app-versions/{id}",
      "/v1/projects/{slug}/app-versions",
      "/v1/projects/{slug}/hosts/{id}",
      "/v1/projects/{slug}/users/{id}",
      "/v1/projects/{slug}/teams/{id}",
      "/v1/projects/{slug}/host-app-versions",
      "/v1/projects/{slug}/passes",
      "/v1/projects/{slug}/trickles",
      "/v1/projects/{slug}/errors",
      "/v1/projects/{slug}/rescale",
      "/v1/projects/{slug}",
      "/v1/projects/{slug}/history",
      "/v1/projects/{slug}/users/{id}/history",
      "/v1/projects/{slug}/hosts/{id}/history",
      "/v1/projects/{slug}/teams/{id}/history",
      "/v1/projects/{slug}/top/users",
      "/v1/projects/{slug}/top/hosts",
      "/v1/projects/{slug}/top/teams",
    ]) {
      expect(paths).toContain(p);
    }
    const post = res.body.paths["/v1/projects/{slug}/passes"].post;
    expect(Object.keys(post.responses)).toEqual(expect.arrayContaining(["200", "400", "401", "403", "404", "409", "413", "422", "429", "503"]));
    for (const p of ["/v1/projects/{slug}/tokens", "/v1/projects/{slug}/tokens/{id}", "/v1/projects/{slug}/audit"]) expect(paths).toContain(p);
    expect(res.body.components.schemas.Workunit.properties.rsc_fpops_est).toBeDefined();
    expect(res.body.components.schemas.Error.properties.error).toBeDefined();
    const top = res.body.paths["/v1/projects/{slug}/top/users"].get;
    expect(top.parameters.map((p: any) => p.name)).toEqual(expect.arrayContaining(["slug", "by", "limit", "cursor"]));
    expect(Object.keys(top.responses)).toEqual(expect.arrayContaining(["200", "304", "400", "404", "503"]));
    // A public read declares no token, so no 429 (a token sent with it is limited all the same).
    expect(Object.keys(top.responses)).not.toContain("429");
  });

  it("GET /docs serves an HTML page that loads /openapi.json", async () => {
    const res = await call("GET", "/docs");
    expect(res.status).toBe(200);
    expect(String(res.body)).toContain("/openapi.json");
  });
});
