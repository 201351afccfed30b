/**
 * A deterministic, realistic workload: a project with five apps and a few dozen app versions
 * (CPU platforms and GPU plan classes), a population of hosts owned by users in teams, and
 * validator passes of two results per workunit. The same seed gives the same passes, so the
 * HTTP run and the SQLite run do exactly the same work.
 */

// mulberry32, the same generator the neutrality index's bootstrap uses.
import { seededRandom as rng } from "../src/credit/seeded-random";

export { rng };

export interface AppSpec {
  name: string;
  rscFpopsEst: number;
}
export interface VersionSpec {
  id: number;
  app: string;
  platform: string;
  plan_class: string;
  version_num: number;
  /** Typical FLOPS the client reports for this version's device. */
  flops: number;
}

export const APPS: AppSpec[] = [
  { name: "einstein_o3", rscFpopsEst: 4e13 },
  { name: "gw_search", rscFpopsEst: 1.5e13 },
  { name: "binary_pulsar", rscFpopsEst: 8e13 },
  { name: "gamma_ray", rscFpopsEst: 2.5e14 },
  { name: "radio_fold", rscFpopsEst: 5e12 },
];

const PLATFORMS = ["x86_64-pc-linux-gnu", "windows_x86_64", "x86_64-apple-darwin", "arm64-apple-darwin"];
const GPU_CLASSES = [
  ["cuda_fermi", 2e12],
  ["opencl_ati_101", 1.5e12],
  ["opencl_intel_gpu_102", 3e11],
] as const;

export function versions(): VersionSpec[] {
  const out: VersionSpec[] = [];
  let id = 0;
  for (const app of APPS) {
    for (const platform of PLATFORMS) out.push({ id: ++id, app: app.name, platform, plan_class: "", version_num: 100, flops: 4e9 });
    for (const [plan, flops] of GPU_CLASSES) {
      out.push({ id: ++id, app: app.name, platform: "windows_x86_64", plan_class: plan, version_num: 100, flops });
    }
  }
  return out;
}

export interface WorkloadShape {
  hosts: number;
  users: number;
  teams: number;
}
export const DEFAULT_SHAPE: WorkloadShape = { hosts: 20_000, users: 8_000, teams: 400 };

export interface ResultBody {
  id: number;
  host_id: number;
  user_id: number;
  team_id: number;
  app_version_id: number;
  elapsed_time: number;
  cpu_time: number;
  flops_estimate: number;
  sent_time: number;
  received_time: number;
  validate_state: "valid" | "invalid";
}
export interface WorkunitBody {
  id: number;
  app: string;
  rsc_fpops_est: number;
  rsc_fpops_bound: number;
  target_nresults: number;
  results: ResultBody[];
}
export interface PassBody {
  now: number;
  workunits: WorkunitBody[];
}

/**
 * Generates passes: `sizes` lists the workunits of each pass in order. Workunit and result
 * ids start at `firstWu` and never repeat. Times end just before `now`.
 */
export function* passes(sizes: readonly number[], opts: { seed: number; firstWu: number; now: number; shape?: WorkloadShape }) {
  const shape = opts.shape ?? DEFAULT_SHAPE;
  const random = rng(opts.seed);
  const all = versions();
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  let wu = opts.firstWu;
  for (const size of sizes) {
    const workunits: WorkunitBody[] = [];
    for (let i = 0; i < size; i++) {
      const app = pick(APPS);
      const id = wu++;
      const results: ResultBody[] = [];
      for (let r = 0; r < 2; r++) {
        // Hosts are skewed: a few do most of the work, as in real projects.
        const host = 1 + Math.floor(shape.hosts * random() ** 2);
        const user = 1 + (host % shape.users);
        const team = user % 3 === 0 ? 0 : 1 + (user % shape.teams);
        const version = pick(all.filter((v) => v.app === app.name));
        const speed = version.flops * (0.5 + random());
        const elapsed = (app.rscFpopsEst / speed) * (0.8 + 0.4 * random());
        results.push({
          id: id * 2 + r,
          host_id: host,
          user_id: user,
          team_id: team,
          app_version_id: version.id,
          elapsed_time: elapsed,
          cpu_time: version.plan_class ? elapsed * 0.1 : elapsed * 0.97,
          flops_estimate: version.flops,
          sent_time: Math.floor(opts.now - 86400 - elapsed - 3600 * random()),
          received_time: Math.floor(opts.now - 600 * random()),
          // About 3% of second results disagree with the canonical one.
          validate_state: r === 1 && random() < 0.03 ? "invalid" : "valid",
        });
      }
      workunits.push({
        id,
        app: app.name,
        rsc_fpops_est: app.rscFpopsEst,
        rsc_fpops_bound: app.rscFpopsEst * 10,
        target_nresults: 2,
        results,
      });
    }
    yield { now: opts.now, workunits } satisfies PassBody;
  }
}
