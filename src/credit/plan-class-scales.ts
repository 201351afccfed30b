/**
 * The cross-project plan-class scale table that BOINC's CreditNew design asked for and BOINC
 * never built (docs/spec/credit.md#plan-class-scale-table): per plan class and per processor type, the
 * average pfc_scale of app versions, weighted by each version's recent average credit
 * decayed to now. Only apps with both CPU and GPU versions that have enough samples count:
 * their GPU scales come from a real comparison with CPU versions, which is what a GPU-only
 * app elsewhere lacks.
 */
import { MIN_VERSION_SAMPLES } from "./constants";
import { CENTRAL_CONTRIBUTOR_WEIGHT_CAP, CENTRAL_STALE_AFTER } from "./parameters";
import { type ProcType, planClassToProcType } from "./plan-class";
import { decayedRecentAverage } from "./recent-average";

/** One app version as a project reports it (BOINC's app_versions.php fields). */
export interface ContributedVersion {
  /** Who reported it: one project (a local one, or a contributor's project). */
  readonly source: string;
  /** The app's name within its source. */
  readonly app: string;
  readonly planClass: string;
  readonly pfcN: number;
  readonly pfcScale: number;
  readonly expavgCredit: number;
  readonly expavgTime: number;
  /** When its source last reported it. */
  readonly reportedAt: number;
}

export interface ScaleRow {
  /** The plan class ("" for plain CPU versions), or the processor type. */
  readonly name: string;
  readonly procType: ProcType;
  readonly scale: number;
  /** Summed decayed RAC behind the figure (credits/day). */
  readonly recentCredit: number;
  readonly nprojects: number;
  readonly nversions: number;
}

export interface ScaleTable {
  readonly planClasses: ScaleRow[];
  readonly procTypes: ScaleRow[];
}

export function isStale(reportedAt: number, now: number): boolean {
  return reportedAt < now - CENTRAL_STALE_AFTER;
}

function enoughSamples(v: ContributedVersion): boolean {
  return v.pfcN >= MIN_VERSION_SAMPLES;
}

/** Apps (per source) that have at least one CPU and one GPU version with enough samples. */
function mixedApps(versions: readonly ContributedVersion[]): Set<string> {
  const kinds = new Map<string, { cpu: boolean; gpu: boolean }>();
  for (const v of versions) {
    if (!enoughSamples(v)) continue;
    const key = JSON.stringify([v.source, v.app]);
    const k = kinds.get(key) ?? { cpu: false, gpu: false };
    if (planClassToProcType(v.planClass) === "cpu") k.cpu = true;
    else k.gpu = true;
    kinds.set(key, k);
  }
  return new Set([...kinds].filter(([, k]) => k.cpu && k.gpu).map(([key]) => key));
}

/**
 * Who answers for a report: a contributor token answers for every project it pushes
 * ("contributor/{id}/{project}"), a local project for itself.
 */
function contributorOf(source: string): string {
  const parts = source.split("/");
  return parts[0] === "contributor" ? parts.slice(0, 2).join("/") : source;
}

interface Sum {
  procType: ProcType;
  /** The scale every version so far shares, or null once two differ. */
  uniform: number | null;
  versions: { scale: number; weight: number; contributor: string }[];
  sources: Set<string>;
}

function add(sums: Map<string, Sum>, name: string, procType: ProcType, v: ContributedVersion, weight: number): void {
  const s = sums.get(name) ?? { procType, uniform: v.pfcScale, versions: [], sources: new Set() };
  if (s.uniform !== v.pfcScale) s.uniform = null;
  s.versions.push({ scale: v.pfcScale, weight, contributor: contributorOf(v.source) });
  s.sources.add(v.source);
  sums.set(name, s);
}

/**
 * The weighted average with each contributor's summed weight capped at
 * CENTRAL_CONTRIBUTOR_WEIGHT_CAP × the lower median contributor's weight (its versions scaled
 * down together), so one contributor's inflated RAC cannot decide the figure.
 */
function cappedAverage(versions: Sum["versions"]): number {
  const byContributor = new Map<string, number>();
  for (const v of versions) byContributor.set(v.contributor, (byContributor.get(v.contributor) ?? 0) + v.weight);
  const sorted = [...byContributor.values()].sort((a, b) => a - b);
  const cap = CENTRAL_CONTRIBUTOR_WEIGHT_CAP * sorted[Math.floor((sorted.length - 1) / 2)]!;
  let weighted = 0;
  let weight = 0;
  for (const v of versions) {
    const w = v.weight * Math.min(1, cap / byContributor.get(v.contributor)!);
    weighted += v.scale * w;
    weight += w;
  }
  return weighted / weight;
}

function rows(sums: Map<string, Sum>): ScaleRow[] {
  return [...sums]
    .map(([name, s]) => ({
      name,
      procType: s.procType,
      // Equal scales average to themselves exactly (Σw·s/Σw may be an ulp off).
      scale: s.uniform ?? cappedAverage(s.versions),
      // The RAC behind the figure, as reported (before any cap).
      recentCredit: s.versions.reduce((sum, v) => sum + v.weight, 0),
      nprojects: s.sources.size,
      nversions: s.versions.length,
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The table at `now`. A version counts when its report is fresh, its app is mixed, it has
 * enough samples, a scale (pfc_scale > 0: rescale has set one) and recent credit (its weight).
 */
export function computeScaleTable(versions: readonly ContributedVersion[], now: number): ScaleTable {
  const fresh = versions.filter((v) => !isStale(v.reportedAt, now));
  const mixed = mixedApps(fresh);
  const byPlanClass = new Map<string, Sum>();
  const byProcType = new Map<string, Sum>();
  for (const v of fresh) {
    if (!mixed.has(JSON.stringify([v.source, v.app])) || !enoughSamples(v) || !(v.pfcScale > 0)) continue;
    const weight = decayedRecentAverage(v, now);
    if (!(weight > 0)) continue;
    const procType = planClassToProcType(v.planClass);
    add(byPlanClass, v.planClass, procType, v, weight);
    add(byProcType, procType, procType, v, weight);
  }
  return { planClasses: rows(byPlanClass), procTypes: rows(byProcType) };
}
