/**
 * The project-neutrality index end to end: projects post passes as a validator does, each
 * host_app_versions row keeps its window, the daily job joins hosts across projects (and
 * databases) by host_cpid, and GET /v1/central/neutrality answers from KV.
 *
 * Hand computation. Host h (1 … 40) takes e_h = 1800 + 60·h seconds per job in every project
 * (a host effect the fit must remove), 10 jobs per project, credit_mode "fixed":
 *   A: 1 CPU,  10 credit a job  → 10 / e_h credit per CPU-second
 *   B: 2 CPUs, 40 credit a job  → 40 / (2 e_h) = 20 / e_h          (twice A)
 *   C: 1 CPU,  10 credit a job  → 10 / e_h      (C lives in DB_LARGE)
 *   D: 1 CPU,  30 credit a job, on hosts 1 … 5 only (5 < 20 connecting hosts)
 * ln of it = ln(1/e_h) + ln(pay): effects ln 10, ln 20, ln 10; centred on the median (ln 10)
 * A 1, B 2, C 1. Pairs: A/B 0.5, A/C 1, B/C 2 on 40 hosts; pairs with D: 5 hosts, no ratio.
 * Device-hours of A: Σ 10·e_h / 3600 = 10·(40·1800 + 60·820) / 3600 = 1,212,000 / 3600.
 * GPU (plan class cuda) on hosts 1 … 20 in A (40 a job) and B (10 a job), 1800 s each: A pays
 * 4 × B, so centred on the median of two, A 2 and B 0.5; the CPU indices stay as above.
 * Left out: host 41 (p_fpops 1e9, BOINC's default benchmark) and anonymous-platform results
 * on hosts 1 … 40 in B paying 1000 a job, both would move B if counted.
 */
import { describe, expect, it } from "vitest";
import { expectRel } from "../credit/close";
import { expectError } from "../support/api-helpers";
import { request, createProject, typedClient } from "../support/api";
import type { components } from "../support/api-types";
import { clockNow, getRaw, runCron } from "./helpers";
import { getPage } from "../web/html";

const NEUTRALITY_CRON = "25 0 * * *";
type Api = ReturnType<typeof typedClient>;
type NeutralityClass = components["schemas"]["Neutrality"]["classes"][number];

async function project(prefix: string, database?: string) {
  const { slug, token } = await createProject(prefix, database ? { database } : {});
  const api = typedClient(slug, token);
  await api.ok("PUT", "/apps/a", { credit_mode: "fixed" });
  await api.ok("PUT", "/app-versions/1", { app: "a", platform: "linux", plan_class: "", version_num: 1 });
  await api.ok("PUT", "/app-versions/2", { app: "a", platform: "linux", plan_class: "cuda", version_num: 1 });
  return { slug, api };
}

/** Host h's exported host_cpid: 32 hex digits, as BOINC makes one, the same in every project. */
const hostCpid = (h: number) => `ae${h.toString(16).padStart(30, "0")}`;

/** Each project numbers its hosts its own way: only host_cpid says they are the same machine. */
async function attach(api: Api, offset: number, hosts: number[], pFpops = 3e9) {
  for (const h of hosts) await api.ok("PUT", `/hosts/${offset + h}`, { cpid: hostCpid(h), p_fpops: pFpops });
}

const elapsedOf = (h: number) => 1800 + 60 * h;

interface Jobs {
  offset: number;
  hosts: number[];
  credit: number;
  devices?: number;
  version?: number;
  elapsed?: (h: number) => number;
}

