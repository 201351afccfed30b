/**
 * Findings 2, 3, 5, 6 and 9 of the outside review (issue 36), and the newcomer's messages of
 * issue 37: each reproduced as the review describes it, with what should happen instead.
 */
import { env } from "cloudflare:workers";
import { XMLValidator } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import { TEXT_LIMITS } from "../../src/limits";
import { MAX_CPID_ROWS } from "../../src/routes/cpid/cpid.schemas";
import { expectError, issueAt, pass, result, setupProject, workunit } from "../support/api-helpers";
import { PLAN_CLASS_CRON, STATS_CRON, clockNow, getRaw, issueCentralToken, push, reported, runCron } from "../central/helpers";
import { ADMIN_TOKEN, createProject, rawRequest, request } from "../support/api";
import type { RequestBody } from "../support/api-types";
import { runCron as runMinuteCron } from "../support/cron";

/** What XML 1.0 refuses: a C0 control, U+FFFF, U+FFFE, a lone surrogate. */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

async function gunzip(res: Response): Promise<string> {
  return new Response(res.body!.pipeThrough(new DecompressionStream("gzip"))).text();
}

/** A real XML parser's verdict, with its message when it refuses. */
function expectWellFormedXml(xml: string, what: string): void {
  const verdict = XMLValidator.validate(xml);
  expect(verdict === true ? true : JSON.stringify(verdict), what).toBe(true);
  expect(NOT_XML.test(xml), what).toBe(false);
}

const MINUTE_CRON = "* * * * *";

describe("36.2: characters XML does not allow", () => {
  it("are refused at input with a 400 naming the field, on every stored string", async () => {
    const { api } = await setupProject("ctl");
    const refused = async <P extends string>(path: P, body: RequestBody<"PUT", `/v1/projects/${string}${P}`>, field: string) => {
      const error = expectError(await api.raw("PUT", path, body), 400, "validation_failed");
      expect(issueAt(error, field).message).toContain("XML does not allow");
    };
    await refused("/users/7", { name: "bad\u0001name\u000c]]>" }, "name");
    await refused("/teams/3", { name: "team\u0008\uffff" }, "name");
    await refused("/hosts/10", { cpid: "h\u0002cpid" }, "cpid");
    await refused("/hosts/11", { name: "lone \ud800 surrogate" }, "name");
    await refused("/app-versions/9", { app: "a", platform: "linux", plan_class: "cuda_\u0001evil", version_num: 1 }, "plan_class");
    await refused("/app-versions/9", { app: "a", platform: "linux\ufffe", plan_class: "", version_num: 1 }, "platform");
    // Tab, LF and CR are XML's own; any script is fine.
    await api.ok("PUT", "/users/8", { name: "tab\there ünï 🚀" });
    const bad = pass(workunit(1, [result(1)]));
    bad.workunits[0]!.app = "a\u0007";
    // A pass's app is a reference to a registered app, not stored: an unknown one.
    expectError(await api.raw("POST", "/passes", bad), 404, "not_found");
    const contributor = await request("POST", "/v1/central/contributors", { token: ADMIN_TOKEN, body: { name: "x\u0000y" } });
    expect(issueAt(expectError(contributor, 400, "validation_failed"), "name").message).toContain("XML does not allow");
  });

  it("rows stored before the check never reach an export, the plan-class feed or a page unparseable", async () => {
    const { slug, api } = await setupProject("ctl-old");
    await api.ok("PUT", "/users/7", { name: "was bad", cpid: "0123456789abcdef0123456789abcdef" });
    await api.ok("PUT", "/teams/3", { name: "was bad too" });
    await api.ok("PUT", "/hosts/10", { cpid: "fedcba9876543210fedcba9876543210", user_id: 7 });
    await api.ok("POST", "/passes", { ...pass(workunit(1, [result(1, { host_id: 10, user_id: 7, team_id: 3 })])), now: clockNow() });
    // What an older deployment may hold: written straight to D1, as the review's requests once were.
    const [{ id }] = (await env.DB.prepare("SELECT id FROM projects WHERE slug = ?").bind(slug).all<{ id: number }>()).results as [
      { id: number },
    ];
    await env.DB.batch([
      env.DB.prepare("UPDATE users SET name = ? WHERE project_id = ? AND id = 7").bind("bad\u0001name\u000c]]>", id),
      env.DB.prepare("UPDATE teams SET name = ? WHERE project_id = ? AND id = 3").bind("team\u0008\uffff", id),
      env.DB.prepare("UPDATE hosts SET host_cpid = ?, name = ? WHERE project_id = ? AND id = 10").bind("h\u0002cpid", "box\u001b", id),
    ]);
    await runCron(STATS_CRON, clockNow());
    for (const file of ["user.gz", "team.gz", "host.gz"]) {
      const res = await getRaw(`/v1/projects/${slug}/stats/${file}`);
      expect(res.status, file).toBe(200);
      const xml = await gunzip(res);
      expectWellFormedXml(xml, file);
      expect(xml).toContain("\uFFFD");
    }
    // The pages, after the minute cron wrote the snapshots.
    await runMinuteCron(MINUTE_CRON, Date.now());
    for (const page of [`/p/${slug}/users/7`, `/p/${slug}/teams/3`, `/p/${slug}/hosts/10`]) {
      const res = await rawRequest("GET", page);
      expect(res.status, page).toBe(200);
      expect(NOT_XML.test(String(res.body)), page).toBe(false);
    }
  });

  it("a GPU plan class stored with a control character leaves /v1/plan-classes?format=xml well-formed", async () => {
    const T = clockNow();
    const contributor = await issueCentralToken("ctl-feed");
    const pushed = await push(
      contributor.token,
      JSON.stringify({
        app_versions: [reported(1, "ctlapp", "", { expavg_time: T }), reported(2, "ctlapp", "cuda_evil", { expavg_time: T })],
      }),
    );
    expect(pushed.status, JSON.stringify(pushed.body)).toBe(200);
    await env.DB.prepare("UPDATE central_contributions SET plan_class = ? WHERE plan_class = 'cuda_evil'").bind("cuda_\u0001evil").run();
    await runCron(PLAN_CLASS_CRON, T);
    const res = await getRaw("/v1/plan-classes?format=xml");
    expect(res.status).toBe(200);
    const xml = await res.text();
    expectWellFormedXml(xml, "plan-classes xml");
    expect(xml).toContain("cuda_\uFFFDevil");
  });
});

