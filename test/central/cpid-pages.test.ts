/**
 * GET /v1/cpid/{cpid} beyond its first page (docs/exports.md#volunteer-totals-by-cpid): a cpid
 * that many rows share is read MAX_CPID_ROWS accounts and hosts at a time by next_cursor, in
 * (project, id) order across databases; every page reads a bounded number of D1 rows, opted-out
 * rows included, and a second anonymous read of a page is served from the Cache API: no D1
 * row read, no KV write.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { MAX_CPID_ROWS } from "../../src/routes/cpid/cpid.schemas";
import { type Api, expectError, pass, result, setupProject, workunit } from "../support/api-helpers";
import { expectRel } from "../credit/close";
import { clockNow } from "./helpers";
import { callWith } from "../security/support";
import { type Meter, meteredD1, meteredKv } from "../support/metered";

const CPID = "c0ffee00c0ffee00c0ffee00c0ffee00";
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** An anonymous GET through bindings that count D1 rows read (every database) and KV writes. */
async function anonymous<P extends string>(path: P, headers: Record<string, string> = {}) {
  const meter: Meter = { rowsRead: 0, kvWrites: 0 };
  const bindings = { DB: meteredD1(env.DB, meter), DB_LARGE: meteredD1(env.DB_LARGE, meter), KV: meteredKv(env.KV, meter) };
  const res = await callWith(bindings, "GET", path, { headers });
  return { res, meter };
}

/** Every page of a cpid, by next_cursor, with what each cost. */
async function walk(cpid: string) {
  const pages = [];
  let path: `/v1/cpid/${string}` = `/v1/cpid/${cpid}`;
  for (;;) {
    const { res, meter } = await anonymous(path);
    expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(200);
    pages.push({ body: res.body, rowsRead: meter.rowsRead, kvWrites: meter.kvWrites, path });
    if (res.body.next_cursor === null) return pages;
    path = `/v1/cpid/${cpid}?cursor=${res.body.next_cursor}`;
  }
}

/** Registers users and hosts with `cpid`, a bulk request per 1,000. */
async function register(api: Api, cpid: string, users: { id: number; optedOut?: boolean }[], hosts: { id: number; owner: number }[]) {
  for (let i = 0; i < Math.max(users.length, hosts.length); i += 1000) {
    await api.ok("POST", "/holders", {
      users: users.slice(i, i + 1000).map((u) => ({ id: u.id, cpid, stats_export: !u.optedOut })),
      hosts: hosts.slice(i, i + 1000).map((h) => ({ id: h.id, cpid, user_id: h.owner })),
    });
  }
}

// Three projects, created in this order (so their ids rise), the middle one in a database of
// its own: each page is merged across the two databases.
let a = "";
let b = "";
let c = "";
let projectCount = 0;
/** The credit of a's user 5 (on page 1) and c's user 25 (on page 3); every other account has none. */
let credited: Record<number, number> = {};

beforeAll(async () => {
  const pa = await setupProject("cpid-pg-a");
  const pb = await setupProject("cpid-pg-b", { database: "DB_LARGE" });
  const pc = await setupProject("cpid-pg-c");
  [a, b, c] = [pa.slug, pb.slug, pc.slug];
  // a: users 1–150, every tenth opted out; hosts 1–150 owned by the same ids, host 151 by an unknown user.
  await register(
    pa.api,
    CPID,
    range(1, 150).map((id) => ({ id, optedOut: id % 10 === 0 })),
    range(1, 151).map((id) => ({ id, owner: id <= 150 ? id : 999 })),
  );
  // b: users 1–40, no host.
  await register(
    pb.api,
    CPID,
    range(1, 40).map((id) => ({ id })),
    [],
  );
  // c: users 1–30; hosts 1–60, of owners 1–60 (31–60 unknown to the project).
  await register(
    pc.api,
    CPID,
    range(1, 30).map((id) => ({ id })),
    range(1, 60).map((id) => ({ id, owner: id })),
  );
  const grant = async (api: Api, id: number) => {
    const res = await api.ok("POST", "/passes", { ...pass(workunit(id, [result(id, { host_id: id, user_id: id })])), now: clockNow() });
    return res.workunits[0]!.credit;
  };
  credited = { 1: await grant(pa.api, 5), 3: await grant(pc.api, 25) };
  projectCount = (await env.DB.prepare("SELECT count(*) AS n FROM projects").first<number>("n"))!;
}, 120_000);

/**
 * The most D1 rows one page may read (docs/public-reads.md): the registry's list of databases
 * (at most one row per project), then per database and list at most MAX_CPID_ROWS + 1 rows of
 * the cpid index, each with its table row, its project's row and (hosts) its owner's row.
 */
const pageBound = (databases: number) => projectCount + databases * 2 * (MAX_CPID_ROWS + 1) * 4;

