import { EMPTY_AVERAGE, EMPTY_AVERAGE_VAR, updateAverage } from "./average";
import { AV_AVERAGE } from "./constants";
import { type CreditPolicy } from "./parameters";
import { type CreditMode, capGrantedCredit, creditFromRuntime, grantsOnValidation } from "./credit-mode";
import { type Claim, claimFromPfc, creditFromClaims } from "./credit-set";
import type { FairRule } from "./fair-claim";
import { fairWorkunitCredit } from "./fair-credit";
import { type FairHostChange, FairPassState, type FairResultClaim, type FairVersionInput } from "./fair-pass";
import type { FairHostState, FairVersionState } from "./fair-state";
import { type HostAppVersionKey, havKey, isAnonymousPlatform } from "./host-app-version-key";
import { type NeutralSample, addAmounts, neutralPeriodOf } from "./neutrality-window";
import {
  type AppCreditSettings,
  type AppVersionStats,
  type HostAppVersionSamples,
  type HostAppVersionStats,
  type PfcMode,
  getPfc,
  pfcToCreditExpanded,
} from "./pfc";

/**
 * One validator pass (docs/spec/credit.md): workunits in the order given, each with
 * results the project's validator has judged. Pure: the caller loads the pass state (the rows
 * the pass reads, as stored), runs the pass and persists the effects.
 */

export type ValidateState = "valid" | "invalid" | "inconclusive";

export interface ResultInput {
  readonly id: number;
  readonly hostId: number;
  readonly userId: number;
  readonly teamId: number;
  readonly appVersionId: number;
  readonly elapsedTime: number;
  readonly cpuTime: number;
  readonly flopsEstimate: number;
  /** Whole seconds (BOINC stores integers). */
  readonly sentTime: number;
  readonly receivedTime: number;
  readonly validateState: ValidateState;
  readonly runtimeOutlier: boolean;
  /** Used by credit_mode post_assigned. */
  readonly claimedCredit?: number;
  /** Identifies the posted content: a re-post with another fingerprint is a conflict. */
  readonly fingerprint: string;
  /** CPUs (a CPU version) or GPUs (a GPU version) the job used: device-seconds = elapsed × devices. Default 1. */
  readonly devices?: number;
}

export interface WorkunitInput {
  readonly id: number;
  readonly app: string;
  readonly rscFpopsEst: number;
  readonly rscFpopsBound: number;
  readonly targetNresults: number;
  /** Used by credit_mode fixed. */
  readonly canonicalCredit?: number;
  readonly results: readonly ResultInput[];
}

export interface PassApp extends AppCreditSettings {
  readonly id: number;
  readonly name: string;
  readonly targetNresults: number;
  readonly creditMode: CreditMode;
  readonly maxGrantedCredit: number;
  /** Which rules pay an adaptive app's claims (absent: "boinc"); both sets of statistics are kept. */
  readonly creditPolicy?: CreditPolicy;
  /** The fair policy's app level S as the last rescale left it (absent or null: none yet). */
  readonly fairLevel?: number | null;
  /** Its anchor S_ref (version 3); absent or null: not anchored. */
  readonly fairSRef?: number | null;
}

export interface PassVersion extends AppVersionStats, FairVersionInput {
  readonly appId: number;
}

/** A result that already has a final verdict. */
export interface StoredResult {
  readonly fingerprint: string;
  readonly validateState: "valid" | "invalid";
  readonly grantedCredit: number;
  readonly claimedCredit: number | null;
  readonly pfcMode: PfcMode | null;
}

/** What a pass reads: the rows its workunits name, as stored (src/db/pass-state.ts loads them). */
export interface PassState {
  readonly apps: ReadonlyMap<string, PassApp>;
  readonly versions: ReadonlyMap<number, PassVersion>;
  /** By havKey; a missing one starts zeroed. */
  readonly hostAppVersions: ReadonlyMap<string, HostAppVersionStats>;
  /** Workunits already credited: id → the credit their results get. */
  readonly creditedWorkunits: ReadonlyMap<number, number>;
  readonly finalResults: ReadonlyMap<number, StoredResult>;
  /** The fair policy's host × version states, by havKey; a missing one starts new. */
  readonly fairHostAppVersions?: ReadonlyMap<string, FairHostState>;
}

