/**
 * The plan-class scale registry, end to end: the operator issues central tokens, projects
 * elsewhere push JSON or BOINC's app_versions.php XML, projects of this deployment count
 * without a token, the daily job publishes the table, GET /v1/plan-classes serves it.
 * Tests in this file share one database, so each uses plan classes of its own.
 */
import { env } from "cloudflare:workers";
import { XMLParser } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/http/tokens";
import { expectRel } from "../credit/close";
import { expectError, pass, result, workunit } from "../support/api-helpers";
import { ADMIN_TOKEN, request, createProject, typedClient } from "../support/api";
import type { components } from "../support/api-types";
import { PLAN_CLASS_CRON, WEEK, clockNow, getRaw, issueCentralToken, push, reported, runCron } from "./helpers";

const json = (body: unknown) => JSON.stringify(body);

/** BOINC's app_versions.php output, byte for byte in shape (its header, its indentation). */
function appVersionsPhp(versions: ReturnType<typeof reported>[]): string {
  const items = versions
    .map(
      (v) => `
    <app_version>
        <id>${v.id}</id>
        <create_time>1300000000</create_time>
        <platform>${v.platform}</platform>
        <app_name>${v.app}</app_name>
        <version_num>${v.version_num}</version_num>
        <plan_class>${v.plan_class}</plan_class>
        <pfc_n>${v.pfc_n}</pfc_n>
        <pfc_avg>${v.pfc_avg}</pfc_avg>
        <pfc_scale>${v.pfc_scale}</pfc_scale>
        <expavg_credit>${v.expavg_credit}</expavg_credit>
        <expavg_time>${v.expavg_time}</expavg_time>
    </app_version>
`,
    )
    .join("");
  return `<?xml version="1.0" encoding="ISO-8859-1" ?>\n<app_versions>\n${items}</app_versions>\n`;
}

