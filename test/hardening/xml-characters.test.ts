/**
 * Characters XML 1.0 does not allow (a C0 control, U+FFFE/U+FFFF, a lone surrogate) are refused
 * in every string the API stores, and rows stored before that check still leave every export,
 * the plan-class feed and every page well-formed.
 */
import { env } from "cloudflare:workers";
import { XMLValidator } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import { expectError, issueAt, pass, result, setupProject, workunit } from "../support/api-helpers";
import { PLAN_CLASS_CRON, STATS_CRON, clockNow, getRaw, issueCentralToken, push, reported, runCron } from "../central/helpers";
import { ADMIN_TOKEN, rawRequest, request } from "../support/api";
import type { RequestBody } from "../support/api-types";
import { runCron as runMinuteCron } from "../support/cron";
import { projectIdOf } from "../support/project-id";

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

describe("characters XML does not allow", () => {
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
    // What an older deployment may hold: written straight to D1, as such requests were once accepted.
    const id = await projectIdOf(slug);
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
