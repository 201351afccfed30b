/**
 * The storm's passes: overlapping on purpose. A few dozen hosts and users and four app
 * versions shared by every pass; workunits that come back in a later pass with more results
 * (the "late" path); and exact duplicates of passes (a validator retrying), so some result
 * ids are posted several times, often at the same moment.
 */
import { type PassBody, type ResultBody, rng } from "./workload";

export const HOSTS = 60;
export const USERS = 20;
export const VERSIONS = [1, 2, 3, 4];
export const APP = "storm";
export const NOW = 1_790_000_000;

export const userOf = (host: number) => (host % USERS) + 1;
export const teamOf = (user: number) => (user % 5) + 1;

/** The storm's passes have the benchmark workload's shape. */
export type StormResult = ResultBody;
export type StormPass = PassBody;

/** `distinct` passes of two workunits (two results each), plus `duplicates` exact re-posts, shuffled. */
export function stormPasses(distinct: number, duplicates: number, seed = 42): StormPass[] {
  const random = rng(seed);
  const pick = (n: number) => Math.floor(random() * n);
  let nextResult = 1;
  const result = (): StormResult => {
    const host = pick(HOSTS) + 1;
    const user = userOf(host);
    const flops = 2e9 + pick(8) * 5e8;
    return {
      id: nextResult++,
      host_id: host,
      user_id: user,
      team_id: teamOf(user),
      app_version_id: VERSIONS[pick(VERSIONS.length)]!,
      elapsed_time: (2e13 / flops) * (0.8 + random() * 0.4),
      cpu_time: 1000,
      flops_estimate: flops,
      sent_time: NOW - 86_400,
      received_time: NOW - 3600,
      validate_state: random() < 0.9 ? "valid" : "invalid",
    };
  };
  const bodies: StormPass[] = [];
  for (let i = 0; i < distinct; i++) {
    // One workunit in four comes back later (id of an earlier pass's workunit) with new results.
    const wu = (k: number) => (i > 10 && random() < 0.25 ? 2 * pick(i) + 1 + k : 2 * i + 1 + k);
    const ids = [...new Set([wu(0), wu(1)])];
    bodies.push({
      now: NOW,
      workunits: ids.map((id) => ({
        id,
        app: APP,
        rsc_fpops_est: 2e13,
        rsc_fpops_bound: 2e14,
        target_nresults: 2,
        results: [result(), result()],
      })),
    });
  }
  for (let d = 0; d < duplicates; d++) bodies.push(structuredClone(bodies[pick(distinct)]!));
  // Shuffle (Fisher–Yates): duplicates land anywhere, often beside their original.
  for (let i = bodies.length - 1; i > 0; i--) {
    const j = pick(i + 1);
    [bodies[i], bodies[j]] = [bodies[j]!, bodies[i]!];
  }
  return bodies;
}
