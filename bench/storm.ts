/**
 * `npm run storm`: 100 concurrent validators post overlapping passes (same hosts, users and
 * app versions; duplicate result ids; late results to credited workunits) to `wrangler dev`
 * on a free port with its own state. Afterwards it checks that no credit was lost or doubled
 * (every result decided once; every host's and user's total, read through the API, is the
 * sum of its results' grants; the project's too) and reports throughput and latency.
 * A client retries a 503 (D1 busy) or 429 (rate limit) after Retry-After, as a real one must.
 */
import { createServer } from "node:net";
import type { SuccessBody, components } from "../test/support/api-types";
import { percentile } from "./client";
import { ADMIN_TOKEN, freshStateDir, prepareState, startServer } from "./server";
import { APP, HOSTS, USERS, VERSIONS, type StormPass, stormPasses, userOf } from "./storm-workload";

const CLIENTS = Number(process.env.STORM_CLIENTS ?? 100);
const DISTINCT = Number(process.env.STORM_PASSES ?? 2000);
const DUPLICATES = Math.round(DISTINCT * 0.15);
const RESERVED_PORTS = new Set([8787, 8791, 8792]);

async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const s = createServer();
      s.once("error", reject);
      s.listen(0, "127.0.0.1", () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    if (!isReserved(port)) return port;
  }
}
const isReserved = (port: number) => RESERVED_PORTS.has(port);

/**
 * One call; `json` is typed by the OpenAPI document as the documented success answer of
 * `method` and `path` (on any other status it is the error body, or the text, only printed).
 */
async function request<M extends string, P extends string>(
  base: string,
  path: P,
  token: string,
  method: M,
  body?: unknown,
): Promise<{ status: number; json: SuccessBody<M, P>; retryAfter: number }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, json: json as SuccessBody<M, P>, retryAfter: Number(res.headers.get("Retry-After") ?? "1") };
}

async function must<M extends string, P extends string>(
  base: string,
  path: P,
  token: string,
  method: M,
  body?: unknown,
  status = 200,
): Promise<SuccessBody<M, P>> {
  const res = await request(base, path, token, method, body);
  if (res.status !== status) throw new Error(`${method} ${base}${path}: ${res.status} ${JSON.stringify(res.json).slice(0, 400)}`);
  return res.json;
}

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

