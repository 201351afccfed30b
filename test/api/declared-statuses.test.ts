/**
 * Every status a route can answer is in its OpenAPI declaration. Each route in the Worker's
 * route table must be in /openapi.json; then each documented route is called the ways a
 * careless client calls it (no token, a wrong token, another project's token, an unknown
 * project, malformed ids, a broken body, a wrong content type, an empty body) and every
 * status seen must be declared for that route.
 */
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { createAm } from "../am/support";
import { setupProject } from "../support/api-helpers";
import { ADMIN_TOKEN, type CallOptions, rawRequest, request } from "../support/api";
import type { OpenApiOperation } from "../support/api-types";

type Operation = OpenApiOperation;
type Parameter = NonNullable<Operation["parameters"]>[number];

/** `/v1/projects/{slug}/hosts/{id}` in OpenAPI is `/v1/projects/:slug/hosts/:id` in the route table. */
const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z_]+)(\{[^}]*\})?/g, "{$1}");

describe("OpenAPI declares every status", () => {
  it("every /v1 route of the route table is documented in /openapi.json", async () => {
    const { body: doc } = await request("GET", "/openapi.json");
    const undocumented = createApp()
      .routes.filter((r) => r.method !== "ALL" && r.path.startsWith("/v1/"))
      .map((r) => `${r.method} ${toOpenApiPath(r.path)}`)
      .filter((key) => {
        const [method, path] = key.split(" ") as [string, string];
        return !doc.paths[path]?.[method.toLowerCase()];
      });
    expect(undocumented).toEqual([]);
  });

  it("calling every route with bad input answers only declared statuses", { timeout: 120_000 }, async () => {
    const mine = await setupProject("declared");
    const other = await setupProject("declared-other");
    const { body: doc } = await request("GET", "/openapi.json");
    const undeclared: string[] = [];
    for (const [path, methods] of Object.entries<Record<string, Operation>>(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const declared = new Set(Object.keys(op.responses));
        const url = (slug: string, id: string) => path.replace("{slug}", slug).replace(/\{[^}]+\}/g, id);
        const jsonBody = op.requestBody?.content["application/json"] !== undefined;
        const attempts: [string, CallOptions, string][] = [
          ["no token", {}, url(mine.slug, "1")],
          ["a wrong token", { token: "cbl_not-a-token" }, url(mine.slug, "1")],
          ["another project's token", { token: other.token }, url(mine.slug, "1")],
          ["an unknown project", { token: ADMIN_TOKEN }, url("no-such-project", "1")],
          ["malformed ids", { token: mine.token }, url(mine.slug, "-1x")],
          ["ids beyond 2^53", { token: mine.token }, url(mine.slug, "9007199254740993")],
        ];
        if (jsonBody) {
          attempts.push(
            ["broken JSON", { token: mine.token, rawBody: "{" }, url(mine.slug, "1")],
            ["text/plain", { token: mine.token, rawBody: "{}", contentType: "text/plain" }, url(mine.slug, "1")],
            ["an empty object", { token: mine.token, body: {} }, url(mine.slug, "1")],
            ["the admin token", { token: ADMIN_TOKEN, body: {} }, url(mine.slug, "1")],
          );
        }
        for (const [what, opts, target] of attempts) {
          const res = await rawRequest(method.toUpperCase(), target, opts);
          if (!declared.has(String(res.status))) undeclared.push(`${method.toUpperCase()} ${path} with ${what}: ${res.status}`);
        }
      }
    }
    expect(undeclared).toEqual([]);
  });

  it(
    "an operation declaring `security` answers 401 without a token; one that does not, answers without one",
    { timeout: 120_000 },
    async () => {
      const project = await setupProject("declared-auth");
      const am = await createAm("declared-auth");
      const { body: doc } = await request("GET", "/openapi.json");
      // Each path parameter filled with something that exists (the project, the account manager,
      // app "a" of setupProject), else the example or first allowed value the document gives.
      const known: Record<string, string> = { slug: project.slug, am: am.slug, app: "a" };
      const valueOf = (p: Parameter | undefined, name: string) => known[name] ?? String(p?.schema?.example ?? p?.schema?.enum?.[0] ?? "1");
      const wrong: string[] = [];
      let secured = 0;
      let open = 0;
      for (const [path, methods] of Object.entries<Record<string, Operation>>(doc.paths)) {
        for (const [method, op] of Object.entries(methods)) {
          const url = path.replace(/\{([^}]+)\}/g, (_, name: string) =>
            encodeURIComponent(
              valueOf(
                op.parameters?.find((p) => p.in === "path" && p.name === name),
                name,
              ),
            ),
          );
          // A body a valid caller might send: only the token is missing.
          const jsonBody = op.requestBody?.content["application/json"] !== undefined;
          const res = await rawRequest(method.toUpperCase(), url, jsonBody ? { body: {} } : {});
          const declaresSecurity = (op.security?.length ?? 0) > 0;
          if (declaresSecurity) secured++;
          else open++;
          if (declaresSecurity !== (res.status === 401)) {
            wrong.push(`${method.toUpperCase()} ${url} (security ${declaresSecurity ? "declared" : "not declared"}): ${res.status}`);
          }
        }
      }
      expect(wrong).toEqual([]);
      // Both kinds exist, so neither half of the check is vacuous.
      expect(secured).toBeGreaterThan(0);
      expect(open).toBeGreaterThan(0);
    },
  );
});
