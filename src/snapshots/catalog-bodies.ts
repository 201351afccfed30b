/** The public bodies of an app and of an app version: the API answers them and the snapshots store them. */
import { paidShare } from "../credit/fair-state";
import { fairVersionState } from "../db/fair-rows";
import type { appVersions, apps } from "../db/schema";

type AppRow = typeof apps.$inferSelect;

export function appBody(r: AppRow) {
  return {
    name: r.name,
    min_avg_pfc: r.minAvgPfc,
    host_scale_check: r.hostScaleCheck,
    target_nresults: r.targetNresults,
    credit_mode: r.creditMode,
    max_granted_credit: r.maxGrantedCredit,
    gpu_only_scale: r.gpuOnlyScale,
    cross_project_version: r.crossProjectVersion,
    trickle_max_runtime: r.trickleMaxRuntime,
    deprecated: r.deprecated,
    credit_policy: r.creditPolicy,
    fair_level: r.fairLevel,
    fair_s_raw: r.fairSRaw,
    fair_s_ref: r.fairSRef,
    fair_anchored_at: r.fairAnchoredAt,
    fair_rebased_at: r.fairRebasedAt,
    // The alarm: the clamp holds S at its anchor's limit (docs/spec/fair-policy.md#r31).
    fair_held_at_anchor_limit: r.fairSRef !== null && r.fairSRaw !== null && r.fairLevel !== r.fairSRaw,
  };
}

export function appVersionBody(v: typeof appVersions.$inferSelect, appName: string) {
  return {
    id: v.id,
    app: appName,
    platform: v.platform,
    plan_class: v.planClass,
    version_num: v.versionNum,
    deprecated: v.deprecated,
    pfc_n: v.pfcN,
    pfc_avg: v.pfcAvg,
    pfc_scale: v.pfcScale,
    expavg_credit: v.expavgCredit,
    expavg_time: v.expavgTime,
    fair_n: v.fairN,
    fair_level: v.fairLevel,
    fair_scale: v.fairScale,
    fair_w_v: paidShare(fairVersionState(v)),
    fair_high_z_share: v.fairFv,
    fair_own_scale: v.fairOwnScale,
    fair_sealed: v.fairSealed,
  };
}
