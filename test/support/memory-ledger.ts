/**
 * An in-memory ledger that persists a pass's effects with the TypeScript forms of every
 * update, phase by phase in the order of WRITE_PHASES (src/db/write-phases.ts), as the D1
 * writers order their SQL twins. It lets the trace tests check
 * the pure engine on its own, fast, before the HTTP replay checks the whole service.
 */
import { AV_AVERAGE } from "../../src/credit/constants";
import { type Average, EMPTY_AVERAGE, updateAverage } from "../../src/credit/average";
import { DEFAULT_MAX_GRANTED_CREDIT, DEFAULT_MIN_AVG_PFC } from "../../src/credit/constants";
import { type CreditPolicy } from "../../src/credit/parameters";
import { computeFairScales } from "../../src/credit/fair-scales";
import {
  type FairHostState,
  type FairVersionState,
  NEW_FAIR_HOST,
  NEW_FAIR_VERSION,
  afterError,
  fairErrorEffect,
  newFairHost,
} from "../../src/credit/fair-state";
import type { CreditMode } from "../../src/credit/credit-mode";
import { errorEffect, type ErrorOutcome } from "../../src/credit/error-outcome";
import { type HostAppVersionKey, havKey, isAnonymousPlatform } from "../../src/credit/host-app-version-key";
import {
  type PassApp,
  type PassOutcome,
  type PassState,
  type StoredResult,
  type WorkunitInput,
  ZERO_HOST_APP_VERSION,
  runPass,
} from "../../src/credit/pass";
import { applyHostAppVersionSamples, type HostAppVersionStats } from "../../src/credit/pfc";
import { type RecentAverage, updateRecentAverage } from "../../src/credit/recent-average";
import { computeVersionScales, versionsInService } from "../../src/credit/version-scales";
import { WRITE_PHASES, type WritePhase } from "../../src/db/write-phases";

export interface LedgerVersion {
  id: number;
  appId: number;
  platform: string;
  planClass: string;
  versionNum: number;
  deprecated: boolean;
  pfc: Average;
  pfcScale: number;
  rac: RecentAverage;
  fair: FairVersionState;
}

export interface LedgerEntity {
  totalCredit: number;
  rac: RecentAverage;
}

export class MemoryLedger {
  apps = new Map<string, PassApp>();
  versions = new Map<number, LedgerVersion>();
  hostAppVersions = new Map<string, HostAppVersionStats>();
  creditedWorkunits = new Map<number, number>();
  finalResults = new Map<number, StoredResult>();
  hosts = new Map<number, LedgerEntity>();
  users = new Map<number, LedgerEntity>();
  teams = new Map<number, LedgerEntity>();
  fairHostAppVersions = new Map<string, FairHostState>();

  putApp(a: {
    name: string;
    hostScaleCheck?: boolean;
    targetNresults?: number;
    minAvgPfc?: number;
    creditMode?: CreditMode;
    maxGrantedCredit?: number;
    creditPolicy?: CreditPolicy;
  }): void {
    const held = this.apps.get(a.name);
    this.apps.set(a.name, {
      id: held?.id ?? this.apps.size + 1,
      name: a.name,
      hostScaleCheck: a.hostScaleCheck ?? held?.hostScaleCheck ?? false,
      targetNresults: a.targetNresults ?? held?.targetNresults ?? 0,
      minAvgPfc: a.minAvgPfc ?? held?.minAvgPfc ?? DEFAULT_MIN_AVG_PFC,
      creditMode: a.creditMode ?? held?.creditMode ?? "adaptive",
      maxGrantedCredit: a.maxGrantedCredit ?? held?.maxGrantedCredit ?? DEFAULT_MAX_GRANTED_CREDIT,
      creditPolicy: a.creditPolicy ?? held?.creditPolicy ?? "boinc",
      // Set by rescale only (docs/spec/fair-policy.md#r3, #r31): a change of settings keeps them.
      fairLevel: held?.fairLevel ?? null,
      fairSRef: held?.fairSRef ?? null,
    });
  }

  putVersion(v: { id: number; app: string; platform: string; planClass: string; versionNum: number }): void {
    const held = this.versions.get(v.id);
    this.versions.set(v.id, {
      id: v.id,
      appId: this.apps.get(v.app)!.id,
      platform: v.platform,
      planClass: v.planClass,
      versionNum: v.versionNum,
      deprecated: false,
      pfc: held?.pfc ?? EMPTY_AVERAGE,
      pfcScale: held?.pfcScale ?? 0,
      rac: held?.rac ?? { expavgCredit: 0, expavgTime: 0 },
      fair: held?.fair ?? NEW_FAIR_VERSION,
    });
  }

  state(): PassState {
    return {
      apps: this.apps,
      versions: this.versions,
      hostAppVersions: this.hostAppVersions,
      creditedWorkunits: this.creditedWorkunits,
      finalResults: this.finalResults,
      fairHostAppVersions: this.fairHostAppVersions,
    };
  }

