/**
 * The credit BOINC would grant a validated result, as a range the bridge checks every answer
 * against before it writes a credit (docs/bridge.md, "What the bridge refuses"). BOINC's
 * validator never grants a negative credit, nor more than its --max_granted_credit (the daemon's
 * command line in config.xml; BOINC's default one TeraFLOP-year, 7.3e7). The service caps each
 * app at its own max_granted_credit (0: no cap), so a credit above it is not the service's
 * answer either. Pure.
 */
import { DEFAULT_MAX_GRANTED_CREDIT } from "../../src/credit/constants";
import { pfcToCreditExpanded } from "../../src/credit/pfc";

export { DEFAULT_MAX_GRANTED_CREDIT };

/** The validator's caps: one per app named in config.xml, else `fallback` (--max-granted-credit, or BOINC's default). */
export interface ValidatorCaps {
  byApp: ReadonlyMap<string, number>;
  fallback: number;
}

export const BOINC_DEFAULT_CAPS: ValidatorCaps = { byApp: new Map(), fallback: DEFAULT_MAX_GRANTED_CREDIT };

/** The most a result of `app` may be granted: the validator's cap, lowered to the service's own for the app when it has one. */
export function creditCeiling(app: string, validator: ValidatorCaps, serviceMax: number | undefined): number {
  const own = validator.byApp.get(app) ?? validator.fallback;
  const cap = own > 0 ? own : Infinity;
  return serviceMax !== undefined && serviceMax > 0 ? Math.min(cap, serviceMax) : cap;
}

/** Float slack when an answered credit is held to one the bridge knows (posted, or computed as the service computes it). */
export const CREDIT_ROUNDING = 1e-9;

/** Why `credit` is not a credit BOINC would grant under `ceiling`, or null when it is. */
export function creditProblem(credit: unknown, ceiling: number): string | null {
  if (typeof credit !== "number" || !Number.isFinite(credit)) {
    return `${typeof credit === "number" ? credit : JSON.stringify(credit)} is not a finite number`;
  }
  if (credit < 0) return `${credit} is negative`;
  if (credit > ceiling) return `${credit} is more than the most BOINC grants for this app (${ceiling})`;
  return null;
}

/**
 * The most a result of a --credit_from_runtime app can be granted: each claim's FLOPs are cut to
 * the workunit's rsc_fpops_bound once they pass twice that, so no claim, and no average of
 * claims, is above twice the bound's credit (docs/bridge.md, "What the bridge refuses").
 */
export function runtimeCeiling(rscFpopsBound: number): number {
  return pfcToCreditExpanded(2 * rscFpopsBound);
}

/** Per app: the ceilings of a run, from the validator's caps and the service's apps. */
export class CreditCeilings {
  private readonly byApp = new Map<string, number>();
  private readonly modes = new Map<string, string>();
  private readonly names: ReadonlyMap<number, string>;

  /**
   * `databaseApps`: BOINC's app ids and names, for a ceiling by app id (the write-back's rows carry
   * ids). A service app's `credit_mode` is the run's (a run whose modes differ stops before posting).
   */
  constructor(
    private readonly validator: ValidatorCaps,
    serviceApps: readonly { name: string; max_granted_credit: number; credit_mode?: string }[],
    databaseApps: readonly { id: number; name: string }[] = [],
  ) {
    for (const a of serviceApps) {
      this.byApp.set(a.name, creditCeiling(a.name, validator, a.max_granted_credit));
      if (a.credit_mode !== undefined) this.modes.set(a.name, a.credit_mode);
    }
    this.names = new Map(databaseApps.map((a) => [Number(a.id), a.name]));
  }

  /** The most a result of `app` in a workunit of `rscFpopsBound` may be granted: lower for a runtime app. */
  ofWorkunit(app: string, rscFpopsBound: number): number {
    const cap = this.of(app);
    return this.modes.get(app) === "runtime" ? Math.min(cap, runtimeCeiling(rscFpopsBound)) : cap;
  }

  of(app: string): number {
    return this.byApp.get(app) ?? creditCeiling(app, this.validator, undefined);
  }

  /** By BOINC's app id; an id the database did not list gets the validator's fallback. */
  ofAppId(id: number): number {
    const name = this.names.get(id);
    if (name !== undefined) return this.of(name);
    return this.validator.fallback > 0 ? this.validator.fallback : Infinity;
  }
}