async function planClasses(query: "" | `?${string}` = "") {
  const res = await request("GET", `/v1/plan-classes${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

const planClassRow = (table: components["schemas"]["PlanClassScales"], name: string) =>
  table.plan_classes.find((r) => r.plan_class === name);

/** What a failed push must leave as it was. */
async function centralState() {
  const contributors = await request("GET", "/v1/central/contributors", { token: ADMIN_TOKEN });
  const { results } = await env.DB.prepare("SELECT * FROM central_contributions ORDER BY contributor_id, project, app_version_id").all();
  return { contributors: contributors.body, rows: results };
}

describe("central tokens", () => {
  it("the operator issues one; it is shown once and stored only as its SHA-256", async () => {
    expectError(await request("POST", "/v1/central/contributors", { body: { name: "x" } }), 401, "unauthorized");
    const { id, token } = await issueCentralToken("SETI@home");
    expect(token).toMatch(/^cbc_[A-Za-z0-9_-]{43}$/);
    const row = await env.DB.prepare("SELECT * FROM central_contributors WHERE id = ?").bind(id).first<Record<string, unknown>>();
    expect(row!.token_hash).toBe(await sha256Hex(token));
    expect(Object.values(row!)).not.toContain(token);
    const list = await request("GET", "/v1/central/contributors", { token: ADMIN_TOKEN });
    const listed = list.body.contributors.find((c) => c.id === id);
    expect(listed).toMatchObject({ name: "SETI@home", last_report: null, projects: 0, app_versions: 0 });
    expect(JSON.stringify(list.body)).not.toContain(token);
  });

  it("a revoked token pushes no more, and what it pushed is dropped", async () => {
    const { id, token } = await issueCentralToken("gone");
    const res = await push(token, json({ app_versions: [reported(1, "a", "")] }));
    expect(res.status).toBe(200);
    expect((await request("DELETE", `/v1/central/contributors/${id}`, { token: ADMIN_TOKEN })).body).toEqual({ id, revoked: true });
    expectError(await push(token, json({ app_versions: [reported(1, "a", "")] })), 401, "unauthorized");
    const left = await env.DB.prepare("SELECT count(*) AS n FROM central_contributions WHERE contributor_id = ?")
      .bind(id)
      .first<{ n: number }>();
    expect(left!.n).toBe(0);
    expectError(await request("DELETE", `/v1/central/contributors/${id}`, { token: ADMIN_TOKEN }), 404, "not_found");
  });
});

describe("the plan-class table", () => {
  it("a JSON push and BOINC's XML feed it; GET publishes it as JSON and as gpu_ratios XML", async () => {
    const T = clockNow();
    const a = await issueCentralToken("Project A");
    const b = await issueCentralToken("Project B");
    // A (JSON): app x with a CPU version (scale 1.0, RAC 100 now) and a cuda_reg one (0.2, RAC 300 now).
    const pushedA = await push(
      a.token,
      json({
        project: "alpha",
        app_versions: [
          reported(1, "x", "", { pfc_scale: 1.0, expavg_credit: 100, expavg_time: T }),
          reported(2, "x", "cuda_reg", { pfc_scale: 0.2, expavg_credit: 300, expavg_time: T }),
        ],
      }),
    );
    expect(pushedA.body).toMatchObject({ contributor: "Project A", project: "alpha", app_versions: 2 });
    // B (app_versions.php XML): app y, RACs as of a week (one half-life) ago: 50 → 25 and 200 → 100.
    const xml = appVersionsPhp([
      reported(7, "y", "", { pfc_scale: 0.9, expavg_credit: 50, expavg_time: T - WEEK }),
      reported(8, "y", "cuda_reg", { pfc_scale: 0.1, expavg_credit: 200, expavg_time: T - WEEK }),
    ]);
    const pushedB = await push(b.token, xml, "application/xml");
    expect(pushedB.status, JSON.stringify(pushedB.body)).toBe(200);
    expect(pushedB.body).toMatchObject({ contributor: "Project B", project: "", app_versions: 2 });

    await runCron(PLAN_CLASS_CRON, T);

    // cuda_reg: (0.2·300 + 0.1·100) / (300 + 100) = 70 / 400 = 0.175, from 2 projects.
    const table = await planClasses();
    expect(table.version).toBe(T);
    const row = planClassRow(table, "cuda_reg");
    expect(row).toMatchObject({ proc_type: "nvidia", nprojects: 2, nversions: 2, computed_time: T });
    expectRel(row!.scale, 0.175);
    expectRel(row!.recent_credit, 400);
    expect(await planClasses(`?version=${T}`)).toEqual(table);
    // Without the job's KV copy, the latest is read from D1.
    await env.KV.delete("central/plan-classes");
    expect(await planClasses()).toEqual(table);

    const res = await getRaw("/v1/plan-classes?format=xml");
    expect(res.headers.get("content-type")).toContain("application/xml");
    const doc = new XMLParser({ isArray: (name) => name === "plan_class" }).parse(await res.text());
    expect(doc.scale_factors.version).toBe(T);
    expect(doc.scale_factors.nvidia).toBeTypeOf("number");
    const xmlRows: { name: string; scale: number }[] = doc.scale_factors.plan_class;
    const xmlRow = xmlRows.find((r) => r.name === "cuda_reg");
    expect(xmlRow).toMatchObject({ proc_type: "nvidia", nprojects: 2, nversions: 2 });
    expectRel(xmlRow!.scale, 0.175);

    // A push replaces the set: A keeps only its CPU version, so its app is no longer mixed
    // and only B's cuda_reg (0.1) is left.
    await push(a.token, json({ project: "alpha", app_versions: [reported(1, "x", "", { expavg_time: T })] }));
    await runCron(PLAN_CLASS_CRON, T + 1);
    const after = planClassRow(await planClasses(), "cuda_reg");
    expect(after).toMatchObject({ nprojects: 1, nversions: 1 });
    expectRel(after!.scale, 0.1);
    // The earlier version stays pinnable.
    expectRel(planClassRow(await planClasses(`?version=${T}`), "cuda_reg")!.scale, 0.175);
    expectError(await request("GET", "/v1/plan-classes?version=12345"), 404, "not_found");
  });

  it("a project of this deployment counts without a token", async () => {
    const { slug, token } = await createProject("local");
    const api = typedClient(slug, token);
    await api.ok("PUT", "/apps/mixed", {});
    await api.ok("PUT", "/app-versions/1", { app: "mixed", platform: "linux", plan_class: "", version_num: 1 });
    await api.ok("PUT", "/app-versions/2", { app: "mixed", platform: "linux", plan_class: "cuda_local_reg", version_num: 1 });
    // 101 samples each: CPU 1000 s × 3e9 / 3e12 = 1.0, GPU 1000 s × 6e9 / 3e12 = 2.0. Mixed app:
    // target = min(1.0, 2.0) = 1.0, so the CPU version's scale is 1.0 and the GPU one's 0.5.
    const now = clockNow();
    const wus = Array.from({ length: 101 }, (_, i) =>
      workunit(
        100 + i,
        [
          result(1000 + 2 * i, { host_id: 20, user_id: 2 }),
          result(1001 + 2 * i, { host_id: 21, user_id: 3, app_version_id: 2, flops_estimate: 6e9 }),
        ],
        { app: "mixed" },
      ),
    );
    await api.ok("POST", "/passes", { ...pass(...wus), now });
    await api.ok("POST", "/rescale", {});
    const { app_versions } = await api.ok("GET", "/app-versions");
    const gpu = app_versions.find((v) => v.id === 2);
    expect(gpu!.pfc_scale).toBe(0.5);

    const at = now + 3600;
    await runCron(PLAN_CLASS_CRON, at);
    // One version: the table's scale is its scale; its weight its RAC decayed to the run.
    const row = planClassRow(await planClasses(), "cuda_local_reg");
    expect(row).toMatchObject({ scale: 0.5, nprojects: 1, nversions: 1 });
    expectRel(row!.recent_credit, gpu!.expavg_credit * 2 ** (-(at - gpu!.expavg_time) / WEEK), 1e-9);
  });
});

describe("many deployments, one central server", () => {
  it("another Cobblestone deployment pushes each project's GET /app-versions output as it is", async () => {
    // A project of "deployment B" (here the same Worker stands in for it).
    const { slug, token } = await createProject("deployment-b");
    const api = typedClient(slug, token);
    await api.ok("PUT", "/apps/x", {});
    await api.ok("PUT", "/app-versions/5", { app: "x", platform: "linux", plan_class: "cuda_b", version_num: 3 });
    await api.ok("PUT", "/app-versions/6", { app: "x", platform: "linux", plan_class: "", version_num: 3, deprecated: true });
    const exported = await api.ok("GET", "/app-versions");

    const central = await issueCentralToken("Deployment B");
    const res = await push(central.token, json(exported), "application/json", `?project=${slug}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // The deprecated version is left out, as app_versions.php leaves it out.
    expect(res.body).toMatchObject({ contributor: "Deployment B", project: slug, app_versions: 1 });
    const stored = await env.DB.prepare("SELECT project, app, plan_class, version_num FROM central_contributions WHERE contributor_id = ?")
      .bind(central.id)
      .all();
    expect(stored.results).toEqual([{ project: slug, app: "x", plan_class: "cuda_b", version_num: 3 }]);
  });
});