/** Why a result got what it got. */
export interface PfcExplanation {
  readonly rawPfc: number;
  readonly pfcScale: number;
  readonly hostScale: number;
  readonly runtimeOutlier: boolean;
}

/** The fair policy's view of a valid result's claim (absent for an anonymous platform). */
export interface FairExplanation {
  readonly rule: FairRule;
  readonly claimedCredit: number;
  /** w_v: the share of the job's z the fair policy pays. */
  readonly paidShare: number;
  /** Whether this result's z fed its version's quantiles. */
  readonly feedsQuantiles: boolean;
  /** Whether the gate held the host's z out of them. */
  readonly heldOutByGate: boolean;
  /** Version 3: the host × version row is a founder; its version is sealed; so the seal held it out of every version statistic. */
  readonly founder: boolean;
  readonly versionSealed: boolean;
  readonly heldOutBySeal: boolean;
  /** The app's level S and its anchor S_ref as this pass saw them (null: none yet). */
  readonly appLevel: number | null;
  readonly appAnchor: number | null;
}

/** What the workunit pays under each policy; the app's policy decides which is granted. */
export interface PolicyCredits {
  readonly boinc: number;
  readonly fair: number;
}

export interface ResultOutcome {
  readonly id: number;
  readonly validateState: ValidateState;
  readonly grantedCredit: number;
  readonly claimedCredit: number | null;
  readonly pfcMode: PfcMode | null;
  readonly replayed: boolean;
  readonly explanation?: PfcExplanation;
  readonly fairExplanation?: FairExplanation;
  readonly policyCredits?: PolicyCredits;
}

export type WorkunitPath = "fresh" | "late" | "pending" | "replayed";

export interface WorkunitOutcome {
  readonly id: number;
  readonly credit: number;
  readonly replayed: boolean;
  readonly path: WorkunitPath;
  readonly results: readonly ResultOutcome[];
}

export type ConsecutiveValidChange = "increment" | "reset";

/** One statement's worth of change to a host_app_version, in pass order. */
export interface HostAppVersionChange extends HostAppVersionKey {
  samples: HostAppVersionSamples;
  consecutiveValid?: ConsecutiveValidChange;
  /** Valid results' credit and device time for the neutrality window (they ride on this row's write). */
  neutral?: NeutralSample;
}

export interface Grant {
  readonly resultId: number;
  readonly hostId: number;
  readonly userId: number;
  readonly teamId: number;
  readonly appId: number;
  readonly credit: number;
  /** The result's sent_time: where update_average's Case B starts the work. */
  readonly startTime: number;
  /**
   * Per-app credit (credit_user/credit_team): "job" (default: credit and one more job),
   * "credit" (credit only: a trickle naming its result), "none" (a trickle naming none).
   */
  readonly perApp?: "job" | "credit" | "none";
}

export interface NewFinalResult {
  readonly id: number;
  readonly workunitId: number;
  readonly appId: number;
  readonly hostId: number;
  readonly userId: number;
  readonly teamId: number;
  readonly appVersionId: number;
  readonly fingerprint: string;
  readonly validateState: "valid" | "invalid";
  readonly grantedCredit: number;
  readonly claimedCredit: number | null;
  readonly pfcMode: PfcMode | null;
  /** For a valid result: the workunit's credit under each policy, and the fair rule that decided its claim. */
  readonly boincCredit: number | null;
  readonly fairCredit: number | null;
  readonly fairRule: FairRule | null;
}

export interface CreditedWorkunit {
  readonly id: number;
  readonly appId: number;
  readonly credit: number;
  readonly canonicalResultId: number;
}

export interface VersionCreditSample {
  readonly credit: number;
  readonly time: number;
}

/**
 * A result names its host, user and team: the host's owner becomes that user and the user's
 * team that team (docs/spec/credit.md#attribution); any of them not seen before starts here
 * (docs/spec/credit.md#first-seen).
 */
