/**
 * The fair statistics through one validator pass. Unlike BOINC's per-result copies, the
 * fair policy's reference model (its traces: test/fixtures/traces/README.md#fair-policy-traces) updates host and version state live,
 * result by result (docs/spec/fair-policy.md#order-within-a-pass), so this keeps one current state per host ×
 * version and per version, and hands the pass's final states to the writer.
 */
import { type FairRule, type FairMeasurements, expectedPfc, fairClaim, versionScale } from "./fair-claim";
import { boundFairClaim } from "./fair-credit";
import { defaultSeedScale } from "./fair-scales";
import { type FairHostState, type FairVersionState, NEW_FAIR_VERSION, afterValid, newFairHost } from "./fair-state";
import { type HostAppVersionKey, havKey } from "./host-app-version-key";
import type { WorkunitEstimate } from "./pfc";

export interface FairVersionInput {
  readonly planClass?: string;
  readonly fair?: FairVersionState;
}

export interface FairResultClaim {
  /** The PFC the fair policy pays this result, within [0, rsc_fpops_bound]. */
  readonly pfc: number;
  readonly rule: FairRule;
  /** w_v: the share of z a non-outlier is paid (the version before this result). */
  readonly paidShare: number;
  /** Whether this result's z fed the version's quantiles. */
  readonly feedsQuantiles: boolean;
  /** Whether the gate held this host's z out of them. */
  readonly heldOutByGate: boolean;
  /** Version 3: whether the seal held this host out of every version statistic (not a founder). */
  readonly heldOutBySeal: boolean;
  /** Whether the host × version row is a founder of its version, and the version is sealed. */
  readonly founder: boolean;
  readonly sealed: boolean;
  /** Expected PFC after this result (the workunit's anchor), null while the version has no level. */
  readonly expected: number | null;
}

export interface FairHostChange {
  readonly key: HostAppVersionKey;
  readonly state: FairHostState;
}

export class FairPassState {
  private readonly hosts: Map<string, FairHostState>;
  private readonly versions = new Map<number, FairVersionState>();
  /** The final state of every host × version and version this pass touched. */
  readonly changedHosts = new Map<string, FairHostChange>();
  readonly changedVersions = new Map<number, FairVersionState>();

  constructor(
    hosts: ReadonlyMap<string, FairHostState> | undefined,
    private readonly versionInputs: ReadonlyMap<number, FairVersionInput>,
  ) {
    this.hosts = new Map(hosts ?? []);
  }

  private version(id: number): FairVersionState {
    return this.versions.get(id) ?? this.versionInputs.get(id)?.fair ?? NEW_FAIR_VERSION;
  }

  /** A valid result of a regular (not anonymous-platform) version: docs/spec/fair-policy.md#r0 then docs/spec/fair-policy.md#r1. */
  claim(
    key: HostAppVersionKey,
    r: FairMeasurements,
    wu: WorkunitEstimate,
    hostScaleCheck: boolean,
    consecutiveValid: number,
    appLevel: number | null,
  ): FairResultClaim {
    const k = havKey(key);
    const defaultScale = defaultSeedScale(this.versionInputs.get(key.appVersionId)?.planClass ?? "");
    const version = this.version(key.appVersionId);
    const out = fairClaim({
      result: r,
      wu,
      hostScaleCheck,
      consecutiveValid,
      // A row the pass creates is a founder unless its version is sealed (docs/spec/fair-policy.md#founders).
      host: afterValid(this.hosts.get(k) ?? newFairHost(version)),
      version,
      defaultScale,
      appLevel,
    });
    this.hosts.set(k, out.host);
    this.changedHosts.set(k, { key, state: out.host });
    this.versions.set(key.appVersionId, out.version);
    this.changedVersions.set(key.appVersionId, out.version);
    const scale = versionScale(out.version, defaultScale);
    return {
      pfc: boundFairClaim(out.pfc, wu.rscFpopsEst, wu.rscFpopsBound, scale),
      rule: out.rule,
      paidShare: out.paidShare,
      feedsQuantiles: out.feedsQuantiles,
      heldOutByGate: out.heldOutByGate,
      heldOutBySeal: out.heldOutBySeal,
      founder: out.host.founder,
      sealed: out.version.sealed,
      expected: expectedPfc(wu.rscFpopsEst, out.version, defaultScale, appLevel),
    };
  }
}