describe("GET /v1/cpid/{cpid}: the rest by next_cursor", () => {
  it("walks every shown account and host once, in (project, id) order across databases, 100 read a page", async () => {
    const pages = await walk(CPID);
    // By hand: accounts a 1–150 (without the 15 multiples of 10), b 1–40, c 1–30: 220 rows read,
    // 205 shown. Hosts: a 1–151 (without the 15 of opted-out owners), c 1–60: 211 read, 196 shown.
    const accounts = [
      ...range(1, 150).flatMap((id) => (id % 10 === 0 ? [] : [[a, id]])),
      ...range(1, 40).map((id) => [b, id]),
      ...range(1, 30).map((id) => [c, id]),
    ];
    const hosts = [...range(1, 151).flatMap((id) => (id <= 150 && id % 10 === 0 ? [] : [[a, id]])), ...range(1, 60).map((id) => [c, id])];
    expect(pages.flatMap((p) => p.body.projects.map((r) => [r.project, r.user_id]))).toEqual(accounts);
    expect(pages.flatMap((p) => p.body.hosts.map((r) => [r.project, r.host_id]))).toEqual(hosts);
    // Pages of at most 100 rows read of each list (220 and 211 rows): page 1 a 1–100 (90 shown of each),
    // page 2 accounts a 101–150, b 1–40, c 1–10 (45 + 40 + 10) and hosts a 101–151, c 1–49
    // (46 + 49), page 3 accounts c 11–30 (20) and hosts c 50–60 (11).
    expect(pages.map((p) => [p.body.projects.length, p.body.hosts.length])).toEqual([
      [90, 90],
      [95, 95],
      [20, 11],
    ]);
    expect(pages.map((p) => [p.body.more_projects, p.body.more_hosts])).toEqual([
      [true, true],
      [true, true],
      [false, false],
    ]);
    pages.forEach((p, i) => {
      // Each page sums the accounts it lists: a's user 5 on page 1, c's user 25 on page 3.
      expectRel(p.body.total_credit, credited[i + 1] ?? 0);
      expect(p.body.total_credit).toBe(p.body.projects.reduce((sum, r) => sum + r.total_credit, 0));
      expect(p.rowsRead, p.path).toBeLessThanOrEqual(pageBound(2));
      expect(p.kvWrites, p.path).toBe(0);
    });
    expect(credited[1]).toBeGreaterThan(0);
    expect(credited[3]).toBeGreaterThan(0);
    console.log(`rows read per page of ${MAX_CPID_ROWS}: ${pages.map((p) => p.rowsRead).join(", ")} (bound ${pageBound(2)})`);
  });

  it("a second anonymous read of a page, first or later, reads no D1 row and writes no KV; If-None-Match gets 304", async () => {
    const pages = await walk(CPID);
    for (const page of pages) {
      const again = await anonymous(page.path);
      expect(again.res.status).toBe(200);
      expect(again.res.body, page.path).toEqual(page.body);
      expect(again.meter, page.path).toEqual({ rowsRead: 0, kvWrites: 0 });
      expect(again.res.headers!.get("Cache-Control")).toBe("public, max-age=60");
      const etag = again.res.headers!.get("ETag")!;
      expect(etag).toMatch(/^W\/"/);
      const revalidated = await anonymous(page.path, { "If-None-Match": etag });
      expect(revalidated.res.status).toBe(304);
      expect(revalidated.meter).toEqual({ rowsRead: 0, kvWrites: 0 });
    }
  });

  it("opted-out rows count toward the rows a page reads: 250 of them ahead of the one shown cost three bounded pages", async () => {
    const { slug, api } = await setupProject("cpid-pg-hidden");
    const hidden = "0ff0ff0ff0ff0ff0ff0ff0ff0ff0ff0f";
    await register(
      api,
      hidden,
      range(1, 251).map((id) => ({ id, optedOut: id <= 250 })),
      [],
    );
    const pages = await walk(hidden);
    // Read 100, 100, 51: the first two show nobody yet answer 200 with the way on, not 404.
    expect(pages.map((p) => p.body.projects.map((r) => r.user_id))).toEqual([[], [], [251]]);
    expect(pages[2]!.body.projects[0]!.project).toBe(slug);
    for (const p of pages) expect(p.rowsRead, p.path).toBeLessThanOrEqual(pageBound(2));
    // Only everyone opted out, nothing further: 404.
    await register(
      api,
      "0ff0ff0ff0ff0ff0ff0ff0ff0ff0ff0e",
      range(300, 310).map((id) => ({ id, optedOut: true })),
      [],
    );
    expectError((await anonymous("/v1/cpid/0ff0ff0ff0ff0ff0ff0ff0ff0ff0ff0e")).res, 404, "not_found");
  });

  it("a 404 is not kept: a cpid answers as soon as a project registers it", async () => {
    const { slug, api } = await setupProject("cpid-pg-new");
    const fresh = "abcdef0123456789abcdef0123456789";
    const missing = await anonymous(`/v1/cpid/${fresh}`);
    expectError(missing.res, 404, "not_found");
    // Not kept, but cheap: the registry's projects, then per database and list at most the one
    // index entry past where the cpid would be.
    const projects = (await env.DB.prepare("SELECT count(*) AS n FROM projects").first<number>("n"))!;
    expect(missing.meter.rowsRead).toBeLessThanOrEqual(projects + 2 * 2);
    expect(missing.meter.kvWrites).toBe(0);
    console.log(`rows read by a 404: ${missing.meter.rowsRead} (${projects} projects in the registry)`);
    await api.ok("PUT", "/users/5", { cpid: fresh });
    const found = await anonymous(`/v1/cpid/${fresh}`);
    expect(found.res.status).toBe(200);
    expect(found.res.body.projects).toMatchObject([{ project: slug, user_id: 5 }]);
    expect(found.res.body.next_cursor).toBeNull();
  });

  it("a cursor not given out by the API is a 400 naming it", async () => {
    for (const cursor of ["x", btoa("[null,null]"), btoa("[[1],null]"), btoa('{"a":1}'), "A".repeat(200)]) {
      const { res } = await anonymous(`/v1/cpid/${CPID}?cursor=${encodeURIComponent(cursor)}`);
      const error = expectError(res, 400, "validation_failed");
      expect([...new Set(error.issues!.map((i) => i.path))], cursor).toEqual(["cursor"]);
    }
  });
});