export interface Attribution {
  readonly hostId: number;
  readonly userId: number;
  readonly teamId: number;
}

export interface PassEffects {
  readonly attributions: Attribution[];
  /** Every host_app_version a result names; a missing one is created zeroed (docs/spec/credit.md#missing-host_app_version). */
  readonly hostAppVersionsSeen: HostAppVersionKey[];
  readonly results: NewFinalResult[];
  readonly workunits: CreditedWorkunit[];
  readonly hostAppVersionChanges: HostAppVersionChange[];
  /** Applied at the end of the pass, pfc samples before credit samples (docs/spec/credit.md#end-of-the-pass). */
  readonly versionPfcSamples: Map<number, number[]>;
  readonly versionCreditSamples: Map<number, VersionCreditSample[]>;
  readonly grants: Grant[];
  /** Final fair states of what the pass touched (absolute values, by havKey / version id). */
  readonly fairHostAppVersions: Map<string, FairHostChange>;
  readonly fairVersions: Map<number, FairVersionState>;
}

export interface Conflict {
  readonly path: string;
  readonly message: string;
}

export interface PassOutcome {
  readonly workunits: WorkunitOutcome[];
  readonly effects: PassEffects;
  readonly conflicts: Conflict[];
  /**
   * The pass state as this pass's writes leave the rows it read: what the next pass of a batch
   * reads instead of loading it again (the TypeScript twins of the SQL updates, as inside a pass).
   */
  readonly after: PassState;
}

export const ZERO_HOST_APP_VERSION: HostAppVersionStats = {
  pfc: EMPTY_AVERAGE,
  et: EMPTY_AVERAGE_VAR,
  turnaround: EMPTY_AVERAGE_VAR,
  consecutiveValid: 0,
};

/** A valid or invalid result's final outcome, as finalise records it. */
interface Finalised {
  readonly wu: WorkunitInput;
  readonly app: PassApp;
  readonly result: ResultInput;
  /** The credit granted now; null: none (an invalid result, or a mode that grants no credit on validation). */
  readonly grant: number | null;
  /** A valid result's claim (absent: an invalid one), and what each policy pays for its workunit. */
  readonly claim?: PolicyClaim | undefined;
  readonly policyCredits?: PolicyCredits | undefined;
}

/** The app version a result names: its own id, or the app for an anonymous platform. */
function resultHavKey(r: ResultInput, appId: number): HostAppVersionKey {
  return { hostId: r.hostId, appId, appVersionId: r.appVersionId };
}

/**
 * Adaptive replication sent this workunit unreplicated: its valid results don't count toward
 * consecutive_valid (docs/spec/edge-cases.md#e21).
 */
function sentUnreplicated(wu: WorkunitInput, app: PassApp): boolean {
  return wu.targetNresults === 1 && app.targetNresults > 1;
}

/**
 * A result's own copy of its host_app_version. BOINC's validator loads one copy per result of
 * a workunit and writes each whole copy back if it changed, so when one host returns two
 * results of the same workunit the last changed copy wins and the other's changes are lost.
 * Late results are loaded and written one at a time, so they see each other.
 */
interface HostAppVersionCopy {
  readonly key: HostAppVersionKey;
  readonly loaded: HostAppVersionStats;
  stats: HostAppVersionStats;
  readonly change: HostAppVersionChange;
}

function copyChanged(c: HostAppVersionCopy): boolean {
  return (
    Object.keys(c.change.samples).length > 0 ||
    c.change.consecutiveValid === "increment" ||
    (c.change.consecutiveValid === "reset" && c.loaded.consecutiveValid !== 0)
  );
}

/** A valid result's claim under BOINC's rules, and under fair's when its version is regular. */
interface PolicyClaim extends Claim {
  readonly fair?: FairResultClaim;
}

class PassRun {
  private readonly hostAppVersions: Map<string, HostAppVersionStats>;
  private readonly creditedWorkunits: Map<number, number>;
  private readonly fair: FairPassState;
  readonly effects: PassEffects;

