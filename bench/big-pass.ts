/**
 * `npx tsx bench/big-pass.ts`: the largest pass and pass batch the API accepts, at the
 * documented maxima (docs/limits.md, docs/api.md: 1,000 results a workunit, 1,000 workunits
 * a pass or batch, 50 passes a batch, a 5 MiB body), every result on ONE app version (its
 * PFC walk has every sample), through `wrangler dev` on a fresh state. Meanwhile a second
 * project of the same D1 database posts one-result passes one after another: their latency
 * is what the big write costs everyone else. Shapes:
 *   - a pass of results on distinct new hosts (each creates a host, user, host_app_version);
 *   - a pass of results all on one host (one host_app_version changed by every result);
 *   - a batch of 50 passes filling the body.
 * Each figure is the client's time for the whole request (validation, snapshot, engine, write).
 * Then the same requests again through the Worker's own pass code on wrangler's local D1
 * (big-pass-d1.ts): D1's own durations of the write batch's statements, i.e. how long the
 * request holds the database, which every other project of it waits behind.
 */
import { createServer } from "node:net";
import { MAX_BODY_BYTES } from "../src/app";
import { MAX_PASSES_PER_BATCH } from "../src/routes/passes/pass-batches.schemas";
import { MAX_RESULTS_PER_PASS, MAX_WORKUNITS_PER_PASS } from "../src/routes/passes/passes.schemas";
import { ADMIN_TOKEN, freshStateDir, prepareState, startServer } from "./server";
import { percentile, postJson } from "./client";
import type { WorkunitBody } from "./workload";
import { type BigRequest, d1WriteBatches } from "./big-pass-d1";

const NOW = Math.floor(Date.now() / 1000) - 3600;
const APP = "big";
const VERSION = 1;
const RESULTS_PER_WORKUNIT = 1000;
const RESULTS_PER_PASS = MAX_RESULTS_PER_PASS;
const WORKUNITS_PER_PASS = MAX_WORKUNITS_PER_PASS;
const PASSES_PER_BATCH = MAX_PASSES_PER_BATCH;

let nextId = 1;

/** A workunit of `n` valid results; `host(j)` picks result j's host (its user is the host's id, its team one of 100). */
function workunit(n: number, host: (j: number) => number): WorkunitBody {
  const id = nextId++;
  return {
    id,
    app: APP,
    rsc_fpops_est: 1e13,
    rsc_fpops_bound: 1e14,
    target_nresults: 2,
    results: Array.from({ length: n }, (_, j) => {
      const h = host(j);
      return {
        id: id * RESULTS_PER_WORKUNIT + j,
        host_id: h,
        user_id: h,
        team_id: 1 + (h % 100),
        app_version_id: VERSION,
        elapsed_time: 2000 + (j % 97) * 13.5,
        cpu_time: 1900 + (j % 89) * 11.25,
        flops_estimate: 4e9 + (j % 7) * 1e8,
        sent_time: NOW - 90_000 - j,
        received_time: NOW - 600 + (j % 500),
        validate_state: "valid",
      };
    }),
  };
}

const bytes = (body: unknown) => Buffer.byteLength(JSON.stringify(body));

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

async function project(url: string, slug: string): Promise<string> {
  const { token } = await postJson(url, "/v1/projects", ADMIN_TOKEN, { slug, name: slug });
  await postJson(url, `/v1/projects/${slug}/apps/${APP}`, token, {}, "PUT");
  await postJson(
    url,
    `/v1/projects/${slug}/app-versions/${VERSION}`,
    token,
    { app: APP, platform: "x86_64-pc-linux-gnu", plan_class: "", version_num: 100 },
    "PUT",
  );
  return token;
}

export interface BigPassRow {
  readonly shape: string;
  readonly results: number;
  readonly bodyMiB: number;
  readonly ms: number;
  /** The other project's one-result passes that overlapped the big request. */
  readonly small: { readonly count: number; readonly p50: number; readonly max: number };
}