describe("36.3: every stored string has a maximum", () => {
  it("plan_class and platform: BOINC's varchar(254), over it 400 naming the field", async () => {
    const { api } = await setupProject("long");
    const max = TEXT_LIMITS.boincName;
    expect(max).toBe(254);
    await api.ok("PUT", "/app-versions/9", { app: "a", platform: "p".repeat(max), plan_class: "c".repeat(max), version_num: 1 });
    for (const field of ["plan_class", "platform"] as const) {
      const body = { app: "a", platform: "linux", plan_class: "", version_num: 1, [field]: "x".repeat(max + 1) };
      const error = expectError(await api.raw("PUT", "/app-versions/10", body), 400, "validation_failed");
      expect(issueAt(error, field).message).toBe(`at most ${max} characters`);
    }
    // The review's 4.9 MB plan class: refused, and its echo bounded.
    const huge = { app: "a", platform: "linux", plan_class: "c".repeat(4_900_000), version_num: 1 };
    const res = await api.raw("PUT", "/app-versions/11", huge);
    expectError(res, 400, "validation_failed");
    expect(JSON.stringify(res.body).length).toBeLessThan(2000);
    // Names, a project's name; a pass's app is a reference (an unknown one is 404).
    expectError(await api.raw("PUT", "/users/1", { name: "n".repeat(max + 1) }), 400, "validation_failed");
    const long = pass(workunit(1, [result(1)]));
    long.workunits[0]!.app = "a".repeat(max + 1);
    expectError(await api.raw("POST", "/passes", long), 404, "not_found");
    const project = await request("POST", "/v1/projects", {
      token: ADMIN_TOKEN,
      body: { slug: "long-name", name: "n".repeat(TEXT_LIMITS.displayName + 1) },
    });
    expect(issueAt(expectError(project, 400, "validation_failed"), "name").message).toBe(`at most ${TEXT_LIMITS.displayName} characters`);
  });
});

describe("36.5: a volunteer who opted out of stats export", () => {
  it("has no cpid on any public read or page, nor their hosts' host_cpid", async () => {
    const { slug, api } = await setupProject("optout");
    const cpid = "5555456789abcdef0123456789abcdef";
    const hostCpid = "5555ba9876543210fedcba9876543210";
    await api.ok("PUT", "/users/8", { cpid, name: "Private" });
    await api.ok("PUT", "/hosts/80", { cpid: hostCpid, user_id: 8 });
    await api.ok("POST", "/passes", { ...pass(workunit(1, [result(1, { host_id: 80, user_id: 8 })])), now: clockNow() });
    await runMinuteCron(MINUTE_CRON, Date.now());
    // Consenting: shown.
    expect((await request("GET", `/v1/projects/${slug}/users/8`)).body).toMatchObject({ cpid });
    // The review's request: opting out.
    await api.ok("PUT", "/users/8", { cpid, stats_export: false });
    await runMinuteCron(MINUTE_CRON, Date.now());
    expectError(await request("GET", `/v1/cpid/${cpid}`), 404, "not_found");
    const user = await request("GET", `/v1/projects/${slug}/users/8`);
    expect(user.status).toBe(200);
    expect(user.body).toMatchObject({ id: 8, cpid: null });
    const host = await request("GET", `/v1/projects/${slug}/hosts/80`);
    expect(host.body).toMatchObject({ id: 80, host_cpid: null });
    for (const page of [`/p/${slug}/users/8`, `/p/${slug}/hosts/80`]) {
      const html = String((await rawRequest("GET", page)).body);
      expect(html, page).not.toContain(cpid);
      expect(html, page).not.toContain(hostCpid);
    }
    for (const key of [`p/${slug}/users/8`, `p/${slug}/hosts/80`]) {
      const stored = await env.KV.get(key);
      expect(stored, key).not.toBeNull();
      expect(stored, key).not.toContain(cpid);
      expect(stored, key).not.toContain(hostCpid);
    }
  });
});

