/** The cross-project routes are in the OpenAPI document, each with its error responses. */
import { describe, expect, it } from "vitest";
import { request } from "../support/api";

describe("cross-project routes in /openapi.json", () => {
  it("declares the registry, cpid, stats and central-token routes", async () => {
    const { body } = await request("GET", "/openapi.json");
    const paths = body.paths;
    expect(Object.keys(paths["/v1/central/app-versions"]!.post!.requestBody!.content)).toEqual([
      "application/json",
      "application/xml",
      "text/xml",
    ]);
    expect(Object.keys(paths["/v1/central/app-versions"]!.post!.responses)).toEqual(expect.arrayContaining(["200", "400", "401", "415"]));
    expect(paths["/v1/central/contributors"]!.post!.security).toEqual([{ adminToken: [] }]);
    expect(paths["/v1/central/contributors/{id}"]!.delete).toBeDefined();
    expect(paths["/v1/plan-classes"]!.get!.parameters!.map((p) => p.name)).toEqual(["format", "version"]);
    expect(paths["/v1/cpid/{cpid}"]!.get!.responses["404"]).toBeDefined();
    const stats = paths["/v1/projects/{slug}/stats/{file}"]!.get!;
    expect(stats.parameters!.find((p) => p.name === "file")!.schema!.enum).toContain("tables.xml");
    expect(body.components.schemas.PutApp!.properties!.gpu_only_scale!.enum).toEqual(["boinc", "cross-project"]);
    expect(body.components.schemas.PutUser!.properties!.stats_export!.type).toBe("boolean");
  });
});