/** Posts `body` while a one-result pass of the other project runs again and again; times both. */
async function measure(url: string, shape: string, path: string, token: string, body: unknown, other: string): Promise<BigPassRow> {
  const results = JSON.stringify(body).match(/"validate_state"/g)?.length ?? 0;
  const small: number[] = [];
  let running = true;
  const background = (async () => {
    while (running) {
      const t = performance.now();
      await postJson(url, "/v1/projects/other/passes", other, { now: NOW, workunits: [workunit(1, () => 9_000_000)] });
      small.push(performance.now() - t);
    }
  })();
  await new Promise((r) => setTimeout(r, 50));
  const t = performance.now();
  await postJson(url, path, token, body);
  const ms = performance.now() - t;
  running = false;
  await background;
  small.sort((a, b) => a - b);
  return {
    shape,
    results,
    bodyMiB: bytes(body) / 2 ** 20,
    ms,
    small: { count: small.length, p50: percentile(small, 50), max: small.at(-1) ?? 0 },
  };
}

/** The requests, in order (later ones reuse the hosts earlier ones created). */
export function bigRequests(): BigRequest[] {
  nextId = 1;
  let host = 1;
  const pass = (wus: WorkunitBody[]) => ({ now: NOW, workunits: wus });
  const wide = RESULTS_PER_PASS / RESULTS_PER_WORKUNIT;
  const perWu = RESULTS_PER_PASS / WORKUNITS_PER_PASS;
  const requests: BigRequest[] = [
    {
      shape: `a pass of ${wide} workunits × ${RESULTS_PER_WORKUNIT} results, distinct new hosts`,
      route: "passes",
      body: pass(Array.from({ length: wide }, () => workunit(RESULTS_PER_WORKUNIT, () => host++))),
    },
    {
      shape: `a pass of ${wide} workunits × ${RESULTS_PER_WORKUNIT} results, one host`,
      route: "passes",
      body: pass(Array.from({ length: wide }, () => workunit(RESULTS_PER_WORKUNIT, () => 5_000_000))),
    },
  ];
  const first = host;
  requests.push({
    shape: `a pass of ${WORKUNITS_PER_PASS} workunits × ${perWu} results, new hosts`,
    route: "passes",
    body: pass(Array.from({ length: WORKUNITS_PER_PASS }, () => workunit(perWu, () => host++))),
  });
  // The same hosts again: every host_app_version a change in each of its workunits.
  requests.push({
    shape: `a pass of ${WORKUNITS_PER_PASS} workunits × ${perWu} results on the same ${perWu} hosts`,
    route: "passes",
    body: pass(Array.from({ length: WORKUNITS_PER_PASS }, () => workunit(perWu, (j) => first + j))),
  });
  // A batch at every maximum: 50 passes a second apart, 1,000 workunits and 5,000 results in
  // all; each of 1,000 hosts credited in five of the passes (its walk has five steps).
  const wusPerPass = WORKUNITS_PER_PASS / PASSES_PER_BATCH;
  const base = host;
  let n = 0;
  requests.push({
    shape: `a batch of ${PASSES_PER_BATCH} passes × ${wusPerPass} workunits × ${perWu} results, 1,000 new hosts`,
    route: "pass-batches",
    body: {
      passes: Array.from({ length: PASSES_PER_BATCH }, (_, k) => ({
        now: NOW - PASSES_PER_BATCH + k,
        workunits: Array.from({ length: wusPerPass }, () => workunit(perWu, () => base + (n++ % 1000))),
      })),
    },
  });
  for (const r of requests) if (bytes(r.body) > MAX_BODY_BYTES) throw new Error(`${r.shape}: the body is over the limit`);
  return requests;
}

export async function bigPasses(log: (...args: unknown[]) => void = console.log): Promise<BigPassRow[]> {
  const stateDir = freshStateDir();
  prepareState(stateDir);
  const server = await startServer(await freePort(), stateDir);
  try {
    const token = await project(server.url, "big");
    const other = await project(server.url, "other");
    // A warm-up: the first request compiles the Worker.
    await postJson(server.url, "/v1/projects/other/passes", other, { now: NOW, workunits: [workunit(1, () => 9_000_000)] });
    const rows: BigPassRow[] = [];
    for (const r of bigRequests()) {
      rows.push(await measure(server.url, r.shape, `/v1/projects/big/${r.route}`, token, r.body, other));
      log(rows.at(-1));
    }
    return rows;
  } finally {
    await server.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  (async () => {
    await bigPasses();
    console.log("The same requests through the pass code on local D1 (what holds the database):");
    await d1WriteBatches(bigRequests(), APP, VERSION);
  })().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
