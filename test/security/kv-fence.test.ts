/**
 * The KV refresh never writes a snapshot older than one KV holds: a run superseded by a newer
 * one (overlapping cron runs) stops writing and keeps its marks.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { refreshSnapshots } from "../../src/jobs/kv-refresh";
import { setupProject, validPass } from "../support/api-helpers";

const snapshotOf = async (key: string) => JSON.parse((await env.KV.get(key))!) as { taken_at: number; data: { total_credit: number } };

describe("KV refresh fence", () => {
  it("a run that loaded before a newer run wrote does not write its older snapshots over the newer ones", async () => {
    const { slug, api } = await setupProject("fence");
    const key = `p/${slug}/hosts/10`;
    await api.ok("POST", "/passes", validPass(1, 10));
    const older = Date.now() / 1000;
    const newer = older + 1;

    let newerRun: Awaited<ReturnType<typeof refreshSnapshots>> | undefined;
    // Run "older" loads its snapshots; before it writes, another pass lands and run "newer"
    // loads and writes. (The hook is the older run's fence check, just before its writes.)
    const racingDb = new Proxy(env.DB, {
      get(target, prop) {
        if (prop === "prepare") {
          return (query: string) => {
            const stmt = target.prepare(query);
            if (!/^select .*kv_refresh_fence/i.test(query)) return stmt;
            const race = async () => {
              if (newerRun !== undefined) return;
              await api.ok("POST", "/passes", validPass(2, 10));
              newerRun = await refreshSnapshots(env, newer);
            };
            const hook = (s: D1PreparedStatement): D1PreparedStatement => {
              const bind = s.bind.bind(s);
              s.bind = (...v: unknown[]) => hook(bind(...v));
              for (const m of ["first", "all", "raw", "run"] as const) {
                const original = (s[m] as (...a: unknown[]) => Promise<unknown>).bind(s);
                Reflect.set(s, m, async (...a: unknown[]) => (await race(), original(...a)));
              }
              return s;
            };
            return hook(stmt);
          };
        }
        const value = Reflect.get(target, prop);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const olderRun = await refreshSnapshots({ ...env, DB: racingDb }, older);

    expect(newerRun!.written).toBeGreaterThan(0);
    expect(olderRun.superseded).toBe(true);
    expect(olderRun.written).toBe(0);
    const held = await snapshotOf(key);
    expect(held.taken_at).toBe(newer);
    // Both passes are in the snapshot KV holds (the older run had only the first).
    const credited = await api.raw("GET", "/hosts/10", undefined, undefined);
    expect(held.data.total_credit).toBe(credited.body.total_credit);
    const first = (await api.ok("POST", "/passes", validPass(1, 10))).workunits[0]!.results;
    const second = (await api.ok("POST", "/passes", validPass(2, 10))).workunits[0]!.results;
    const sum = [...first, ...second].reduce((s: number, r) => s + r.granted_credit, 0);
    expect(held.data.total_credit).toBeCloseTo(sum, 9);
  });

  it("a run older than the last one writes nothing and keeps its marks for the next current run", async () => {
    const { slug, api } = await setupProject("late");
    const key = `p/${slug}/hosts/10`;
    const t = Date.now() / 1000;
    await refreshSnapshots(env, t);
    await api.ok("POST", "/passes", validPass(1, 10));
    const late = await refreshSnapshots(env, t - 30);
    expect(late).toMatchObject({ written: 0, superseded: true });
    expect(late.left).toBeGreaterThan(0);
    expect(await env.KV.get(key)).toBeNull();

    const current = await refreshSnapshots(env, t + 1);
    expect(current.superseded).toBe(false);
    expect((await snapshotOf(key)).taken_at).toBe(t + 1);
  });

  it("a fence left far in the future by a hand-run with a made-up time does not stop the real runs", async () => {
    const { slug, api } = await setupProject("future");
    const t = Date.now() / 1000;
    await refreshSnapshots(env, t + 86400);
    await api.ok("POST", "/passes", validPass(1, 10));
    const real = await refreshSnapshots(env, t + 2);
    expect(real.superseded).toBe(false);
    expect((await snapshotOf(`p/${slug}/hosts/10`)).taken_at).toBe(t + 2);
  });
});
