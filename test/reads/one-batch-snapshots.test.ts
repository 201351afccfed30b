/**
 * A snapshot shows a total, a RAC and a history side by side: read in several statements, a
 * pass committing between them would show a total from before it and a RAC from after. Each
 * snapshot is read in one D1 batch (one transaction), so all of it comes from one moment.
 */
import { opener } from "../../src/db/project-db";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { database } from "../../src/db/client";
import { loadHolderSnapshots } from "../../src/snapshots/holders";
import { HOLDER_KINDS } from "../../src/snapshots/keys";
import { loadProjectSnapshot } from "../../src/snapshots/project";
import { historyFromDay } from "../../src/snapshots/public-project";
import { setupProject } from "../support/api-helpers";
import { daysAgo, passFor } from "./fixtures";
import { projectIdOf } from "../support/project-id";

/** The real D1, counting how many times it is asked: batches and single statements. */
function countingD1(real: D1Database) {
  const asked = { batches: 0, singles: 0 };
  const unwrapped = new WeakMap<object, D1PreparedStatement>();
  const wrap = (stmt: D1PreparedStatement): D1PreparedStatement => {
    const proxy = new Proxy(stmt, {
      get(target, prop) {
        if (prop === "bind") return (...values: unknown[]) => wrap(target.bind(...values));
        const value = Reflect.get(target, prop, target);
        if (typeof value !== "function") return value;
        if (prop === "all" || prop === "run" || prop === "first" || prop === "raw") {
          return (...args: unknown[]) => {
            asked.singles++;
            return value.apply(target, args);
          };
        }
        return value.bind(target);
      },
    });
    unwrapped.set(proxy, stmt);
    return proxy;
  };
  const db = new Proxy(real, {
    get(target, prop) {
      if (prop === "prepare") return (query: string) => wrap(target.prepare(query));
      if (prop === "batch") {
        return (stmts: D1PreparedStatement[]) => {
          asked.batches++;
          return target.batch(stmts.map((s) => unwrapped.get(s) ?? s));
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { db, asked };
}

describe("snapshots are read in one D1 batch", () => {
  it("a host's, a user's, a team's and the project's snapshot each cost exactly one batch and no other statement", async () => {
    const { slug, api } = await setupProject("onebatch");
    await api.ok("POST", "/passes", passFor(daysAgo(2), 1, { host: 70, user: 70, team: 7 }));
    await api.ok("POST", "/passes", passFor(daysAgo(0), 2, { host: 70, user: 70, team: 7 }));
    const projectId = await projectIdOf(slug);
    const fromDay = historyFromDay(daysAgo(0));
    const ids = { hosts: 70, users: 70, teams: 7 };

    for (const kind of HOLDER_KINDS) {
      const { db, asked } = countingD1(env.DB);
      const loaded = await loadHolderSnapshots(database(db), projectId, kind, [ids[kind]], fromDay, opener(env));
      expect(loaded.get(ids[kind])!.history.buckets.length, kind).toBeGreaterThan(0);
      expect(asked, kind).toEqual({ batches: 1, singles: 0 });
    }
    const { db, asked } = countingD1(env.DB);
    const project = await loadProjectSnapshot(database(db), slug, fromDay, opener(env));
    expect(project!.history.buckets.length).toBeGreaterThan(0);
    expect(project!.total_credit).toBeGreaterThan(0);
    expect(asked).toEqual({ batches: 1, singles: 0 });
    // An unknown slug: still one batch, and no snapshot.
    const none = countingD1(env.DB);
    expect(await loadProjectSnapshot(database(none.db), "no-such-project", fromDay, opener(env))).toBeNull();
    expect(none.asked).toEqual({ batches: 1, singles: 0 });
  });
});