  constructor(private readonly before: PassState) {
    this.hostAppVersions = new Map(before.hostAppVersions);
    this.creditedWorkunits = new Map(before.creditedWorkunits);
    this.fair = new FairPassState(before.fairHostAppVersions, before.versions);
    this.effects = {
      attributions: [],
      hostAppVersionsSeen: [],
      results: [],
      workunits: [],
      hostAppVersionChanges: [],
      versionPfcSamples: new Map(),
      versionCreditSamples: new Map(),
      grants: [],
      fairHostAppVersions: this.fair.changedHosts,
      fairVersions: this.fair.changedVersions,
    };
  }

  /** The pass state after the pass: in-pass copies, then the end-of-pass version statistics (docs/spec/credit.md#end-of-the-pass). */
  after(): PassState {
    const versions = new Map(this.before.versions);
    for (const [id, samples] of this.effects.versionPfcSamples) {
      const v = versions.get(id);
      if (v) versions.set(id, { ...v, pfc: samples.reduce((avg, x) => updateAverage(avg, x, AV_AVERAGE), v.pfc) });
    }
    for (const [id, fair] of this.effects.fairVersions) {
      const v = versions.get(id);
      if (v) versions.set(id, { ...v, fair });
    }
    const fairHostAppVersions = new Map(this.before.fairHostAppVersions ?? []);
    for (const [key, change] of this.effects.fairHostAppVersions) fairHostAppVersions.set(key, change.state);
    const finalResults = new Map(this.before.finalResults);
    for (const r of this.effects.results) {
      finalResults.set(r.id, {
        fingerprint: r.fingerprint,
        validateState: r.validateState,
        grantedCredit: r.grantedCredit,
        claimedCredit: r.claimedCredit,
        pfcMode: r.pfcMode,
      });
    }
    return {
      apps: this.before.apps,
      versions,
      hostAppVersions: new Map(this.hostAppVersions),
      fairHostAppVersions,
      creditedWorkunits: new Map(this.creditedWorkunits),
      finalResults,
    };
  }

  runWorkunit(wu: WorkunitInput, fresh: readonly ResultInput[], replayed: ResultOutcome[]): WorkunitOutcome {
    const app = this.before.apps.get(wu.app);
    if (!app) throw new Error(`unknown app ${wu.app}`);
    const stored = this.creditedWorkunits.get(wu.id);
    let credit: number;
    let outcomes: ResultOutcome[];
    let path: WorkunitPath;
    if (stored !== undefined) {
      credit = stored;
      outcomes = this.latePath(wu, app, fresh, stored);
      path = "late";
    } else {
      ({ credit, outcomes } = this.freshSet(wu, app, fresh));
      path = fresh.some((r) => r.validateState === "valid") ? "fresh" : "pending";
    }
    const byId = new Map([...replayed, ...outcomes].map((o) => [o.id, o]));
    return {
      id: wu.id,
      credit,
      replayed: fresh.length === 0 && replayed.length > 0,
      path: fresh.length === 0 && replayed.length > 0 ? "replayed" : path,
      // A result in conflict has no outcome; the caller rejects the whole pass then.
      results: wu.results.flatMap((r) => byId.get(r.id) ?? []),
    };
  }

