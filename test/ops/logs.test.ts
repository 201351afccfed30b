/**
 * Structured logs (issue 43, docs/operations.md#logs): one JSON line per request and one per
 * cron run, read off the console as Workers Logs reads them, with the documented fields; the
 * D1 rows are D1's own meta for the request's statements; no token, Authorization header or
 * body ever appears in a line.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ADMIN_TOKEN, type ApiResponse, rawRequest, request } from "../support/api";
import { expectError, setupProject, validPass } from "../support/api-helpers";
import { runCron } from "../support/cron";
import { type LogLine, captureLogs } from "../support/logs";
import { faultyD1 } from "../security/faulty-d1";
import { callWith } from "../security/support";

const REQUEST_FIELDS = [
  "event",
  "level",
  "request_id",
  "method",
  "status",
  "duration_ms",
  "rows_read",
  "rows_written",
  "d1_queries",
  "d1_queries_without_meta",
];

/** The request line of a response: the one whose request_id is its X-Request-Id. */
function lineOf(lines: readonly LogLine[], res: ApiResponse): LogLine {
  const id = res.headers!.get("X-Request-Id");
  const matching = lines.filter((l) => l.event === "request" && l.request_id === id);
  expect(matching, `one request line for ${id}`).toHaveLength(1);
  return matching[0]!;
}