describe("36.6: /v1/cpid/{cpid} does bounded work", () => {
  it("3,000 users and 3,000 hosts with one cpid: at most MAX_CPID_ROWS of each, the answer says more, and it is cached", async () => {
    const { slug, api } = await setupProject("crowd");
    const cpid = "00112233445566778899aabbccddeeff";
    for (let start = 1; start <= 3000; start += 1000) {
      const ids = Array.from({ length: 1000 }, (_, i) => start + i);
      await api.ok("POST", "/holders", {
        users: ids.map((id) => ({ id, cpid })),
        hosts: ids.map((id) => ({ id, cpid, user_id: id })),
      });
    }
    const res = await request("GET", `/v1/cpid/${cpid}`);
    expect(res.status).toBe(200);
    expect(res.body.projects).toHaveLength(MAX_CPID_ROWS);
    expect(res.body.hosts).toHaveLength(MAX_CPID_ROWS);
    expect(res.body).toMatchObject({ more_projects: true, more_hosts: true });
    // The first by project then id: users and hosts 1 … 100.
    expect(res.body.projects.map((p) => [p.project, p.user_id])).toEqual(Array.from({ length: MAX_CPID_ROWS }, (_, i) => [slug, i + 1]));
    // The review measured 945 KB; 200 rows of at most a few hundred bytes each.
    expect(JSON.stringify(res.body).length).toBeLessThan(100_000);
    // Kept a minute: a user added meanwhile is not read until then.
    await api.ok("PUT", "/users/3001", { cpid });
    expect((await request("GET", `/v1/cpid/${cpid}`)).body).toEqual(res.body);
    expect(res.headers?.get("cache-control")).toBe("public, max-age=60");
  }, 120_000);

  it("a user cpid is 32 hex digits", async () => {
    const { api } = await setupProject("cpid-hex");
    const error = expectError(await api.raw("PUT", "/users/1", { cpid: "0123" }), 400, "validation_failed");
    expect(issueAt(error, "cpid").message).toContain("32 hex digits");
  });
});

describe("36.9, 37.5: the messages a newcomer meets", () => {
  it("the 409 of an existing project says how to get a new token", async () => {
    const { slug } = await createProject("again");
    const again = await request("POST", "/v1/projects", { token: ADMIN_TOKEN, body: { slug, name: "Again" } });
    const error = expectError(again, 409, "conflict");
    expect(error.message).toContain(`POST /v1/projects/${slug}/tokens with the admin token`);
  });

  it("the admin token on a project route is told so", async () => {
    const { slug } = await setupProject("admin-here");
    const res = await request("GET", `/v1/projects/${slug}/app-versions`, { token: ADMIN_TOKEN });
    const error = expectError(res, 401, "unauthorized");
    expect(error.message).toContain("this is the admin token; project routes need the project's token");
    // Any other unknown token: as before.
    expect(expectError(await request("GET", `/v1/projects/${slug}/app-versions`, { token: "cbp_nope" }), 401).message).toBe(
      "invalid project token",
    );
  });

  it("a time in milliseconds is told times are Unix seconds", async () => {
    const { api } = await setupProject("millis");
    const error = expectError(await api.raw("PUT", "/users/1", { create_time: Date.now() }), 400, "validation_failed");
    expect(issueAt(error, "create_time").message).toContain("times are Unix seconds");
    const late = expectError(await api.raw("POST", "/passes", { ...pass(workunit(1, [result(1)])), now: Date.now() }), 400);
    expect(issueAt(late, "now").message).toContain("times are Unix seconds");
  });

  it("a missing required field says it is required", async () => {
    const { api } = await setupProject("missing");
    const error = expectError(await api.untyped("PUT", "/app-versions/9", { app: "a", platform: "linux", plan_class: "" }), 400);
    expect(issueAt(error, "version_num").message).toBe("required (number), but missing");
  });

  it("a method the path does not have names the methods it has (405, Allow)", async () => {
    const { slug, token } = await setupProject("method");
    const res = await rawRequest("POST", `/v1/projects/${slug}/users/1`, { token, body: { name: "x" } });
    expect(res.status).toBe(405);
    const allow = res.headers?.get("allow") ?? "";
    expect(allow.split(", ").sort()).toEqual(["GET", "PUT"]);
    expect(res.body).toEqual({
      error: { code: "method_not_allowed", message: `POST is not a method of /v1/projects/${slug}/users/1; it has ${allow}` },
    });
    // A path no route has is still 404.
    expectError(await rawRequest("GET", "/v1/nothing-here"), 404, "not_found");
  });
});