  pass(now: number, workunits: readonly WorkunitInput[]): PassOutcome {
    const outcome = runPass(this.state(), workunits);
    if (outcome.conflicts.length > 0) return outcome;
    const e = outcome.effects;
    const apply: Partial<Record<WritePhase, () => void>> = {
      outcomes: () => {
        for (const r of e.results) this.finalResults.set(r.id, r);
      },
      workunits: () => {
        for (const w of e.workunits) this.creditedWorkunits.set(w.id, w.credit);
      },
      holders: () => {
        for (const a of e.attributions) {
          this.ensure(this.hosts, a.hostId, now);
          if (a.userId !== 0) this.ensure(this.users, a.userId, now);
          if (a.userId !== 0 && a.teamId !== 0) this.ensure(this.teams, a.teamId, now);
        }
      },
      hostAppVersions: () => {
        for (const k of e.hostAppVersionsSeen) {
          if (!this.hostAppVersions.has(havKey(k))) this.createRow(k);
        }
        for (const c of e.hostAppVersionChanges) {
          const key = havKey(c);
          const hav = this.hostAppVersions.get(key) ?? ZERO_HOST_APP_VERSION;
          const next = applyHostAppVersionSamples(hav, c.samples);
          const consecutiveValid =
            c.consecutiveValid === "increment" ? hav.consecutiveValid + 1 : c.consecutiveValid === "reset" ? 0 : hav.consecutiveValid;
          this.hostAppVersions.set(key, { ...next, consecutiveValid });
        }
        for (const [key, c] of e.fairHostAppVersions) this.fairHostAppVersions.set(key, c.state);
      },
      holderCredit: () => {
        for (const g of e.grants) {
          this.grant(this.hosts, g.hostId, now, g.startTime, g.credit);
          if (g.userId !== 0) this.grant(this.users, g.userId, now, g.startTime, g.credit);
          if (g.userId !== 0 && g.teamId !== 0) this.grant(this.teams, g.teamId, now, g.startTime, g.credit);
        }
      },
      versions: () => {
        for (const [id, samples] of e.versionPfcSamples) {
          const v = this.versions.get(id)!;
          v.pfc = samples.reduce((acc, x) => updateAverage(acc, x, AV_AVERAGE), v.pfc);
        }
        for (const [id, fair] of e.fairVersions) this.versions.get(id)!.fair = fair;
        for (const [id, samples] of e.versionCreditSamples) {
          const v = this.versions.get(id)!;
          for (const s of samples) v.rac = updateRecentAverage(v.rac, now, s.time, s.credit);
        }
      },
    };
    for (const { phase } of WRITE_PHASES) apply[phase]?.();
    return outcome;
  }

  private ensure(table: Map<number, LedgerEntity>, id: number, now: number): LedgerEntity {
    // First seen in a pass: the RAC clock starts at the pass's now (docs/spec/credit.md#first-seen).
    let e = table.get(id);
    if (!e) {
      e = { totalCredit: 0, rac: { expavgCredit: 0, expavgTime: now } };
      table.set(id, e);
    }
    return e;
  }

  private grant(table: Map<number, LedgerEntity>, id: number, now: number, start: number, credit: number): void {
    const e = this.ensure(table, id, now);
    e.totalCredit += credit;
    e.rac = updateRecentAverage(e.rac, now, start, credit);
  }

  error(hostId: number, appVersionId: number, app: string | undefined, outcome: ErrorOutcome, delayBound?: number): void {
    const appRow =
      appVersionId < 0 ? this.apps.get(app!)! : [...this.apps.values()].find((a) => a.id === this.versions.get(appVersionId)!.appId)!;
    const key = havKey({ hostId, appId: appRow.id, appVersionId });
    const hav = this.hostAppVersions.get(key);
    const effect = errorEffect(outcome, hav !== undefined, delayBound);
    if (effect) {
      if (hav === undefined) this.createRow({ hostId, appId: appRow.id, appVersionId });
      const next = applyHostAppVersionSamples(hav ?? ZERO_HOST_APP_VERSION, effect.samples);
      this.hostAppVersions.set(key, { ...next, consecutiveValid: effect.resetConsecutiveValid ? 0 : next.consecutiveValid });
    }
    const fairPays = appRow.creditPolicy === "fair" && !isAnonymousPlatform(appVersionId);
    const fair = fairErrorEffect(outcome, this.hostAppVersions.has(key), fairPays);
    if (fair.createsRow) this.createRow({ hostId, appId: appRow.id, appVersionId });
    if (fair.counts) this.fairHostAppVersions.set(key, afterError(this.fairHostAppVersions.get(key) ?? NEW_FAIR_HOST));
  }

  /** A new host × version row: zeroed, and a founder unless its version is sealed now (as the SQL insert decides). */
  private createRow(key: HostAppVersionKey): void {
    this.hostAppVersions.set(havKey(key), ZERO_HOST_APP_VERSION);
    const version = this.versions.get(key.appVersionId)?.fair ?? NEW_FAIR_VERSION;
    this.fairHostAppVersions.set(havKey(key), newFairHost(version));
  }

  rescale(): void {
    for (const app of this.apps.values()) {
      const versions = [...this.versions.values()].filter((v) => v.appId === app.id);
      const scales = computeVersionScales(versionsInService(versions));
      if (!scales) continue;
      for (const id of scales.scaledVersionIds) {
        const v = this.versions.get(id)!;
        v.pfcScale = scales.minAvgPfc / v.pfc.avg;
      }
      this.apps.set(app.name, { ...app, minAvgPfc: scales.minAvgPfc });
    }
    for (const app of this.apps.values()) {
      const versions = [...this.versions.values()].filter((v) => v.appId === app.id && !v.deprecated);
      const fair = computeFairScales(versions, null, { sRef: app.fairSRef ?? null });
      for (const [id, scale] of fair.scales) {
        const v = this.versions.get(id)!;
        v.fair = { ...v.fair, scale, ownScale: fair.ownScale.has(id), sealed: fair.sealed.has(id) };
      }
      // The app's S and anchor, as the rescale stores them on the app row.
      if (fair.level !== null) this.apps.set(app.name, { ...this.apps.get(app.name)!, fairLevel: fair.level, fairSRef: fair.sRef });
    }
  }
}
