/**
 * Every string field the API stores, fed control characters, characters XML does not allow,
 * markup, any script and lengths around its maximum (docs/limits.md#strings): a string XML 1.0
 * refuses or one over the maximum is a 400 naming the field and writes nothing; any other is
 * taken. Then every XML output (the stats exports, the plan-class feed) is parsed by a real
 * XML parser.
 */
import fc from "fast-check";
import { XMLValidator } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import { TEXT_LIMITS } from "../../src/limits";
import { issuePaths, errorOf, pass, result, setupProject, workunit } from "../support/api-helpers";
import { PLAN_CLASS_CRON, STATS_CRON, clockNow, getRaw, runCron } from "../central/helpers";
import { ADMIN_TOKEN, rawRequest, request } from "../support/api";
import { T0, createAm, rpcBody, totals } from "../am/support";
import { runs, seed } from "./config";
import { expectWellFormed, projectIdOf, projectRows } from "./ledger";

const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

/** One character at a time: C0 controls, non-characters, lone surrogates, markup, other scripts. */
const pieceArb = fc.constantFrom(
  "\u0000",
  "\u0001",
  "\u0002",
  "\u0008",
  "\u000b",
  "\u000c",
  "\u001b",
  "\u001f",
  "\u007f",
  "\ufffe",
  "\uffff",
  "\ud800",
  "\udfff",
  "\t",
  "\n",
  "\r",
  "a",
  "Z",
  " ",
  "é",
  "ß",
  "名",
  "🚀",
  "<",
  ">",
  "&",
  "]]>",
  '"',
  "'",
  "&#1;",
);
const textArb = fc.oneof(
  fc.array(pieceArb, { maxLength: 12 }).map((parts) => parts.join("")),
  fc.string({ unit: "binary", maxLength: 16 }),
  fc.constantFrom(63, 64, 65, 199, 200, 201, 253, 254, 255, 513, 100_000).map((n) => "x".repeat(n)),
  fc.tuple(fc.constantFrom(253, 254), pieceArb).map(([n, piece]) => "y".repeat(n) + piece),
  // Hex strings around a cpid's 32 digits, either case, some with a piece inside.
  fc.tuple(fc.constantFrom(31, 32, 33), fc.boolean(), fc.option(pieceArb)).map(([n, upper, piece]) => {
    const hex = "0123456789abcdef".repeat(3).slice(0, n);
    const cased = upper ? hex.toUpperCase() : hex;
    return piece === null ? cased : cased.slice(1) + piece;
  }),
);

interface Field {
  /** Where the string goes: method, path (of the project unless `admin`), body. */
  request: (text: string, n: number) => { method: string; path: string; body: unknown; admin?: boolean };
  /** The issue path that names it. */
  issue: string;
  max: number;
  min?: number;
  /** The form every value must have (beside the length and characters XML allows). */
  form?: RegExp;
}

const FIELDS: Record<string, Field> = {
  "user name": {
    request: (s, n) => ({ method: "PUT", path: `/users/${n}`, body: { name: s } }),
    issue: "name",
    max: TEXT_LIMITS.boincName,
  },
  "team name": {
    request: (s, n) => ({ method: "PUT", path: `/teams/${n}`, body: { name: s } }),
    issue: "name",
    max: TEXT_LIMITS.boincName,
  },
  "host name": {
    request: (s, n) => ({ method: "PUT", path: `/hosts/${n}`, body: { name: s } }),
    issue: "name",
    max: TEXT_LIMITS.boincName,
  },
  "host cpid": {
    request: (s, n) => ({ method: "PUT", path: `/hosts/${n}`, body: { cpid: s } }),
    issue: "cpid",
    max: TEXT_LIMITS.cpid,
    form: /^[0-9a-fA-F]{32}$/,
  },
  "bulk host cpid": {
    request: (s, n) => ({ method: "POST", path: "/holders", body: { hosts: [{ id: n, cpid: s }] } }),
    issue: "hosts[0].cpid",
    max: TEXT_LIMITS.cpid,
    form: /^[0-9a-fA-F]{32}$/,
  },
  "user cpid": {
    request: (s, n) => ({ method: "PUT", path: `/users/${n}`, body: { cpid: s } }),
    issue: "cpid",
    max: TEXT_LIMITS.cpid,
    form: /^[0-9a-fA-F]{32}$/,
  },
  "bulk user name": {
    request: (s, n) => ({ method: "POST", path: "/holders", body: { users: [{ id: n, name: s }] } }),
    issue: "users[0].name",
    max: TEXT_LIMITS.boincName,
  },
  platform: {
    request: (s, n) => ({ method: "PUT", path: `/app-versions/${n}`, body: { app: "a", platform: s, plan_class: "", version_num: 1 } }),
    issue: "platform",
    max: TEXT_LIMITS.boincName,
    min: 1,
  },
  plan_class: {
    request: (s, n) => ({
      method: "PUT",
      path: `/app-versions/${n}`,
      body: { app: "a", platform: "linux", plan_class: s, version_num: 1 },
    }),
    issue: "plan_class",
    max: TEXT_LIMITS.boincName,
  },
  "project name": {
    request: (s, n) => ({ method: "POST", path: "/v1/projects", body: { slug: `fz-str-${n}`, name: s }, admin: true }),
    issue: "name",
    max: TEXT_LIMITS.displayName,
    min: 1,
  },
  "contributor name": {
    request: (s) => ({ method: "POST", path: "/v1/central/contributors", body: { name: s }, admin: true }),
    issue: "name",
    max: TEXT_LIMITS.displayName,
    min: 1,
  },
};

