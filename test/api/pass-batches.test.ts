/**
 * POST /pass-batches: several passes in one request, each applied as POST /passes would apply
 * it (its own `now`, in order, atomic, exactly once); a batch refused part-way keeps the passes
 * before the refused one, and posting it again replays them and goes on.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { MAX_PASSES_PER_BATCH } from "../../src/routes/passes/pass-batches.schemas";
import { DAY, daysAgo, passFor } from "../reads/fixtures";
import { runCron } from "../support/cron";
import { type PassBody, expectError, issuePaths, setupProject } from "../support/api-helpers";

const who = { host: 10, user: 10 };
/** What is stored, without what depends on the moment of reading. */
const READ_TIME = new Set(["as_of", "snapshot_time", "recent_average_credit"]);
const stored = (body: unknown) => JSON.parse(JSON.stringify(body, (k, v) => (READ_TIME.has(k) ? undefined : v)));
const ledger = (h: { total_credit: number; expavg_credit: number; expavg_time: number }) => ({
  total_credit: h.total_credit,
  expavg_credit: h.expavg_credit,
  expavg_time: h.expavg_time,
});

describe("POST /pass-batches", () => {
  it("applies its passes in order, each with its own now, exactly as posted one by one", async () => {
    const t = daysAgo(20);
    const passes = [passFor(t, 1, who, 2), passFor(t + DAY, 3, who, 1), passFor(t + 2 * DAY, 4, who, 3)];
    const single = await setupProject("batch-single");
    const answers = [];
    for (const p of passes) answers.push(await single.api.ok("POST", "/passes", p));
    const batched = await setupProject("batch-many");
    const answer = await batched.api.ok("POST", "/pass-batches", { passes });
    expect(answer).toEqual({ passes: answers });
    expect(answer.passes.map((p) => p.now)).toEqual([t, t + DAY, t + 2 * DAY]);
    for (const path of ["/hosts/10", "/users/10", "/app-versions", "/host-app-versions?host_id=10"]) {
      expect(stored(await batched.api.ok("GET", path))).toEqual(stored(await single.api.ok("GET", path)));
    }
    // The same batch again: every result replayed, nothing credited twice.
    const before = ledger(await batched.api.ok("GET", "/users/10"));
    const again = await batched.api.ok("POST", "/pass-batches", { passes });
    expect(again.passes.flatMap((p) => p.workunits.map((w) => w.path))).toEqual(Array(6).fill("replayed"));
    expect(ledger(await batched.api.ok("GET", "/users/10"))).toEqual(before);
  });

  it("queues a batch's per-app credit as one row and walks each app version's RAC once: the numbers of a pass each", async () => {
    const t = daysAgo(10);
    // Two users in two teams on two apps, across a day boundary, a user twice in a row.
    const onApp = (p: PassBody, version: number) => {
      for (const w of p.workunits) {
        w.app = version === 3 ? "g" : "a";
        for (const r of w.results) r.app_version_id = version;
      }
      return p;
    };
    const passes = [
      onApp(passFor(t, 1, { host: 11, user: 21, team: 31 }), 1),
      // Times that are not whole seconds: the walk reads them from JSON, a pass alone binds them.
      onApp(passFor(t + 600.3, 2, { host: 12, user: 22, team: 32 }), 3),
      onApp(passFor(t + DAY, 3, { host: 11, user: 21, team: 31 }, 2), 3),
      onApp(passFor(t + DAY + 5 + 1 / 3, 5, { host: 13, user: 21, team: 32 }), 1),
    ];
    const single = await setupProject("apps-single");
    for (const p of passes) await single.api.ok("POST", "/passes", p);
    const batched = await setupProject("apps-batch");
    await batched.api.ok("POST", "/pass-batches", { passes });
    const queueRows = async (slug: string) =>
      (await env.DB.prepare("SELECT count(*) AS n FROM app_credit_queue WHERE project_id = (SELECT id FROM projects WHERE slug = ?)")
        .bind(slug)
        .first<{ n: number }>())!.n;
    expect(await queueRows(single.slug)).toBe(4);
    expect(await queueRows(batched.slug)).toBe(1);
    const versions = await batched.api.ok("GET", "/app-versions");
    expect(versions.app_versions.filter((v) => v.expavg_credit > 0).map((v) => v.id)).toEqual([1, 3]);
    expect(stored(versions)).toEqual(stored(await single.api.ok("GET", "/app-versions")));

    await runCron("50 * * * *"); // the hourly fold
    expect(await queueRows(batched.slug)).toBe(0);
    for (const path of ["/users/21", "/users/22", "/teams/31", "/teams/32"] as const) {
      const [one, many] = [await single.api.ok("GET", path), await batched.api.ok("GET", path)];
      expect(many.apps.length).toBeGreaterThan(0);
      expect(stored(many.apps)).toEqual(stored(one.apps));
    }
  });

  it("checks every pass's shape and times before writing any: a bad later pass writes nothing", async () => {
    const { api } = await setupProject("batch-bad");
    const t = daysAgo(5);
    const late = passFor(t + 10, 2, who, 1);
    late.workunits[0]!.results[0]!.received_time = t + 10 + 3600;
    const error = expectError(await api.raw("POST", "/pass-batches", { passes: [passFor(t, 1, who, 1), late] }), 422, "received_after_now");
    expect(issuePaths(error)).toEqual(["passes[1].workunits[0].results[0].received_time"]);
    expect(error.message).toMatch(/^pass 1: .*no pass was applied/);
    const shape = expectError(await api.raw("POST", "/pass-batches", { passes: [passFor(t, 1, who, 1), { now: t, workunits: [] }] }), 400);
    expect(issuePaths(shape)).toEqual(["passes[1].workunits"]);
    expect((await api.raw("GET", "/hosts/10")).status).toBe(404);
  });

  it("a pass refused by what is stored keeps the passes before it; the same batch, mended, replays them and goes on", async () => {
    const { api } = await setupProject("batch-partial");
    const t = daysAgo(5);
    const unknownApp = passFor(t + 20, 3, who, 1);
    unknownApp.workunits[0]!.app = "nope";
    const passes = [passFor(t, 1, who, 1), passFor(t + 10, 2, who, 1), unknownApp, passFor(t + 30, 4, who, 1)];
    const error = expectError(await api.raw("POST", "/pass-batches", { passes }), 404, "not_found");
    expect(issuePaths(error)).toEqual(["passes[2].workunits[0].app"]);
    expect(error.message).toMatch(/^pass 2: unknown app 'nope'; passes 0 to 1 were applied .*pass 2 and the rest were not$/);
    // Passes 0 and 1: two workunits of two results each, credited; 2 and 3 not.
    const host = await api.ok("GET", "/hosts/10");
    expect(host.expavg_time).toBe(t + 10);
    unknownApp.workunits[0]!.app = "a";
    const mended = await api.ok("POST", "/pass-batches", { passes });
    expect(mended.passes.map((p) => p.workunits[0]!.path)).toEqual(["replayed", "replayed", "fresh", "fresh"]);
    expect((await api.ok("GET", "/hosts/10")).expavg_time).toBe(t + 30);
  });

  it("a later pass sees what the earlier ones of its batch decided: a repeat is replayed, other content a 409 for that pass", async () => {
    const { api } = await setupProject("batch-inner");
    const t = daysAgo(5);
    const first = passFor(t, 1, who, 1);
    // Result 11 again at t + 20 with another elapsed time: other content.
    const changed = { ...structuredClone(first), now: t + 20 };
    changed.workunits[0]!.results[0]!.elapsed_time += 1;
    const passes = [first, passFor(t + 10, 2, who, 1), first, changed, passFor(t + 30, 3, who, 1)];
    const error = expectError(await api.raw("POST", "/pass-batches", { passes }), 409, "conflict");
    expect(issuePaths(error)).toEqual(["passes[3].workunits[0].results[0]"]);
    expect(error.message).toMatch(/^pass 3: .*passes 0 to 2 were applied/);
    // Passes 0 to 2 written (pass 2 a replay of pass 0, adding nothing); 3 and 4 not.
    const host = await api.ok("GET", "/hosts/10");
    expect(host.expavg_time).toBe(t + 10);
    const again = await api.ok("POST", "/pass-batches", { passes: [first, passes[1]!, first] });
    expect(again.passes.map((p) => p.workunits[0]!.path)).toEqual(["replayed", "replayed", "replayed"]);
    expect(ledger(await api.ok("GET", "/hosts/10"))).toEqual(ledger(host));
    // The same three passes posted one by one into another project leave the same host.
    const single = await setupProject("batch-inner-single");
    for (const p of [first, passes[1]!, first]) await single.api.ok("POST", "/passes", p);
    expect(stored(await single.api.ok("GET", "/hosts/10"))).toEqual(stored(host));
  });

  it(`bounds a batch: at most ${MAX_PASSES_PER_BATCH} passes and 1000 workunits in all`, async () => {
    const { api } = await setupProject("batch-bounds");
    const t = daysAgo(5);
    const many = Array.from({ length: MAX_PASSES_PER_BATCH + 1 }, (_, i) => passFor(t + i, 1 + i, who, 1));
    // Past an array's bound is "too large", as for every list of the API.
    expect(issuePaths(expectError(await api.raw("POST", "/pass-batches", { passes: many }), 413, "too_large"))).toEqual(["passes"]);
    const big = [passFor(t, 1, who, 600), passFor(t + 1, 601, who, 401)];
    const error = expectError(await api.raw("POST", "/pass-batches", { passes: big }), 400, "validation_failed");
    expect(error.issues).toEqual([{ path: "passes", message: "1001 workunits in all; at most 1000 per batch" }]);
    expectError(await api.raw("POST", "/pass-batches", { passes: [] }), 400, "validation_failed");
    expect((await api.raw("GET", "/hosts/10")).status).toBe(404);
  });
});
