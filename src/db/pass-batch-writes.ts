/**
 * The writes of passes decided one after another (POST /pass-batches), for ONE atomic D1
 * batch whose size does not grow with the number of passes (docs/storage.md#pass-batches).
 * The hosts, users, teams and the project row walk every pass's grant runs in order, each at
 * its pass's `now`, after one statement for the day buckets the walks finish (holder-walks.ts).
 * The app versions' RAC walks the same way (versionCreditWalk). What only inserts rows or sets
 * values the last pass decides is written once for the batch: results and workunits (each row
 * with its own pass's time), new hosts, users and teams (the first naming pass's `now`; the
 * last owner and team: no statement of a pass reads them), the host_app_versions' walks over
 * all the passes' changes in pass order (host-app-version-writes.ts; a change takes no `now`), the
 * app versions' PFC walks over every pass's samples in order (the same steps) with their final
 * fair states, one statement per version, one per-app credit queue row (each run with its
 * pass's `now`), and one KV mark row.
 */
import type { SQL } from "drizzle-orm";
import type { FairHostChange } from "../credit/fair-pass";
import type { FairVersionState } from "../credit/fair-state";
import type { PassEffects } from "../credit/pass";
import { appCreditQueueWrites } from "./app-credit-queue";
import { attributionCountWrites } from "./holder-counts";
import { dirtySubjects, markSubjects } from "./kv-marks";
import { type ExistingHolders, type FreshHolders, freshHolders, grantGroups } from "./grant-groups";
import { attributionWrites, outcomeInserts, versionStateWrites, workunitInserts } from "./pass-writes";
import type { HistoryTarget } from "./history-transitions";
import { holderWalkWrites, runStep, storedWalkUpdate } from "./holder-walks";
import { QueueNumbers } from "./queue-numbers";
import { hostAppVersionWrites } from "./host-app-version-writes";
import { appVersions } from "./schema";
import { wholeSeconds } from "./sql-helpers";
import { APP_VERSION_CREDIT_COLUMNS } from "./credit-columns";
import { numberSteps } from "./walks";
import { assembleWrites } from "./write-phases";

/** One pass's effects and the `now` it was decided at. */
export interface TimedEffects {
  readonly now: number;
  readonly effects: PassEffects;
}

/** The batch's writes, as one batch in the order of WRITE_PHASES (write-phases.ts). */
export function passBatchWrites(
  projectId: number,
  passes: readonly TimedEffects[],
  existing: ExistingHolders,
  history?: HistoryTarget,
): SQL[] {
  const all = <T>(pick: (e: PassEffects) => readonly T[]) => passes.flatMap((p) => pick(p.effects));
  // Holders a pass both creates and credits are inserted by its grant statement (as for a pass
  // alone); a holder exists for every later pass once a pass has named it.
  const known = { hosts: new Set(existing.hosts), users: new Set(existing.users), teams: new Set(existing.teams) };
  const groups = passes.map(({ now, effects }) => ({ now, groups: grantGroups(effects.grants) }));
  const fresh: FreshHolders[] = passes.map(({ effects }, k) => {
    const f = freshHolders(effects, groups[k]!.groups, known);
    for (const a of effects.attributions) {
      known.hosts.add(a.hostId);
      if (a.userId !== 0) known.users.add(a.userId);
      if (a.userId !== 0 && a.teamId !== 0) known.teams.add(a.teamId);
    }
    return f;
  });
  const insertedByGrants = {
    hosts: new Set(fresh.flatMap((f) => [...f.hosts.keys()])),
    users: new Set(fresh.flatMap((f) => [...f.users.keys()])),
    teams: new Set(fresh.flatMap((f) => [...f.teams.keys()])),
  };
  const pfcSamples = new Map<number, number[]>();
  const fairVersions = new Map<number, FairVersionState>();
  // A host_app_version's fair state is absolute: the last pass's is the one to write.
  const fairHosts = new Map<string, FairHostChange>();
  for (const { effects } of passes) {
    for (const [id, samples] of effects.versionPfcSamples) pfcSamples.set(id, [...(pfcSamples.get(id) ?? []), ...samples]);
    for (const [id, state] of effects.fairVersions) fairVersions.set(id, state);
    for (const [key, change] of effects.fairHostAppVersions) fairHosts.set(key, change);
  }
  const attributions = passes.map((p) => ({ now: p.now, attributions: p.effects.attributions }));
  const queue = new QueueNumbers(projectId);
  // Before the walks: the project's walk raises queue_seq past every number taken.
  const appCreditQueue = appCreditQueueWrites(projectId, groups, queue);
  const walks = holderWalkWrites(
    projectId,
    passes.map(({ now, effects }, k) => ({ now, groups: groups[k]!.groups, grants: effects.grants, fresh: fresh[k]! })),
    queue,
    history,
  );
  return assembleWrites({
    holderCounts: attributionCountWrites(
      projectId,
      all((e) => e.attributions),
    ),
    outcomes: outcomeInserts(
      projectId,
      0,
      passes.flatMap(({ now, effects }) => effects.results.map((r) => ({ ...r, outcome: r.validateState, decidedAt: now }))),
    ),
    workunits: workunitInserts(
      projectId,
      passes.flatMap(({ now, effects }) =>
        effects.workunits.map((w) => ({ id: w.id, appId: w.appId, credit: w.credit, at: wholeSeconds(now) })),
      ),
    ),
    holders: attributionWrites(projectId, attributions, (kind, id) => !insertedByGrants[kind].has(id)),
    hostAppVersions: hostAppVersionWrites(
      projectId,
      all((e) => e.hostAppVersionsSeen),
      all((e) => e.hostAppVersionChanges),
      fairHosts,
    ),
    finishedDays: walks.history,
    holderCredit: walks.holders,
    appCreditQueue,
    projectCredit: walks.projectRow,
    versionCredit: versionCreditWalk(projectId, passes),
    // A holder a grant inserted takes the owner or team the batch's last pass gives it (written only if another).
    grantedHolders: attributionWrites(projectId, attributions, (kind, id) => kind !== "teams" && insertedByGrants[kind].has(id)),
    versions: versionStateWrites(projectId, [...pfcSamples.keys()], pfcSamples, fairVersions),
    kvMarks: markSubjects(projectId, dirtySubjects(all((e) => e.attributions))),
  });
}

/**
 * The app versions' credit samples of every pass as ONE statement: each version walks the RAC
 * runs of the passes that credited it, in pass order and each at its pass's `now` (the step a
 * pass alone writes: APP_VERSION_CREDIT_COLUMNS), and keeps the last step. No other statement
 * of the batch reads or writes these columns, so one walk after the passes equals a run per
 * pass. The holders' walk of stored rows (holder-walks.ts storedWalkUpdate).
 */
function versionCreditWalk(projectId: number, passes: readonly TimedEffects[]): SQL[] {
  const steps = passes.flatMap(({ now, effects }) =>
    [...effects.versionCreditSamples].map(([id, samples]) =>
      runStep(
        id,
        now,
        samples.map((x) => ({ credit: x.credit, start: x.time })),
      ),
    ),
  );
  return storedWalkUpdate(projectId, appVersions, "v_", APP_VERSION_CREDIT_COLUMNS, numberSteps(steps));
}