  /** A workunit never credited before: BOINC's quorum path (docs/spec/credit.md#workunits-in-order). */
  private freshSet(wu: WorkunitInput, app: PassApp, results: readonly ResultInput[]) {
    const copies = new Map(results.map((r) => [r.id, this.loadCopy(app, r)]));
    const valid = results.filter((r) => r.validateState === "valid");
    const claims = new Map<number, PolicyClaim>();
    // credit_from_runtime skips assign_credit_set, and with it every statistic (docs/spec/edge-cases.md#e22).
    if (app.creditMode !== "runtime") {
      // The fair model counts this result in consecutive_valid before its claim.
      const counted = sentUnreplicated(wu, app) ? 0 : 1;
      for (const r of valid) {
        const copy = copies.get(r.id)!;
        claims.set(r.id, this.claim(wu, app, r, copy, copy.stats.consecutiveValid + counted));
      }
    }
    const policyCredits = valid.length > 0 ? this.workunitCredit(wu, app, results, claims) : null;
    const credit =
      policyCredits === null ? 0 : app.creditPolicy === "fair" && app.creditMode === "adaptive" ? policyCredits.fair : policyCredits.boinc;
    const grants = grantsOnValidation(app.creditMode);
    const outcomes = results.map((r) => {
      const copy = copies.get(r.id)!;
      if (r.validateState === "valid") {
        if (!sentUnreplicated(wu, app)) changeConsecutiveValid(copy, "increment");
        return this.finalise({
          wu,
          app,
          result: r,
          grant: grants ? credit : null,
          claim: claims.get(r.id),
          policyCredits: policyCredits ?? undefined,
        });
      }
      if (r.validateState === "invalid") {
        changeConsecutiveValid(copy, "reset");
        return this.finalise({ wu, app, result: r, grant: null });
      }
      return this.pending(r);
    });
    // Written back in result order, so for a shared host_app_version the last copy wins.
    const written = new Map<string, HostAppVersionCopy>();
    for (const r of results) {
      const copy = copies.get(r.id)!;
      if (copyChanged(copy)) written.set(havKey(copy.key), copy);
    }
    // Every valid result counts in the window, also one whose copy lost to a later one.
    if (grants && valid.length > 0) {
      for (const r of valid) {
        const copy = written.get(havKey(copies.get(r.id)!.key));
        if (copy) addNeutral(copy.change, r, credit);
      }
    }
    for (const copy of written.values()) this.writeBack(copy);
    if (valid.length > 0) {
      this.creditedWorkunits.set(wu.id, credit);
      this.effects.workunits.push({ id: wu.id, appId: app.id, credit, canonicalResultId: valid[0]!.id });
    }
    return { credit, outcomes };
  }

  /** New results of an already credited workunit (docs/spec/credit.md#re-posts-and-late-results, docs/spec/credit.md#validator-flow "late path"). */
  private latePath(wu: WorkunitInput, app: PassApp, results: readonly ResultInput[], credit: number) {
    const grants = grantsOnValidation(app.creditMode);
    return results.map((r) => {
      const copy = this.loadCopy(app, r);
      let outcome: ResultOutcome;
      if (r.validateState === "valid") {
        // is_valid runs before get_pfc here, so the host-scale gate sees the new count (docs/spec/edge-cases.md#e19).
        if (!sentUnreplicated(wu, app)) changeConsecutiveValid(copy, "increment");
        // Statistics only; the stored credit is granted.
        const claim = this.claim(wu, app, r, copy, copy.stats.consecutiveValid);
        outcome = this.finalise({
          wu,
          app,
          result: r,
          grant: grants ? credit : null,
          claim,
          policyCredits: { boinc: credit, fair: credit },
        });
      } else if (r.validateState === "invalid") {
        changeConsecutiveValid(copy, "reset");
        outcome = this.finalise({ wu, app, result: r, grant: null });
      } else {
        return this.pending(r);
      }
      if (copyChanged(copy)) {
        if (grants && r.validateState === "valid") addNeutral(copy.change, r, credit);
        this.writeBack(copy);
      }
      return outcome;
    });
  }

  private workunitCredit(
    wu: WorkunitInput,
    app: PassApp,
    results: readonly ResultInput[],
    claims: ReadonlyMap<number, PolicyClaim>,
  ): PolicyCredits {
    const canonical = results.find((r) => r.validateState === "valid")!;
    const boinc = ((): number => {
      switch (app.creditMode) {
        case "adaptive":
          return creditFromClaims([...claims.values()], wu, app);
        case "fixed":
          return wu.canonicalCredit ?? 0;
        case "post_assigned":
          return canonical.claimedCredit ?? 0;
        case "none":
        case "trickle":
          return 0;
        case "runtime":
          // BOINC averages over every viable result, the ones just judged invalid included.
          return creditFromRuntime(
            results.filter((r) => r.validateState !== "inconclusive"),
            wu,
            app.maxGrantedCredit,
          );
      }
    })();
    // Other credit modes do not claim, so both policies grant what BOINC grants.
    const fair = app.creditMode === "adaptive" ? this.fairCredit([...claims.values()], app) : boinc;
    return { boinc: capGrantedCredit(boinc, app.maxGrantedCredit), fair };
  }

