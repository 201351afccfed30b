/**
 * A project's holders read live from D1 instead of from KV snapshots (docs/public-reads.md,
 * Holder reads): passes then mark only the project, the cron writes no holder key, and a
 * public read shows the ledger's numbers. Turning snapshots back on never serves a key taken
 * before that moment.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { expectError, setupProject } from "../support/api-helpers";
import { ADMIN_TOKEN, createProject, rawRequest, request } from "../support/api";
import type { components } from "../support/api-types";
import { runCron } from "../support/cron";
import { daysAgo, passFor } from "./fixtures";

const publicGet = <P extends string>(slug: string, path: P) => request("GET", `/v1/projects/${slug}${path}`);
const setReads = (slug: string, holder_reads: components["schemas"]["SetHolderReads"]["holder_reads"], token = ADMIN_TOKEN) =>
  request("PUT", `/v1/projects/${slug}/holder-reads`, { token, body: { holder_reads } });

/** The subjects queued for the KV refresh of `slug`, as [subject, id] pairs. */
async function marksOf(slug: string): Promise<[string, number][]> {
  const { results } = await env.DB.prepare(
    `SELECT j.value AS pair FROM kv_marks, json_each(kv_marks.subjects) AS j
     WHERE project_id = (SELECT id FROM projects WHERE slug = ?) ORDER BY kv_marks.id`,
  )
    .bind(slug)
    .all<{ pair: string }>();
  return results.map((r) => JSON.parse(r.pair));
}

/** The total credit in a holder's KV snapshot, or null when there is no key. */
async function keptTotal(slug: string, path: string): Promise<number | null> {
  const held = await env.KV.get(`p/${slug}${path}`);
  return held === null ? null : (JSON.parse(held) as { data: { total_credit: number } }).data.total_credit;
}

describe("holder reads: KV snapshots or live from D1", () => {
  it("a project read live marks only itself, gets no holder key from the cron, and is read from D1", async () => {
    const { slug, api } = await setupProject("live");
    const who = { host: 20, user: 20, team: 4 };
    // Marked while snapshots were on: the cron must clear these without writing them.
    await api.ok("POST", "/passes", passFor(daysAgo(3), 1, who));
    expect(await marksOf(slug)).toContainEqual(["user", 20]);

    const set = await setReads(slug, "live");
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ slug, holder_reads: "live", snapshots_since: null });
    expect((await api.raw("GET", "/holder-reads")).body).toEqual(set.body);

    const before = await marksOf(slug);
    await api.ok("POST", "/passes", passFor(daysAgo(2), 2, who));
    // The second pass queued its project only (the first pass's rows stay as they were).
    expect((await marksOf(slug)).slice(before.length)).toEqual([["project", 0]]);

    await runCron();
    expect(await marksOf(slug)).toEqual([]);
    for (const path of ["/hosts/20", "/users/20", "/teams/4"]) expect(await env.KV.get(`p/${slug}${path}`)).toBeNull();
    expect(await env.KV.get(`p/${slug}`)).not.toBeNull(); // the project's own snapshot is still written

    for (const path of ["/hosts/20", "/users/20", "/teams/4"] as const) {
      const [live, ledger] = [await publicGet(slug, path), await api.ok("GET", path)];
      expect(live.status).toBe(200);
      for (const f of ["total_credit", "expavg_credit", "expavg_time"] as const) expect(live.body[f]).toBe(ledger[f]);
    }
  });

  it("turning snapshots back on serves no key taken before, and the cron's next ones again", async () => {
    const { slug, api } = await setupProject("back");
    const who = { host: 30, user: 30 };
    await api.ok("POST", "/passes", passFor(daysAgo(3), 1, who));
    await runCron();
    const first = await keptTotal(slug, "/hosts/30");
    expect(first).toBe((await api.ok("GET", "/hosts/30")).total_credit);

    expect((await setReads(slug, "live")).status).toBe(200);
    await api.ok("POST", "/passes", passFor(daysAgo(2), 2, who));
    await runCron();
    expect(await keptTotal(slug, "/hosts/30")).toBe(first); // left as it was: no longer refreshed
    const second = (await api.ok("GET", "/hosts/30")).total_credit;
    expect(second).toBeGreaterThan(first!);

    const back = await setReads(slug, "snapshots");
    expect(back.status).toBe(200);
    expect(back.body.holder_reads).toBe("snapshots");
    expect(back.body.snapshots_since).toBeGreaterThan(Date.now() / 1000 - 60);
    // KV still holds the first total, taken before snapshots_since: the read goes to D1.
    expect((await publicGet(slug, "/hosts/30")).body.total_credit).toBe(second);

    await api.ok("POST", "/passes", passFor(daysAgo(1), 3, who));
    await runCron();
    const third = (await api.ok("GET", "/hosts/30")).total_credit;
    expect(third).toBeGreaterThan(second);
    expect(await keptTotal(slug, "/hosts/30")).toBe(third);
    // The fresh key is served (the D1 answer kept in the colo's cache is not asked first).
    const served = await publicGet(slug, "/hosts/30");
    expect(served.body.total_credit).toBe(third);
    expect(served.body.snapshot_time).toBeGreaterThanOrEqual(back.body.snapshots_since as number);

    // Setting the current value again changes nothing.
    expect((await setReads(slug, "snapshots")).body).toEqual(back.body);
  });

  it("is set at creation, only by the operator, and refuses what it does not know", async () => {
    const { slug, token } = await createProject("born-live", { holder_reads: "live" });
    const read = await request("GET", `/v1/projects/${slug}/holder-reads`, { token });
    expect(read.body).toEqual({ slug, holder_reads: "live", snapshots_since: null });

    const unknown = expectError(
      await rawRequest("PUT", `/v1/projects/${slug}/holder-reads`, { token: ADMIN_TOKEN, body: { holder_reads: "sometimes" } }),
      400,
    );
    expect(unknown.issues?.map((i) => i.path)).toEqual(["holder_reads"]);
    expectError(await setReads(slug, "snapshots", token), 401);
    expectError(
      await rawRequest("PUT", `/v1/projects/${slug}/holder-reads`, { token: ADMIN_TOKEN, body: { holder_reads: "live", extra: 1 } }),
      400,
    );
    expectError(await setReads("no-such-project", "live"), 404);
    // Nothing of the refused requests was applied.
    expect((await request("GET", `/v1/projects/${slug}/holder-reads`, { token })).body).toEqual(read.body);

    expectError(
      await rawRequest("POST", "/v1/projects", { token: ADMIN_TOKEN, body: { slug: "born-odd", name: "x", holder_reads: "kv" } }),
      400,
    );
  });
});
