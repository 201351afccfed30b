/**
 * The BOINC client's own account-manager XML on the RPC route. The fixtures are what Debian's
 * boinc-client 7.20.5 sent to a stub account manager, byte for byte: before the stub's reply
 * set <dynamic>1</dynamic> (no lifetime totals) and after it (totals present). Host: 2 CPUs,
 * no GPU, one project http://127.0.0.1:18765/proj/.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import dynamicXml from "../fixtures/acct-mgr/boinc-7.20.5-dynamic.xml?raw";
import staticXml from "../fixtures/acct-mgr/boinc-7.20.5-static.xml?raw";
import { errorOf } from "../support/api-helpers";
import { request } from "../support/api";
import { HOUR, T0, createAm } from "./support";

const PROJECT = "http://127.0.0.1:18765/proj/";
const PASSWORD_HASH = "871c429757b7a0bf1654fad112b77bd4";

/** The dynamic fixture with other lifetime totals (the client prints them with %f and %d). */
function withTotals(xml: string, t: { cpu_ec: number; cpu_time: number; njobs_success: number }): string {
  return xml
    .replace("<cpu_ec>0.000000</cpu_ec>", `<cpu_ec>${t.cpu_ec.toFixed(6)}</cpu_ec>`)
    .replace("<cpu_time>0.000000</cpu_time>", `<cpu_time>${t.cpu_time.toFixed(6)}</cpu_time>`)
    .replace("<njobs_success>0</njobs_success>", `<njobs_success>${t.njobs_success}</njobs_success>`);
}

async function postXml(am: { slug: string; token: string }, hostId: number, xml: string, query: `?${string}`, accept = "application/json") {
  return request("POST", `/v1/am/${am.slug}/hosts/${hostId}/rpcs${query}`, {
    token: am.token,
    xml,
    headers: { Accept: accept },
  });
}

