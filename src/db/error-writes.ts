/**
 * The write batch of reported client errors, timeouts and aborts (POST …/errors), in the
 * order of WRITE_PHASES (write-phases.ts): the outcomes (an id already decided fails the whole
 * batch), the host_app_versions' changes (a row the report names first is inserted), then the
 * fair error rate of the rows that count one (docs/spec/fair-policy.md#r0).
 */
import type { SQL } from "drizzle-orm";
import type { HostAppVersionKey } from "../credit/host-app-version-key";
import type { HostAppVersionChange } from "../credit/pass";
import { fairErrorWrites } from "./fair-rows";
import { hostAppVersionWrites } from "./host-app-version-writes";
import { type OutcomeRow, outcomeInserts } from "./outcome-writes";
import { assembleWrites } from "./write-phases";

export interface ErrorEffects {
  readonly outcomes: readonly OutcomeRow[];
  /** host_app_versions the snapshot did not hold, inserted by this batch. */
  readonly fresh: readonly HostAppVersionKey[];
  readonly changes: readonly HostAppVersionChange[];
  /** Rows whose fair error rate counts an error (a key once per error). */
  readonly fairErrors: readonly HostAppVersionKey[];
}

export function errorWrites(projectId: number, now: number, effects: ErrorEffects): SQL[] {
  return assembleWrites({
    outcomes: outcomeInserts(projectId, now, effects.outcomes),
    hostAppVersions: hostAppVersionWrites(projectId, effects.fresh, effects.changes),
    fairErrors: fairErrorWrites(projectId, effects.fairErrors),
  });
}
