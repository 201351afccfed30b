/**
 * Issue 24 findings 1 and 6: XML a volunteer can make its account manager forward (or a
 * contributor push) is refused with a 400 in the error shape naming the cause, never a 500;
 * and no error answer repeats its input without bound.
 */
import dynamicXml from "../fixtures/acct-mgr/boinc-7.20.5-dynamic.xml?raw";
import { describe, expect, it } from "vitest";
import { type ErrorDetail, NOW, expectError, result, setupProject, workunit } from "../support/api-helpers";
import { T0, createAm } from "../am/support";
import { issueCentralToken, push } from "../central/helpers";
import { request } from "../support/api";

/** What the error answers promise at most (SECURITY.md): per value, and per answer. */
const MAX_VALUE_CHARS = 300;
const MAX_ANSWER_BYTES = 8 * 1024;

function nested(depth: number, inner = "x"): string {
  return `${"<e>".repeat(depth)}${inner}${"</e>".repeat(depth)}`;
}

/** The client's request with `extra` inside <acct_mgr_request>, before its first <project>. */
const clientXml = (extra: string) => dynamicXml.replace("<project>", `${extra}\n<project>`);

async function rpcXml(am: { slug: string; token: string }, xml: string) {
  return request("POST", `/v1/am/${am.slug}/hosts/4/rpcs?user_id=7&now=${T0}`, {
    token: am.token,
    xml,
  });
}

function expectBounded(error: ErrorDetail, raw: unknown) {
  expect(new TextEncoder().encode(JSON.stringify(raw)).length).toBeLessThanOrEqual(MAX_ANSWER_BYTES);
  expect(error.message.length).toBeLessThanOrEqual(MAX_VALUE_CHARS);
  for (const i of error.issues ?? []) {
    expect(i.path.length).toBeLessThanOrEqual(MAX_VALUE_CHARS);
    expect(i.message.length).toBeLessThanOrEqual(MAX_VALUE_CHARS);
  }
}

describe("XML nested too deep", () => {
  it("the client's <acct_mgr_request> nested 101, 1,000 and ~490 KB deep → 400 xml_too_deep, nothing booked", async () => {
    const am = await createAm("xml");
    // Depth 100 counts <acct_mgr_request> too: 99 more levels inside it are still fine.
    expect((await rpcXml(am, clientXml(nested(99)))).status).toBe(200);
    const deepest = Math.floor((490 * 1024 - dynamicXml.length) / 7);
    for (const depth of [101, 1000, deepest]) {
      const res = await rpcXml(am, clientXml(nested(depth)));
      const error = expectError(res, 400, "xml_too_deep");
      expect(error.message).toContain("100");
      expectBounded(error, res.body);
    }
    // Nothing was booked: the host's log holds the one accepted RPC.
    const log = await request("GET", `/v1/am/${am.slug}/hosts/4/rpcs`, { token: am.token });
    expect(log.status).toBe(200);
    expect(log.body.rpcs).toHaveLength(1);
  });

  it("a central push nested 101 deep → 400 xml_too_deep", async () => {
    const { token } = await issueCentralToken(`deep-${Math.random()}`);
    const xml = `<app_versions><app_version>${nested(101, "1")}</app_version></app_versions>`;
    expectError(await push(token, xml, "application/xml"), 400, "xml_too_deep");
  });
});

describe("XML that is not well-formed", () => {
  it("an undefined entity reference (&x; without a DOCTYPE) → 400 naming it; the five XML entities and character references pass", async () => {
    const am = await createAm("xml");
    const bad = await rpcXml(am, clientXml("<domain_name>&x;</domain_name>"));
    const error = expectError(bad, 400, "xml_entities");
    expect(JSON.stringify(error)).toContain("&x;");
    const fine = await rpcXml(am, clientXml("<domain_name>a&amp;b&lt;&gt;&quot;&apos;&#65;&#x42;</domain_name>"));
    expect(fine.status, JSON.stringify(fine.body)).toBe(200);
  });

  it("an entity reference inside CDATA or a comment is text, not a reference", async () => {
    const am = await createAm("xml");
    const res = await rpcXml(am, clientXml("<domain_name><![CDATA[&x;]]></domain_name><!-- &y; -->"));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });
});

describe("error answers are bounded", () => {
  it("a 180 KB unclosed XML body → a 400 of a few KB, not the whole open-tag stack", async () => {
    const am = await createAm("xml");
    const open = `<acct_mgr_request>${"<abcdefghij>".repeat(15_000)}`;
    expect(open.length).toBeGreaterThan(180_000);
    const res = await rpcXml(am, open);
    expectBounded(expectError(res, 400), res.body);
  });

  it("a 200 KB app name → an error that repeats a few hundred characters of it", async () => {
    const p = await setupProject("big");
    const name = "n".repeat(200_000);
    // A well-formed pass naming an unknown app: the 404 names the app (a prefix of it).
    const res = await p.api.raw("POST", "/passes", { now: NOW, workunits: [workunit(1, [result(11)], { app: name })] });
    const error = expectError(res, 404, "not_found");
    expect(error.message).toContain("nnnn");
    expectBounded(error, res.body);
    const res2 = await p.api.raw("PUT", `/apps/${"m".repeat(20_000)}`, {});
    expectBounded(expectError(res2, res2.status), res2.body);
  });

  it("a thousand bad fields → at most a few KB of issues, saying how many were left out", async () => {
    const p = await setupProject("big");
    const res = await p.api.raw("POST", "/errors", {
      results: Array.from({ length: 1000 }, (_, i) => ({ id: i + 1, host_id: -1, app_version_id: 1, outcome: "error" as const })),
    });
    const error = expectError(res, 400, "validation_failed");
    expectBounded(error, res.body);
    expect(error.issues!.at(-1)!.message).toMatch(/\d+ more issues/);
  });
});