  /** An anonymous-platform claim (no fair view) counts with BOINC's capped PFC (docs/spec/fair-policy.md#r2). */
  private fairCredit(claims: readonly PolicyClaim[], app: PassApp): number {
    const anchor = claims.find((c) => c.fair !== undefined && c.fair.expected !== null)?.fair?.expected ?? null;
    return fairWorkunitCredit(
      claims.map((c) => c.fair?.pfc ?? c.cappedPfc),
      anchor,
      app.maxGrantedCredit,
    );
  }

  /** get_pfc and steps 2–3 of assign_credit_set for one valid result, with its statistics. */
  private claim(wu: WorkunitInput, app: PassApp, r: ResultInput, copy: HostAppVersionCopy, consecutiveValid: number): PolicyClaim {
    const anonymous = isAnonymousPlatform(r.appVersionId);
    const version = anonymous ? null : (this.before.versions.get(r.appVersionId) ?? null);
    const pfc = getPfc({ ...r, anonymous }, wu, app, version, copy.stats);
    copy.stats = pfc.hav;
    Object.assign(copy.change.samples, pfc.havSamples);
    const claim = claimFromPfc(pfc, wu, app.maxGrantedCredit);
    if (version !== null) {
      if (pfc.avPfcSample !== undefined) push(this.effects.versionPfcSamples, r.appVersionId, pfc.avPfcSample);
      // Our app-version credit sample is the claim after the rsc_fpops_bound cap (docs/spec/credit.md#finite-numbers).
      push(this.effects.versionCreditSamples, r.appVersionId, { credit: claim.claimedCredit, time: r.sentTime });
      const fair = this.fair.claim(copy.key, r, wu, app.hostScaleCheck, consecutiveValid, app.fairLevel ?? null);
      return { ...claim, fair };
    }
    return claim;
  }

  private loadCopy(app: PassApp, r: ResultInput): HostAppVersionCopy {
    const key = resultHavKey(r, app.id);
    let loaded = this.hostAppVersions.get(havKey(key));
    if (!loaded) {
      loaded = ZERO_HOST_APP_VERSION;
      this.hostAppVersions.set(havKey(key), loaded);
      this.effects.hostAppVersionsSeen.push(key);
    }
    return { key, loaded, stats: loaded, change: { ...key, samples: {} } };
  }

  private writeBack(copy: HostAppVersionCopy): void {
    this.hostAppVersions.set(havKey(copy.key), copy.stats);
    this.effects.hostAppVersionChanges.push(copy.change);
  }

  private finalise({ wu, app, result: r, grant, claim, policyCredits }: Finalised): ResultOutcome {
    const grantedCredit = grant ?? 0;
    const validateState = r.validateState as "valid" | "invalid";
    const claimedCredit = app.creditMode === "post_assigned" ? (r.claimedCredit ?? null) : (claim?.claimedCredit ?? null);
    const pfcMode = claim?.mode ?? null;
    if (grant !== null) {
      this.effects.grants.push({
        resultId: r.id,
        hostId: r.hostId,
        userId: r.userId,
        teamId: r.teamId,
        appId: app.id,
        credit: grantedCredit,
        startTime: r.sentTime,
      });
    }
    this.attribute(r);
    this.effects.results.push({
      id: r.id,
      workunitId: wu.id,
      appId: app.id,
      hostId: r.hostId,
      userId: r.userId,
      teamId: r.teamId,
      appVersionId: r.appVersionId,
      fingerprint: r.fingerprint,
      validateState,
      grantedCredit,
      claimedCredit,
      pfcMode,
      boincCredit: claim ? (policyCredits?.boinc ?? null) : null,
      fairCredit: claim ? (policyCredits?.fair ?? null) : null,
      fairRule: claim?.fair?.rule ?? null,
    });
    return {
      id: r.id,
      validateState,
      grantedCredit,
      claimedCredit,
      pfcMode,
      replayed: false,
      ...(claim
        ? {
            explanation: {
              rawPfc: claim.pfc.rawPfc,
              pfcScale: claim.pfc.versionScale,
              hostScale: claim.pfc.hostScale,
              runtimeOutlier: claim.pfc.runtimeOutlier,
            },
          }
        : {}),
      ...(claim?.fair ? { fairExplanation: fairExplanation(claim.fair, app) } : {}),
      ...(claim && policyCredits ? { policyCredits } : {}),
    };
  }

