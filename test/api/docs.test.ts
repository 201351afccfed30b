/** The OpenAPI document comes from the zod route declarations; /docs renders it. */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { request } from "../support/api";

describe("API documentation", () => {
  it("GET /openapi.json describes every v1 route with its request and error schemas", async () => {
    const res = await request("GET", "/openapi.json");
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
    const post = res.body.paths["/v1/projects/{slug}/passes"]!.post!;
    expect(Object.keys(post.responses)).toEqual(
      expect.arrayContaining(["200", "400", "401", "403", "404", "409", "413", "422", "429", "503"]),
    );
    for (const p of ["/v1/projects/{slug}/tokens", "/v1/projects/{slug}/tokens/{id}", "/v1/projects/{slug}/audit"])
      expect(paths).toContain(p);
    expect(res.body.components.schemas.Workunit?.properties?.rsc_fpops_est).toBeDefined();
    expect(res.body.components.schemas.Error?.properties?.error).toBeDefined();
    const top = res.body.paths["/v1/projects/{slug}/top/users"]!.get!;
    expect((top.parameters ?? []).map((p) => p.name)).toEqual(expect.arrayContaining(["slug", "by", "limit", "cursor"]));
    expect(Object.keys(top.responses)).toEqual(expect.arrayContaining(["200", "304", "400", "404", "503"]));
    // A public read declares no token, so no 429 (a token sent with it is limited all the same).
    expect(Object.keys(top.responses)).not.toContain("429");
  });

  // /docs is a static asset, answered before the Worker runs: read it from the assets binding.
  // That it renders, offline, is the browser test's (test/browser/docs.test.ts).
  it("/docs is Swagger UI from this Worker's own assets, loading /openapi.json, nothing from elsewhere", async () => {
    const page = await env.ASSETS.fetch("http://cobblestone.test/docs");
    expect(page.status).toBe(200);
    const html = await page.text();
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);
    expect(refs).toEqual(["/swagger-ui/swagger-ui.css", "/swagger-ui/favicon-32x32.png", "/swagger-ui/swagger-ui-bundle.js", "/docs.js"]);
    for (const ref of refs) expect((await env.ASSETS.fetch(`http://cobblestone.test${ref}`)).status, ref).toBe(200);
    expect(await (await env.ASSETS.fetch("http://cobblestone.test/docs.js")).text()).toContain('url: "/openapi.json"');
  });
});