describe("the client's <acct_mgr_request> on POST /v1/am/{am}/hosts/{host_id}/rpcs", () => {
  it("books a 7.20 client's dynamic request like the JSON RPC: baseline first, then the clipped deltas", async () => {
    const am = await createAm();
    const first = await postXml(am, 4, dynamicXml, `?user_id=7&now=${T0}`);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.projects).toEqual([expect.objectContaining({ url: PROJECT, url_key: "127.0.0.1:18765/proj/", baseline: true })]);

    // One hour later: +600 credit, +7,200 s of CPU time, +3 jobs. The host has 2 CPUs (its
    // <p_ncpus>), so the hour allows 2 × 3,600 = 7,200 s (exactly used, not clipped) and
    // 2 × 100e9 × 3,600 × 200/86400e9 = 1,666.67 credit.
    const later = withTotals(dynamicXml, { cpu_ec: 600, cpu_time: 7200, njobs_success: 3 });
    const second = await postXml(am, 4, later, `?user_id=7&now=${T0 + HOUR}`);
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.body.projects[0]).toMatchObject({
      baseline: false,
      booked: { cpu_ec: 600, cpu_time: 7200, gpu_ec: 0, gpu_time: 0, njobs_success: 3, njobs_error: 0 },
      clips: [],
    });
    // A GPU-less host: 200 GPU seconds are clipped to 0 × 3,600.
    const gpu = later.replace("<gpu_time>0.000000</gpu_time>", "<gpu_time>200.000000</gpu_time>");
    const third = await postXml(am, 4, gpu, `?user_id=7&now=${T0 + 2 * HOUR}`);
    expect(third.body.projects[0]!.clips).toEqual([
      { field: "gpu_time", claimed: 200, booked: 0, rule: "device_time_over_interval", limit: 0 },
    ]);
  });

  it("answers Accept: application/xml with the host's <account> accounting elements", async () => {
    const am = await createAm();
    await postXml(am, 4, dynamicXml, `?user_id=7&now=${T0}`);
    const res = await postXml(
      am,
      4,
      withTotals(dynamicXml, { cpu_ec: 600, cpu_time: 7200, njobs_success: 3 }),
      `?user_id=7&now=${T0 + 11 * HOUR}`,
      "application/xml",
    );
    expect(res.status).toBe(200);
    expect(res.headers!.get("content-type")).toMatch(/^application\/xml/);
    // user_avg_ec: BOINC's update_average with nothing before: the 600 credits booked today
    // over the 11 hours since the day began, 600 / (11/24) = 1,309.09… a day.
    const avg = 600 / (11 / 24);
    expect(res.body).toBe(
      [
        "<account>",
        `   <url>${PROJECT}</url>`,
        "   <user_total_ec>600</user_total_ec>",
        `   <user_avg_ec>${avg}</user_avg_ec>`,
        "   <cpu_ec>600</cpu_ec>",
        "   <cpu_time>7200</cpu_time>",
        "   <gpu_ec>0</gpu_ec>",
        "   <gpu_time>0</gpu_time>",
        "   <njobs_success>3</njobs_success>",
        "   <njobs_error>0</njobs_error>",
        "</account>",
        "",
      ].join("\n"),
    );
  });

  it("records nothing for a request without the lifetime totals, and says why", async () => {
    const am = await createAm();
    const res = await postXml(am, 5, staticXml, `?user_id=7&now=${T0}`);
    expect(res.status).toBe(422);
    const error = errorOf(res);
    expect(error.code).toBe("no_accounting_fields");
    expect(error.message).toContain("<dynamic>1</dynamic>");
    expect(error.issues![0]!.path).toBe("acct_mgr_request.project[0]");
    const rpcs = await request("GET", `/v1/am/${am.slug}/hosts/5/rpcs`, { token: am.token });
    expect(rpcs.body.rpcs).toEqual([]);
  });

  it("never stores the password hash, the authenticator or anything else not needed for accounting", async () => {
    const am = await createAm();
    // A client logged in by authenticator sends <authenticator> first (7.20's format).
    const authenticator = "1234567_0123456789abcdef0123456789abcdef";
    const xml = dynamicXml.replace("<acct_mgr_request>\n", `<acct_mgr_request>\n   <authenticator>${authenticator}</authenticator>\n`);
    expect((await postXml(am, 6, xml, `?user_id=7&now=${T0}`)).status).toBe(200);
    for (const table of ["am_rpcs", "am_host_projects", "am_daily", "audit_log"]) {
      const { results } = await env.DB.prepare(`SELECT * FROM ${table}`).all();
      const text = JSON.stringify(results);
      expect(text).not.toContain(PASSWORD_HASH);
      expect(text).not.toContain(authenticator);
      expect(text).not.toContain("9396a1b20b45d49dd07d627693791ee5"); // host_cpid
      expect(text).not.toContain("AuthenticAMD");
    }
  });

  it("refuses XML with a DOCTYPE, entity declarations, over 100 projects, over the size limit, or malformed: 400 saying which", async () => {
    const am = await createAm();
    const project = dynamicXml.slice(dynamicXml.indexOf("   <project>"), dynamicXml.indexOf("</project>") + "</project>\n".length);
    const manyProjects = dynamicXml.replace(project, Array.from({ length: 101 }, (_, i) => project.replace("/proj/", `/p${i}/`)).join(""));
    const huge = dynamicXml.replace("<domain_name>vm</domain_name>", `<domain_name>${"x".repeat(600 * 1024)}</domain_name>`);
    const cases: [string, string, string][] = [
      [
        `<?xml version="1.0"?>\n<!DOCTYPE acct_mgr_request [<!ELEMENT a ANY>]>\n${dynamicXml.slice(dynamicXml.indexOf("<acct_mgr_request>"))}`,
        "xml_doctype",
        "DOCTYPE",
      ],
      [dynamicXml.replace("<acct_mgr_request>", '<!ENTITY lol "lol"><acct_mgr_request>'), "xml_entities", "entity"],
      [manyProjects, "too_many_projects", "101 <project>"],
      [huge, "xml_too_large", "over the limit"],
      [dynamicXml.replace("</project>", ""), "bad_request", "malformed XML"],
      ["<acct_mgr_reply></acct_mgr_reply>", "bad_request", "<acct_mgr_request>"],
    ];
    for (const [xml, code, says] of cases) {
      const res = await postXml(am, 7, xml, `?user_id=7&now=${T0}`);
      expect(res.status, code).toBe(400);
      const error = errorOf(res);
      expect(error.code).toBe(code);
      expect(error.message).toContain(says);
    }
    const noUser = await postXml(am, 7, dynamicXml, `?now=${T0}`);
    expect(noUser.status).toBe(400);
    expect(errorOf(noUser).issues![0]!.path).toBe("user_id");
    const rpcs = await request("GET", `/v1/am/${am.slug}/hosts/7/rpcs`, { token: am.token });
    expect(rpcs.body.rpcs).toEqual([]);
  });

  it("counts a host's GPUs from the <count> of each coprocessor in <coprocs>", async () => {
    const am = await createAm();
    // Two NVIDIA GPUs and one AMD GPU, as COPROCS::write_xml nests them.
    const gpus = (xml: string) =>
      xml.replace(
        "<coprocs>\n    </coprocs>",
        "<coprocs>\n<coproc_cuda>\n   <count>2</count>\n   <name>GeForce</name>\n</coproc_cuda>\n<coproc_ati>\n   <count>1</count>\n</coproc_ati>\n    </coprocs>",
      );
    await postXml(am, 8, gpus(dynamicXml), `?user_id=7&now=${T0}`);
    // One hour: 3 GPUs allow 3 × 3,600 = 10,800 GPU seconds; 12,000 are clipped to that.
    const res = await postXml(
      am,
      8,
      gpus(dynamicXml.replace("<gpu_time>0.000000</gpu_time>", "<gpu_time>12000.000000</gpu_time>")),
      `?user_id=7&now=${T0 + HOUR}`,
    );
    expect(res.body.projects[0]!.clips).toEqual([
      { field: "gpu_time", claimed: 12000, booked: 10800, rule: "device_time_over_interval", limit: 10800 },
    ]);
  });
});
