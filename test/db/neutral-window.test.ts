/**
 * The neutrality window's SQL forms agree with its TypeScript forms, against real D1: the
 * sample added in the pass's host_app_versions UPDATE (built by the pass's own writer), and
 * the window the central job reads at a time t.
 */
import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { NEUTRALITY } from "../../src/credit/parameters";
import { EMPTY_NEUTRAL_WINDOW, type NeutralWindow, addNeutralSample, neutralWindowAt } from "../../src/credit/neutrality-window";
import type { HostAppVersionChange } from "../../src/credit/pass";
import { runBatch } from "../../src/db/batch";
import { database } from "../../src/db/client";
import { neutralColumnRefs } from "../../src/db/neutral-rows";
import { hostAppVersionChangeWrites } from "../../src/db/host-app-version-writes";
import { neutralWindowRead } from "../../src/db/stat-updates";
import { relativeError } from "../support/trace";

const db = database(env.DB);
const PROJECT = 1;
let nextHost = 500_000;

async function freshRow(): Promise<number> {
  await env.DB.prepare("INSERT OR IGNORE INTO projects (id, slug, name, created_at) VALUES (?, 'twins', 'twins', 0)").bind(PROJECT).run();
  const hostId = ++nextHost;
  await env.DB.prepare("INSERT INTO host_app_versions (project_id, host_id, app_id, app_version_id) VALUES (?, ?, 1, 1)")
    .bind(PROJECT, hostId)
    .run();
  return hostId;
}

/** The neutral-window columns of a host_app_versions row, as `SELECT *` reads them. */
interface NeutralRow {
  neutral_period: number;
  neutral_credit: number;
  neutral_device_seconds: number;
  neutral_results: number;
  neutral_prev_credit: number;
  neutral_prev_device_seconds: number;
  neutral_prev_results: number;
}

function toWindow(r: NeutralRow | null): NeutralWindow {
  if (r === null) throw new Error("no host_app_versions row");
  return {
    period: r.neutral_period,
    current: { credit: r.neutral_credit, deviceSeconds: r.neutral_device_seconds, results: r.neutral_results },
    previous: { credit: r.neutral_prev_credit, deviceSeconds: r.neutral_prev_device_seconds, results: r.neutral_prev_results },
  };
}

const close = (a: number, b: number) => a === b || relativeError(a, b) <= 1e-12;

describe("neutrality window: the pass's UPDATE agrees with addNeutralSample", () => {
  // Periods around 700 (2027): the same, the next, two on, and late ones, interleaved on two rows.
  const sample = fc.record({
    second: fc.boolean(),
    period: fc.integer({ min: 697, max: 703 }),
    credit: fc.double({ min: 0, max: 1e4, noNaN: true }),
    deviceSeconds: fc.double({ min: 0, max: 1e6, noNaN: true }),
    results: fc.integer({ min: 1, max: 3 }),
    withSample: fc.boolean(),
  });
  it("for sequences of changes, some without a sample", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(sample, { minLength: 1, maxLength: 30 }), async (seq) => {
        const ids = [await freshRow(), await freshRow()];
        const expected = new Map(ids.map((id) => [id, EMPTY_NEUTRAL_WINDOW]));
        const changes: HostAppVersionChange[] = seq.map((s) => {
          const hostId = ids[s.second ? 1 : 0]!;
          const neutral = { period: s.period, credit: s.credit, deviceSeconds: s.deviceSeconds, results: s.results };
          if (s.withSample) expected.set(hostId, addNeutralSample(expected.get(hostId)!, neutral));
          return { hostId, appId: 1, appVersionId: 1, samples: {}, consecutiveValid: "increment", ...(s.withSample ? { neutral } : {}) };
        });
        await runBatch(db, hostAppVersionChangeWrites(PROJECT, changes));
        for (const id of ids) {
          const got = toWindow(await env.DB.prepare("SELECT * FROM host_app_versions WHERE host_id = ?").bind(id).first<NeutralRow>());
          const want = expected.get(id)!;
          expect(got.period).toBe(want.period);
          for (const bucket of ["current", "previous"] as const) {
            for (const f of ["credit", "deviceSeconds", "results"] as const) {
              expect(close(got[bucket][f], want[bucket][f]), `${bucket}.${f}: ${got[bucket][f]} vs ${want[bucket][f]}`).toBe(true);
            }
          }
        }
      }),
      { numRuns: 25 },
    );
  });
});

describe("neutrality window: the job's read agrees with neutralWindowAt", () => {
  it("at times in the stored period, the next, and later", async () => {
    const id = await freshRow();
    await env.DB.prepare(
      `UPDATE host_app_versions SET neutral_period = 700, neutral_credit = 12.5, neutral_device_seconds = 3600, neutral_results = 3,
        neutral_prev_credit = 40, neutral_prev_device_seconds = 7200, neutral_prev_results = 8 WHERE host_id = ?`,
    )
      .bind(id)
      .run();
    const w = toWindow(await env.DB.prepare("SELECT * FROM host_app_versions WHERE host_id = ?").bind(id).first<NeutralRow>());
    for (const t of [699.5, 700, 700.1, 700.999, 701, 701.4, 702, 703.2].map((p) => p * NEUTRALITY.periodSeconds)) {
      const r = neutralWindowRead.sql(neutralColumnRefs(), t);
      const q = db.all<{ c: number; d: number; n: number }>(
        sql`SELECT ${r.credit} AS c, ${r.deviceSeconds} AS d, ${r.results} AS n FROM host_app_versions WHERE host_id = ${id}`,
      );
      const [got] = await q;
      const want = neutralWindowAt(w, t);
      expect(close(got!.c, want.credit), `credit at ${t}`).toBe(true);
      expect(close(got!.d, want.deviceSeconds), `device-seconds at ${t}`).toBe(true);
      expect(close(got!.n, want.results), `results at ${t}`).toBe(true);
    }
  });
});
