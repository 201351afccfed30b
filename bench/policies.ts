/**
 * Ingest by credit policy: the same passes of 100 workunits into two projects whose apps are
 * on "boinc" and on "fair", alternating rounds so that both see the same machine load. (The
 * fair statistics are kept for every app, so this measures what paying by them costs on top.)
 */
import { type RunStats, drive, postJson } from "./client";
import { ADMIN_TOKEN } from "./server";
import { APPS, passes, versions } from "./workload";

export const POLICIES = ["boinc", "fair"] as const;
const ROUNDS = 3;
const PASSES_PER_ROUND = 100;
const SIZE = 100;

export interface PolicyRow {
  readonly policy: (typeof POLICIES)[number];
  /** results/s of each round, in order. */
  readonly rounds: number[];
  readonly p50: number;
  readonly p99: number;
}

/** Each project's own token: the rate limit is per project, whatever the number of tokens. */
async function setup(url: string, policy: string): Promise<string> {
  const slug = `bench-${policy}`;
  const { token } = await postJson(url, `/v1/projects`, ADMIN_TOKEN, { slug, name: `Bench ${policy}` });
  for (const a of APPS) await postJson(url, `/v1/projects/${slug}/apps/${a.name}`, token, { credit_policy: policy }, "PUT");
  for (const v of versions()) {
    const { flops: _f, id, ...body } = v;
    await postJson(url, `/v1/projects/${slug}/app-versions/${id}`, token, body, "PUT");
  }
  return token;
}

export async function ingestByPolicy(
  url: string,
  now: number,
  clients: number,
  quick: boolean,
  log: (...a: unknown[]) => void,
): Promise<PolicyRow[]> {
  const tokens = Object.fromEntries(await Promise.all(POLICIES.map(async (p) => [p, await setup(url, p)] as const)));
  const stats: Record<string, RunStats[]> = { boinc: [], fair: [] };
  const n = quick ? 10 : PASSES_PER_ROUND;
  for (let round = 0; round < ROUNDS; round++) {
    // The same workload for both policies in a round; each round new workunits (statistics warm up).
    const firstWu = 50_000_000 + round * n * SIZE;
    for (const policy of round % 2 === 0 ? POLICIES : [...POLICIES].reverse()) {
      const bodies = passes(Array(n).fill(SIZE), { seed: 700 + round, firstWu, now });
      const run = await drive(bodies, clients, (body) => postJson(url, `/v1/projects/bench-${policy}/passes`, tokens[policy]!, body));
      stats[policy]!.push(run);
      log(`  round ${round + 1}, ${policy}: ${Math.round((n * SIZE * 2) / run.seconds)} results/s, p50 ${run.p50.toFixed(1)} ms`);
    }
  }
  return POLICIES.map((policy) => {
    const runs = stats[policy]!;
    const sorted = (f: (r: RunStats) => number) => runs.map(f).sort((a, b) => a - b);
    return {
      policy,
      rounds: runs.map((r) => (n * SIZE * 2) / r.seconds),
      p50: sorted((r) => r.p50)[runs.length >> 1]!,
      p99: sorted((r) => r.p99)[runs.length >> 1]!,
    };
  });
}