const expectedRefused = (text: string, f: Field) =>
  NOT_XML.test(text) || text.length > f.max || text.length < (f.min ?? 0) || (f.form !== undefined && !f.form.test(text));

describe("fuzz: stored strings", () => {
  it(
    "control characters and long strings in every stored string field: refused naming the field, or taken; every XML output parses",
    { timeout: 600_000 },
    async () => {
      const { slug, token } = await setupProject("fz-str");
      const id = await projectIdOf(slug);
      let n = 1000;
      const seen = { refused: 0, taken: 0 };
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...Object.keys(FIELDS)), textArb, async (name, text) => {
          const field = FIELDS[name]!;
          const call = field.request(text, ++n);
          const before = await projectRows(id);
          const path = call.admin ? call.path : `/v1/projects/${slug}${call.path}`;
          const res = await rawRequest(call.method, path, { token: call.admin ? ADMIN_TOKEN : token, body: call.body });
          const what = `${name} ${JSON.stringify(text).slice(0, 80)} (${text.length})`;
          expectWellFormed(res.status, res.body, what);
          if (expectedRefused(text, field)) {
            expect(res.status, what).toBe(400);
            expect(issuePaths(errorOf(res)), what).toContain(field.issue);
            expect(await projectRows(id), what).toEqual(before);
            seen.refused++;
          } else {
            // Taken: stored, or refused for another reason (an app the project does not have), never for the string.
            if (res.status === 400) expect(issuePaths(errorOf(res)), what).not.toContain(field.issue);
            seen.taken++;
          }
        }),
        { seed: seed(7101), numRuns: runs(300) },
      );
      expect(seen.refused).toBeGreaterThan(0);
      expect(seen.taken).toBeGreaterThan(0);

      // Every XML output, with whatever was taken: the exports and the plan-class feed.
      await request("POST", `/v1/projects/${slug}/passes`, {
        token,
        body: { ...pass(workunit(1, [result(1, { host_id: 1001 })])), now: clockNow() },
      });
      await runCron(STATS_CRON, clockNow());
      await runCron(PLAN_CLASS_CRON, clockNow());
      for (const file of ["user.gz", "team.gz", "host.gz", "tables.xml"]) {
        const res = await getRaw(`/v1/projects/${slug}/stats/${file}`);
        expect(res.status, file).toBe(200);
        const xml = file.endsWith(".gz")
          ? await new Response(res.body!.pipeThrough(new DecompressionStream("gzip"))).text()
          : await res.text();
        expect(XMLValidator.validate(xml), file).toBe(true);
      }
      // The account-manager reply: <account> elements the AM merges into its <acct_mgr_reply>.
      const am = await createAm("fz-str");
      const url = "https://fz-str.example/project/";
      await am.rpc(1, rpcBody(T0, [totals(url)]));
      const reply = await request("POST", `/v1/am/${am.slug}/hosts/1/rpcs`, {
        token: am.token,
        body: rpcBody(T0 + 3600, [totals(url, { cpu_ec: 10, cpu_time: 100 })]),
        headers: { Accept: "application/xml" },
      });
      expect(reply.status).toBe(200);
      expect(XMLValidator.validate(`<acct_mgr_reply>${String(reply.body)}</acct_mgr_reply>`), "account-manager reply").toBe(true);
      const feed = await getRaw("/v1/plan-classes?format=xml");
      if (feed.status === 200) expect(XMLValidator.validate(await feed.text()), "plan-classes xml").toBe(true);
      else expect(feed.status).toBe(404);
    },
  );
});