/** 10 workunits per host, one valid result each, all posted in one pass. */
async function run(api: Api, firstWu: number, j: Jobs, now: number) {
  const workunits = j.hosts.flatMap((h, i) =>
    Array.from({ length: 10 }, (_, k) => {
      const id = firstWu + i * 10 + k;
      const elapsed = (j.elapsed ?? elapsedOf)(h);
      return {
        id,
        app: "a",
        rsc_fpops_est: 3e12,
        rsc_fpops_bound: 3e13,
        target_nresults: 1,
        canonical_credit: j.credit,
        results: [
          {
            id,
            host_id: j.offset + h,
            user_id: 0,
            team_id: 0,
            app_version_id: j.version ?? 1,
            elapsed_time: elapsed,
            cpu_time: elapsed,
            flops_estimate: 3e9,
            sent_time: now - 2 * elapsed,
            received_time: now - 60,
            validate_state: "valid" as const,
            ...(j.devices === undefined ? {} : { devices: j.devices }),
          },
        ],
      };
    }),
  );
  await api.ok("POST", "/passes", { now, workunits });
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe("GET /v1/central/neutrality", () => {
  it("before the job's first run: no classes", async () => {
    const res = await request("GET", "/v1/central/neutrality");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ as_of: null, window_days: 30, classes: [] });
  });

  it("is declared in /openapi.json, with a result's devices", async () => {
    const { body } = await request("GET", "/openapi.json");
    const get = body.paths["/v1/central/neutrality"]!.get;
    expect(get!.security ?? []).toEqual([]);
    expect(Object.keys(get!.responses)).toEqual(expect.arrayContaining(["200", "304"]));
    expect(Object.keys(body.components.schemas.Neutrality!.properties!)).toEqual(["as_of", "window_days", "classes"]);
    expect(body.components.schemas.Result!.properties!.devices!.exclusiveMinimum).toBe(0);
  });

  it("a result's devices must be a positive number: 400, nothing written", async () => {
    const p = await project("neutral-bad");
    for (const devices of [0, -1, "2"]) {
      const res = await p.api.untyped("POST", "/passes", {
        workunits: [
          {
            id: 1,
            app: "a",
            rsc_fpops_est: 3e12,
            rsc_fpops_bound: 3e13,
            target_nresults: 1,
            canonical_credit: 1,
            results: [
              {
                id: 1,
                host_id: 1,
                user_id: 0,
                team_id: 0,
                app_version_id: 1,
                elapsed_time: 100,
                cpu_time: 100,
                flops_estimate: 3e9,
                sent_time: 1000,
                received_time: 2000,
                validate_state: "valid",
                devices,
              },
            ],
          },
        ],
      });
      const err = expectError(res, 400, "validation_failed");
      expect(err.issues?.map((i) => i.path)).toEqual(["workunits[0].results[0].devices"]);
    }
    const hav = await p.api.ok("GET", "/host-app-versions?host_id=1");
    expect(hav.host_app_versions).toEqual([]);
  });

  it(
    "three projects on 40 shared hosts, one paying twice per CPU-hour: 2.0 and 1.0; a fourth on 5 hosts: insufficient overlap; GPU apart",
    { timeout: 180_000 },
    async () => {
      // Mid-period (the previous 30-day period's middle, in the past): the window holds it whole.
      const T = 30 * 86400;
      const now = Math.floor((Math.floor(clockNow() / T) - 0.5) * T);
      const A = await project("neutral-a");
      const B = await project("neutral-b");
      const C = await project("neutral-c", "DB_LARGE");
      const D = await project("neutral-d");
      const forty = range(1, 40);
      await attach(A.api, 100, [...forty]);
      await attach(B.api, 200, [...forty]);
      await attach(C.api, 300, [...forty]);
      await attach(D.api, 400, range(1, 5));
      // Host 41 reports BOINC's default benchmark in every project and would make B pay 50 × A.
      for (const [p, offset] of [
        [A, 100],
        [B, 200],
        [C, 300],
      ] as const)
        await attach(p.api, offset, [41], 1e9);

      await run(A.api, 1, { offset: 100, hosts: forty, credit: 10 }, now);
      await run(A.api, 10_001, { offset: 100, hosts: [41], credit: 10 }, now);
      await run(A.api, 20_001, { offset: 100, hosts: range(1, 20), credit: 40, version: 2, elapsed: () => 1800 }, now);
      await run(B.api, 1, { offset: 200, hosts: forty, credit: 40, devices: 2 }, now);
      await run(B.api, 10_001, { offset: 200, hosts: [41], credit: 1000, devices: 2 }, now);
      await run(B.api, 20_001, { offset: 200, hosts: range(1, 20), credit: 10, version: 2, elapsed: () => 1800 }, now);
      // Anonymous platform (-2, CPU): its own build, left out.
      await run(B.api, 30_001, { offset: 200, hosts: forty, credit: 1000, version: -2 }, now);
      await run(C.api, 1, { offset: 300, hosts: forty, credit: 10 }, now);
      await run(C.api, 10_001, { offset: 300, hosts: [41], credit: 10 }, now);
      await run(D.api, 1, { offset: 400, hosts: range(1, 5), credit: 30 }, now);

      await runCron(NEUTRALITY_CRON, now);
      const res = await request("GET", "/v1/central/neutrality");
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.as_of).toBe(now);
      expect(res.body.classes.map((c) => c.class)).toEqual(["cpu", "nvidia"]);
      // Exactly these two, as just checked.
      const [cpu, gpu] = res.body.classes as [NeutralityClass, NeutralityClass];
      const of = (cls: NeutralityClass, p: { slug: string }) => cls.projects.find((x) => x.slug === p.slug);
      expect(cpu.projects.map((x) => x.slug).sort()).toEqual([A.slug, B.slug, C.slug, D.slug].sort());

      for (const [p, want] of [
        [A, 1],
        [B, 2],
        [C, 1],
      ] as const) {
        const x = of(cpu, p);
        expect(x!.status).toBe("fitted");
        expect(Math.abs(x!.index! / want - 1)).toBeLessThanOrEqual(0.05);
        expect(x!.low).toBeLessThanOrEqual(x!.index!);
        expect(x!.high).toBeGreaterThanOrEqual(x!.index!);
        expect(x!.hosts).toBe(40); // not host 41
      }
      // Exact, as computed above (no noise in these jobs).
      expectRel(of(cpu, A)!.index!, 1, 1e-9);
      expectRel(of(cpu, B)!.index!, 2, 1e-9);
      expectRel(of(cpu, A)!.device_hours, 1_212_000 / 3600, 1e-12);
      // B's jobs used 2 CPUs each: twice the device-hours of A's on the same hosts.
      expectRel(of(cpu, B)!.device_hours, (2 * 1_212_000) / 3600, 1e-12);
      expect(of(cpu, D)).toEqual({
        slug: D.slug,
        status: "insufficient overlap",
        index: null,
        low: null,
        high: null,
        hosts: 5,
        device_hours: expect.any(Number),
      });

      const pair = (cls: NeutralityClass, x: { slug: string }, y: { slug: string }) => {
        const found = cls.pairs.find((p) => (p.a === x.slug && p.b === y.slug) || (p.a === y.slug && p.b === x.slug));
        return found!.a === x.slug ? found : { ...found, ratio: found!.ratio === null ? null : 1 / found!.ratio };
      };
      for (const [x, y, want] of [
        [A, B, 0.5],
        [A, C, 1],
        [B, C, 2],
      ] as const) {
        const p = pair(cpu, x, y);
        expect(p!.hosts).toBe(40);
        expect(Math.abs(p!.ratio! / want - 1)).toBeLessThanOrEqual(0.05);
      }
      for (const x of [A, B, C]) expect(pair(cpu, x, D)).toMatchObject({ ratio: null, hosts: 5 });

      // The GPU class: only A and B, their own indices, on their 20 hosts.
      expect(gpu.projects.map((x) => x.slug).sort()).toEqual([A.slug, B.slug].sort());
      expectRel(of(gpu, A)!.index!, 2, 1e-9);
      expectRel(of(gpu, B)!.index!, 0.5, 1e-9);
      expect(of(gpu, A)!.hosts).toBe(20);
      expectRel(pair(gpu, A, B)!.ratio!, 4, 1e-9);

      // Served with cache validators; the same ETag answers 304.
      const first = await getRaw("/v1/central/neutrality");
      const again = await exportsFetch("/v1/central/neutrality", { "If-None-Match": first.headers.get("ETag")! });
      expect(again.status).toBe(304);

      // The central page draws a bar per project with its interval; each project page shows its own index.
      const page = await getPage("/central/neutrality");
      expect(page.status).toBe(200);
      expect(page.html).toContain(`data-project="${B.slug}"`);
      expect(page.html).toContain("insufficient overlap");
      const own = await getPage(`/p/${B.slug}`);
      expect(own.html).toContain('id="neutrality"');
      expect(own.html).toMatch(/data-name="neutrality_index">2\.00</);
    },
  );
});

async function exportsFetch(path: string, headers: Record<string, string>): Promise<Response> {
  const { exports } = await import("cloudflare:workers");
  return exports.default.fetch(`http://cobblestone.test${path}`, { headers });
}