/** D1's meta of every statement a request ran, summed beside the Worker's own meter (nothing converted, nothing added). */
function watchedD1(real: D1Database) {
  const seen = { rowsRead: 0, rowsWritten: 0, queries: 0 };
  const add = (r: D1Result) => {
    seen.queries += 1;
    seen.rowsRead += r.meta.rows_read;
    seen.rowsWritten += r.meta.rows_written;
  };
  const inner = new WeakMap<object, D1PreparedStatement>();
  const wrap = (stmt: D1PreparedStatement): D1PreparedStatement => {
    const outer = new Proxy(stmt, {
      get(target, prop) {
        if (prop === "bind") return (...values: unknown[]) => wrap(target.bind(...values));
        if (prop === "run" || prop === "all") return async () => Promise.resolve(target[prop]()).then((r) => (add(r), r));
        if (prop === "raw" || prop === "first") {
          return (...args: unknown[]) => {
            seen.queries += 1;
            return (target[prop] as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          };
        }
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    inner.set(outer, stmt);
    return outer;
  };
  const db = new Proxy(real, {
    get(target, prop) {
      if (prop === "prepare") return (query: string) => wrap(target.prepare(query));
      if (prop === "batch") {
        return async (stmts: D1PreparedStatement[]) => {
          const results = await target.batch(stmts.map((s) => inner.get(s) ?? s));
          results.forEach(add);
          return results;
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { db, seen };
}

describe("the request log", () => {
  it("writes one JSON line per request with the documented fields, never a token or a body", async () => {
    const p = await setupProject("logs");
    const marker = "body-marker-7f3a";
    const r = {} as Record<"write" | "named" | "read" | "denied" | "invalid" | "missing" | "admin", ApiResponse>;
    const { lines, raw } = await captureLogs(async () => {
      r.write = await request("POST", `/v1/projects/${p.slug}/passes`, { token: p.token, body: validPass(1, 10) });
      r.named = await request("PUT", `/v1/projects/${p.slug}/users/10`, { token: p.token, body: { name: marker } });
      r.read = await request("GET", `/v1/projects/${p.slug}/hosts/10`);
      r.denied = await request("GET", `/v1/projects/${p.slug}/audit`, { token: "cbp_not-a-real-token" });
      r.invalid = await rawRequest("POST", `/v1/projects/${p.slug}/passes`, { token: p.token, rawBody: `{"workunits": "${marker}"}` });
      r.missing = await rawRequest("GET", "/v1/nowhere", { token: ADMIN_TOKEN });
      r.admin = await request("POST", `/v1/projects/${p.slug}/tokens`, { token: ADMIN_TOKEN });
    });
    const { write, named, read, denied, invalid, missing, admin } = r;
    expect([write.status, named.status, read.status, admin.status]).toEqual([200, 200, 200, 201]);

    // Every line is one JSON object (captureLogs parses each), with event and level first.
    for (const line of raw) expect(line).toMatch(/^\{"event":"[a-z_]+","level":"(info|warn|error)"/);
    const requests = lines.filter((l) => l.event === "request");
    expect(requests).toHaveLength(7);
    for (const l of requests) {
      expect(Object.keys(l)).toEqual(expect.arrayContaining(REQUEST_FIELDS));
      expect(l.duration_ms).toBeGreaterThanOrEqual(0);
      expect(l.d1_queries).toBeGreaterThanOrEqual(l.d1_queries_without_meta as number);
    }

    expect(lineOf(lines, write)).toMatchObject({
      level: "info",
      method: "POST",
      route: "/v1/projects/:slug/passes",
      project: p.slug,
      status: 200,
    });
    expect(lineOf(lines, write).rows_written).toBeGreaterThan(0);
    expect(lineOf(lines, write)).not.toHaveProperty("error_code");
    expect(lineOf(lines, named)).toMatchObject({ method: "PUT", route: "/v1/projects/:slug/users/:id", project: p.slug, status: 200 });
    expect(lineOf(lines, read)).toMatchObject({ method: "GET", route: "/v1/projects/:slug/hosts/:id", project: p.slug, rows_written: 0 });
    // Refused before the project was known: the route, not the project.
    expect(lineOf(lines, denied)).toMatchObject({ status: 401, error_code: "unauthorized", route: "/v1/projects/:slug/audit" });
    expect(lineOf(lines, denied)).not.toHaveProperty("project");
    expectError(invalid, 400, "validation_failed");
    expect(lineOf(lines, invalid)).toMatchObject({ status: 400, error_code: "validation_failed", project: p.slug, rows_written: 0 });
    // No route matched: none named.
    expect(lineOf(lines, missing)).toMatchObject({ status: 404, error_code: "not_found", method: "GET" });
    expect(lineOf(lines, missing)).not.toHaveProperty("route");
    expect(lineOf(lines, admin)).toMatchObject({ status: 201, route: "/v1/projects/:slug/tokens", project: p.slug });

    const all = raw.join("\n");
    for (const secret of [p.token, ADMIN_TOKEN, "cbp_not-a-real-token", (admin.body as { token: string }).token, marker]) {
      expect(all).not.toContain(secret);
    }
    expect(all).not.toMatch(/bearer|authorization/i);
  });

  it("counts D1's own rows: what D1 answered for the request's statements, no more", async () => {
    const p = await setupProject("rows");
    const watched = watchedD1(env.DB);
    const { lines } = await captureLogs(async () => {
      const res = await callWith({ DB: watched.db }, "POST", `/v1/projects/${p.slug}/passes`, { token: p.token, body: validPass(1, 10) });
      expect(res.status).toBe(200);
    });
    const [line] = lines.filter((l) => l.event === "request");
    expect(watched.seen.rowsWritten).toBeGreaterThan(0);
    expect(line).toMatchObject({
      rows_read: watched.seen.rowsRead,
      rows_written: watched.seen.rowsWritten,
      d1_queries: watched.seen.queries,
    });
  });

  it("logs a failed request at level error with the exception the client is not shown", async () => {
    const p = await setupProject("fail");
    const faulty = faultyD1(env.DB, { afterBatch: true });
    const { lines } = await captureLogs(async () => {
      const res = await callWith({ DB: faulty.db }, "POST", `/v1/projects/${p.slug}/passes`, { token: p.token, body: validPass(1, 10) });
      expectError(res, 503, "unavailable");
    });
    const [line] = lines.filter((l) => l.event === "request");
    expect(line).toMatchObject({ level: "error", console: "error", status: 503, error_code: "unavailable", project: p.slug });
    expect(String(line!.error)).toContain("Network connection lost");
  });
});

describe("the cron log", () => {
  it("writes one JSON line per run with each job's outcome, time and D1 rows", async () => {
    const p = await setupProject("cronlog");
    await p.api.ok("POST", "/passes", validPass(1, 10));
    const scheduled = Date.now();
    const { lines, raw } = await captureLogs(() => runCron("* * * * *", scheduled));
    expect(lines).toHaveLength(1);
    const [line] = lines;
    expect(line).toMatchObject({ event: "cron", level: "info", console: "info", cron: "* * * * *", scheduled_time: scheduled / 1000 });
    const jobs = line!.jobs as Record<string, unknown>[];
    expect(jobs.map((j) => [j.name, j.outcome])).toEqual([
      ["kv-refresh", "ok"],
      ["history-move", "ok"],
    ]);
    for (const job of jobs) {
      expect(Object.keys(job)).toEqual(
        expect.arrayContaining(["summary", "duration_ms", "rows_read", "rows_written", "d1_queries", "d1_queries_without_meta"]),
      );
    }
    // The refresh wrote the project's snapshots (and settled their marks in D1).
    expect(jobs[0]!.summary).toMatch(/^wrote [1-9]\d* KV snapshots/);
    expect(jobs[0]!.rows_written).toBeGreaterThan(0);
    expect(line!.rows_written).toBe(jobs.reduce((n, j) => n + (j.rows_written as number), 0));
    expect(line!.rows_read).toBe(jobs.reduce((n, j) => n + (j.rows_read as number), 0));
    expect(line!.duration_ms).toBeGreaterThanOrEqual(0);
    expect(raw.join("\n")).not.toContain(p.token);
  });
});