async function main(): Promise<void> {
  const port = await freePort();
  const stateDir = freshStateDir();
  console.log(`storm: wrangler dev on port ${port}, state in ${stateDir}`);
  prepareState(stateDir);
  const server = await startServer(port, stateDir);
  try {
    const base = server.url;
    const created = await must(base, "/v1/projects", ADMIN_TOKEN, "POST", { slug: "storm", name: "Storm" }, 201);
    const project = "/v1/projects/storm";
    await must(base, `${project}/apps/${APP}`, created.token, "PUT", {});
    for (const id of VERSIONS) {
      await must(base, `${project}/app-versions/${id}`, created.token, "PUT", {
        app: APP,
        platform: `p${id}`,
        plan_class: "",
        version_num: 1,
      });
    }
    // Every validator posts with the project's one token: the rate limit is the project's,
    // whatever the number of tokens (and a project holds at most 20).
    const tokens: string[] = Array(CLIENTS).fill(created.token);

    const bodies = stormPasses(DISTINCT, DUPLICATES);
    const answers: { body: StormPass; json: components["schemas"]["PassResponse"] }[] = [];
    const latencies: number[] = [];
    let attempts = 0;
    let retried503 = 0;
    let retried429 = 0;
    let next = 0;
    const start = performance.now();
    await Promise.all(
      tokens.map(async (token) => {
        for (let i = next++; i < bodies.length; i = next++) {
          const t = performance.now();
          for (;;) {
            attempts++;
            const res = await request(base, `${project}/passes`, token, "POST", bodies[i]);
            if (res.status === 200) {
              answers.push({ body: bodies[i]!, json: res.json });
              break;
            }
            if (res.status !== 503 && res.status !== 429)
              throw new Error(`pass ${i}: ${res.status} ${JSON.stringify(res.json).slice(0, 400)}`);
            if (res.status === 503) retried503++;
            else retried429++;
            await new Promise((r) => setTimeout(r, Math.min(res.retryAfter, 2) * 1000 * Math.random()));
          }
          latencies.push(performance.now() - t);
        }
      }),
    );
    const seconds = (performance.now() - start) / 1000;
    latencies.sort((a, b) => a - b);

    // Every result: decided exactly once (fresh), whatever number of times it was posted.
    const fresh = new Map<number, { host: number; credit: number }>();
    const posted = new Set<number>();
    let doubled = 0;
    for (const { body, json } of answers) {
      body.workunits.forEach((w, i) =>
        w.results.forEach((r, j) => {
          posted.add(r.id);
          const answer = json.workunits[i]!.results[j]!;
          if (answer.id !== r.id) throw new Error(`answer out of order for result ${r.id}`);
          if (answer.replayed) return;
          if (fresh.has(r.id)) doubled++;
          fresh.set(r.id, { host: r.host_id, credit: answer.granted_credit });
        }),
      );
    }
    const lost = [...posted].filter((id) => !fresh.has(id)).length;

    // Totals read through the API (the project's token reads the ledger, not KV).
    const expectedHost = new Map<number, number>();
    for (const { host, credit } of fresh.values()) expectedHost.set(host, (expectedHost.get(host) ?? 0) + credit);
    let hostMismatches = 0;
    let userMismatches = 0;
    const expectedUser = new Map<number, number>();
    for (let h = 1; h <= HOSTS; h++) {
      const want = expectedHost.get(h) ?? 0;
      expectedUser.set(userOf(h), (expectedUser.get(userOf(h)) ?? 0) + want);
      const res = await request(base, `${project}/hosts/${h}`, created.token, "GET");
      const got = res.status === 200 ? res.json.total_credit : 0;
      if (!close(got, want)) {
        hostMismatches++;
        console.error(`host ${h}: total ${got}, sum of grants ${want}`);
      }
    }
    for (let u = 1; u <= USERS; u++) {
      const want = expectedUser.get(u) ?? 0;
      const res = await request(base, `${project}/users/${u}`, created.token, "GET");
      const got = res.status === 200 ? res.json.total_credit : 0;
      if (!close(got, want)) {
        userMismatches++;
        console.error(`user ${u}: total ${got}, sum of grants ${want}`);
      }
    }
    const all = [...fresh.values()].reduce((s, r) => s + r.credit, 0);
    const projectTotal = (await must(base, project, created.token, "GET")).total_credit;

    const report = {
      clients: CLIENTS,
      passes: bodies.length,
      distinct_passes: DISTINCT,
      duplicate_passes: DUPLICATES,
      results_posted: answers.reduce((n, a) => n + a.body.workunits.reduce((m, w) => m + w.results.length, 0), 0),
      distinct_results: posted.size,
      requests: attempts,
      retried_503: retried503,
      retried_429: retried429,
      seconds: Number(seconds.toFixed(2)),
      passes_per_second: Number((bodies.length / seconds).toFixed(1)),
      results_per_second: Number((posted.size / seconds).toFixed(1)),
      latency_ms: {
        p50: Math.round(percentile(latencies, 50)),
        p99: Math.round(percentile(latencies, 99)),
        max: Math.round(latencies.at(-1) ?? 0),
      },
      lost_results: lost,
      doubled_results: doubled,
      host_total_mismatches: hostMismatches,
      user_total_mismatches: userMismatches,
      project_total: projectTotal,
      sum_of_grants: all,
      project_total_matches: close(projectTotal, all),
    };
    console.log(JSON.stringify(report, null, 2));
    const ok = lost === 0 && doubled === 0 && hostMismatches === 0 && userMismatches === 0 && report.project_total_matches;
    console.log(ok ? "storm: OK, no credit lost or doubled" : "storm: FAILED");
    process.exitCode = ok ? 0 : 1;
  } finally {
    await server.stop();
  }
}

await main();