describe("bad pushes get 4xx and change nothing", () => {
  it("unknown token, malformed XML, a DOCTYPE, NaN scale, negative credit, duplicates, wrong types", async () => {
    const { token } = await issueCentralToken("careful");
    const good = await push(token, json({ app_versions: [reported(1, "a", ""), reported(2, "a", "cuda_bad")] }));
    expect(good.status).toBe(200);
    const before = await centralState();
    const { token: projectToken } = await createProject("bad");

    expectError(await push(undefined, json({ app_versions: [] })), 401, "unauthorized");
    expectError(await push("cbc_not-a-token", json({ app_versions: [] })), 401, "unauthorized");
    expectError(await push(projectToken, json({ app_versions: [] })), 401, "unauthorized");
    expectError(await push(ADMIN_TOKEN, json({ app_versions: [] })), 401, "unauthorized");

    const malformed = expectError(
      await push(token, "<app_versions><app_version><id>1</id></app_versions>", "application/xml"),
      400,
      "bad_request",
    );
    expect(malformed.message).toContain("malformed XML");
    expectError(await push(token, "<scale_factors></scale_factors>", "text/xml"), 400, "bad_request");
    // An entity declaration used to reach the parser and answer 500.
    const doctype = expectError(
      await push(token, '<!DOCTYPE app_versions [<!ENTITY x "1">]><app_versions></app_versions>', "application/xml"),
      400,
      "xml_doctype",
    );
    expect(doctype.message).toContain("DOCTYPE");

    const nanXml = appVersionsPhp([reported(1, "a", "")]).replace("<pfc_scale>1</pfc_scale>", "<pfc_scale>NaN</pfc_scale>");
    const nan = expectError(await push(token, nanXml, "application/xml"), 400, "validation_failed");
    expect(nan.issues!.map((i) => i.path)).toEqual(["app_versions[0].pfc_scale"]);
    expectError(await push(token, '{"app_versions": [{"pfc_scale": NaN}]}'), 400, "bad_request");
    const nanString = expectError(await push(token, json({ app_versions: [{ ...reported(1, "a", ""), pfc_scale: "NaN" }] })), 400);
    expect(nanString.issues!.map((i) => i.path)).toEqual(["app_versions[0].pfc_scale"]);

    const negative = expectError(
      await push(token, json({ app_versions: [reported(1, "a", ""), reported(2, "a", "cuda_bad", { expavg_credit: -5 })] })),
      400,
      "validation_failed",
    );
    expect(negative.issues!.map((i) => i.path)).toEqual(["app_versions[1].expavg_credit"]);
    const negativeXml = appVersionsPhp([reported(1, "a", "", { expavg_credit: -5 })]);
    expectError(await push(token, negativeXml, "application/xml"), 400, "validation_failed");

    const twice = expectError(await push(token, json({ app_versions: [reported(3, "a", ""), reported(3, "a", "")] })), 400);
    expect(twice.issues!.map((i) => i.path)).toEqual(["app_versions[1].id"]);
    const unsupported = expectError(await push(token, "app_versions=1", "text/plain"), 415, "unsupported_media_type");
    expect(unsupported.message).toContain("application/xml");
    expectError(await push(token, json({ app_versions: [] }), ""), 415, "unsupported_media_type");

    expect(await centralState()).toEqual(before);
  });
});

describe("push size", () => {
  it("10,000 app versions are stored in one batch; more is 413 and changes nothing", async () => {
    const { id, token } = await issueCentralToken("big");
    const versions = (n: number) => Array.from({ length: n }, (_, i) => reported(i + 1, `app${i % 50}`, i % 2 ? "cuda_big" : ""));
    const stored = await push(token, json({ app_versions: versions(10_000) }));
    expect(stored.body).toMatchObject({ app_versions: 10_000 });
    const before = await centralState();
    expectError(await push(token, json({ app_versions: versions(10_001) })), 413, "too_large");
    expectError(await push(token, appVersionsPhp(versions(10_001)), "application/xml"), 413, "too_large");
    expect(await centralState()).toEqual(before);
    const n = await env.DB.prepare("SELECT count(*) AS n FROM central_contributions WHERE contributor_id = ?")
      .bind(id)
      .first<{ n: number }>();
    expect(n!.n).toBe(10_000);
  });
});