  /**
   * Every result a pass names, decided or not, creates its host, user and team if new (their
   * RAC clock starts now) and moves the host's owner and the user's team (docs/spec/credit.md#attribution, docs/spec/credit.md#first-seen).
   */
  private attribute(r: ResultInput): void {
    this.effects.attributions.push({ hostId: r.hostId, userId: r.userId, teamId: r.teamId });
  }

  /** An undecided result: no verdict, no statistics, but it names its accounts (docs/spec/credit.md#attribution, docs/spec/credit.md#first-seen). */
  private pending(r: ResultInput): ResultOutcome {
    this.attribute(r);
    return {
      id: r.id,
      validateState: "inconclusive",
      grantedCredit: 0,
      claimedCredit: null,
      pfcMode: null,
      replayed: false,
    };
  }
}

function changeConsecutiveValid(copy: HostAppVersionCopy, how: ConsecutiveValidChange): void {
  const consecutiveValid = how === "increment" ? copy.stats.consecutiveValid + 1 : 0;
  copy.stats = { ...copy.stats, consecutiveValid };
  copy.change.consecutiveValid = how;
}

/**
 * A valid result's credit and device time, added to the change its row gets anyway: a row the
 * pass would not write (no statistic moved) gets no sample, so the window costs no row write.
 * Anonymous-platform versions are left out (their devices are the volunteer's own build).
 */
function addNeutral(change: HostAppVersionChange, r: ResultInput, credit: number): void {
  if (isAnonymousPlatform(r.appVersionId)) return;
  const sample: NeutralSample = {
    period: neutralPeriodOf(r.receivedTime),
    credit,
    deviceSeconds: r.elapsedTime * (r.devices ?? 1),
    results: 1,
  };
  const prior = change.neutral;
  change.neutral = prior ? { ...addAmounts(prior, sample), period: Math.max(prior.period, sample.period) } : sample;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * Runs a validator pass over `workunits`. Results that already have a final verdict are
 * replayed (same fingerprint) or reported as conflicts (another fingerprint); the caller must
 * write nothing when there is a conflict.
 */
export function runPass(state: PassState, workunits: readonly WorkunitInput[]): PassOutcome {
  const run = new PassRun(state);
  const conflicts: Conflict[] = [];
  const outcomes = workunits.map((wu, i) => {
    const fresh: ResultInput[] = [];
    const replayed: ResultOutcome[] = [];
    wu.results.forEach((r, j) => {
      const stored = state.finalResults.get(r.id);
      if (!stored) return fresh.push(r);
      if (stored.fingerprint !== r.fingerprint) {
        conflicts.push({
          path: `workunits[${i}].results[${j}]`,
          message: `result ${r.id} already has a final outcome; the same id with other content is a conflict`,
        });
        return;
      }
      replayed.push({
        id: r.id,
        validateState: stored.validateState,
        grantedCredit: stored.grantedCredit,
        claimedCredit: stored.claimedCredit,
        pfcMode: stored.pfcMode,
        replayed: true,
      });
    });
    return run.runWorkunit(wu, fresh, replayed);
  });
  return { workunits: outcomes, effects: run.effects, conflicts, after: run.after() };
}

function fairExplanation(fair: FairResultClaim, app: PassApp): FairExplanation {
  return {
    rule: fair.rule,
    claimedCredit: pfcToCreditExpanded(fair.pfc),
    paidShare: fair.paidShare,
    feedsQuantiles: fair.feedsQuantiles,
    heldOutByGate: fair.heldOutByGate,
    founder: fair.founder,
    versionSealed: fair.sealed,
    heldOutBySeal: fair.heldOutBySeal,
    appLevel: app.fairLevel ?? null,
    appAnchor: app.fairSRef ?? null,
  };
}
