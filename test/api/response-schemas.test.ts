/**
 * The check of every 2xx JSON answer against its route's schema (test/check-responses.ts) fails
 * on what it must: a missing or mistyped field, a field the schema does not name, a status the
 * route does not declare. Each answer here is made up and recorded as a helper would record it.
 */
import { describe, expect, it } from "vitest";
import { checkRecordedResponses, recordResponse } from "../support/response-schemas";

const json = (status: number) => new Response(null, { status, headers: { "Content-Type": "application/json" } });
/** A project as GET /v1/projects lists it (ProjectSchema). */
const project = {
  slug: "p",
  name: "P",
  url: null,
  create_time: 1000,
  first_credit_time: null,
  total_credit: 0,
  expavg_credit: 0,
  expavg_time: 0,
  recent_average_credit: 0,
  users: 0,
  hosts: 0,
  teams: 0,
};

describe("the response-schema check", () => {
  it("passes a documented body, fails a mistyped, a missing and an unnamed field, and an undeclared status", async () => {
    const list = { projects: [], as_of: 1, snapshot_time: 1 };
    recordResponse("GET", "/v1/projects", json(200), list);
    recordResponse("GET", "/v1/projects?x=1", json(200), { ...list, as_of: "now" });
    recordResponse("GET", "/v1/projects", json(200), { projects: [], as_of: 1 });
    recordResponse("GET", "/v1/projects", json(200), { ...list, secret: "x" });
    recordResponse("GET", "/v1/projects", json(201), list);
    const failures = await checkRecordedResponses();
    // The route, the path asked, the status, then the field and zod's message.
    expect(failures).toHaveLength(4);
    expect(failures[0]).toMatch(/^GET \/v1\/projects \(\/v1\/projects\) 200: as_of: \S/);
    expect(failures[1]).toMatch(/^GET \/v1\/projects \(\/v1\/projects\) 200: snapshot_time: \S/);
    expect(failures[2]).toBe("GET /v1/projects (/v1/projects) 200: fields the schema does not name: secret");
    expect(failures[3]).toBe("GET /v1/projects (/v1/projects) 201: the route declares no JSON answer with this status");
    // Checked once: the next test starts from none.
    expect(await checkRecordedResponses()).toEqual([]);
  });

  it("names a nested unnamed field by its path, and leaves non-JSON, non-2xx and non-API answers alone", async () => {
    recordResponse("GET", "/v1/projects", json(200), { projects: [project, { ...project, token: "x" }], as_of: 1, snapshot_time: 1 });
    recordResponse("GET", "/v1/projects", json(404), { error: "not a project list" });
    recordResponse("GET", "/v1/projects", new Response(null, { headers: { "Content-Type": "text/html" } }), "<p>");
    recordResponse("GET", "/p/some-page", json(200), { anything: true });
    expect(await checkRecordedResponses()).toEqual([
      "GET /v1/projects (/v1/projects) 200: fields the schema does not name: projects[1].token",
    ]);
  });
});
